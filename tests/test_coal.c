/* test_coal.c - lines, sectors and byte masks of one warp instruction
 * (hardware-facts.md §3.4: sectors = distinct 32 B sectors, lines = distinct
 * 128 B lines). */
#include <check.h>

#include "coal.h"
#include "suites.h"

static coal_geom geom;
static coal_result res;

static void setup(void)
{
    coal_geom_init(&geom, 128, 32);
}

/* lane l of the active lanes accesses base + stride * l with size bytes */
static void run_stride(uint64_t base, uint64_t stride, uint32_t size, uint32_t lanes)
{
    coal_chunk c[32];
    for (uint32_t l = 0; l < lanes; l++) {
        c[l].addr = base + stride * l;
        c[l].bytes = (uint8_t)size;
        c[l].lane = (uint8_t)l;
    }
    coal_run(&geom, c, lanes, &res);
}

START_TEST(coalesced_32bit_is_one_line_four_sectors)
{
    run_stride(0x7f0000000000ull, 4, 4, 32);
    ck_assert_uint_eq(res.n_lines, 1);
    ck_assert_uint_eq(res.n_sectors, 4);
    ck_assert_uint_eq(res.lines[0].line, 0x7f0000000000ull >> 7);
    ck_assert_uint_eq(res.lines[0].sector_mask, 0xf);
    for (int s = 0; s < 4; s++)
        ck_assert_uint_eq(res.lines[0].byte_mask[s], 0xffffffffu);
}
END_TEST

/* The §3.4 rows: sectors and lines (= L2 requests on a cold cache). */
START_TEST(measured_rows_sectors_and_lines)
{
    static const struct {
        uint64_t offset, stride;
        uint32_t size, sectors, lines;
    } rows[] = {
        {0, 4, 4, 4, 1},      /* LDG.32 coalesced */
        {0, 8, 4, 8, 2},      /* stride 8 B */
        {0, 32, 4, 32, 8},    /* stride 32 B */
        {0, 128, 4, 32, 32},  /* stride 128 B */
        {0, 2u << 20, 4, 32, 32}, /* stride 2 MiB */
        {0, 0, 4, 1, 1},      /* all same */
        {4, 4, 4, 5, 2},      /* coalesced +4 B misaligned */
        {0, 8, 8, 8, 2},      /* LDG.64 coalesced */
        {0, 16, 16, 16, 4},   /* LDG.128 coalesced */
        {0, 32, 16, 32, 8},   /* LDG.128 stride 32 B */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        run_stride(0x7f0000000000ull + rows[i].offset, rows[i].stride, rows[i].size, 32);
        ck_assert_msg(res.n_sectors == rows[i].sectors && res.n_lines == rows[i].lines,
                      "row %zu: %u sectors %u lines, expected %u / %u", i, res.n_sectors,
                      res.n_lines, rows[i].sectors, rows[i].lines);
    }
}
END_TEST

START_TEST(byte_masks_record_partial_sectors)
{
    /* one 4-byte word per sector, at byte 0 of each */
    run_stride(0x1000, 32, 4, 32);
    ck_assert_uint_eq(res.n_lines, 8);
    for (uint32_t i = 0; i < res.n_lines; i++) {
        ck_assert_uint_eq(res.lines[i].sector_mask, 0xf);
        for (int s = 0; s < 4; s++)
            ck_assert_uint_eq(res.lines[i].byte_mask[s], 0x0000000fu);
    }
    /* bytes 6..7 of a sector */
    coal_chunk c = {.addr = 0x2006, .bytes = 2, .lane = 0};
    coal_run(&geom, &c, 1, &res);
    ck_assert_uint_eq(res.lines[0].sector_mask, 0x1);
    ck_assert_uint_eq(res.lines[0].byte_mask[0], 0xc0u);
    /* a 16-byte access in the upper half of sector 3 */
    c.addr = 0x2070;
    c.bytes = 16;
    coal_run(&geom, &c, 1, &res);
    ck_assert_uint_eq(res.lines[0].sector_mask, 0x8);
    ck_assert_uint_eq(res.lines[0].byte_mask[3], 0xffff0000u);
}
END_TEST

START_TEST(lines_in_order_of_first_touch)
{
    coal_chunk c[4] = {
        {.addr = 0x300, .bytes = 4, .lane = 0},
        {.addr = 0x100, .bytes = 4, .lane = 1},
        {.addr = 0x304, .bytes = 4, .lane = 2},
        {.addr = 0x180, .bytes = 4, .lane = 3},
    };
    coal_run(&geom, c, 4, &res);
    ck_assert_uint_eq(res.n_lines, 3);
    ck_assert_uint_eq(res.lines[0].line, 0x300 >> 7);
    ck_assert_uint_eq(res.lines[1].line, 0x100 >> 7);
    ck_assert_uint_eq(res.lines[2].line, 0x180 >> 7);
    ck_assert_uint_eq(res.lines[0].byte_mask[0], 0xffu);
    ck_assert_uint_eq(res.n_sectors, 3);
}
END_TEST

START_TEST(no_chunks_no_lines)
{
    coal_run(&geom, NULL, 0, &res);
    ck_assert_uint_eq(res.n_lines, 0);
    ck_assert_uint_eq(res.n_sectors, 0);
}
END_TEST

START_TEST(byte_mask_helper)
{
    ck_assert_uint_eq(coal_byte_mask(0, 32), 0xffffffffu);
    ck_assert_uint_eq(coal_byte_mask(28, 4), 0xf0000000u);
    ck_assert_uint_eq(coal_byte_mask(3, 1), 0x8u);
}
END_TEST

Suite *coal_suite(void)
{
    Suite *s = suite_create("coal");
    TCase *tc = tcase_create("coalescing");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, coalesced_32bit_is_one_line_four_sectors);
    tcase_add_test(tc, measured_rows_sectors_and_lines);
    tcase_add_test(tc, byte_masks_record_partial_sectors);
    tcase_add_test(tc, lines_in_order_of_first_touch);
    tcase_add_test(tc, no_chunks_no_lines);
    tcase_add_test(tc, byte_mask_helper);
    suite_add_tcase(s, tc);
    return s;
}

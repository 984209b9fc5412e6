/* test_sassflow.c - paths through a kernel's SASS (model/sassflow.h): how
 * many instructions a warp executes between two PCs, and which registers
 * they read. */
#include <check.h>
#include <string.h>

#include "sassflow.h"
#include "suites.h"

/* A kernel from SASS lines, PC 16 x i for line i. */
static sassflow *flow_of(const char *const *sass, uint32_t n, trace_pc_info *pcs)
{
    for (uint32_t i = 0; i < n; i++)
        pcs[i] = (trace_pc_info){.pc = 16u * i, .sass = (char *)sass[i], .file = -1};
    return sassflow_create(pcs, n);
}

/* Whether an instruction of the path reads register r. */
static bool path_reads(const sassflow *f, const uint32_t *path, uint32_t n, unsigned r)
{
    for (uint32_t i = 0; i < n; i++)
        if ((sassflow_reads(f, path[i])[r / 64] >> (r % 64)) & 1u)
            return true;
    return false;
}

START_TEST(straight_line_code_counts_and_reads_what_lies_between)
{
    static const char *const k[] = {
        "LDG.E R9, desc[UR4][R8.64]",      /* 0 */
        "IMAD.WIDE R10, R9, 0x4, R6",      /* 1: reads R9, R6 */
        "LDG.E R11, desc[UR4][R10.64]",    /* 2 */
        "EXIT",                            /* 3 */
    };
    trace_pc_info pcs[4];
    sassflow *f = flow_of(k, 4, pcs);
    ck_assert_ptr_nonnull(f);
    uint32_t n = 99;
    const uint32_t *path;
    ck_assert(sassflow_between(f, 0x00, 0x20, &n, &path));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(path[0], 1);
    ck_assert(path_reads(f, path, n, 9) && path_reads(f, path, n, 6));
    ck_assert(!path_reads(f, path, n, 10) && !path_reads(f, path, n, 11));
    ck_assert_uint_eq(sassflow_reads32(f, 1), (1u << 9) | (1u << 6));
    /* from the entry: instructions 0 and 1 before PC 0x20, in order */
    ck_assert(sassflow_between(f, UINT32_MAX, 0x20, &n, &path));
    ck_assert_uint_eq(n, 2);
    ck_assert(path[0] == 0 && path[1] == 1);
    /* nothing runs after the EXIT */
    ck_assert(!sassflow_between(f, 0x30, 0x00, &n, &path));
    sassflow_destroy(f);
}
END_TEST

START_TEST(a_branch_skips_what_it_jumps_over_and_a_loop_comes_back)
{
    static const char *const k[] = {
        "LDG.E R2, desc[UR4][R4.64]",   /* 0 */
        "ISETP.NE.AND P0, PT, R2, RZ, PT", /* 1 */
        "@P0 BRA 0x60",                 /* 2: past the unrolled copy */
        "LDG.E R3, desc[UR4][R4.64]",   /* 3 */
        "LDG.E R5, desc[UR4][R4.64]",   /* 4 */
        "FADD R7, R3, R5",              /* 5 */
        "STG.E desc[UR4][R6.64], R7",   /* 6 */
        "IADD3 R8, R8, 0x1, RZ",        /* 7 */
        "@P1 BRA 0x60",                 /* 8: the loop's back edge */
        "EXIT",                         /* 9 */
    };
    trace_pc_info pcs[10];
    sassflow *f = flow_of(k, 10, pcs);
    uint32_t n;
    const uint32_t *path;
    /* 0 -> 6: ISETP, BRA taken: 2, not the PC distance's 5 */
    ck_assert(sassflow_between(f, 0x00, 0x60, &n, &path));
    ck_assert_uint_eq(n, 2);
    ck_assert(path[0] == 1 && path[1] == 2);
    ck_assert(path_reads(f, path, n, 2) && !path_reads(f, path, n, 3));
    /* 6 -> 6: IADD3, BRA back: 2 */
    ck_assert(sassflow_between(f, 0x60, 0x60, &n, &path));
    ck_assert_uint_eq(n, 2);
    ck_assert(path[0] == 7 && path[1] == 8);
    ck_assert(path_reads(f, path, n, 8));
    /* asked again: the same (from the pair cache) */
    ck_assert(sassflow_between(f, 0x00, 0x60, &n, &path));
    ck_assert_uint_eq(n, 2);
    ck_assert(path[0] == 1 && path[1] == 2);
    sassflow_destroy(f);
}
END_TEST

START_TEST(a_warp_without_records_runs_from_the_entry_to_its_nearest_exit)
{
    /* the empty kernel as the H200 compiles it: 2 instructions a warp, the
     * EXIT counted apart (measured: 16 for 8 warps, docs/timing.md) */
    static const char *const empty[] = {"LDC R1, c[0x0][0x28]", "EXIT", "BRA 0x20", "NOP"};
    trace_pc_info pcs[4];
    sassflow *f = flow_of(empty, 4, pcs);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(sassflow_entry_to_exit(f), 1);
    sassflow_destroy(f);
    /* a guard that exits early is the nearest EXIT, whatever the code after it */
    static const char *const guarded[] = {
        "S2R R0, SR_TID.X",                /* 0 */
        "ISETP.GE.AND P0, PT, R0, 0x40, PT", /* 1 */
        "@P0 EXIT",                        /* 2 */
        "LDG.E R2, desc[UR4][R4.64]",      /* 3 */
        "STG.E desc[UR4][R6.64], R2",      /* 4 */
        "EXIT",                            /* 5 */
    };
    trace_pc_info pcs6[6];
    f = flow_of(guarded, 6, pcs6);
    ck_assert_uint_eq(sassflow_entry_to_exit(f), 2);
    /* a path search afterwards is unaffected by the one to the exit */
    uint32_t n;
    const uint32_t *path;
    ck_assert(sassflow_between(f, 0x30, 0x40, &n, &path));
    ck_assert_uint_eq(n, 0);
    sassflow_destroy(f);
    /* no EXIT to reach: none */
    static const char *const spin[] = {"IADD3 R8, R8, 0x1, RZ", "BRA 0x0"};
    trace_pc_info pcs2[2];
    f = flow_of(spin, 2, pcs2);
    ck_assert_uint_eq(sassflow_entry_to_exit(f), UINT32_MAX);
    sassflow_destroy(f);
}
END_TEST

START_TEST(a_table_of_memory_instructions_or_with_gaps_has_no_flow)
{
    static const char *const mem[] = {"LDG.E R2, desc[UR4][R4.64]", "BAR.SYNC.DEFER_BLOCKING 0x0",
                                      "STS [R3], R2"};
    trace_pc_info pcs[3];
    ck_assert_ptr_null(flow_of(mem, 3, pcs));
    static const char *const gap[] = {"LDG.E R2, desc[UR4][R4.64]", "IADD3 R8, R8, 0x1, RZ"};
    sassflow_destroy(flow_of(gap, 2, pcs)); /* fills pcs; contiguous, it has a flow */
    pcs[1].pc = 0x40; /* a memory-only capture's table: PCs with gaps */
    ck_assert_ptr_null(sassflow_create(pcs, 2));
}
END_TEST

Suite *sassflow_suite(void)
{
    Suite *s = suite_create("sassflow");
    TCase *tc = tcase_create("paths");
    tcase_add_test(tc, straight_line_code_counts_and_reads_what_lies_between);
    tcase_add_test(tc, a_branch_skips_what_it_jumps_over_and_a_loop_comes_back);
    tcase_add_test(tc, a_warp_without_records_runs_from_the_entry_to_its_nearest_exit);
    tcase_add_test(tc, a_table_of_memory_instructions_or_with_gaps_has_no_flow);
    suite_add_tcase(s, tc);
    return s;
}

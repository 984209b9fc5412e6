/* test_smem.c - shared-memory wavefronts and bank conflicts: every measured
 * H200 row of hardware-facts.md §2.2 (one warp, one instruction), with the
 * exact lane -> offset patterns of research/ubench/h200_mem_counters*.cu, and
 * the Kepler 4-/8-byte bank modes of §2.3. */
#include <check.h>

#include "smem.h"
#include "suites.h"
#include "test_util.h"

#define pattern test_ubench_offset

typedef enum { LD, ST, ATOM } op;

typedef struct row {
    op kind;
    uint32_t size;
    int pat;
    uint32_t active; /* lanes 0 .. active-1 */
    uint32_t wf, bc;
    const char *what;
} row;

static const row h200_rows[] = {
    {LD, 4, 0, 32, 1, 0, "LDS.32 4l"},
    {LD, 4, 1, 32, 2, 1, "LDS.32 8l"},
    {LD, 4, 2, 32, 32, 31, "LDS.32 128l"},
    {LD, 4, 3, 32, 1, 0, "LDS.32 all same"},
    {LD, 4, 4, 32, 2, 1, "LDS.32 half-warps same banks, different rows"},
    {LD, 4, 5, 32, 1, 0, "LDS.32 4(l/2)"},
    {LD, 4, 6, 32, 1, 0, "LDS.32 4(l%8)"},
    {LD, 4, 0, 8, 1, 0, "LDS.32 8 active 4l"},
    {LD, 4, 2, 8, 8, 7, "LDS.32 8 active 128l"},
    {LD, 8, 1, 32, 2, 0, "LDS.64 8l"},
    {LD, 8, 7, 32, 2, 0, "LDS.64 8(l%16)"},
    {LD, 8, 8, 32, 4, 2, "LDS.64 conflicts inside fixed half-warps"},
    {LD, 8, 16, 32, 1, 0, "LDS.64 8(l/2) Tn==Tn^1"},
    {LD, 8, 20, 32, 1, 0, "LDS.64 Tn==Tn^2"},
    {LD, 8, 17, 32, 4, 2, "LDS.64 16l"},
    {LD, 8, 3, 32, 1, 0, "LDS.64 all same"},
    {LD, 8, 1, 16, 1, 0, "LDS.64 16 active"},
    {LD, 8, 1, 1, 1, 0, "LDS.64 1 active"},
    {LD, 16, 9, 32, 4, 0, "LDS.128 16l"},
    {LD, 16, 19, 32, 4, 0, "LDS.128 16(l^1)"},
    {LD, 16, 10, 32, 4, 0, "LDS.128 16(l%4)"},
    {LD, 16, 13, 32, 4, 0, "LDS.128 16(l%8)"},
    {LD, 16, 11, 32, 2, 0, "LDS.128 16(l/2) Tn==Tn^1"},
    {LD, 16, 21, 32, 2, 0, "LDS.128 Tn==Tn^2"},
    {LD, 16, 12, 32, 8, 4, "LDS.128 conflicts inside fixed quarter-warps"},
    {LD, 16, 15, 32, 8, 4, "LDS.128 32l"},
    {LD, 16, 14, 32, 2, 0, "LDS.128 all same"},
    {LD, 16, 9, 8, 1, 0, "LDS.128 8 active"},
    {LD, 16, 9, 1, 1, 0, "LDS.128 1 active"},
    {ST, 4, 0, 32, 1, 0, "STS.32 linear"},
    {ST, 4, 1, 32, 2, 1, "STS.32 8l"},
    {ST, 4, 2, 32, 32, 31, "STS.32 128l"},
    {ST, 4, 3, 32, 1, 0, "STS.32 same"},
    {ST, 4, 5, 32, 1, 0, "STS.32 pairs"},
    {ST, 8, 1, 32, 2, 0, "STS.64 linear"},
    {ST, 8, 7, 32, 2, 0, "STS.64 8(l%16)"},
    {ST, 8, 8, 32, 4, 2, "STS.64 half-warp-discriminating"},
    {ST, 8, 3, 32, 2, 0, "STS.64 all same (stores never merge)"},
    {ST, 16, 9, 32, 4, 0, "STS.128 linear"},
    {ST, 16, 10, 32, 4, 0, "STS.128 16(l%4)"},
    {ST, 16, 13, 32, 4, 0, "STS.128 16(l%8)"},
    {ST, 16, 12, 32, 8, 4, "STS.128 quarter-discriminating"},
    {ST, 16, 14, 32, 4, 0, "STS.128 all same (stores never merge)"},
    {ATOM, 4, 0, 32, 1, 0, "ATOMS.ADD distinct words"},
    {ATOM, 4, 3, 32, 32, 31, "ATOMS.ADD same word"},
    {ATOM, 4, 2, 32, 32, 31, "ATOMS.ADD stride 128 B"},
};

/* The decision gpu.c makes: loads merge when pairing is on and they pair up. */
static smem_cost cost_of(const smem_geom *g, bool pairing, op kind, uint32_t size,
                         const uint64_t *addr, uint32_t mask)
{
    bool merged = kind == LD && pairing && smem_lanes_pair_up(addr, mask);
    return smem_cost_warp(g, addr, mask, size, merged, kind == ATOM);
}

START_TEST(h200_measured_shared_rows)
{
    smem_geom g;
    smem_geom_init(&g, 32, 4, 4);
    for (size_t i = 0; i < sizeof h200_rows / sizeof h200_rows[0]; i++) {
        const row *r = &h200_rows[i];
        uint64_t addr[32];
        for (uint32_t l = 0; l < 32; l++)
            addr[l] = pattern(r->pat, l);
        uint32_t mask = r->active == 32 ? 0xffffffffu : (1u << r->active) - 1u;
        smem_cost c = cost_of(&g, true, r->kind, r->size, addr, mask);
        ck_assert_msg(c.wavefronts == r->wf && c.wavefronts - c.ideal == r->bc,
                      "%s: wf %u bc %u, measured %u / %u", r->what, c.wavefronts,
                      c.wavefronts - c.ideal, r->wf, r->bc);
    }
}
END_TEST

START_TEST(phases_by_access_size)
{
    smem_geom g;
    smem_geom_init(&g, 32, 4, 4);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 1, false), 32);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 4, false), 32);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 8, false), 16);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 16, false), 8);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 8, true), 32);
    ck_assert_uint_eq(smem_lanes_per_phase(&g, 16, true), 16);
    smem_geom k;
    smem_geom_init(&k, 32, 8, 4); /* Kepler: 256 B per phase */
    ck_assert_uint_eq(smem_lanes_per_phase(&k, 4, false), 32);
    ck_assert_uint_eq(smem_lanes_per_phase(&k, 8, false), 32);
    ck_assert_uint_eq(smem_lanes_per_phase(&k, 16, false), 16);
}
END_TEST

START_TEST(pairing_needs_every_active_lane_paired)
{
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 8u * (l / 2);
    ck_assert(smem_lanes_pair_up(addr, 0xffffffffu));
    /* lane 1 inactive: lane 0 has no active partner at l^1, none at l^2 either */
    ck_assert(!smem_lanes_pair_up(addr, 0xfffffffdu));
    addr[31] = 0x1000;
    ck_assert(!smem_lanes_pair_up(addr, 0xffffffffu));
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = pattern(20, l);
    ck_assert(smem_lanes_pair_up(addr, 0xffffffffu));
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 16u * l;
    ck_assert(!smem_lanes_pair_up(addr, 0xffffffffu));
}
END_TEST

START_TEST(empty_phases_are_skipped)
{
    smem_geom g;
    smem_geom_init(&g, 32, 4, 4);
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 16u * l;
    /* lanes 8..15 and 24..31: quarters 1 and 3 only */
    smem_cost c = smem_cost_warp(&g, addr, 0xff00ff00u, 16, false, false);
    ck_assert_uint_eq(c.wavefronts, 2);
    ck_assert_uint_eq(c.ideal, 2);
}
END_TEST

/* Kepler (hardware-facts §2.3; seed 002, the 21-point filter on float2).
 * 4-byte mode: bank = (addr >> 2) & 31, entry = addr >> 8, so words i and
 * i + 32 of one 64-word (256 B) segment share an entry. A warp reading 32
 * consecutive float2 covers 64 words: aligned to a segment they are one
 * entry per bank (1 wavefront); starting one float2 later (offset 8 B) words
 * 2..65, and words 64/65 fall in the next segment, in banks 0 and 1 which
 * already hold words 32/33 of the first: 2 entries there, 2 wavefronts,
 * 1 conflict. 8-byte mode: bank = (addr >> 3) & 31, 32 consecutive 8-byte
 * words hit 32 different banks whatever the start: 1 wavefront. */
START_TEST(kepler_float2_seed002)
{
    smem_geom four, eight;
    smem_geom_init(&four, 32, 8, 4);
    smem_geom_init(&eight, 32, 8, 8);
    uint64_t aligned[32], shifted[32];
    for (uint32_t l = 0; l < 32; l++) {
        aligned[l] = 0x400 + 8u * l;
        shifted[l] = 0x400 + 8u + 8u * l;
    }
    smem_cost c = smem_cost_warp(&four, aligned, 0xffffffffu, 8, false, false);
    ck_assert_uint_eq(c.wavefronts, 1);
    ck_assert_uint_eq(c.ideal, 1);
    c = smem_cost_warp(&four, shifted, 0xffffffffu, 8, false, false);
    ck_assert_uint_eq(c.wavefronts, 2);
    ck_assert_uint_eq(c.wavefronts - c.ideal, 1);
    c = smem_cost_warp(&eight, aligned, 0xffffffffu, 8, false, false);
    ck_assert_uint_eq(c.wavefronts, 1);
    c = smem_cost_warp(&eight, shifted, 0xffffffffu, 8, false, false);
    ck_assert_uint_eq(c.wavefronts, 1);
    ck_assert_uint_eq(c.ideal, 1);
}
END_TEST

/* More Kepler consequences of the same rule. */
START_TEST(kepler_bank_modes_other_cases)
{
    smem_geom four, eight;
    smem_geom_init(&four, 32, 8, 4);
    smem_geom_init(&eight, 32, 8, 8);
    uint64_t a[32];
    /* 32-bit stride 8 B: words 0, 2, .., 62 of one segment; Fermi-style banks
     * would give 2 wavefronts, Kepler's 64-bit entries give 1 */
    for (uint32_t l = 0; l < 32; l++)
        a[l] = 8u * l;
    ck_assert_uint_eq(smem_cost_warp(&four, a, 0xffffffffu, 4, false, false).wavefronts, 1);
    /* 32-bit stride 256 B: one bank, 32 entries, in both modes */
    for (uint32_t l = 0; l < 32; l++)
        a[l] = 256u * l;
    ck_assert_uint_eq(smem_cost_warp(&four, a, 0xffffffffu, 4, false, false).wavefronts, 32);
    ck_assert_uint_eq(smem_cost_warp(&eight, a, 0xffffffffu, 4, false, false).wavefronts, 32);
    /* 32-bit stride 128 B: 4-byte mode bank 0 with two words per entry (16
     * entries); 8-byte mode banks 0 and 16, 16 entries each */
    for (uint32_t l = 0; l < 32; l++)
        a[l] = 128u * l;
    ck_assert_uint_eq(smem_cost_warp(&four, a, 0xffffffffu, 4, false, false).wavefronts, 16);
    ck_assert_uint_eq(smem_cost_warp(&eight, a, 0xffffffffu, 4, false, false).wavefronts, 16);
    /* 128-bit linear: two half-warp phases of 256 B, 1 wavefront each */
    for (uint32_t l = 0; l < 32; l++)
        a[l] = 16u * l;
    smem_cost c = smem_cost_warp(&four, a, 0xffffffffu, 16, false, false);
    ck_assert_uint_eq(c.wavefronts, 2);
    ck_assert_uint_eq(c.ideal, 2);
}
END_TEST

Suite *smem_suite(void)
{
    Suite *s = suite_create("smem");
    TCase *tc = tcase_create("banks");
    tcase_add_test(tc, h200_measured_shared_rows);
    tcase_add_test(tc, phases_by_access_size);
    tcase_add_test(tc, pairing_needs_every_active_lane_paired);
    tcase_add_test(tc, empty_phases_are_skipped);
    tcase_add_test(tc, kepler_float2_seed002);
    tcase_add_test(tc, kepler_bank_modes_other_cases);
    suite_add_tcase(s, tc);
    return s;
}

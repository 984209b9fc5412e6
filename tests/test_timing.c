/* test_timing.c - the timing layer (model/timing.h) on hand-built kernels
 * whose cycles can be worked out on paper from the config's constants. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "gpu.h"
#include "l2.h"
#include "suites.h"
#include "test_util.h"
#include "timing.h"

/* The H200 with its shipped [timing] constants, launch costs zeroed so that
 * a kernel's cycles are its own work. */
static void timing_cfg(cfg_gpu *c)
{
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", c, &e) == 0, "%s", e.msg);
    ck_assert(c->timing);
    c->t_launch_cycles = 0;
    c->t_cta_launch_mcycles = 0;
}

typedef struct rig {
    gpu *g;
    timing *t;
    trace_kernel k;
    trace_pc_info pcs[64];
    char sass[64][48];
} rig;

static void rig_open(rig *r, const cfg_gpu *c, uint32_t ctas, uint32_t threads)
{
    r->g = gpu_create(c);
    r->t = timing_create(c);
    gpu_observer o = timing_observer(r->t);
    gpu_set_observer(r->g, &o);
    test_kernel(&r->k, "k", ctas, threads);
    r->k.pcs = r->pcs;
}

/* PC table entry i at pc 16 * i (straight-line code, nothing between). */
static void rig_pc(rig *r, uint32_t i, const char *sass)
{
    snprintf(r->sass[i], sizeof r->sass[i], "%s", sass);
    r->pcs[i] = (trace_pc_info){.pc = 16u * i, .sass = r->sass[i], .file = -1};
    if (i + 1u > r->k.n_pcs)
        r->k.n_pcs = i + 1u;
}

static void rig_begin(rig *r)
{
    err_info e;
    err_clear(&e);
    ck_assert_msg(gpu_kernel_begin(r->g, &r->k, 0, &e) == 0, "%s", e.msg);
    timing_kernel_begin(r->t, &r->k, gpu_kernel_info_get(r->g));
}

static uint64_t rig_end(rig *r, timing_result *out)
{
    stats s;
    gpu_kernel_end(r->g, &s);
    timing_kernel_end(r->t, out);
    gpu_destroy(r->g);
    timing_destroy(r->t);
    return out->cycles;
}

static void mem(rig *r, uint32_t cta, uint32_t warp, uint32_t pc_i, trace_kind kind, trace_space space,
                uint64_t base, int64_t stride)
{
    trace_mem m;
    test_mem(&m, kind, space, 4, TRACE_FULL_MASK, base, stride);
    m.cta = cta;
    m.warp = warp;
    m.pc = 16u * pc_i;
    gpu_mem(r->g, &m);
}

static void bar(rig *r, uint32_t cta, uint32_t warp, uint32_t pc_i)
{
    trace_barrier b = {.cta = cta, .warp = warp, .sm = TRACE_SM_UNKNOWN, .pc = 16u * pc_i};
    gpu_barrier(r->g, &b);
    timing_barrier(r->t, &b);
}

/* An address whose line is homed in partition 0, the partition of SM 0 (CTA
 * 0's SM): its requests do not cross the fabric. */
static uint64_t near_address(const cfg_gpu *c)
{
    l2 *l = l2_create(c);
    uint64_t a = 0x100000;
    while (l2_home_partition(l, a / c->l2_line_bytes) != 0)
        a += 4096;
    l2_destroy(l);
    return a;
}

/* n dependent loads of one address (LDG R2, [R2.64]: each load's address is
 * the previous one's data): the first misses to DRAM, the rest hit L1. */
static uint64_t chain(uint32_t n)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    for (uint32_t i = 0; i < n; i++)
        rig_pc(&r, i, "LDG.E R2, desc[UR4][R2.64]");
    rig_begin(&r);
    for (uint32_t i = 0; i < n; i++)
        mem(&r, 0, 0, i, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_chain_of_dependent_loads_costs_one_latency_each)
{
    /* the cold load: tag stage 1 cycle, 285 / 2 = 142 to its slice, 2 of
     * slice service (one lookup, one L2 cycle: at 64 B per L2 cycle and an L2
     * clock of 0.86 a 32-cycle bin holds 55 sector units, a lookup books 2 of
     * them, ceil(2 x 32 / 55) = 2 cycles), (685 - 285) / 2 = 200 to DRAM, 1 of
     * DRAM service, 200 back to the slice, 143 back to the SM: 1 + 142 + 2 +
     * 200 + 1 + 200 + 143 = 689 */
    uint64_t one = chain(1);
    ck_assert_uint_eq(one, 689);
    /* each further load waits for the previous one's data (its address),
     * then takes the tag stage (1 cycle) and the L1 hit latency (37) */
    ck_assert_uint_eq(chain(9) - one, 8u * (1u + 37u));
    /* more records than the timing layer's event queue holds (32): the same */
    ck_assert_uint_eq(chain(60) - one, 59u * (1u + 37u));
}
END_TEST

/* Independent loads do not wait for each other: two loads of different
 * registers cost one latency, not two. */
START_TEST(independent_loads_overlap)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_pc(&r, 1, "LDG.E R5, desc[UR4][R2.64+0x4]");
    rig_begin(&r);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    mem(&r, 0, 0, 1, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    timing_result res;
    /* the second issues at cycle 1 and hits L1 (the line was allocated by the
     * first): the kernel ends with the first load's data at 689 */
    ck_assert_uint_eq(rig_end(&r, &res), 689);
}
END_TEST

/* A stream limited by DRAM: 1 sector (32 bytes) per cycle, 4,096 sectors of
 * distinct lines from 32 SMs. It cannot end before 4,096 cycles of DRAM
 * service, nor much after 4,096 + one DRAM latency. */
START_TEST(a_stream_is_limited_by_dram_bandwidth)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_dram_bytes_per_cycle = 32;
    rig r;
    rig_open(&r, &c, 32, 1024);
    for (uint32_t i = 0; i < 32; i++) {
        char s[48];
        snprintf(s, sizeof s, "LDG.E R%u, desc[UR4][R2.64]", 4u + i);
        rig_pc(&r, i, s);
    }
    rig_begin(&r);
    /* CTA x warp y loads 4 lines (16 sectors) with a 16-byte stride... 32
     * CTAs x 8 warps x 4 loads x 4 sectors = 4,096 sectors */
    uint64_t base = 0x10000000;
    for (uint32_t cta = 0; cta < 32; cta++)
        for (uint32_t w = 0; w < 8; w++)
            for (uint32_t i = 0; i < 4; i++) {
                mem(&r, cta, w, i, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, base, 4);
                base += 128;
            }
    timing_result res;
    uint64_t cyc = rig_end(&r, &res);
    ck_assert_uint_ge(cyc, 4096);
    ck_assert_uint_le(cyc, 4096 + 688 + 64);
    /* and at the shipped 2,429 bytes per cycle the same stream is latency bound */
}
END_TEST

/* Shared-memory chain then a barrier: warp 1 waits at the barrier for warp
 * 0's K dependent LDS (24 cycles each: 1 data-stage wavefront + 23) and its
 * STS of the last value; whichever order the replay sees them in. */
static uint64_t barrier_case(bool warp1_first, uint32_t threads)
{
    enum { K = 4 };
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, threads);
    for (uint32_t i = 0; i < K; i++)
        rig_pc(&r, i, "LDS R2, [R2]");
    rig_pc(&r, K, "STS [R0], R2");
    rig_pc(&r, K + 1, "BAR.SYNC.DEFER_BLOCKING 0x0");
    rig_pc(&r, K + 2, "LDS R3, [R0]");
    rig_begin(&r);
    if (warp1_first)
        bar(&r, 0, 1, K + 1);
    for (uint32_t i = 0; i < K; i++)
        mem(&r, 0, 0, i, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    mem(&r, 0, 0, K, TRACE_KIND_ST, TRACE_SPACE_SHARED, 0, 4);
    bar(&r, 0, 0, K + 1);
    if (!warp1_first)
        bar(&r, 0, 1, K + 1);
    mem(&r, 0, 1, K + 2, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_barrier_waits_for_the_last_warp_in_any_replay_order)
{
    /* warp 0: LDS at 0, 24, 48, 72 (data at 96), STS issues at 96, arrives
     * at the barrier at 97; warp 1 is released at 97 + 12 + 2 x 2 warps
     * (findings §8), its LDS's data is ready 24 later: 137 */
    ck_assert_uint_eq(barrier_case(false, 64), 137);
    ck_assert_uint_eq(barrier_case(true, 64), 137);
    /* the same two warps' records in a CTA of 32 warps (the other 30 never
     * reach the trace): released at 97 + 12 + 64, data at 197 */
    ck_assert_uint_eq(barrier_case(false, 1024), 197);
}
END_TEST

/* Same-line atomics serialize at their slice: 32 lanes of one RED on one
 * address are 32 requests, 3.476 cycles apart. */
START_TEST(same_address_atomics_serialize)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5");
    rig_begin(&r);
    for (uint32_t i = 0; i < 100; i++)
        mem(&r, 0, 0, 0, TRACE_KIND_RED, TRACE_SPACE_GLOBAL, 0x200000, 0);
    timing_result res;
    uint64_t cyc = rig_end(&r, &res);
    /* 3,200 requests x 3.476 = 11,123 cycles of the atomic unit dominate */
    ck_assert_uint_ge(cyc, 11123);
    ck_assert_uint_le(cyc, 11123 + 1000);
}
END_TEST

/* 32 SMs of partition 0 (CTAs 0, 2, .., 62 on SMs 0, 2, .., 62) each store to
 * 16 lines of one 2 KiB granule homed in partition 0 (one slice), one sector
 * per line (16 lanes at a 128-byte stride): 512 write requests of 1 sector.
 * far: the odd CTAs instead (SMs of partition 1), whose writes cross the fabric. */
static uint64_t one_sector_writes(bool far)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.l2_n_gpc_partition = 0; /* SM s in partition s mod 2, as the layout above says */
    rig r;
    rig_open(&r, &c, 64, 32);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    uint64_t base = near_address(&c) & ~(uint64_t)2047u;
    for (uint32_t cta = far ? 1u : 0u; cta < 64; cta += 2) {
        trace_mem m;
        test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0xffffu, base, 128);
        m.cta = cta;
        m.pc = 0;
        gpu_mem(r.g, &m);
    }
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_slice_does_one_lookup_per_l2_cycle)
{
    /* each SM's store: tag stage 4 cycles (16 lines, 4 per cycle); its lines
     * leave at kernel end from cycle 4 and reach the slice at 4 + 142 = 146
     * (bin 4). Each request holds the slice one L2 cycle (2 of the bin's 55
     * units, see above), not half a cycle for its one sector: 1,024 units from
     * bin 4 fill bins 4..21 (18 x 55 = 990) and 34 of bin 22, so the last is
     * served at 22 x 32 + ceil(34 x 32 / 55) = 724 and acknowledged at 724 +
     * 143 = 867 (by sectors alone, 512 units: 9 bins + 17, 13 x 32 + 10 + 143 = 569) */
    ck_assert_uint_eq(one_sector_writes(false), 867);
    /* crossing the fabric: looked up first in the SM's own partition, arriving
     * at 146 + 176 / 2 = 234 (bin 7): 1,024 units fill bins 7..24 and 34 of bin
     * 25, the last near lookup ends at 25 x 32 + 20 = 820; then the home slice,
     * whose bookings follow the near ones at the same rate, ends one lookup
     * later in the same bin arithmetic, and the acknowledgement comes back in
     * 143 + 88 */
    uint64_t far = one_sector_writes(true);
    ck_assert_uint_ge(far, 820u + 2u + 143u + 88u);
    ck_assert_uint_le(far, 820u + 32u + 143u + 88u);
}
END_TEST

/* The GPU's dispatcher starts one CTA per 1.5 cycles (exactly, not rounded up
 * per CTA): CTA i starts at ceil(1.5 i). Each CTA's one LDS takes 1 data-stage
 * wavefront + 23. */
START_TEST(ctas_dispatch_at_the_exact_rate)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_cta_launch_mcycles = 1500;
    rig r;
    rig_open(&r, &c, 100, 32);
    rig_pc(&r, 0, "LDS R2, [R0]");
    rig_begin(&r);
    for (uint32_t cta = 0; cta < 100; cta++)
        mem(&r, cta, 0, 0, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    /* CTA 99 starts at ceil(148.5) = 149 and its data is ready at 149 + 24 =
     * 173 (rounding each start up, as before, gave 2 cycles per CTA: 222) */
    ck_assert_uint_eq(rig_end(&r, &res), 173);
}
END_TEST

START_TEST(sass_registers_are_parsed)
{
    timing_regs t;
    timing_parse_sass("LDG.E.64 R4, desc[UR6][R2.64+0x10]", true, &t);
    ck_assert_uint_eq(t.dst, 4);
    ck_assert(t.src[0] == ((1ull << 2) | (1ull << 3)));
    timing_parse_sass("STG.E desc[UR4][R6.64], R9", false, &t);
    ck_assert_uint_eq(t.dst, TIMING_NO_REG);
    ck_assert(t.src[0] == ((1ull << 6) | (1ull << 7) | (1ull << 9)));
    timing_parse_sass("STS [R0+0x200], RZ", false, &t);
    ck_assert(t.src[0] == 1ull);
    timing_parse_sass("LDS R200, [R130]", true, &t);
    ck_assert_uint_eq(t.dst, 200);
    ck_assert(t.src[2] == (1ull << 2) && t.src[0] == 0 && t.src[3] == 0);
}
END_TEST

START_TEST(a_config_without_timing_has_none)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/a100.ini", &c, &e) == 0, "%s", e.msg);
    ck_assert(!c.timing);
}
END_TEST

Suite *timing_suite(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("cycles");
    tcase_set_timeout(tc, 60); /* each case builds a whole H200; slow under the sanitizers */
    tcase_add_test(tc, a_chain_of_dependent_loads_costs_one_latency_each);
    tcase_add_test(tc, independent_loads_overlap);
    tcase_add_test(tc, a_stream_is_limited_by_dram_bandwidth);
    tcase_add_test(tc, a_barrier_waits_for_the_last_warp_in_any_replay_order);
    tcase_add_test(tc, same_address_atomics_serialize);
    tcase_add_test(tc, a_slice_does_one_lookup_per_l2_cycle);
    tcase_add_test(tc, ctas_dispatch_at_the_exact_rate);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("parsing");
    tcase_add_test(tp, sass_registers_are_parsed);
    tcase_add_test(tp, a_config_without_timing_has_none);
    suite_add_tcase(s, tp);
    return s;
}

/* test_timing.c - the timing layer (model/timing.h) on hand-built kernels
 * whose cycles can be worked out on paper from the config's constants; the
 * SMs' write queues (model/wqueue.h) on hand-made requests, on hand-built
 * kernels and on the suite's captures. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "gpu.h"
#include "l2.h"
#include "replay.h"
#include "sass.h"
#include "suites.h"
#include "test_util.h"
#include "timing.h"
#include "wqueue.h"

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
    c->t_cta_fill_mcycles_per_warp = 0;
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

/* End the kernel; the timing layer stays, so that what *out points into
 * (pc_cycles) can be read until rig_close. */
static uint64_t rig_end_open(rig *r, timing_result *out)
{
    stats s;
    gpu_kernel_end(r->g, &s);
    timing_kernel_end(r->t, out);
    return out->cycles;
}

static void rig_close(rig *r)
{
    gpu_destroy(r->g);
    timing_destroy(r->t);
}

static uint64_t rig_end(rig *r, timing_result *out)
{
    rig_end_open(r, out);
    rig_close(r);
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
static uint64_t chain_of(uint32_t n, const char *sass)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    for (uint32_t i = 0; i < n; i++)
        rig_pc(&r, i, sass);
    rig_begin(&r);
    for (uint32_t i = 0; i < n; i++)
        mem(&r, 0, 0, i, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    timing_result res;
    return rig_end(&r, &res);
}

static uint64_t chain(uint32_t n)
{
    return chain_of(n, "LDG.E R2, desc[UR4][R2.64]");
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
     * then takes the tag stage (1 cycle) and the L1 hit latency (32) */
    ck_assert_uint_eq(chain(9) - one, 8u * (1u + 32u));
    /* more records than the timing layer's event queue holds (32): the same */
    ck_assert_uint_eq(chain(60) - one, 59u * (1u + 32u));
}
END_TEST

/* Warp 0 reads sector 0 of a cold line (from DRAM, 689 cycles as above);
 * warp 1 then reads sector 1, which L2's 64-byte fetch brought beside it
 * (findings §15), and from its data 8 dependent loads that hit L1. Its read
 * is an L2 hit that waits for the pair's fill: warp 1 ends after warp 0's
 * data is back (fetch_sectors 2), not an L2 hit latency after it asked.
 * With one-sector fetches its read goes to DRAM itself. */
static uint64_t beside_pair(uint32_t fetch_sectors)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.l2_fetch_sectors = fetch_sectors;
    rig r;
    rig_open(&r, &c, 1, 64);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R4.64]");
    for (uint32_t i = 1; i < 10; i++)
        rig_pc(&r, i, "LDG.E R2, desc[UR4][R2.64]");
    rig_begin(&r);
    uint64_t a = near_address(&c);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    for (uint32_t i = 1; i < 10; i++)
        mem(&r, 0, 1, i, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a + 32u, 0);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_sector_fetched_beside_another_waits_for_its_fill)
{
    /* fill back at the slice at 689 - 143 = 546; warp 1's read there waits
     * for it, then 143 back; 8 L1 hits of 1 + 32 */
    uint64_t paired = beside_pair(2);
    ck_assert_uint_eq(paired, 689u + 8u * (1u + 32u));
    /* its own DRAM read, one cycle behind warp 0's on the tag stage and the
     * DRAM calendar */
    ck_assert_uint_ge(beside_pair(1), paired);
}
END_TEST

/* A guarded load writes its destination too: "@!P0 LDG R2, [R2.64]" chains
 * like the unguarded one (the opcode is read past the predicate; without
 * that, nothing waited for guarded loads and the chain cost one latency). */
START_TEST(a_guarded_load_has_a_destination)
{
    ck_assert_uint_eq(chain_of(9, "@!P0 LDG.E R2, desc[UR4][R2.64]"), chain(9));
    ck_assert_uint_eq(chain_of(9, "  @P1 LDG.E R2, desc[UR4][R2.64]") - chain(1), 8u * (1u + 32u));
}
END_TEST

/* What the model issues (smsp__inst_executed.sum under --timing): each
 * record, the instructions between it and the warp's last record, and every
 * warp's EXIT. This table holds every instruction (PCs 0..3), so they are
 * the control flow's path, here the PC distance; pc 0 again has no path (no
 * branch back) and counts as a backward jump of the PC rule, 2. A cp.async
 * is one instruction though traced as two records of its PC. The H200's
 * counts of the suite are met on 44 of 46 launches (docs/timing.md). */
START_TEST(the_model_counts_the_instructions_it_issues)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 96);
    rig_pc(&r, 0, "LDG.E R2, desc[UR4][R4.64]");
    rig_pc(&r, 1, "IMAD R3, R3, R3, RZ");
    rig_pc(&r, 2, "LDGSTS.E [R9], desc[UR6][R2.64]");
    rig_pc(&r, 3, "STG.E desc[UR4][R6.64], R2");
    rig_begin(&r);
    /* warp 0: pc 0, pc 3: 1 + 2 between + 1, and its EXIT: 5 */
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0x10000, 4);
    mem(&r, 0, 0, 3, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 0x20000, 4);
    /* warp 1: pc 0 twice (a loop's back edge, 2), EXIT: 1 + 2 + 1 + 1 = 5 */
    mem(&r, 0, 1, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0x10080, 4);
    mem(&r, 0, 1, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0x10100, 4);
    /* warp 2: a cp.async at pc 2 (2 instructions before it from the entry),
     * its global and shared halves, EXIT: 2 + 1 + 1 = 4 */
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x30000, 4);
    m.cta = 0;
    m.warp = 2;
    m.pc = 32;
    m.flags = TRACE_MEM_LDGSTS;
    gpu_mem(r.g, &m);
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x400, 4);
    m.cta = 0;
    m.warp = 2;
    m.pc = 32;
    m.flags = TRACE_MEM_LDGSTS;
    gpu_mem(r.g, &m);
    timing_result res;
    rig_end(&r, &res);
    ck_assert_uint_eq(res.instructions, 5u + 5u + 4u);
}
END_TEST

/* A warp the trace never shows (it ran no memory instruction with a lane on)
 * still ran from the kernel's entry to an EXIT: with the whole SASS, the
 * instructions before the nearest EXIT, and the EXIT (the empty kernel's
 * LDC and EXIT: 16 for 8 warps on the H200, docs/timing.md). */
START_TEST(a_warp_without_records_counts_its_way_to_the_exit)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 64);
    rig_pc(&r, 0, "S2R R0, SR_TID.X");
    rig_pc(&r, 1, "ISETP.GE.AND P0, PT, R0, 0x20, PT");
    rig_pc(&r, 2, "@P0 EXIT");
    rig_pc(&r, 3, "LDG.E R2, desc[UR4][R4.64]");
    rig_pc(&r, 4, "EXIT");
    rig_begin(&r);
    /* warp 0: 3 instructions from the entry, its load, its EXIT: 5 */
    mem(&r, 0, 0, 3, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0x10000, 4);
    /* warp 1, no record: S2R, ISETP and the guarded EXIT it leaves by: 3 */
    timing_result res;
    rig_end(&r, &res);
    ck_assert_uint_eq(res.instructions, 5u + 3u);
}
END_TEST

/* Two loads of one warp, the second's address computed from the first's
 * data by an IMAD.WIDE between them (kernels/gatherlat.cu, findings §13).
 * With the whole SASS in the PC table the warp stops at the IMAD until the
 * first load's data is back; with memory instructions only (the IMAD's PC
 * missing) the loads look independent and overlap. */
/* imad_chain's kernel run on r (rig_open's), its cycles kept per PC when
 * keep; the kernel is ended, r stays open. */
static uint64_t imad_chain_on(rig *r, const cfg_gpu *c, bool whole_sass, bool keep, timing_result *res)
{
    rig_open(r, c, 1, 32);
    timing_keep_pc_cycles(r->t, keep);
    rig_pc(r, 0, "LDG.E R9, desc[UR4][R8.64]");
    rig_pc(r, 1, "IMAD.WIDE R10, R9, 0x4, R6");
    rig_pc(r, 2, "LDG.E R11, desc[UR4][R10.64]");
    rig_pc(r, 3, "EXIT");
    if (!whole_sass) { /* a capture of memory instructions only: PCs 0 and 2 */
        r->pcs[1] = r->pcs[2];
        r->k.n_pcs = 2;
    }
    rig_begin(r);
    uint64_t a = near_address(c);
    /* one sector each, as in the chain above; the second an L1 hit once the
     * first's data is back */
    mem(r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    mem(r, 0, 0, 2, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    return rig_end_open(r, res);
}

static uint64_t imad_chain(bool whole_sass)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    timing_result res;
    uint64_t cycles = imad_chain_on(&r, &c, whole_sass, false, &res);
    rig_close(&r);
    return cycles;
}

/* Where the warp's cycles go (timing_keep_pc_cycles, `explain --timing`):
 * to the instruction it waits to issue. In imad_chain's kernel the first
 * load issues at 0 (1 cycle), the IMAD waits for its data until 689 and
 * issues (689 cycles), the second load waits for the IMAD's result
 * (alu_latency_cycles, 4) and issues at 693 (4); its EXIT waits for that
 * load's data, an L1 hit, 32 cycles (drain); keeping them changes no
 * cycle. */
START_TEST(the_warps_cycles_go_to_the_instruction_they_wait_at)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    timing_result res;
    uint64_t cycles = imad_chain_on(&r, &c, true, true, &res);
    ck_assert_ptr_nonnull(res.pc_cycles);
    ck_assert_uint_eq(res.n_pc_cycles, 4);
    ck_assert_uint_eq(res.pc_cycles[0], 1);
    ck_assert_uint_eq(res.pc_cycles[1], 689);
    ck_assert_uint_eq(res.pc_cycles[2], 4);
    ck_assert_uint_eq(res.pc_cycles[3], 32);
    ck_assert_uint_eq(res.pc_why[3u * TIMING_WHYS + TIMING_WHY_DRAIN], 32);
    rig_close(&r);
    ck_assert_uint_eq(cycles, imad_chain(true));
}
END_TEST

START_TEST(an_instruction_between_records_carries_a_dependency)
{
    /* the first load is a DRAM miss whose data is back at 689 (the chain
     * test above); overlapped, the second is done by then too */
    uint64_t overlapped = imad_chain(false), chained = imad_chain(true);
    ck_assert_uint_eq(overlapped, 689u);
    /* chained: the IMAD issues at 689, the second load when the IMAD's
     * result is there (alu_latency_cycles: 693), then the tag stage (1)
     * and the L1 hit latency (32); findings §13: gatherlat's chain */
    ck_assert_uint_eq(chained, 689u + 4u + 1u + 32u);
}
END_TEST

/* A load, n dependent IMADs computing the next load's address from its
 * data (each reads the one before), the next load; alu: alu_latency_cycles. */
static uint64_t imad_steps(uint32_t n, uint32_t alu)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_alu_latency_cycles = alu;
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "LDG.E R9, desc[UR4][R8.64]");
    for (uint32_t i = 0; i < n; i++)
        rig_pc(&r, 1u + i, i == 0 ? "IMAD R10, R9, 0x4, RZ" : "IMAD R10, R10, 0x3, RZ");
    rig_pc(&r, n + 1u, "IMAD.WIDE R12, R10, 0x4, R6");
    rig_pc(&r, n + 2u, "LDG.E R11, desc[UR4][R12.64]");
    rig_pc(&r, n + 3u, "EXIT");
    rig_begin(&r);
    uint64_t a = near_address(&c);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    mem(&r, 0, 0, n + 2u, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    timing_result res;
    return rig_end(&r, &res);
}

/* findings §13 (kernels/alulat.cu): a dependent IMAD, FADD or FFMA issues
 * 4 cycles after the one it reads; with alu_latency_cycles each step of a
 * chain between two records costs that, and 1 (its issue slot) without */
START_TEST(arithmetic_results_take_alu_latency_cycles)
{
    for (uint32_t n = 1; n <= 5; n++) {
        ck_assert_uint_eq(imad_steps(n + 1u, 4) - imad_steps(n, 4), 4);
        ck_assert_uint_eq(imad_steps(n + 1u, 0) - imad_steps(n, 0), 1);
    }
    /* with 2 IMADs: the second IMAD, the IMAD.WIDE and the second load
     * each issue 4 cycles after what they read instead of 1 */
    ck_assert_uint_eq(imad_steps(2, 4) - imad_steps(2, 0), 3u * 3u);
}
END_TEST

/* Two loads of one warp (two lines, both missing to DRAM) and an IADD3
 * reading the first; with words (control_words) the loads carry a stall
 * count of stall and set scoreboard 2, which the IADD3 waits for. The
 * kernel ends when the later load's data is back. */
static uint64_t ctrl_kernel(bool words, unsigned stall)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_control_words = true;
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "LDG.E R9, desc[UR4][R8.64]");
    rig_pc(&r, 1, "LDG.E R11, desc[UR4][R10.64]");
    rig_pc(&r, 2, "IADD3 R12, R9, 0x4, RZ");
    rig_pc(&r, 3, "EXIT");
    if (words) {
        /* stall | yield << 4 | wbar << 5 | rbar << 8 | wait << 11 */
        uint32_t ldg = stall | 1u << 4 | 2u << 5 | 7u << 8, add = 1u | 7u << 5 | 7u << 8 | (1u << 2) << 11;
        r.pcs[0].ctrl = ldg | TRACE_CTRL_KNOWN;
        r.pcs[1].ctrl = ldg | TRACE_CTRL_KNOWN;
        r.pcs[2].ctrl = add | TRACE_CTRL_KNOWN;
        r.pcs[3].ctrl = 5u | 7u << 5 | 7u << 8 | TRACE_CTRL_KNOWN;
    }
    rig_begin(&r);
    uint64_t a = near_address(&c);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 0);
    mem(&r, 0, 0, 1, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a + 4096, 0);
    timing_result res;
    return rig_end(&r, &res);
}

/* findings §17: with control words a warp issues its next instruction a
 * stall count after the last, and an instruction waits for its scoreboards,
 * so for every load on them */
START_TEST(control_words_set_the_issue_and_the_waits)
{
    /* the second load issues stall cycles after the first: its data, the
     * last, comes back that much later */
    ck_assert_uint_eq(ctrl_kernel(true, 9) - ctrl_kernel(true, 4), 5);
    /* without the words (the register rule): the second load issues a
     * cycle after the first, as with a stall count of 1 */
    ck_assert_uint_eq(ctrl_kernel(false, 4), ctrl_kernel(true, 1));
}
END_TEST

/* A cp.async group waited for by DEPBAR.LE SB0 (kernels/copyAsync.cu's
 * SASS): with control words the DEPBAR issues and the warp's next
 * instruction waits for the group (ncu samples copyAsync_ca4's wait at the
 * BAR.SYNC after its DEPBAR, 54%, none at the DEPBAR; the model's
 * agreement there went 9% -> 62%). The cycles per PC: the DEPBAR's one
 * issue cycle, the copy's DRAM trip at the LDS after it. */
START_TEST(a_depbar_makes_the_next_instruction_wait)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_control_words = true;
    rig r;
    rig_open(&r, &c, 1, 32);
    timing_keep_pc_cycles(r.t, true);
    rig_pc(&r, 0, "LDGSTS.E [R2], desc[UR4][R4.64]");
    rig_pc(&r, 1, "LDGDEPBAR");
    rig_pc(&r, 2, "DEPBAR.LE SB0, 0x0");
    rig_pc(&r, 3, "LDS R6, [R7]");
    rig_pc(&r, 4, "EXIT");
    /* stall | yield << 4 | wbar << 5 | rbar << 8 | wait << 11; 7: no scoreboard */
    r.pcs[0].ctrl = 1u | 7u << 5 | 7u << 8 | TRACE_CTRL_KNOWN;
    r.pcs[1].ctrl = 1u | 0u << 5 | 7u << 8 | TRACE_CTRL_KNOWN; /* sets SB0 */
    r.pcs[2].ctrl = 1u | 7u << 5 | 7u << 8 | TRACE_CTRL_KNOWN;
    r.pcs[3].ctrl = 1u | 7u << 5 | 7u << 8 | TRACE_CTRL_KNOWN;
    r.pcs[4].ctrl = 5u | 7u << 5 | 7u << 8 | TRACE_CTRL_KNOWN;
    rig_begin(&r);
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, near_address(&c), 4);
    m.cta = 0;
    m.warp = 0;
    m.pc = 0;
    m.flags = TRACE_MEM_LDGSTS;
    gpu_mem(r.g, &m);
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x400, 4);
    m.flags = TRACE_MEM_LDGSTS;
    m.pc = 0;
    gpu_mem(r.g, &m);
    mem(&r, 0, 0, 3, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0x400, 4);
    timing_result res;
    rig_end_open(&r, &res);
    ck_assert_ptr_nonnull(res.pc_cycles);
    ck_assert_uint_eq(res.pc_cycles[2], 1);     /* the DEPBAR issues */
    ck_assert_uint_ge(res.pc_cycles[3], 600u);  /* the LDS waits for the copy's DRAM trip */
    rig_close(&r);
}
END_TEST

/* n dependent LDS (LDS R2, [R2]) of one warp, lanes 4 x ways bytes apart:
 * each an n-way bank conflict, ways wavefronts. */
static uint64_t lds_chain(uint32_t n, uint32_t ways, uint32_t wavefront_cycles)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_smem_wavefront_cycles = wavefront_cycles;
    rig r;
    rig_open(&r, &c, 1, 32);
    for (uint32_t i = 0; i < n; i++)
        rig_pc(&r, i, "LDS R2, [R2]");
    rig_begin(&r);
    for (uint32_t i = 0; i < n; i++)
        mem(&r, 0, 0, i, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4 * (int64_t)ways);
    timing_result res;
    return rig_end(&r, &res);
}

/* findings §10: an N-way conflicted LDS in a dependent chain takes 2 cycles
 * more per further wavefront (27 + 2N measured), while the data stage takes
 * one wavefront a cycle: smem_wavefront_cycles = 2 */
START_TEST(a_conflicted_lds_costs_two_cycles_per_wavefront_of_latency)
{
    ck_assert_uint_eq(lds_chain(1, 1, 2), 24); /* smem_latency_cycles */
    for (uint32_t ways = 2; ways <= 32; ways *= 2) {
        ck_assert_uint_eq(lds_chain(9, ways, 2) - lds_chain(9, 1, 2), 9u * 2u * (ways - 1u));
        /* with 1 (the default) only the data stage's cycle per wavefront */
        ck_assert_uint_eq(lds_chain(9, ways, 1) - lds_chain(9, 1, 1), 9u * (ways - 1u));
    }
}
END_TEST

/* warps x n independent LDS (LDS Ri, [R1], a register of its own each) of
 * CTA 0, lanes 4 x ways bytes apart: ways wavefronts each. */
static uint64_t lds_burst(uint32_t warps, uint32_t n, uint32_t ways, uint32_t wavefront_cycles)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_smem_wavefront_cycles = wavefront_cycles;
    rig r;
    rig_open(&r, &c, 1, 32 * warps);
    for (uint32_t i = 0; i < n; i++) {
        char sass[32];
        snprintf(sass, sizeof sass, "LDS R%u, [R1]", 2u + i);
        rig_pc(&r, i, sass);
    }
    rig_begin(&r);
    for (uint32_t w = 0; w < warps; w++)
        for (uint32_t i = 0; i < n; i++)
            mem(&r, 0, w, i, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4 * (int64_t)ways);
    timing_result res;
    return rig_end(&r, &res);
}

/* findings §17 (kernels/l1cost.cu): one warp's independent N-way conflicted
 * loads and stores go 2N cycles apart (smem_wavefront_cycles = 2 a
 * wavefront), while the data stage takes one wavefront a cycle from all
 * warps, so that two warps' go one wavefront a cycle together. */
START_TEST(a_warps_wavefronts_go_through_the_data_stage_at_its_own_rate)
{
    for (uint32_t ways = 1; ways <= 32; ways *= 2) {
        /* one LDS more: 2 x ways cycles later; with 1, ways (the stage's
         * rate), and at least its issue slot */
        ck_assert_uint_eq(lds_burst(1, 9, ways, 2) - lds_burst(1, 8, ways, 2), 2u * ways);
        ck_assert_uint_eq(lds_burst(1, 9, ways, 1) - lds_burst(1, 8, ways, 1), ways);
    }
    /* a second warp (another sub-partition) takes the stage's other cycles:
     * two warps' 8 LDS of 8 wavefronts end at most one LDS (8 cycles) after
     * one warp's, not 8 x 16 = 128 cycles after */
    uint64_t one = lds_burst(1, 8, 8, 2), two = lds_burst(2, 8, 8, 2);
    ck_assert_uint_ge(two, one);
    ck_assert_uint_le(two, one + 8u);
}
END_TEST

/* n_ctas CTAs of two warps on SM 0 (CTAs 0, 132, ...: round robin over the
 * H200's 132 SMs); each warp runs an LDS, 62 other instructions, an LDS. */
static uint64_t two_warp_ctas(uint32_t n_ctas)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 132u * n_ctas, 64);
    rig_pc(&r, 0, "LDS R2, [R3]");
    rig_pc(&r, 1, "LDS R4, [R3]");
    r.pcs[1].pc = 16u * 63u; /* 62 instructions without memory between */
    rig_begin(&r);
    for (uint32_t k = 0; k < n_ctas; k++)
        for (uint32_t w = 0; w < 2; w++) {
            mem(&r, 132u * k, w, 0, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
            mem(&r, 132u * k, w, 63, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
        }
    timing_result res;
    return rig_end(&r, &res);
}

/* findings §11 (kernels/warpslot.cu): the n-th CTA's warp w issues on
 * sub-partition (n x 2 + w) mod 4 for CTAs of two warps, so two such CTAs
 * use all four sub-partitions and take no longer than one; a third shares
 * sub-partitions with the first and waits for them. */
START_TEST(small_ctas_spread_over_the_sub_partitions)
{
    uint64_t one = two_warp_ctas(1);
    ck_assert_uint_eq(two_warp_ctas(2), one);
    ck_assert_uint_gt(two_warp_ctas(3), one + 50u);
}
END_TEST

/* A CTA of five warps on SM 0, whose warps 0 and 4 share sub-partition 0;
 * the given ones each run an LDS after 20 other instructions. */
static uint64_t issue_behind(bool warp0, bool warp4)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 160);
    rig_pc(&r, 0, "LDS R2, [R3]");
    r.pcs[0].pc = 16u * 20u; /* 20 instructions without memory before it */
    rig_begin(&r);
    if (warp0)
        mem(&r, 0, 0, 20, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    if (warp4)
        mem(&r, 0, 4, 20, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    return rig_end(&r, &res);
}

/* A sub-partition issues one instruction a cycle, booked in bins of 32
 * cycles: warp 0 takes 21 slots of the first bin, so warp 4's 20 + 1 take
 * its last 11 and 10 of the next one, and its LDS issues at 41, not 20 (the
 * booking that spills into the next bin, cal1_book_spill). */
START_TEST(instructions_that_overflow_a_bin_issue_in_the_next)
{
    uint64_t alone = issue_behind(false, true);
    ck_assert_uint_eq(issue_behind(true, false), alone);
    ck_assert_uint_eq(issue_behind(true, true), alone + 21u);
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

/* Two loads in a row whose second reads R36 or R4 while the first fills R4:
 * the kernel's cycles. */
static uint64_t second_load_reading(const char *sass)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_pc(&r, 1, sass);
    rig_begin(&r);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    mem(&r, 0, 0, 1, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    timing_result res;
    return rig_end(&r, &res);
}

/* A warp keeps its pending loads' registers folded mod 32 to skip looking
 * at them (wait_regs): R36 shares R4's bit, yet a load reading it does not
 * wait for R4's (689, as independent_loads_overlap), while one reading R4
 * issues when R4's data is there (688), takes the tag and data stages (a
 * cycle each) and hits L1: its data 32 - 1 cycles later, at 721, and the
 * kernel ends a cycle after, as the first's 688 made it end at 689. */
START_TEST(a_register_32_apart_from_a_pending_load_is_not_waited_for)
{
    cfg_gpu c;
    timing_cfg(&c);
    ck_assert_uint_eq(c.t_l1_hit_cycles, 32);
    ck_assert_uint_eq(second_load_reading("LDG.E R5, desc[UR4][R36.64]"), 689);
    ck_assert_uint_eq(second_load_reading("LDG.E R5, desc[UR4][R4.64]"), 722);
}
END_TEST

/* A stream limited by DRAM: 1 sector (32 bytes) per cycle, 4,096 sectors of
 * distinct lines from 32 SMs. It cannot end before 4,096 cycles of DRAM
 * service, nor much after 4,096 + one DRAM latency; with DRAM's latency
 * growing with its load (configs/h200.ini's curve, findings §18), the last
 * reads meet a full DRAM and take the curve's last value, 143 cycles, more. */
static uint64_t dram_stream(bool load_latency)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_dram_bytes_per_cycle = 32;
    if (!load_latency)
        for (uint32_t i = 0; i < c.n_t_dram_load_extra_cycles; i++)
            c.t_dram_load_extra_cycles[i] = 0;
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
    return rig_end(&r, &res);
}

START_TEST(a_stream_is_limited_by_dram_bandwidth)
{
    uint64_t cyc = dram_stream(false);
    ck_assert_uint_ge(cyc, 4096);
    ck_assert_uint_le(cyc, 4096 + 688 + 64);
    ck_assert_uint_eq(dram_stream(true) - cyc, 143);
}
END_TEST

/* configs/h200.ini's curve of DRAM's latency against its load (findings §18,
 * kernels/dramlat.cu): 0 up to 251 thousandths of its rate, then linear to
 * 26 at 450 and 143 at 702, and 143 beyond. */
START_TEST(dram_latency_grows_with_its_load)
{
    cfg_gpu c;
    timing_cfg(&c);
    ck_assert_uint_eq(timing_dram_load_extra(&c, 0), 0);
    ck_assert_uint_eq(timing_dram_load_extra(&c, 251), 0);
    ck_assert_uint_eq(timing_dram_load_extra(&c, 350), 12);  /* 26 x 99 / 199 */
    ck_assert_uint_eq(timing_dram_load_extra(&c, 450), 26);
    ck_assert_uint_eq(timing_dram_load_extra(&c, 576), 84);  /* 26 + 117 x 126 / 252 */
    ck_assert_uint_eq(timing_dram_load_extra(&c, 702), 143);
    ck_assert_uint_eq(timing_dram_load_extra(&c, 1000), 143);
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
    /* warp 0: LDS at 0, 24, 48, 72 (data at 96), STS issues at 96 and its
     * write is done at 120 (data stage + 23): warp 0 reaches the barrier
     * then, not at 97 (bar.sync makes shared writes visible); warp 1 is
     * released at 120 + 12 + 2 x 2 warps (findings §8), its LDS's data is
     * ready 24 later: 160 */
    ck_assert_uint_eq(barrier_case(false, 64), 160);
    ck_assert_uint_eq(barrier_case(true, 64), 160);
    /* the same two warps' records in a CTA of 32 warps (the other 30 never
     * reach the trace): released at 120 + 12 + 64, data at 220 */
    ck_assert_uint_eq(barrier_case(false, 1024), 220);
}
END_TEST

/* A BAR.SYNC.DEFER_BLOCKING lets the warp go on issuing until its next
 * memory instruction, where it waits for the CTA (ncu's barrier stall
 * samples sit there: findings §14). Warp 1 passes the barrier early and
 * issues its two IADD3s at once; its LDS waits until warp 0, whose shared
 * store is done at 24, has arrived: 24 + 12 + 2 x 2 warps = 40. */
START_TEST(a_deferred_barrier_blocks_at_the_next_memory_instruction)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 64);
    timing_keep_pc_cycles(r.t, true);
    rig_pc(&r, 0, "STS [R0], R2");
    rig_pc(&r, 1, "BAR.SYNC.DEFER_BLOCKING 0x0");
    rig_pc(&r, 2, "IADD3 R4, R4, 0x1, RZ");
    rig_pc(&r, 3, "IADD3 R6, R6, 0x1, RZ");
    rig_pc(&r, 4, "LDS R3, [R0]");
    rig_pc(&r, 5, "EXIT");
    rig_begin(&r);
    bar(&r, 0, 1, 1);
    mem(&r, 0, 0, 0, TRACE_KIND_ST, TRACE_SPACE_SHARED, 0, 4);
    bar(&r, 0, 0, 1);
    mem(&r, 0, 1, 4, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    rig_end_open(&r, &res);
    /* warp 1: the IADD3s at 2 and 3, one cycle each; the LDS from 4 to its
     * issue at the release, 40 */
    ck_assert_uint_eq(res.pc_cycles[2], 1);
    ck_assert_uint_eq(res.pc_cycles[3], 1);
    ck_assert_uint_eq(res.pc_cycles[4], 40u + 1u - 4u);
    rig_close(&r);
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
static uint64_t one_sector_writes_into(bool far, uint32_t l2_intake)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.l2_n_gpc_partition = 0; /* SM s in partition s mod 2, as the layout above says */
    if (l2_intake)
        c.t_l2_write_bytes_per_cycle = l2_intake;
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

static uint64_t one_sector_writes(bool far)
{
    return one_sector_writes_into(far, 0);
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

/* findings §18: what L2 takes in (l2_write_bytes_per_cycle, the H200's
 * ~2,290 B a cycle) is shared by the sectors SMs store and those it fills
 * from DRAM, and a store's acknowledgement waits for its turn. The 512
 * one-sector stores above, with L2 taking in 16 B a cycle (16 sectors a
 * 32-cycle bin): the slice serves 27 of them in bin 4 (148..160, see above),
 * each going in a cycle before its lookup ends, so bin 4 of the intake takes
 * 16 and, as the slice serves 27.5 a bin and the intake 16, every later bin
 * fills: 512 = 32 x 16 sectors fill bins 4..35, the last going in at 35 x 32
 * + 32 = 1,152 and acknowledged at 1,152 + 143 = 1,295. At the H200's rate
 * (71 sectors a bin) the slice is the limit, as without the key: 867. */
START_TEST(stores_wait_their_turn_into_l2)
{
    ck_assert_uint_eq(one_sector_writes_into(false, 16), 1295);
    ck_assert_uint_eq(one_sector_writes_into(false, 2290), 867);
}
END_TEST

/* findings §18: DRAM gives reads dram_bytes_per_cycle, and a sector it
 * writes back takes dram_write_cost_permille thousandths of a read sector's
 * share (the H200's copy streams: 1.31). An L2 of 8 lines (the golden
 * 1 KiB config), DRAM at one sector a cycle, no intake limit: one warp stores
 * 8 whole lines (dirty in L2), then loads 8 other lines, each of which
 * evicts one of them: 4 sectors fetched and 4 written back a load. The
 * loads' DRAM bookings queue back to back, each load's fetch before its
 * write-back, so the last load's data waits for the 7 loads before it,
 * 7 x (4 + 4 x cost) sector-cycles, and its own 4: the kernel's end moves by
 * 7 x 4 x (cost difference) cycles. */
static uint64_t writebacks_then_reads(uint32_t cost_permille)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("tests/golden/configs/h200-l2-1k-noecc.ini", &c, &e) == 0, "%s", e.msg);
    c.t_launch_cycles = 0;
    c.t_cta_launch_mcycles = 0;
    c.t_cta_fill_mcycles_per_warp = 0;
    c.t_dram_bytes_per_cycle = 32;
    c.t_dram_write_cost_permille = cost_permille;
    c.t_l2_write_bytes_per_cycle = 0;
    c.background_dram_read_sectors = 0; /* the launch's code stays (below) */
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    for (uint32_t i = 0; i < 8; i++) {
        char s[48];
        snprintf(s, sizeof s, "LDG.E R%u, desc[UR4][R8.64]", 10u + 2u * i);
        rig_pc(&r, 1u + i, s);
    }
    rig_begin(&r);
    uint64_t base = 0x100000; /* line 8192: set 0 of 8 */
    for (uint32_t i = 0; i < 8; i++)
        mem(&r, 0, 0, 0, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, base + 128u * i, 4);
    for (uint32_t i = 0; i < 8; i++)
        mem(&r, 0, 0, 1u + i, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, base + 128u * (8u + i), 4);
    stats st;
    gpu_kernel_end(r.g, &st);
    ck_assert_uint_eq(st.v[STAT_DRAM_SECT_WRITE], 32); /* 8 lines written back, 4 sectors each */
    /* 32 fetched, and the kernel's code (9 instructions, 144 bytes: 5 sectors; cold caches) */
    ck_assert_uint_eq(st.v[STAT_DRAM_SECT_READ], 32 + 5);
    timing_result res;
    timing_kernel_end(r.t, &res);
    rig_close(&r);
    return res.cycles;
}

START_TEST(a_written_back_sector_costs_dram_write_cost)
{
    uint64_t w15 = writebacks_then_reads(1500), w20 = writebacks_then_reads(2000),
             w30 = writebacks_then_reads(3000);
    ck_assert_uint_eq(w20 - w15, 7u * 4u / 2u);
    ck_assert_uint_eq(w30 - w20, 7u * 4u);
}
END_TEST

/* Achieved occupancy (sm__warps_active, sm__cycles_active): a warp is active
 * from its CTA's start to its end, and it ends when its EXIT has nothing
 * left to wait for. One warp, one load of a DRAM line: it ends when the data
 * is back, which is the kernel's end too (launch costs zeroed: the CTA starts
 * at 0). One warp of the SM's 64: 1.5625% occupancy; the SM's active cycles
 * averaged over the 132 SMs, rounded. */
START_TEST(a_warp_is_active_until_its_load_returns)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_begin(&r);
    mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 4);
    timing_result res;
    uint64_t cyc = rig_end(&r, &res);
    ck_assert_uint_eq(res.warp_cycles, cyc);
    ck_assert_uint_eq(res.sm_cycles_active, (cyc + 66u) / 132u);
    ck_assert_double_eq_tol(res.warps_active_pct, 100.0 / 64.0, 1e-9);
}
END_TEST

/* A store's warp waits at its EXIT until L2 has taken the store in (ncu's
 * `drain`): its 4 sectors leave the SM one a cycle, reach L2 l2_in later, and
 * the acknowledgement comes back l2_out later: 4 + 285 cycles after the
 * store's tag stage. One warp storing n lines one after another: its last
 * store waits its turn behind the others at L2's intake, as far as they have
 * reached L2 when it is replayed (a line's request is booked when store
 * combining sends it: here at the warp's next store). */
static timing_result stores_of_one_warp(uint32_t n, uint32_t intake)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_l2_write_bytes_per_cycle = intake;
    /* the cycles below were worked out for the granule placement: its 64
     * lines from near_address are 4 granules homed near, on 4 slices */
    c.l2_placement = CFG_L2_PLACE_GRANULE;
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    uint64_t a = near_address(&c);
    for (uint32_t i = 0; i < n; i++)
        mem(&r, 0, 0, 0, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, a + 128u * i, 4);
    timing_result res;
    rig_end(&r, &res);
    return res;
}

#define STORE_TAGGED 1u /* issued at 0, through the tag stage at 1 */
START_TEST(a_warp_waits_at_exit_for_its_store_to_be_taken_in)
{
    ck_assert_uint_eq(stores_of_one_warp(1, 2290).warp_cycles, STORE_TAGGED + 4u + 285u);
    /* 64 stores: the SM's queue sends their 256 sectors one a cycle, the last
     * leaves at 256, then 285 */
    ck_assert_uint_eq(stores_of_one_warp(64, 2290).warp_cycles, 256u + 285u);
    /* L2 taking half a sector a cycle: the 63 lines before the last reach it
     * from cycle ~144 and hold its intake 63 x 8 = 504 cycles, so the last
     * store's data goes in at ~648 (not 256 + 142 = 398) and its
     * acknowledgement is back 143 later */
    ck_assert_uint_eq(stores_of_one_warp(64, 16).warp_cycles, 791u);
}
END_TEST

/* A warp whose last record is a barrier waits there for the CTA and exits
 * when the barrier lets it go (reduce's idle warps). barrier_case's two
 * warps without warp 1's LDS: both released at 120 + 12 + 2 x 2 = 136, so
 * each is active 137 cycles. */
START_TEST(a_warp_at_its_last_barrier_lives_until_the_release)
{
    enum { K = 4 };
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 64);
    for (uint32_t i = 0; i < K; i++)
        rig_pc(&r, i, "LDS R2, [R2]");
    rig_pc(&r, K, "STS [R0], R2");
    rig_pc(&r, K + 1, "BAR.SYNC.DEFER_BLOCKING 0x0");
    rig_begin(&r);
    for (uint32_t i = 0; i < K; i++)
        mem(&r, 0, 0, i, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    mem(&r, 0, 0, K, TRACE_KIND_ST, TRACE_SPACE_SHARED, 0, 4);
    bar(&r, 0, 0, K + 1);
    bar(&r, 0, 1, K + 1);
    timing_result res;
    rig_end(&r, &res);
    ck_assert_uint_eq(res.warp_cycles, 2u * 137u);
    ck_assert_uint_eq(res.sm_cycles_active, 1u); /* 137 / 132 SMs */
}
END_TEST
/* l2_fill_wait ([MEAS] kernels/hotline.cu: SMs reading one cold line at once
 * all wait for its DRAM fill). CTAs 0 and 2 (SMs 0 and 2: partition 0, other
 * GPCs, so the LRC does not merge them) load the same cold line homed in
 * partition 0 at the same moment; the replay sees CTA 0's first, which misses
 * to DRAM, and CTA 2's then hits in the functional L2. With the key CTA 2's
 * data comes with CTA 0's fill: both warps are active as long as one alone;
 * without it CTA 2 gets an L2 hit's latency. */
static timing_result same_line_loads(bool fill_wait, uint32_t ctas)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.l2_n_gpc_partition = 0; /* SM s in partition s mod 2 */
    c.t_l2_fill_wait = fill_wait;
    rig r;
    rig_open(&r, &c, 3, 32);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_begin(&r);
    uint64_t a = near_address(&c);
    for (uint32_t cta = 0; cta < ctas; cta += 2)
        mem(&r, cta, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, a, 4);
    timing_result res;
    rig_end(&r, &res);
    return res;
}

START_TEST(a_read_of_a_line_on_its_way_waits_for_its_fill)
{
    uint64_t alone = same_line_loads(true, 1).warp_cycles;
    ck_assert_uint_eq(same_line_loads(true, 3).warp_cycles, 2u * alone);
    timing_result off = same_line_loads(false, 3);
    ck_assert_uint_lt(off.warp_cycles, 2u * alone - 200u); /* the second at L2-hit latency */
    ck_assert_uint_eq(same_line_loads(false, 1).warp_cycles, alone); /* one warp: the key changes nothing */
}
END_TEST

/* l1_fill_wait ([MEAS] kernels/mmtimed.cu: matrixMul_naive's warps wait about
 * an L2 round trip for loads that mostly hit L1). Warps 0 and 1 of CTA 0 (one
 * SM, two sub-partitions) load the same cold line at the same moment; the
 * replay sees warp 0's first, which misses to DRAM, and warp 1's then hits in
 * the functional L1. With the key warp 1's data comes with warp 0's fill:
 * both are active as long as one alone; without it warp 1 gets an L1 hit's
 * latency. */
static timing_result same_line_in_one_sm(bool fill_wait, uint32_t warps)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_l1_fill_wait = fill_wait;
    rig r;
    rig_open(&r, &c, 1, 64);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_begin(&r);
    for (uint32_t w = 0; w < warps; w++)
        mem(&r, 0, w, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 4);
    timing_result res;
    rig_end(&r, &res);
    return res;
}

START_TEST(an_l1_hit_on_a_line_on_its_way_waits_for_its_fill)
{
    uint64_t alone = same_line_in_one_sm(true, 1).warp_cycles;
    ck_assert_uint_gt(alone, 685u); /* a DRAM round trip */
    ck_assert_uint_eq(same_line_in_one_sm(true, 2).warp_cycles, 2u * alone);
    timing_result off = same_line_in_one_sm(false, 2);
    ck_assert_uint_lt(off.warp_cycles, alone + 100u); /* the second at an L1 hit's latency */
    ck_assert_uint_eq(same_line_in_one_sm(false, 1).warp_cycles, alone); /* one warp: the key changes nothing */
}
END_TEST

/* first_wave_by_sm (findings §20, kernels/banktimed.cu: an SM's first-wave
 * CTAs start within 32 ns of each other). 264 one-warp CTAs, two an SM (CTA i
 * on SM i mod 132), 0.16 cycles a warp for the dispatcher: one CTA after
 * another, SM s's second CTA (CTA s + 132) starts ~21 cycles after its
 * first; by SM, with it. Each CTA's one LDS is done 24 cycles after its
 * start, so an SM is active 24 cycles by SM and ~45 otherwise. */
static timing_result two_ctas_an_sm(bool by_sm)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_cta_fill_mcycles_per_warp = 160;
    c.t_first_wave_by_sm = by_sm;
    rig r;
    rig_open(&r, &c, 264, 32);
    rig_pc(&r, 0, "LDS R2, [R0]");
    rig_begin(&r);
    for (uint32_t cta = 0; cta < 264; cta++)
        mem(&r, cta, 0, 0, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    rig_end(&r, &res);
    return res;
}

START_TEST(an_sm_s_first_wave_starts_together)
{
    timing_result by_sm = two_ctas_an_sm(true), one_by_one = two_ctas_an_sm(false);
    ck_assert_uint_eq(by_sm.sm_cycles_active, 24u);
    ck_assert_uint_ge(one_by_one.sm_cycles_active, 44u);
    /* the dispatcher's work is the same: SM 131's two CTAs start at ceil(131 x
     * 0.32) = 42 by SM, CTA 263 at ceil(263 x 0.16) = 43 one by one */
    ck_assert_uint_eq(by_sm.cycles, 42u + 24u);
    ck_assert_uint_eq(one_by_one.cycles, 43u + 24u);
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

/* findings §16 (kernels/ctastart.cu): a CTA of the first wave (its slot not
 * yet held in this kernel) costs the dispatcher its warps x
 * cta_fill_millicycles_per_warp, a later one cta_launch_millicycles. 396
 * CTAs of 32 warps, two slots an SM: CTAs 0-263 start at 8 cycles each (32 x
 * 0.25), CTA i at 8 i; CTA 264 takes CTA 0's slot (ended long before) when
 * the dispatcher is free, at 264 x 8 = 2,112, and each later one 1.5 cycles
 * after the one before: CTA 395 at ceil(2,112 + 131 x 1.5) = 2,309, its
 * LDS's data at 2,309 + 24. */
START_TEST(first_wave_ctas_dispatch_per_warp)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_cta_launch_mcycles = 1500;
    c.t_cta_fill_mcycles_per_warp = 250;
    rig r;
    rig_open(&r, &c, 396, 1024);
    rig_pc(&r, 0, "LDS R2, [R0]");
    rig_begin(&r);
    for (uint32_t cta = 0; cta < 396; cta++)
        mem(&r, cta, 0, 0, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0, 4);
    timing_result res;
    ck_assert_uint_eq(rig_end(&r, &res), 2309u + 24u);
}
END_TEST

/* c[0xB][0xOFF] operands (the constant lines const_wait fetches) */
START_TEST(sass_constant_operands_are_parsed)
{
    uint32_t bank = 99, off = 99;
    ck_assert(sass_const_operand("ULDC.64 UR4, c[0x0][0x210]", &bank, &off));
    ck_assert_uint_eq(bank, 0);
    ck_assert_uint_eq(off, 0x210);
    ck_assert(sass_const_operand("FFMA R0, R0, c[0x3][0x40], RZ", &bank, &off));
    ck_assert_uint_eq(bank, 3);
    ck_assert_uint_eq(off, 0x40);
    ck_assert(!sass_const_operand("LDC R4, c[0x0][R2+0x10]", &bank, &off));
    ck_assert(!sass_const_operand("LDC R4, c[0x0][RZ]", &bank, &off));
    ck_assert(!sass_const_operand("IADD3 R1, R2, R3, RZ", &bank, &off));
    ck_assert(!sass_const_operand(NULL, &bank, &off));
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

/* ---- the SMs' write queues (model/wqueue.h) ---- */

START_TEST(a_write_to_a_line_another_warp_has_waiting_merges)
{
    wqueue *q = wqueue_create(2);
    /* warp 1 of SM 0: line 100, sectors 1-3, waits from 10 to 13; it stays
     * open until 30 (WQUEUE_OPEN_CYCLES after its entry, findings §22a) */
    ck_assert(!wqueue_merge(q, 0, 1, 100, 0xe, 10));
    wqueue_sent(q, 0, 1, 100, 0xe, 10, 13);
    /* warp 2 at 12, sectors 0-1 of line 100: merged; sector 1 is sent once */
    ck_assert(wqueue_merge(q, 0, 2, 100, 0x3, 12));
    /* what does not merge: another line, the same warp, another SM, the
     * cycle it closed (30: sent, and 20 cycles after its entry), a request
     * that entered before it (9: it was not there yet) */
    ck_assert(!wqueue_merge(q, 0, 2, 101, 0x3, 12));
    ck_assert(!wqueue_merge(q, 0, 1, 100, 0x1, 12));
    ck_assert(!wqueue_merge(q, 1, 2, 100, 0x3, 12));
    ck_assert(!wqueue_merge(q, 0, 3, 100, 0x1, 30));
    ck_assert(!wqueue_merge(q, 0, 3, 100, 0x1, 9));
    /* a request that waits longer is open as long as it waits */
    wqueue_sent(q, 0, 4, 200, 0x1, 10, 100);
    ck_assert(wqueue_merge(q, 0, 5, 200, 0x1, 99));
    ck_assert(!wqueue_merge(q, 0, 5, 200, 0x1, 100));
    wqueue_reset(q);
    ck_assert(!wqueue_merge(q, 0, 1, 100, 0xe, 10));
    wqueue_sent(q, 0, 1, 100, 0xe, 10, 13);
    ck_assert(wqueue_merge(q, 0, 2, 100, 0x3, 29)); /* sent, still open */
    /* warp 3 at 11 with sector 0: the entry holds sectors 0-3 now */
    ck_assert(wqueue_merge(q, 0, 3, 100, 0x1, 11));
    wqueue_counts n = wqueue_get_counts(q);
    ck_assert_uint_eq(n.requests, 2);
    ck_assert_uint_eq(n.sectors, 2);
    wqueue_reset(q);
    ck_assert_uint_eq(wqueue_get_counts(q).requests, 0);
    ck_assert(!wqueue_merge(q, 0, 2, 100, 0x3, 12)); /* forgotten */
    wqueue_destroy(q);
}
END_TEST

/* A request waiting behind others is compared only with the WQUEUE_LOOKBACK (31)
 * requests that entered last before the new one: 30 between, it merges; 31
 * between, it does not (transpose_naive's 32 one-sector lines per warp store
 * must not merge, docs/timing.md). */
static bool merges_behind(uint32_t between)
{
    wqueue *q = wqueue_create(1);
    wqueue_sent(q, 0, 1, 500, 0x1, 100, 10000); /* warp 1, line 500, waiting long */
    for (uint32_t i = 0; i < between; i++)
        wqueue_sent(q, 0, 1, 1000 + i, 0x1, 101 + i, 10000);
    bool m = wqueue_merge(q, 0, 2, 500, 0x1, 200);
    wqueue_destroy(q);
    return m;
}

START_TEST(the_comparison_reaches_31_requests_back)
{
    ck_assert_uint_eq(WQUEUE_LOOKBACK, 31);
    ck_assert(merges_behind(0));
    ck_assert(merges_behind(30));
    ck_assert(!merges_behind(31));
    ck_assert(!merges_behind(40));
}
END_TEST

START_TEST(merged_writes_leave_the_write_counters)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.v[STAT_L2_REQ_WRITE] = 100;
    s.v[STAT_L2_SECT_WRITE] = 250;
    s.v[STAT_L1_M_WRITE_SECTORS] = 250;
    s.v[STAT_L2_SECT_WRITE_HIT] = 5;
    s.v[STAT_L2_SECT_WRITE_MISS] = 245;
    s.v[STAT_DRAM_SECT_WRITE] = 7;
    wqueue_counts m = {.requests = 10, .sectors = 8};
    wqueue_counts_apply(&m, &s);
    ck_assert_uint_eq(s.v[STAT_L2_REQ_WRITE], 90);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE], 242);
    ck_assert_uint_eq(s.v[STAT_L1_M_WRITE_SECTORS], 242);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE_HIT], 0); /* the hits first */
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE_MISS], 242);
    ck_assert_uint_eq(s.v[STAT_DRAM_SECT_WRITE], 7);   /* DRAM is the functional model's */
}
END_TEST

static void mem_mask(rig *r, uint32_t cta, uint32_t warp, uint32_t pc_i, uint32_t mask, uint64_t base,
                     int64_t stride)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, mask, base, stride);
    m.cta = cta;
    m.warp = warp;
    m.pc = 16u * pc_i;
    gpu_mem(r->g, &m);
}

/* Warp 0 stores one word to each of 32 lines (32 one-sector requests, the
 * queue drains one sector a cycle, so line k waits k cycles); warp 1, on
 * another sub-partition, stores a whole line right after: to line 31, still
 * waiting, it merges (sector 0 sent once); to line 0, already sent, not. */
static wqueue_counts behind_a_column(uint64_t line)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 64);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    uint64_t base = 0x10000000;
    mem_mask(&r, 0, 0, 0, TRACE_FULL_MASK, base, 128);
    mem_mask(&r, 0, 1, 0, TRACE_FULL_MASK, base + 128 * line, 4);
    timing_result res;
    rig_end(&r, &res);
    return res.wq;
}

START_TEST(a_store_behind_a_full_queue_merges)
{
    wqueue_counts n = behind_a_column(31);
    ck_assert_uint_eq(n.requests, 1);
    ck_assert_uint_eq(n.sectors, 1);
    n = behind_a_column(0);
    ck_assert_uint_eq(n.requests, 0);
    ck_assert_uint_eq(n.sectors, 0);
}
END_TEST

/* A loop of warp shuffles with no memory instruction in it (a reduction's
 * SHFL.DOWN, findings §22): between two records the model runs the shortest
 * path, which skips the loop; the capture's shuffle records (trace.h,
 * TRACE_BAR_SHFL) put each iteration on the path. Five shuffles then the
 * store and the EXIT: SHFL, then 4 x (BRA, SHFL), then BRA, STG, EXIT = 12
 * instructions, against the 4 of the path without them (SHFL, BRA, STG,
 * EXIT). */
static uint64_t shuffle_loop(uint32_t shuffles)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "SHFL.DOWN PT, R7, R16, R5, 0x1f");
    rig_pc(&r, 1, "@P0 BRA 0x0");
    rig_pc(&r, 2, "STG.E desc[UR4][R2.64], R5");
    rig_pc(&r, 3, "EXIT");
    rig_begin(&r);
    for (uint32_t i = 0; i < shuffles; i++) {
        trace_barrier b = {.cta = 0, .warp = 0, .sm = TRACE_SM_UNKNOWN, .pc = 0, .kind = TRACE_BAR_SHFL};
        gpu_barrier(r.g, &b);
        timing_barrier(r.t, &b);
    }
    mem_mask(&r, 0, 0, 2, 0x1u, 0x10000000, 4);
    timing_result res;
    rig_end(&r, &res);
    return res.instructions;
}

START_TEST(shuffle_records_run_a_loop_as_often_as_the_warp_did)
{
    ck_assert_uint_eq(shuffle_loop(0), 4);
    ck_assert_uint_eq(shuffle_loop(5), 12);
}
END_TEST

/* The code a warp runs is fetched on its SM first (findings §23,
 * kernels/icache.cu). One warp runs straight to a store at instruction 39
 * (line 4 of code): line 0 is there with the launch, each next line
 * code_line_cycles (20) after the one before, so instructions 8, 16, 24 and
 * 32 wait until 20, 40, 60 and 80 and the store issues at 87, not 39. Or
 * (jump) the warp branches from instruction 0 to the store at 32 over lines
 * 1-3: the taken branch costs branch_taken_cycles (15) and line 4 arrives
 * code_jump_cycles at 3 lines skipped (38) after the warp asks: the store
 * issues at 1 + 15 + 38 = 54, not 1. The kernel's cycles move by as much. */
static uint64_t fetch_cycles(bool jump, uint32_t line_cycles, uint32_t taken_cycles)
{
    cfg_gpu c;
    timing_cfg(&c);
    c.t_code_line_cycles = line_cycles;
    c.t_branch_taken_cycles = taken_cycles;
    rig r;
    rig_open(&r, &c, 1, 32);
    uint32_t store = jump ? 32 : 39;
    for (uint32_t i = 0; i < store; i++)
        rig_pc(&r, i, jump && i == 0 ? "BRA 0x200" : "IADD3 R7, R8, 0x1, RZ");
    rig_pc(&r, store, "STG.E desc[UR4][R2.64], R5");
    rig_pc(&r, store + 1u, "EXIT");
    rig_begin(&r);
    mem_mask(&r, 0, 0, store, 0x1u, 0x10000000, 4);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_warp_waits_for_its_code_to_be_fetched)
{
    ck_assert_uint_eq(fetch_cycles(false, 20, 15) - fetch_cycles(false, 0, 15), 87 - 39);
    ck_assert_uint_eq(fetch_cycles(true, 0, 15) - fetch_cycles(true, 0, 0), 15);
    ck_assert_uint_eq(fetch_cycles(true, 20, 15) - fetch_cycles(true, 0, 0), 54 - 1);
}
END_TEST

/* Constant lines too are fetched on each SM first (findings §23): a line of
 * the parameters (c[0x0][0x210]) costs const_line_cycles (130), the first
 * line of the __constant__ bank 3 const_bank_cycles (1,120), its next line
 * 130 again, one fetch after the other; bank 0's first line (c[0x0][0x28],
 * every kernel's first instruction) came with the launch. The four ULDC/LDC
 * issue at 130, 1,251, 1,382 and 1,383, the store at 1,384 instead of 4. */
static void const_rig(rig *r, cfg_gpu *c, uint32_t line_cycles, uint32_t bank_cycles)
{
    timing_cfg(c);
    c->t_code_line_cycles = 0;
    c->t_const_line_cycles = line_cycles;
    c->t_const_bank_cycles = bank_cycles;
    rig_open(r, c, 1, 32);
    rig_pc(r, 0, "ULDC UR4, c[0x0][0x210]");
    rig_pc(r, 1, "ULDC UR5, c[0x3][0x0]");
    rig_pc(r, 2, "ULDC UR6, c[0x3][0x40]");
    rig_pc(r, 3, "LDC R1, c[0x0][0x28]");
    rig_pc(r, 4, "STG.E desc[UR4][R2.64], R5");
    rig_pc(r, 5, "EXIT");
}

static uint64_t const_cycles(uint32_t line_cycles, uint32_t bank_cycles)
{
    cfg_gpu c;
    rig r;
    const_rig(&r, &c, line_cycles, bank_cycles);
    rig_begin(&r);
    mem_mask(&r, 0, 0, 4, 0x1u, 0x10000000, 4);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_warp_waits_for_its_constants_to_be_fetched)
{
    ck_assert_uint_eq(const_cycles(130, 1120) - const_cycles(0, 0), 1384 - 4);
}
END_TEST

/* The same warp's cycles by reason (explain --timing): each ULDC's wait for
 * its line is imc (130, 1,120, 130), its issue cycle selected; the LDC of
 * the launch's line and the store only their issue; the wait for the
 * store's acceptance is the EXIT's (drain). Every entry's reasons sum to its
 * cycles, and the entries' to the warp's. */
START_TEST(the_waits_are_charged_by_reason)
{
    cfg_gpu c;
    rig r;
    const_rig(&r, &c, 130, 1120);
    timing_keep_pc_cycles(r.t, true);
    rig_begin(&r);
    mem_mask(&r, 0, 0, 4, 0x1u, 0x10000000, 4);
    timing_result res;
    rig_end_open(&r, &res);
    ck_assert_ptr_nonnull(res.pc_why);
    static const uint64_t imc[5] = {130, 1120, 130, 0, 0};
    for (uint32_t i = 0; i < 5; i++) {
        const uint64_t *why = &res.pc_why[(size_t)i * TIMING_WHYS];
        uint64_t sum = 0;
        for (unsigned k = 0; k < TIMING_WHYS; k++)
            sum += why[k];
        ck_assert_uint_eq(sum, res.pc_cycles[i]);
        ck_assert_uint_eq(why[TIMING_WHY_IMC], imc[i]);
        ck_assert_uint_eq(why[TIMING_WHY_SELECTED], 1);
        ck_assert_uint_eq(res.pc_cycles[i], imc[i] + 1u);
    }
    /* after the store, the warp waits at its EXIT for the store's acceptance
     * (drain, charged to the EXIT: no instruction after it), and its cycles
     * from its CTA's start to its end are all charged somewhere */
    const uint64_t *exit_why = &res.pc_why[5u * TIMING_WHYS];
    ck_assert_uint_gt(exit_why[TIMING_WHY_DRAIN], 0);
    ck_assert_uint_eq(exit_why[TIMING_WHY_DRAIN], res.pc_cycles[5]);
    uint64_t all = 0;
    for (uint32_t i = 0; i < 6; i++)
        all += res.pc_cycles[i];
    ck_assert_uint_eq(all, res.warp_cycles);
    ck_assert_str_eq(timing_why_name(TIMING_WHY_NO_INST), "no_inst");
    ck_assert_ptr_null(timing_why_name(TIMING_WHYS));
    rig_close(&r);
}
END_TEST

/* After each barrier of a CTA of 8 warps, warp 0 and warp P store the two
 * halves of a line (or, SPLIT, 32 floats each from the middle of
 * neighbouring lines), right away: kernels/storemerge.cu's W 2, 16 lanes,
 * whose pairs the H200 merges every one (findings §22a: 2,048 requests for
 * 4,096 stores). The second store comes while the first's request is open
 * (WQUEUE_OPEN_CYCLES). (kernels/storepair.cu, whose pairs never merged,
 * findings §6b, reads clock64 twice between the barrier and the partner's
 * store: enough to miss, §22a; those reads are not in this rig.) */
static wqueue_counts storepair(uint32_t partner, bool split)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 256);
    rig_pc(&r, 0, "BAR.SYNC.DEFER_BLOCKING 0x0");
    rig_pc(&r, 1, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    uint64_t base = 0x10000000;
    for (uint32_t i = 0; i < 64; i++) {
        for (uint32_t w = 0; w < 8; w++)
            bar(&r, 0, w, 0);
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t w = k ? partner : 0;
            if (split)
                mem_mask(&r, 0, w, 1, TRACE_FULL_MASK, base + 4u * (i * 96u + (k ? 48u : 16u)), 4);
            else
                mem_mask(&r, 0, w, 1, 0xffffu, base + 4u * (i * 32u + (k ? 16u : 0u)), 4);
        }
    }
    timing_result res;
    rig_end(&r, &res);
    return res.wq;
}

START_TEST(two_warps_stores_after_a_barrier_merge)
{
    for (uint32_t p = 1; p <= 4; p += 3)
        for (int split = 0; split <= 1; split++)
            ck_assert_msg(storepair(p, split).requests == 64u, "P %u SPLIT %d", p, split);
}
END_TEST

/* kernels/storequad.cu (findings §24): after a barrier, each of a CTA's W
 * warps stores four floats of each of its 16-byte slots, x y z w, one STG
 * each (lanes 16 bytes apart: four lines of 8 bytes a sector a store),
 * replayed as captures hold them, all warps' x, then all y, ... Store
 * combining merges a warp's four into one request a line; the SM's queue
 * keeps that merge only while fewer than 31 requests entered between. With
 * 4 warps every store joins its run's request, as on the H200 (1.00
 * requests a line; with 16 warps 2.6, which the captured probe checks,
 * tests/timing-suite.sh). */
static wqueue_counts storequad(uint32_t warps)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32u * warps);
    rig_pc(&r, 0, "BAR.SYNC.DEFER_BLOCKING 0x0");
    for (uint32_t k = 0; k < 4; k++)
        rig_pc(&r, 1 + k, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    for (uint32_t w = 0; w < warps; w++)
        bar(&r, 0, w, 0);
    for (uint32_t k = 0; k < 4; k++)
        for (uint32_t w = 0; w < warps; w++)
            mem_mask(&r, 0, w, 1 + k, TRACE_FULL_MASK, 0x10000000 + 512u * w + 4u * k, 16);
    timing_result res;
    rig_end(&r, &res);
    return res.wq;
}

START_TEST(a_warp_s_own_stores_leave_apart_when_many_enter_between)
{
    wqueue_counts n = storequad(4);
    ck_assert_uint_eq(n.split_requests, 0);
    ck_assert_uint_eq(n.requests, 0); /* and none merges into another warp's */
    /* the rule itself: a run's request (entered at 100) takes a later store
     * of the run while it waits (left at 300) or for WQUEUE_OPEN_CYCLES after
     * it entered, and while fewer than WQUEUE_LOOKBACK (31) requests entered
     * since */
    wqueue *q = wqueue_create(1);
    ck_assert_uint_eq(WQUEUE_OPEN_CYCLES, 20);
    ck_assert(wqueue_join_open(q, 0, 100, 300, 250));
    ck_assert(!wqueue_join_open(q, 0, 100, 300, 300)); /* gone */
    ck_assert(wqueue_join_open(q, 0, 100, 100, 119));  /* sent at once, still open */
    ck_assert(!wqueue_join_open(q, 0, 100, 100, 120));
    ck_assert(!wqueue_join_open(q, 0, 100, 300, 99)); /* before it */
    for (uint32_t i = 0; i < 31; i++)
        wqueue_sent(q, 0, 2, 1000 + i, 0x1, i < 30 ? 101 + i : 260, 400);
    ck_assert(wqueue_join_open(q, 0, 100, 300, 250)); /* 30 entered since */
    ck_assert(!wqueue_join_open(q, 0, 100, 300, 260)); /* 31 */
    wqueue_split(q, 0x3);
    wqueue_counts m = wqueue_get_counts(q);
    ck_assert_uint_eq(m.split_requests, 1);
    ck_assert_uint_eq(m.split_sectors, 2);
    wqueue_destroy(q);
}
END_TEST

/* A kernel ends when its last warp has: after its stores left the SM (one
 * sector a cycle) and L2 accepted them, what its EXIT waits for (findings
 * §24: 32 warps storing at once keep one SM busy 137 thousand cycles). One
 * warp stores one word to each of 32 lines, 64 times with nothing between
 * (a column: 2,048 one-sector requests): the SM sends its last sector about
 * 2,048 cycles after the first store, L2 takes it in a round trip later. */
START_TEST(a_kernel_ends_when_its_stores_are_accepted)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 32);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    rig_begin(&r);
    for (uint32_t i = 0; i < 64; i++)
        mem_mask(&r, 0, 0, 0, TRACE_FULL_MASK, 0x10000000 + 4u * i, 128);
    timing_result res;
    uint64_t cycles = rig_end(&r, &res);
    /* the rig has no launch cost: the drain starts with the first store,
     * sends the last of 2,048 sectors at 2,048, L2 accepts it a round trip
     * later (2,333; the last store's own acknowledgement, which ended the
     * kernel before, comes at 1,649: the end of its tag stage, and a
     * round trip) */
    ck_assert_uint_eq(cycles, 2048u + c.t_l2_hit_cycles);
}
END_TEST

START_TEST(split_writes_join_the_write_counters)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.v[STAT_L2_REQ_WRITE] = 100;
    s.v[STAT_L2_SECT_WRITE] = 250;
    s.v[STAT_L1_M_WRITE_SECTORS] = 250;
    s.v[STAT_L2_SECT_WRITE_HIT] = 5;
    s.v[STAT_L2_SECT_WRITE_MISS] = 245;
    wqueue_counts m = {.split_requests = 3, .split_sectors = 12};
    wqueue_counts_apply(&m, &s);
    ck_assert_uint_eq(s.v[STAT_L2_REQ_WRITE], 103);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE], 262);
    ck_assert_uint_eq(s.v[STAT_L1_M_WRITE_SECTORS], 262);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE_HIT], 17); /* the line was just written */
    ck_assert_uint_eq(s.v[STAT_L2_SECT_WRITE_MISS], 245);
}
END_TEST

/* The SM's queue towards L2 carries its read requests too, one slot each
 * (kernels/rwmix.cu: store sectors + read requests = 0.91-1.00 a cycle).
 * Warp 0 gathers 32 lines twice: their 64 one-sector read requests fill the
 * drain calendar's first two bins (64 slots, cycles 0-63); warp 1 then
 * stores a word to a line (its tag stage done at ~10), and waits for the
 * third bin (64); warp 2 reads shared memory first and stores the next word
 * of that line with the data (~30 cycles later, past the 20 cycles a
 * request stays open once sent): it merges into warp 1's request, which
 * still waits. After two loads of one line each (two read requests) warp
 * 1's request leaves at once, and warp 2's comes too late for it. */
static wqueue_counts stores_behind_a_gather(uint32_t gather_lines)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 96);
    rig_pc(&r, 0, "LDG.E R4, desc[UR4][R2.64]");
    rig_pc(&r, 1, "STG.E desc[UR4][R2.64], R5");
    rig_pc(&r, 2, "LDS R5, [R6]");
    rig_pc(&r, 3, "STG.E desc[UR4][R8.64], R5");
    rig_begin(&r);
    for (uint32_t k = 0; k < 2; k++)
        mem(&r, 0, 0, 0, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0x20000000 + 0x10000u * k, gather_lines > 1 ? 128 : 0);
    mem_mask(&r, 0, 1, 1, 0x1u, 0x10000000, 4);
    mem(&r, 0, 2, 2, TRACE_KIND_LD, TRACE_SPACE_SHARED, 0x100, 4);
    mem_mask(&r, 0, 2, 3, 0x1u, 0x10000004, 4);
    timing_result res;
    rig_end(&r, &res);
    return res.wq;
}

START_TEST(stores_merge_behind_a_gather_s_read_requests)
{
    wqueue_counts n = stores_behind_a_gather(32);
    ck_assert_uint_eq(n.requests, 1);
    ck_assert_uint_eq(n.sectors, 1); /* both wrote sector 0 */
    n = stores_behind_a_gather(1);
    ck_assert_uint_eq(n.requests, 0);
}
END_TEST

/* A read request waits for its slot behind write sectors: warp 0 stores one
 * word to each of 32 lines (tag stage done at 8, 4 lines a cycle; its 32
 * one-sector write requests fill the drain calendar's first bin), and warp
 * 1's load of one line, done with the tag stage at 9, leaves L1 at 32. */
static uint64_t load_behind_a_column(bool column)
{
    cfg_gpu c;
    timing_cfg(&c);
    rig r;
    rig_open(&r, &c, 1, 64);
    rig_pc(&r, 0, "STG.E desc[UR4][R2.64], R5");
    rig_pc(&r, 1, "LDG.E R4, desc[UR4][R2.64]");
    rig_begin(&r);
    if (column)
        mem_mask(&r, 0, 0, 0, TRACE_FULL_MASK, 0x10000000, 128);
    mem(&r, 0, 1, 1, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, near_address(&c), 0);
    timing_result res;
    return rig_end(&r, &res);
}

START_TEST(a_read_request_waits_behind_write_sectors)
{
    /* alone: the cold load of the chain test (689), one cycle later: at PC 16
     * it issues after one instruction, so it leaves the tag stage at 2 */
    ck_assert_uint_eq(load_behind_a_column(false), 690);
    /* behind the column: it leaves L1 at 32 instead of 2 */
    ck_assert_uint_eq(load_behind_a_column(true), 690 + 30);
}
END_TEST

typedef struct writes {
    uint64_t requests, sectors, merged;
} writes;

static int sum_writes(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    writes *x = ctx;
    x->requests += r->totals.v[STAT_L2_REQ_WRITE]; /* after the write queues (replay.h) */
    x->sectors += r->totals.v[STAT_L2_SECT_WRITE];
    x->merged += r->timing->wq.requests;
    return 0;
}

/* The suite's captures under --timing: writeSegment_off11's L2 write
 * requests and sectors (measured 62,451 and 160,528 in the capture; 65,535
 * and 163,838 without the queues), and kernels whose writes must not merge:
 * transpose_naive (8 warps write the same 32 lines, measured 524,288 of
 * 524,288), writeSegment_off0. A warp's own consecutive stores, merged by
 * store combining, leave apart when the queue's comparison no longer reaches
 * the first (findings §24): simpleMathAoS 65,742 and 262,968 (measured
 * 65,953 and 263,744; 65,536 and 262,144 before), PyTorch's column sum 1,152
 * and 4,608 (measured 1,152 and 4,604; 1,056 and 4,224 before). A request
 * stays open 20 cycles after it entered the queue (findings §22a, §24):
 * the one-float stores of a CTA's warps after a barrier merge (argmax 512
 * sectors as measured, sum_rows 256 of 278, spmv_vector 8,040 of 7,967:
 * 2,026, 2,048 and 8,192 before), and writeSegment_off11's neighbouring
 * warps merge more boundary lines than the H200 does (-4.36%, a known
 * miss: the H200 merges ~10% of them, findings §6). */
START_TEST(the_suite_captures_writes)
{
    static const struct {
        const char *trace;
        uint64_t requests, sectors;
    } cases[] = {
        {"traces/h200/writeSegment_off11.trace", 55220, 153523}, /* -11.58%, -4.36%: a known miss
                                                                   * since requests stay open 20
                                                                   * cycles (findings §24); before,
                                                                   * 61,147 and 159,450 (61,302 and
                                                                   * 159,605 before code and
                                                                   * constants were fetched,
                                                                   * findings §23; 61,068 and
                                                                   * 159,371 before l2.placement =
                                                                   * page, findings §3h; 60,307 and
                                                                   * 158,610 before DRAM's latency
                                                                   * grew with its load; 61,075 and
                                                                   * 159,378 before the control
                                                                   * words, DRAM's own rates and
                                                                   * L2's intake, findings §18;
                                                                   * 60,925 and
                                                                   * 159,228 before arithmetic
                                                                   * results took
                                                                   * alu_latency_cycles; 62,215 and
                                                                   * 160,518 before the first wave's
                                                                   * CTAs started by their warps,
                                                                   * findings §16; 62,211 and
                                                                   * 160,514 before L2 fetched 64
                                                                   * bytes a miss; 62,208 and
                                                                   * 160,511 before the trace held
                                                                   * its whole SASS; 62,316 and
                                                                   * 160,619 before reads took
                                                                   * slots of the queue) */
        {"traces/h200/transpose_naive.trace", 524288, 524288},
        {"traces/h200/simpleMathAoS.trace", 65742, 262968},
        {"traces/h200/torch_sum_cols.trace", 1152, 4608},
        {"traces/h200/writeSegment_off0.trace", 32768, 131072},
        {"traces/h200/torch_argmax.trace", 128, 512},      /* measured 128 and 512 */
        {"traces/h200/torch_sum_rows.trace", 128, 256},    /* measured 136 and 278 */
        {"traces/h200/spmv_vector.trace", 8049, 8049}, /* measured 8,017 and 7,967; 8,040 before
                                                        * another GPC's read of another mask ended
                                                        * the LRC's kept requests (its reads take
                                                        * longer), 8,192 before
                                                        * requests stayed open 20 cycles,
                                                        * 8,190 before arithmetic results took
                                                        * alu_latency_cycles, 8,188 before the first
                                                        * wave's CTAs started
                                                        * by their warps (findings §16), 8,184 before
                                                        * the LRC kept one request a line
                                                        * (its gathers' reads wait longer in the queue now),
                                                        * 8,187 before L2 fetched 64 bytes a miss,
                                                        * 8,177 before the trace held its whole SASS */
    };
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", &c, &e) == 0, "%s", e.msg);
    replay_options opt = {.timing = true};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        writes x = {0};
        ck_assert_msg(replay_trace(cases[i].trace, &c, &opt, sum_writes, &x, &e) == 0, "%s", e.msg);
        ck_assert_msg(x.requests == cases[i].requests && x.sectors == cases[i].sectors,
                      "%s: %llu requests, %llu sectors (expected %llu, %llu)", cases[i].trace,
                      (unsigned long long)x.requests, (unsigned long long)x.sectors,
                      (unsigned long long)cases[i].requests, (unsigned long long)cases[i].sectors);
    }
}
END_TEST

Suite *timing_suite(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("cycles");
    tcase_set_timeout(tc, 60); /* each case builds a whole H200; slow under the sanitizers */
    tcase_add_test(tc, a_chain_of_dependent_loads_costs_one_latency_each);
    tcase_add_test(tc, a_sector_fetched_beside_another_waits_for_its_fill);
    tcase_add_test(tc, a_guarded_load_has_a_destination);
    tcase_add_test(tc, the_model_counts_the_instructions_it_issues);
    tcase_add_test(tc, a_warp_without_records_counts_its_way_to_the_exit);
    tcase_add_test(tc, the_warps_cycles_go_to_the_instruction_they_wait_at);
    tcase_add_test(tc, a_deferred_barrier_blocks_at_the_next_memory_instruction);
    tcase_add_test(tc, an_instruction_between_records_carries_a_dependency);
    tcase_add_test(tc, small_ctas_spread_over_the_sub_partitions);
    tcase_add_test(tc, instructions_that_overflow_a_bin_issue_in_the_next);
    tcase_add_test(tc, a_conflicted_lds_costs_two_cycles_per_wavefront_of_latency);
    tcase_add_test(tc, a_warps_wavefronts_go_through_the_data_stage_at_its_own_rate);
    tcase_add_test(tc, arithmetic_results_take_alu_latency_cycles);
    tcase_add_test(tc, control_words_set_the_issue_and_the_waits);
    tcase_add_test(tc, a_depbar_makes_the_next_instruction_wait);
    tcase_add_test(tc, independent_loads_overlap);
    tcase_add_test(tc, a_register_32_apart_from_a_pending_load_is_not_waited_for);
    tcase_add_test(tc, a_stream_is_limited_by_dram_bandwidth);
    tcase_add_test(tc, a_barrier_waits_for_the_last_warp_in_any_replay_order);
    tcase_add_test(tc, same_address_atomics_serialize);
    tcase_add_test(tc, a_slice_does_one_lookup_per_l2_cycle);
    tcase_add_test(tc, stores_wait_their_turn_into_l2);
    tcase_add_test(tc, a_written_back_sector_costs_dram_write_cost);
    tcase_add_test(tc, dram_latency_grows_with_its_load);
    tcase_add_test(tc, ctas_dispatch_at_the_exact_rate);
    tcase_add_test(tc, first_wave_ctas_dispatch_per_warp);
    tcase_add_test(tc, a_warp_is_active_until_its_load_returns);
    tcase_add_test(tc, a_warp_waits_at_exit_for_its_store_to_be_taken_in);
    tcase_add_test(tc, a_warp_at_its_last_barrier_lives_until_the_release);
    tcase_add_test(tc, a_read_of_a_line_on_its_way_waits_for_its_fill);
    tcase_add_test(tc, an_l1_hit_on_a_line_on_its_way_waits_for_its_fill);
    tcase_add_test(tc, an_sm_s_first_wave_starts_together);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("parsing");
    tcase_add_test(tp, sass_registers_are_parsed);
    tcase_add_test(tp, sass_constant_operands_are_parsed);
    tcase_add_test(tp, a_config_without_timing_has_none);
    suite_add_tcase(s, tp);
    TCase *tw = tcase_create("write queue");
    tcase_set_timeout(tw, 120); /* four captures replayed with timing */
    tcase_add_test(tw, a_write_to_a_line_another_warp_has_waiting_merges);
    tcase_add_test(tw, the_comparison_reaches_31_requests_back);
    tcase_add_test(tw, merged_writes_leave_the_write_counters);
    tcase_add_test(tw, a_store_behind_a_full_queue_merges);
    tcase_add_test(tw, two_warps_stores_after_a_barrier_merge);
    tcase_add_test(tw, a_warp_s_own_stores_leave_apart_when_many_enter_between);
    tcase_add_test(tw, split_writes_join_the_write_counters);
    tcase_add_test(tw, a_kernel_ends_when_its_stores_are_accepted);
    tcase_add_test(tw, shuffle_records_run_a_loop_as_often_as_the_warp_did);
    tcase_add_test(tw, a_warp_waits_for_its_code_to_be_fetched);
    tcase_add_test(tw, a_warp_waits_for_its_constants_to_be_fetched);
    tcase_add_test(tw, the_waits_are_charged_by_reason);
    tcase_add_test(tw, stores_merge_behind_a_gather_s_read_requests);
    tcase_add_test(tw, a_read_request_waits_behind_write_sectors);
    tcase_add_test(tw, the_suite_captures_writes);
    suite_add_tcase(s, tw);
    return s;
}

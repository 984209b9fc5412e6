/* test_explain.c - the per-lane decomposition of model/explain.h agrees with
 * the model: with smem_cost_warp() and coal_run() and with the measured H200
 * counts on every row of hardware-facts §2.2 and §3.4 (tests/data/hw), with
 * the seed experiments (exact lanes, banks, wavefronts and sentences), and,
 * instruction by instruction, with a full replay (gpu.c) of shipped captures. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "explain.h"
#include "replay.h"
#include "source_view.h"
#include "suites.h"
#include "test_util.h"

static explain_result res; /* 20 KB: not on the stack */

static void load_cfg(const char *path, cfg_gpu *c)
{
    err_info err = {{0}};
    ck_assert_msg(cfg_load(path, c, &err) == 0, "%s", err.msg);
}

/* The checks every decomposition must pass, whatever the input. */
static void check_invariants(const explain_geom *g, const trace_mem *m, const explain_result *r)
{
    if (r->coalesced) {
        /* the lines and sectors are coal_run's on the lanes' chunks */
        coal_result direct;
        coal_chunk c[32];
        uint32_t n = 0;
        if (m->space == TRACE_SPACE_GLOBAL) {
            for (uint32_t l = 0; l < 32; l++)
                if (m->active_mask & (1u << l))
                    c[n++] = (coal_chunk){m->addr[l], m->size_bytes, (uint8_t)l};
            coal_run(&g->coal, c, n, &direct);
            ck_assert_uint_eq(direct.n_sectors, r->coal.n_sectors);
            ck_assert_uint_eq(direct.n_lines, r->coal.n_lines);
        }
        for (uint32_t l = 0; l < 32; l++) {
            const explain_lane *ln = &r->lanes[l];
            if (!ln->active)
                continue;
            const coal_line *cl = &r->coal.lines[ln->line_index];
            ck_assert_uint_eq(cl->line, ln->coal_addr >> g->coal.line_shift);
            ck_assert(cl->sector_mask & (1u << ln->sector));
            ck_assert(cl->byte_mask[ln->sector] & (1u << ln->sector_offset));
        }
        ck_assert_uint_le(r->ideal_sectors, r->coal.n_sectors);
    }
    if (r->banked) {
        /* the cost is the model's */
        bool store = m->kind == TRACE_KIND_ST || (m->flags & TRACE_MEM_LDGSTS);
        bool atomic = !store && (m->kind == TRACE_KIND_ATOM || m->kind == TRACE_KIND_RED) &&
                      m->space == TRACE_SPACE_SHARED;
        ck_assert(!r->serialized || atomic); /* only atomics serialise; which ones, the SASS says */
        smem_cost c = smem_cost_warp(&g->banks, m->addr, m->active_mask, m->size_bytes, r->merged, r->serialized);
        ck_assert_uint_eq(c.wavefronts, r->bank.cost.wavefronts);
        ck_assert_uint_eq(c.ideal, r->bank.cost.ideal);
        /* every word's bank and entry follow the address, its pass is below its phase's cost,
         * and the worst bank of each phase really needs that many passes */
        for (uint32_t p = 0; p < r->bank.n_phases; p++) {
            const smem_phase *ph = &r->bank.phases[p];
            uint32_t worst_passes = 0;
            for (uint32_t w = ph->first_word; w < ph->first_word + ph->n_words; w++) {
                const smem_word *sw = &r->bank.words[w];
                ck_assert_uint_lt(sw->pass, ph->wavefronts);
                if (sw->bank == ph->worst_bank && !sw->repeat)
                    worst_passes++;
            }
            ck_assert_uint_eq(worst_passes > 0 ? worst_passes : 1, ph->wavefronts);
        }
        for (uint32_t l = 0; l < 32; l++) {
            const explain_lane *ln = &r->lanes[l];
            ck_assert_uint_eq(ln->n_words > 0, ln->active);
            for (uint32_t w = ln->first_word; w < ln->first_word + ln->n_words; w++) {
                const smem_word *sw = &r->bank.words[w];
                uint64_t word_addr = ln->addr + (uint64_t)(w - ln->first_word) * g->banks.mode_bytes;
                ck_assert_uint_eq(sw->bank, (word_addr / g->banks.mode_bytes) % g->banks.banks);
                ck_assert_uint_eq(sw->entry, word_addr / g->banks.phase_bytes);
            }
        }
    }
}

/* ---- the measured rows (tests/data/hw) -------------------------------------- */

typedef struct measured {
    char kernel[64];
    char metric[96];
    unsigned long long value;
} measured;

static int read_expected(measured *rows, int max)
{
    FILE *f = fopen("tests/data/hw/EXPECTED", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_int_lt(n, max);
        ck_assert_int_eq(sscanf(line, "%63s %95s %llu", rows[n].kernel, rows[n].metric, &rows[n].value), 3);
        n++;
    }
    fclose(f);
    return n;
}

static int find_measured(const measured *rows, int n, const char *kernel, const char *metric,
                         unsigned long long *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].kernel, kernel) == 0 && strcmp(rows[i].metric, metric) == 0) {
            *out = rows[i].value;
            return 1;
        }
    return 0;
}

/* Sums over a kernel of the counts the decomposition implies. */
typedef struct implied {
    uint64_t records, loads, sectors, lines, tag_wf, data_wf, data_bc_if_miss, smem_wf, smem_bc;
} implied;

static int checked_rows;

static void expect(const measured *rows, int n, const char *kernel, const char *metric, uint64_t have)
{
    unsigned long long want;
    if (!find_measured(rows, n, kernel, metric, &want))
        return;
    ck_assert_msg(have == want, "%s %s: explain %llu, measured %llu", kernel, metric, (unsigned long long)have,
                  want);
    checked_rows++;
}

static void compare_kernel(const measured *rows, int n, const char *kernel, const implied *s, bool shared,
                           const char *op)
{
    char metric[128];
    if (shared) {
        snprintf(metric, sizeof metric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum", op);
        expect(rows, n, kernel, metric, s->smem_wf);
        snprintf(metric, sizeof metric, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum", op);
        expect(rows, n, kernel, metric, s->smem_bc);
        return;
    }
    if (strcmp(op, "ld") != 0)
        return; /* stores and atomics: their L1 sectors and L2 traffic are not address-only counts */
    expect(rows, n, kernel, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", s->sectors);
    expect(rows, n, kernel, "l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum", s->lines);
    expect(rows, n, kernel, "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum", s->tag_wf);
    if (s->records == 1) { /* a single load on cold caches: every sector misses */
        expect(rows, n, kernel, "l1tex__data_pipe_lsu_wavefronts_mem_lgds_cmd_read.sum", s->data_wf);
        expect(rows, n, kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_gds_op_ld.sum", s->data_bc_if_miss);
    }
}

static void explain_measured_trace(const char *path, const measured *rows, int n_rows, const explain_geom *g)
{
    err_info err = {{0}};
    trace_reader_options ropt = {0};
    trace_reader *r = trace_reader_open(path, &ropt, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_event ev;
    implied s;
    bool shared = false;
    const char *op = "ld";
    char kernel[64] = "";
    int got;
    while ((got = trace_reader_next(r, &ev, &err)) == 1) {
        switch (ev.type) {
        case TRACE_EV_KERNEL:
            memset(&s, 0, sizeof s);
            snprintf(kernel, sizeof kernel, "%s", ev.kernel->name);
            break;
        case TRACE_EV_MEM: {
            const trace_mem *m = &ev.mem;
            explain_mem(g, m, NULL, &res);
            check_invariants(g, m, &res);
            s.records++;
            shared = m->space == TRACE_SPACE_SHARED;
            op = m->kind == TRACE_KIND_LD ? "ld" : m->kind == TRACE_KIND_ST ? "st" : "atom";
            if (shared) {
                s.smem_wf += res.bank.cost.wavefronts;
                s.smem_bc += res.bank.cost.wavefronts - res.bank.cost.ideal;
            } else if (m->kind == TRACE_KIND_LD) {
                /* global loads only: a kernel that stores first compares its load's counts */
                s.loads++;
                s.sectors += res.coal.n_sectors;
                s.lines += res.coal.n_lines;
                s.tag_wf += res.tag_wavefronts;
                s.data_wf += res.bank.cost.wavefronts;
                uint32_t ideal = res.data_ideal_if_miss;
                s.data_bc_if_miss += res.bank.cost.wavefronts > ideal ? res.bank.cost.wavefronts - ideal : 0;
            }
            if (s.loads)
                op = "ld";
            break;
        }
        case TRACE_EV_KERNEL_END:
            compare_kernel(rows, n_rows, kernel, &s, shared, op);
            break;
        default:
            break;
        }
    }
    ck_assert_msg(got == 0, "%s", err.msg);
    trace_reader_close(r);
}

START_TEST(measured_rows_agree_with_the_decomposition)
{
    static measured rows[512];
    int n = read_expected(rows, 512);
    cfg_gpu cfg;
    load_cfg("configs/h200.ini", &cfg);
    explain_geom g;
    explain_geom_init(&g, &cfg);
    checked_rows = 0;
    explain_measured_trace("tests/data/hw/h200_shared.trace", rows, n, &g);
    int shared_rows = checked_rows;
    explain_measured_trace("tests/data/hw/h200_global.trace", rows, n, &g);
    /* every §2.2 row: wf and bc of 46 kernels; §1c/§3.4: the 44 sector, line and tag-wavefront
     * counts of the loads, and the 22 data-stage counts of the single-load kernels */
    ck_assert_int_eq(shared_rows, 92);
    ck_assert_int_eq(checked_rows - shared_rows, 44 + 22);
}
END_TEST

/* ---- the seed experiments ---------------------------------------------------- */

static explain_geom h200, k20c_4byte, k20c_8byte;

static void seed_setup(void)
{
    cfg_gpu c;
    load_cfg("configs/h200.ini", &c);
    explain_geom_init(&h200, &c);
    load_cfg("configs/k20c.ini", &c);
    c.smem_bank_mode_bytes = 4;
    explain_geom_init(&k20c_4byte, &c);
    c.smem_bank_mode_bytes = 8; /* cudaSharedMemBankSizeEightByte */
    explain_geom_init(&k20c_8byte, &c);
}

static const char *why(const explain_geom *g)
{
    static char buf[4096];
    explain_why(g, &res, buf, sizeof buf);
    return buf;
}

#define ck_assert_says(g, phrase)                                                                             \
    do {                                                                                                      \
        const char *w_ = why(g);                                                                              \
        ck_assert_msg(strstr(w_, phrase) != NULL, "expected \"%s\" in:\n%s", phrase, w_);                    \
    } while (0)

/* Seed 003 readSegment: C[i] = A[i + offset] + B[i + offset], float, a warp
 * reads 32 consecutive floats starting offset floats into a 256-B aligned array. */
START_TEST(seed_read_segment_offsets)
{
    static const struct {
        uint32_t offset;
        uint32_t sectors, lines, excessive, first_sector, first_sector_offset;
    } rows[] = {
        {0, 4, 1, 0, 0, 0},
        {11, 5, 2, 1, 1, 12}, /* 44 B into the line: sector 1, 12 B in */
        {128, 4, 1, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trace_mem m;
        test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x7f0000000000ull + 4u * rows[i].offset,
                 4);
        explain_mem(&h200, &m, NULL, &res);
        check_invariants(&h200, &m, &res);
        ck_assert_uint_eq(res.coal.n_sectors, rows[i].sectors);
        ck_assert_uint_eq(res.coal.n_lines, rows[i].lines);
        ck_assert_uint_eq(res.ideal_sectors, 4);
        ck_assert_uint_eq(res.excessive_sectors, rows[i].excessive);
        ck_assert_uint_eq(res.lanes[0].sector, rows[i].first_sector);
        ck_assert_uint_eq(res.lanes[0].sector_offset, rows[i].first_sector_offset);
        ck_assert_int_eq(res.stride_bytes, 4);
        ck_assert_uint_eq(res.bank.cost.wavefronts, 1); /* 32 consecutive words: 32 banks */
    }
    /* offset 11: lanes 0..20 in line 0 (bytes 44..127), lanes 21..31 in line 1 */
    ck_assert_uint_eq(res.lanes[31].line_index, 0); /* offset 128: one line */
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x7f0000000000ull + 44u, 4);
    explain_mem(&h200, &m, NULL, &res);
    ck_assert_uint_eq(res.lanes[20].line_index, 0);
    ck_assert_uint_eq(res.lanes[20].sector, 3);
    ck_assert_uint_eq(res.lanes[21].line_index, 1);
    ck_assert_uint_eq(res.lanes[21].sector, 0);
    ck_assert_uint_eq(res.lanes[31].sector, 1);
    ck_assert_says(&h200, "32 active lanes x 4 B = 128 B could fill 4 sectors of 32 B (ideal); they touch 5 "
                          "sectors in 2 lines because the first byte is 12 B into its 32-B sector (44 B into its "
                          "128-B line): 1 excessive sector.");
    ck_assert_says(&h200, "2 distinct 128-B lines: L1 Tag Requests Global 2, 1 tag-stage wavefront at 4 lines per "
                          "cycle.");
}
END_TEST

/* Seed 003 AoS vs SoA: struct {float x, y} read field by field is a 4-byte
 * load at a stride of 8 B (half of every sector wasted); SoA is coalesced. */
START_TEST(seed_aos_vs_soa)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x7f0000000000ull, 8);
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
    ck_assert_uint_eq(res.coal.n_sectors, 8);
    ck_assert_uint_eq(res.coal.n_lines, 2);
    ck_assert_uint_eq(res.ideal_sectors, 4);
    ck_assert_uint_eq(res.excessive_sectors, 4);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 2); /* §3.4: LDG.32 stride 8 B, data stage 2 */
    ck_assert_says(&h200, "consecutive lanes are 8 B apart, so the 8 sectors they touch (in 2 lines) carry 16.0 of "
                          "their 32 B each on average: 4 excessive sectors.");
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x7f0000000000ull, 4);
    explain_mem(&h200, &m, NULL, &res);
    ck_assert_uint_eq(res.coal.n_sectors, 4);
    ck_assert_uint_eq(res.excessive_sectors, 0);
    ck_assert_says(&h200, "they touch exactly 4 sectors in 1 line: no excessive sectors.");
}
END_TEST

/* Seed 001: the first warp of a 128-thread block reading shared floats. */
static void shared_words(trace_kind kind, const uint32_t *word_of_lane)
{
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 4u * word_of_lane[l];
    trace_mem m;
    test_mem_addrs(&m, kind, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, addr);
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
}

START_TEST(seed_bank_conflicts)
{
    uint32_t w[32];
    /* data[base + tid], base = 128: conflict-free */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = 128 + l;
    shared_words(TRACE_KIND_LD, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 1);
    ck_assert_uint_eq(res.lanes[5].n_words, 1);
    ck_assert_uint_eq(res.bank.words[res.lanes[5].first_word].bank, 5);
    ck_assert_says(&h200, "Every bank gets at most one distinct word per phase: 1 wavefront = ideal, no bank "
                          "conflict.");

    /* data[base + 4 * tid], base = 3: banks 3, 7, .., 31 each hold 4 lanes' words (lanes l, l+8, l+16, l+24) */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = 3 + 4 * l;
    shared_words(TRACE_KIND_LD, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 4);
    ck_assert_uint_eq(res.bank.cost.ideal, 1);
    ck_assert_uint_eq(res.bank.phases[0].worst_bank, 3);
    ck_assert_uint_eq(res.bank.words[res.lanes[24].first_word].bank, 3);
    ck_assert_uint_eq(res.bank.words[res.lanes[24].first_word].pass, 3);
    ck_assert_uint_eq(res.bank.words[res.lanes[8].first_word].pass, 1);
    ck_assert_says(&h200, "Bank 3 is requested by 4 distinct words in phase 0 (lanes 0,8,16,24) -> 4 wavefronts, "
                          "ideal 1: a 4-way bank conflict.");
    ck_assert_says(&h200, "4 wavefronts in all, ideal 1: 3 excessive (bank conflicts); N-way = 4.");

    /* data[16 * tid + c]: even lanes in bank c, odd lanes in bank c + 16: 16-way */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = 16 * l + 5;
    shared_words(TRACE_KIND_LD, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 16);
    ck_assert_uint_eq(res.bank.phases[0].worst_bank, 5);
    ck_assert_says(&h200, "Bank 5 is requested by 16 distinct words in phase 0 (lanes 0,2,4,...,30) -> 16 "
                          "wavefronts, ideal 1: a 16-way bank conflict.");

    /* the padded read data[17 * tid + c]: 17 is odd, so 32 lanes hit 32 banks */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = 17 * l + 5;
    shared_words(TRACE_KIND_LD, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 1);

    /* the padded store data[row * 17 + column], e = tid: lanes 0..15 words 0..15,
     * lanes 16..31 words 17..32; word 32 (lane 31) shares bank 0 with word 0 (lane 0) */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = (l / 16) * 17 + l % 16;
    shared_words(TRACE_KIND_ST, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 2);
    ck_assert_uint_eq(res.bank.phases[0].worst_bank, 0);
    ck_assert_says(&h200, "Bank 0 is requested by 2 distinct words in phase 0 (lanes 0,31) -> 2 wavefronts, ideal "
                          "1: a 2-way bank conflict.");

    /* data[3] by every lane: one word, broadcast */
    for (uint32_t l = 0; l < 32; l++)
        w[l] = 3;
    shared_words(TRACE_KIND_LD, w);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 1);
    ck_assert_says(&h200, "31 lanes only read words another lane of the phase also asks for: broadcast, no extra "
                          "wavefront.");
}
END_TEST

/* Seed 002: filter21 on float2, LDS.64 of 32 consecutive float2 one element
 * past a 256-B segment (inputS[sIdx - 10 + 1]), on the K20c in both modes. */
START_TEST(seed_kepler_float2_bank_modes)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_SHARED, 8, TRACE_FULL_MASK, 0x8, 8);
    explain_mem(&k20c_4byte, &m, NULL, &res);
    check_invariants(&k20c_4byte, &m, &res);
    ck_assert_uint_eq(res.lanes_per_phase, 32);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 2);
    /* lane 31 reads words 64, 65: banks 0, 1 of entry 1, where lane 15 reads words 32, 33 of entry 0 */
    const explain_lane *l31 = &res.lanes[31];
    ck_assert_uint_eq(l31->n_words, 2);
    ck_assert_uint_eq(res.bank.words[l31->first_word].bank, 0);
    ck_assert_uint_eq(res.bank.words[l31->first_word].entry, 1);
    ck_assert_uint_eq(res.bank.words[l31->first_word].pass, 1);
    ck_assert_uint_eq(res.bank.words[res.lanes[15].first_word].entry, 0);
    ck_assert_says(&k20c_4byte, "32 banks x 8 B, 4-B words to successive banks, 256 B per wavefront: 8-B accesses go "
                                "in phases of 32 lanes; 1 phase with an active lane = 1 ideal wavefront.");
    ck_assert_says(&k20c_4byte, "Bank 0 is requested by 2 distinct entries in phase 0 (lanes 15,31) -> 2 wavefronts");
    ck_assert_says(&k20c_4byte, "15 lanes only use 8-B bank entries that another lane of the phase also uses (same "
                                "bank, same entry): served together, no extra wavefront.");

    explain_mem(&k20c_8byte, &m, NULL, &res);
    check_invariants(&k20c_8byte, &m, &res);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 1);
    ck_assert_uint_eq(res.lanes[31].n_words, 1);
    ck_assert_uint_eq(res.bank.words[res.lanes[31].first_word].bank, 0);
    ck_assert_uint_eq(res.bank.words[res.lanes[0].first_word].bank, 1);

    /* the same access on the H200: half-warp phases, no pairing (distinct addresses), 2 conflict-free phases */
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
    ck_assert_uint_eq(res.lanes_per_phase, 16);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 2);
    ck_assert_uint_eq(res.bank.cost.ideal, 2);
    ck_assert_uint_eq(res.lanes[16].phase, 1);
}
END_TEST

/* Seed 003's atomics: 32 lanes reducing into one word. */
START_TEST(global_same_address_reduction)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_RED, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, 0x7f0000100000ull, 0);
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
    ck_assert(!res.banked);
    ck_assert_uint_eq(res.coal.n_sectors, 1);
    ck_assert_uint_eq(res.ideal_sectors, 1);
    ck_assert_uint_eq(res.excessive_sectors, 0);
    ck_assert_says(&h200, "lanes share addresses (4 distinct bytes), so they touch only 1 sector in 1 line: the "
                          "ideal is capped at the sectors touched (1), no excessive sectors.");
    ck_assert_says(&h200, "A reduction: lanes on one address are performed one after another at L2");
}
END_TEST

START_TEST(shared_atomics_serialise)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_ATOM, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x40, 0);
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
    ck_assert(res.serialized);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 32); /* §2.2 ATOMS.ADD same word */
    ck_assert_uint_eq(res.bank.words[res.lanes[31].first_word].pass, 31);
    ck_assert_says(&h200, "Atomics serialise: bank 16 receives 32 lane words in phase 0 (lanes 0-31;");
}
END_TEST

/* ATOMS.POPC.INC (atomicAdd(p, 1), result unused) serves lanes on one word
 * together (findings §9: histogram_skewed, one wavefront per instruction) */
START_TEST(shared_popc_inc_atomics_combine)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_ATOM, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x40, 0);
    explain_mem(&h200, &m, "ATOMS.POPC.INC.32 RZ, [R4+UR4]", &res);
    check_invariants(&h200, &m, &res);
    ck_assert(!res.serialized);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 1);
    ck_assert_says(&h200, "31 lanes only add to words another lane of the phase also adds to: this atomic "
                          "(ATOMS.POPC.INC) adds the number of lanes on a word once");
    explain_mem(&h200, &m, "ATOMS.ADD R5, [R4+UR4], R6", &res);
    ck_assert(res.serialized);
    ck_assert_uint_eq(res.bank.cost.wavefronts, 32);
}
END_TEST

START_TEST(local_memory_interleaves)
{
    trace_mem m;
    /* STL.128 of offset 0x10 in every lane: 4 words x 128 B contiguous = 16 sectors, 4 lines */
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_LOCAL, 16, TRACE_FULL_MASK, 0x10, 0);
    explain_mem(&h200, &m, NULL, &res);
    check_invariants(&h200, &m, &res);
    ck_assert_uint_eq(res.local_words, 4);
    ck_assert_uint_eq(res.coal.n_sectors, 16);
    ck_assert_uint_eq(res.coal.n_lines, 4);
    ck_assert_uint_eq(res.lanes[3].coal_addr, 4u * 128u + 3u * 4u);
    ck_assert_says(&h200, "touch 16 sectors in 4 lines (L2 Theoretical Sectors Local)");
    ck_assert_says(&h200, "Every lane uses the same offset");
}
END_TEST

/* Findings §26: a cp.async lane whose source is in the null page is a zero
 * fill (cuBLAS's sgemm in torch_mm): it reads nothing. Lanes 0-15 null, 16-31
 * reading one line: the access is the 16 lanes that read. */
START_TEST(ldgsts_null_sources_are_zero_fills)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 8, TRACE_FULL_MASK, 0x7f0000100000ull, 8);
    m.flags = TRACE_MEM_LDGSTS;
    for (uint32_t l = 0; l < 16; l++)
        m.addr[l] = 8u * l;
    for (uint32_t l = 16; l < 32; l++)
        m.addr[l] = 0x7f0000100000ull + 8u * (l - 16);
    explain_mem(&h200, &m, NULL, &res);
    trace_mem reads = m;
    reads.active_mask = 0xffff0000u;
    check_invariants(&h200, &reads, &res);
    ck_assert_uint_eq(res.zero_fill_mask, 0x0000ffffu);
    ck_assert_uint_eq(res.active_mask, 0xffff0000u);
    ck_assert_uint_eq(res.active_lanes, 16);
    ck_assert(!res.lanes[0].active);
    ck_assert_uint_eq(res.lanes[1].addr, 8);
    ck_assert_uint_eq(res.coal.n_lines, 1);
    ck_assert_uint_eq(res.coal.n_sectors, 4);
    ck_assert_says(&h200, "Lanes 0-15 zero-fill: their source lies in the null page (below 4096 B), so they read "
                          "nothing");
    for (uint32_t l = 16; l < 32; l++)
        m.addr[l] = 0;
    explain_mem(&h200, &m, NULL, &res);
    ck_assert_uint_eq(res.zero_fill_mask, TRACE_FULL_MASK);
    ck_assert_uint_eq(res.coal.n_lines, 0);
    ck_assert_says(&h200, "No lane reads memory: no L1 tag request, no sector.");
    m.flags = 0; /* a plain load of the null page is the trace's business, not a zero fill */
    explain_mem(&h200, &m, NULL, &res);
    ck_assert_uint_eq(res.zero_fill_mask, 0);
    ck_assert_uint_eq(res.coal.n_lines, 1);
}
END_TEST

START_TEST(lane_lists_read_well)
{
    char b[160];
    ck_assert_str_eq(explain_lane_list(0xffffffffu, b, sizeof b), "0-31");
    ck_assert_str_eq(explain_lane_list(0x01010101u, b, sizeof b), "0,8,16,24");
    ck_assert_str_eq(explain_lane_list(0x80000001u, b, sizeof b), "0,31");
    ck_assert_str_eq(explain_lane_list(0x00ff00ffu, b, sizeof b), "0-7,16-23");
    ck_assert_str_eq(explain_lane_list(0x0000002bu, b, sizeof b), "0,1,3,5");
    ck_assert_str_eq(explain_lane_list(0, b, sizeof b), "none");
    ck_assert_str_eq(explain_lane_list(0xffffffffu, b, 4), "0-3"); /* truncated, terminated */
}
END_TEST

/* ---- shipped captures: every record, summed per PC, equals the replay ------- */

typedef struct pc_sum {
    uint32_t pc;
    uint64_t tag_req, l2_theo, l2_ideal, l2_local, smem_wf, smem_ideal, data_wf, tag_wf;
} pc_sum;

typedef struct capture_check {
    uint32_t n;
    pc_sum pcs[256];
    uint32_t launches_compared;
    uint64_t values_compared;
} capture_check;

static pc_sum *sum_of(capture_check *c, uint32_t pc)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->pcs[i].pc == pc)
            return &c->pcs[i];
    ck_assert_uint_lt(c->n, 256);
    pc_sum *p = &c->pcs[c->n++];
    memset(p, 0, sizeof *p);
    p->pc = pc;
    return p;
}

static void eq(capture_check *c, uint32_t pc, const char *what, uint64_t replay, uint64_t explained)
{
    ck_assert_msg(replay == explained, "PC 0x%x %s: replay %llu, explain %llu", pc, what, (unsigned long long)replay,
                  (unsigned long long)explained);
    c->values_compared++;
}

static int compare_with_replay(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    capture_check *c = ctx;
    for (uint32_t i = 0; i < r->n_pcs; i++) {
        const gpu_pc_stats *p = &r->pcs[i];
        const uint64_t *v = p->s.v;
        pc_sum *e = sum_of(c, p->pc);
        eq(c, p->pc, "tag requests", v[STAT_SRC_TAG_REQ_GLOBAL], e->tag_req);
        eq(c, p->pc, "L2 theoretical sectors", v[STAT_SRC_L2_THEO_SECT_GLOBAL], e->l2_theo);
        eq(c, p->pc, "L2 theoretical sectors ideal", v[STAT_SRC_L2_THEO_SECT_GLOBAL_IDEAL], e->l2_ideal);
        eq(c, p->pc, "L2 theoretical sectors local", v[STAT_SRC_L2_THEO_SECT_LOCAL], e->l2_local);
        eq(c, p->pc, "shared wavefronts",
           v[STAT_SMEM_WF_LD] + v[STAT_SMEM_WF_ST] + v[STAT_SMEM_WF_ATOM] + v[STAT_SMEM_WF_LDGSTS], e->smem_wf);
        eq(c, p->pc, "shared ideal", v[STAT_SMEM_WF_IDEAL], e->smem_ideal);
        eq(c, p->pc, "tag wavefronts", v[STAT_L1_TAG_WF_GLOBAL_LD], e->tag_wf);
        if (v[STAT_L1_REQ_LOCAL_LD] == 0) /* local loads add their own data-stage wavefronts */
            eq(c, p->pc, "data-stage wavefronts", v[STAT_L1_DATA_WF_GLOBAL_LD], e->data_wf);
    }
    c->launches_compared++;
    return 0;
}

static void check_capture(const char *path)
{
    cfg_gpu cfg;
    load_cfg("configs/h200.ini", &cfg);
    explain_geom g;
    explain_geom_init(&g, &cfg);
    static capture_check c;
    memset(&c, 0, sizeof c);

    /* explain every record, summed per PC (one launch per capture in this suite) */
    err_info err = {{0}};
    trace_reader_options ropt = {0};
    trace_reader *r = trace_reader_open(path, &ropt, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_event ev;
    int got;
    uint32_t kernels = 0;
    const trace_kernel *k = NULL;
    while ((got = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            ck_assert_uint_eq(kernels++, 0);
            k = ev.kernel;
        }
        if (ev.type != TRACE_EV_MEM)
            continue;
        const trace_pc_info *pi = k ? trace_kernel_find_pc(k, ev.mem.pc) : NULL;
        explain_mem(&g, &ev.mem, pi ? pi->sass : NULL, &res);
        pc_sum *p = sum_of(&c, ev.mem.pc);
        if (res.space == TRACE_SPACE_GLOBAL) {
            p->tag_req += res.coal.n_lines;
            p->l2_theo += res.coal.n_sectors;
            p->l2_ideal += res.ideal_sectors;
            p->tag_wf += res.tag_wavefronts;
            if (res.banked)
                p->data_wf += res.bank.cost.wavefronts;
        } else if (res.space == TRACE_SPACE_LOCAL) {
            p->l2_local += res.coal.n_sectors;
        } else {
            p->smem_wf += res.bank.cost.wavefronts;
            p->smem_ideal += res.bank.cost.ideal;
        }
    }
    ck_assert_msg(got == 0, "%s", err.msg);
    trace_reader_close(r);

    replay_options opt = {0};
    ck_assert_msg(replay_trace(path, &cfg, &opt, compare_with_replay, &c, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(c.launches_compared, 1);
    ck_assert_uint_gt(c.values_compared, 0);
}

static const char *const captures[] = {
    "traces/h200/readSegment_off11.trace",   "traces/h200/simpleMathAoS.trace",
    "traces/h200/bank_stride4.trace",        "traces/h200/bank_pad17.trace",
    "traces/h200/filter21_float2.trace",     "traces/h200/local_array.trace",
    "traces/h200/atomic_same.trace",         "traces/h200/transpose_padded.trace",
    "traces/h200/matrixMul_tiny_tiled2.trace", "traces/h200/histogram_uniform.trace",
    "traces/h200/histogram_skewed.trace",    "traces/h200/copyAsync_cg16.trace",
};

START_TEST(shipped_captures_agree_with_replay)
{
    check_capture(captures[_i]);
}
END_TEST

Suite *explain_suite(void)
{
    Suite *s = suite_create("explain");
    TCase *tc = tcase_create("measured");
    tcase_add_test(tc, measured_rows_agree_with_the_decomposition);
    suite_add_tcase(s, tc);
    tc = tcase_create("seeds");
    tcase_add_checked_fixture(tc, seed_setup, NULL);
    tcase_add_test(tc, seed_read_segment_offsets);
    tcase_add_test(tc, seed_aos_vs_soa);
    tcase_add_test(tc, seed_bank_conflicts);
    tcase_add_test(tc, seed_kepler_float2_bank_modes);
    tcase_add_test(tc, global_same_address_reduction);
    tcase_add_test(tc, shared_atomics_serialise);
    tcase_add_test(tc, shared_popc_inc_atomics_combine);
    tcase_add_test(tc, local_memory_interleaves);
    tcase_add_test(tc, ldgsts_null_sources_are_zero_fills);
    tcase_add_test(tc, lane_lists_read_well);
    suite_add_tcase(s, tc);
    tc = tcase_create("captures");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, shipped_captures_agree_with_replay, 0, (int)(sizeof captures / sizeof captures[0]));
    suite_add_tcase(s, tc);
    return s;
}

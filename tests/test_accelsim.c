/* test_accelsim.c - `trace import --accelsim` (model/trace_accelsim*.c):
 *  - hand-made .traceg files (tests/data/accelsim/mixed: all three address
 *    compressions, LDG.E.128, generic LD/ST resolved by the header's windows,
 *    barriers, two CTAs, lineinfo) imported and compared record by record with
 *    a hand-written gpumemsim text trace of the same content, and simulated on
 *    the H200 config with the same counts;
 *  - a real tracer-v5 kernel from accel-sim-framework (tests/data/accelsim/pow,
 *    .xz): its counts and the interleaving options;
 *  - bad input: one message naming the file, the line and what was expected.
 * Files go to a private directory under /tmp, removed at the end. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "commands.h"
#include "replay.h"
#include "suites.h"
#include "trace.h"
#include "trace_accelsim.h"

#define MIXED "tests/data/accelsim/mixed"
#define POW "tests/data/accelsim/pow"

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gms-accelsim-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", tmp_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(tmp_dir);
}

static const char *tpath(const char *name)
{
    static char bufs[8][256];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 256, "%s/%s", tmp_dir, name);
    return b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static int import(const char *in, const char *out, trace_format fmt, uint32_t sms,
                  uint32_t ctas_per_sm, accelsim_summary *sum, err_info *err)
{
    accelsim_options opt = {.input = ACCELSIM_INPUT_AUTO, .sm_count = sms,
                            .ctas_per_sm = ctas_per_sm, .tmp_dir = tmp_dir, .format = fmt};
    err_clear(err);
    return trace_accelsim_import(in, out, &opt, sum, err);
}

/* ---- record by record ------------------------------------------------------------- */

static void same_kernel(const trace_kernel *a, const trace_kernel *b)
{
    ck_assert_uint_eq(a->launch, b->launch);
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->demangled, b->demangled);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(a->grid[i], b->grid[i]);
        ck_assert_uint_eq(a->block[i], b->block[i]);
    }
    ck_assert_uint_eq(a->smem_static_bytes, b->smem_static_bytes);
    ck_assert_uint_eq(a->smem_dynamic_bytes, b->smem_dynamic_bytes);
    ck_assert_uint_eq(a->regs_per_thread, b->regs_per_thread);
    ck_assert_uint_eq(a->local_bytes_per_thread, b->local_bytes_per_thread);
    ck_assert_uint_eq(a->n_files, b->n_files);
    for (uint32_t i = 0; i < a->n_files; i++)
        ck_assert_str_eq(a->files[i], b->files[i]);
    ck_assert_uint_eq(a->n_pcs, b->n_pcs);
    for (uint32_t i = 0; i < a->n_pcs; i++) {
        ck_assert_uint_eq(a->pcs[i].pc, b->pcs[i].pc);
        ck_assert_str_eq(a->pcs[i].sass, b->pcs[i].sass);
        ck_assert_uint_eq(a->pcs[i].cache_op, b->pcs[i].cache_op);
        ck_assert_int_eq(a->pcs[i].file, b->pcs[i].file);
        ck_assert_uint_eq(a->pcs[i].line, b->pcs[i].line);
    }
}

static void same_mem(const trace_mem *a, const trace_mem *b, uint64_t n)
{
    ck_assert_msg(a->cta == b->cta && a->warp == b->warp && a->pc == b->pc,
                  "record %" PRIu64 ": cta %u warp %u pc 0x%x, expected cta %u warp %u pc 0x%x",
                  n, a->cta, a->warp, a->pc, b->cta, b->warp, b->pc);
    ck_assert_int_eq(a->sm, b->sm);
    ck_assert_uint_eq(a->kind, b->kind);
    ck_assert_uint_eq(a->space, b->space);
    ck_assert_uint_eq(a->size_bytes, b->size_bytes);
    ck_assert_uint_eq(a->cache_op, b->cache_op);
    ck_assert_uint_eq(a->flags, b->flags);
    ck_assert_uint_eq(a->active_mask, b->active_mask);
    for (int l = 0; l < TRACE_WARP_LANES; l++)
        ck_assert_msg(a->addr[l] == b->addr[l], "record %" PRIu64 " lane %d: 0x%" PRIx64
                      ", expected 0x%" PRIx64, n, l, a->addr[l], b->addr[l]);
}

/* Every event of trace a equals trace b's; returns the number of events. */
static uint64_t same_events(const char *a_path, const char *b_path)
{
    err_info err;
    trace_reader *a = trace_reader_open(a_path, NULL, &err);
    ck_assert_msg(a != NULL, "%s", err.msg);
    trace_reader *b = trace_reader_open(b_path, NULL, &err);
    ck_assert_msg(b != NULL, "%s", err.msg);
    trace_event ea, eb;
    uint64_t n = 0;
    for (;;) {
        int ra = trace_reader_next(a, &ea, &err);
        ck_assert_msg(ra >= 0, "%s", err.msg);
        int rb = trace_reader_next(b, &eb, &err);
        ck_assert_msg(rb >= 0, "%s", err.msg);
        ck_assert_int_eq(ra, rb);
        if (ra == 0)
            break;
        n++;
        ck_assert_msg(ea.type == eb.type, "event %" PRIu64 ": type %d, expected %d", n, ea.type,
                      eb.type);
        switch (ea.type) {
        case TRACE_EV_KERNEL:
            same_kernel(ea.kernel, eb.kernel);
            break;
        case TRACE_EV_MEM:
            same_mem(&ea.mem, &eb.mem, n);
            break;
        case TRACE_EV_BARRIER:
            ck_assert_uint_eq(ea.barrier.cta, eb.barrier.cta);
            ck_assert_uint_eq(ea.barrier.warp, eb.barrier.warp);
            ck_assert_int_eq(ea.barrier.sm, eb.barrier.sm);
            ck_assert_uint_eq(ea.barrier.pc, eb.barrier.pc);
            break;
        case TRACE_EV_KERNEL_END:
            ck_assert_uint_eq(ea.kernel_end.mem_records, eb.kernel_end.mem_records);
            ck_assert_uint_eq(ea.kernel_end.barrier_records, eb.kernel_end.barrier_records);
            break;
        case TRACE_EV_COUNT:
            break;
        }
    }
    trace_reader_close(a);
    trace_reader_close(b);
    return n;
}

START_TEST(mixed_matches_hand_written_trace)
{
    make_tmp_dir();
    err_info err;
    accelsim_summary sum;
    for (int fmt = 0; fmt < TRACE_FORMAT_COUNT; fmt++) {
        const char *out = tpath(fmt == TRACE_FORMAT_BINARY ? "mixed.trace" : "mixed.txt");
        ck_assert_msg(import(MIXED "/kernelslist.g", out, (trace_format)fmt, 0, 0, &sum, &err) == 0,
                      "%s", err.msg);
        /* 2 kernels; 18 + 6 events of the first, 3 + 4 + 1 of the second */
        /* kernel, 16 memory, 4 barrier, end; kernel, 4 memory, end */
        ck_assert_uint_eq(same_events(out, MIXED "/expected.txt"), 22 + 6);
        ck_assert_uint_eq(sum.kernels, 2);
        ck_assert_uint_eq(sum.mem_records, 20);
        ck_assert_uint_eq(sum.barrier_records, 4);
        ck_assert_uint_eq(sum.other_insts, 6);    /* EXIT of 4 warps and of 2 */
        ck_assert_uint_eq(sum.pred_off_insts, 1); /* LDG with mask 0 */
        ck_assert_uint_eq(sum.memcpy_count, 2);
        ck_assert_uint_eq(sum.memcpy_bytes, 4096 + 256);
        ck_assert_uint_eq(sum.bad_nregs, 0);
    }
    /* the metadata says where it came from and how it was interleaved */
    trace_reader *r = trace_reader_open(tpath("mixed.trace"), NULL, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "capture_version"), "5");
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "cc"), "9.0");
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "accelsim_sm_count"), "132");
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "accelsim_memcpy_bytes"), "4352");
    trace_reader_close(r);
    remove_tmp_dir();
}
END_TEST

/* Per kernel: the counters of a replay. */
typedef struct kcounts {
    uint32_t n;
    stats s[4];
} kcounts;

static int collect(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    kcounts *k = ctx;
    ck_assert_uint_lt(k->n, 4);
    k->s[k->n++] = r->totals;
    return 0;
}

static void simulate(const char *path, kcounts *k)
{
    cfg_gpu cfg;
    err_info err;
    ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
    replay_options opt = {.kernel_regex = NULL};
    memset(k, 0, sizeof *k);
    ck_assert_msg(replay_trace(path, &cfg, &opt, collect, k, &err) == 0, "%s", err.msg);
}

START_TEST(imported_kernels_simulate_like_the_hand_written_trace)
{
    make_tmp_dir();
    err_info err;
    ck_assert_msg(import(MIXED "/kernelslist.g", tpath("m.trace"), TRACE_FORMAT_BINARY, 0, 0,
                         NULL, &err) == 0, "%s", err.msg);
    kcounts got, want;
    simulate(tpath("m.trace"), &got);
    simulate(MIXED "/expected.txt", &want);
    ck_assert_uint_eq(got.n, 2);
    ck_assert_uint_eq(want.n, 2);
    for (uint32_t k = 0; k < 2; k++)
        for (int i = 0; i < STAT_COUNT; i++)
            ck_assert_msg(got.s[k].v[i] == want.s[k].v[i], "kernel %u: %s = %" PRIu64
                          ", expected %" PRIu64, k, stat_name((stat_id)i), got.s[k].v[i],
                          want.s[k].v[i]);
    /* and the counts are those of the content: kernel 1 has 6 global loads
     * (4 LDG.E.128, the list_all LDG, LDG.E.CONSTANT) plus the cp.async read */
    ck_assert_uint_eq(got.s[0].v[STAT_INST_GLOBAL_LD], 6);
    ck_assert_uint_eq(got.s[0].v[STAT_INST_LDGSTS], 1);
    ck_assert_uint_eq(got.s[1].v[STAT_L1_REQ_GLOBAL_LD], 2);
    ck_assert_uint_eq(got.s[1].v[STAT_L1_SECT_GLOBAL_LD], 8); /* 2 x 128 bytes */
    remove_tmp_dir();
}
END_TEST

START_TEST(real_tracer_v5_kernel_from_xz)
{
    make_tmp_dir();
    err_info err;
    accelsim_summary sum;
    ck_assert_msg(import(POW "/kernelslist.g", tpath("pow.trace"), TRACE_FORMAT_BINARY, 0, 0,
                         &sum, &err) == 0, "%s", err.msg);
    /* 55 CTAs x 4 warps x (2 LDG.E.128 + 2 STG.E.128); 29 other instructions each */
    ck_assert_uint_eq(sum.mem_records, 880);
    ck_assert_uint_eq(sum.other_insts, 55u * 4u * 29u);
    ck_assert_uint_eq(sum.barrier_records, 0);
    ck_assert_uint_eq(sum.bad_nregs, 1);
    ck_assert_uint_eq(sum.bad_nregs_first_id, 593);
    ck_assert_uint_eq(sum.bad_nregs_first_value, 21955);
    ck_assert_uint_eq(sum.memcpy_bytes, 225280);

    trace_reader *r = trace_reader_open(tpath("pow.trace"), NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_event ev;
    uint64_t n = 0;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            ck_assert_uint_eq(ev.kernel->launch, 592);
            ck_assert_uint_eq(ev.kernel->grid[0], 55);
            ck_assert_uint_eq(ev.kernel->block[0], 128);
            ck_assert_uint_eq(ev.kernel->regs_per_thread, 0);
            ck_assert_uint_eq(ev.kernel->smem_static_bytes, 1);
            ck_assert_uint_eq(ev.kernel->n_pcs, 33);
            const trace_pc_info *p = trace_kernel_find_pc(ev.kernel, 0xa0);
            ck_assert_ptr_nonnull(p);
            ck_assert_str_eq(p->sass, "LDG.E.128.SYS");
        } else if (ev.type == TRACE_EV_MEM) {
            /* all 55 CTAs are resident at once (132 SMs): the first round
             * is the first LDG of every warp, CTA by CTA */
            if (n < 220) {
                ck_assert_uint_eq(ev.mem.pc, 0xa0);
                ck_assert_uint_eq(ev.mem.cta, n / 4);
                ck_assert_uint_eq(ev.mem.warp, n % 4);
                ck_assert_uint_eq(ev.mem.addr[0],
                                  0x7f580face400ull + 0x1000ull * (n / 4) + 0x200ull * (n % 4));
            }
            ck_assert_uint_eq(ev.mem.size_bytes, 16);
            ck_assert_uint_eq(ev.mem.active_mask, TRACE_FULL_MASK);
            ck_assert_uint_eq(ev.mem.addr[31] - ev.mem.addr[0], 31u * 16u);
            ck_assert_int_eq(ev.mem.sm, TRACE_SM_UNKNOWN);
            n++;
        }
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_uint_eq(n, 880);
    trace_reader_close(r);

    /* simulated: 440 loads of 512 bytes, 16 sectors in 4 lines each */
    kcounts k;
    simulate(tpath("pow.trace"), &k);
    ck_assert_uint_eq(k.s[0].v[STAT_L1_REQ_GLOBAL_LD], 440);
    ck_assert_uint_eq(k.s[0].v[STAT_L1_SECT_GLOBAL_LD], 440u * 16u);
    ck_assert_uint_eq(k.s[0].v[STAT_L1_SET_ACCESSES_GLOBAL_LD], 440u * 4u);
    remove_tmp_dir();
}
END_TEST

START_TEST(one_sm_one_cta_replays_ctas_in_launch_order)
{
    make_tmp_dir();
    err_info err;
    ck_assert_msg(import(POW "/kernel-593-ctx_0x55c28dad19e0.traceg.xz", tpath("p1.trace"),
                         TRACE_FORMAT_BINARY, 1, 1, NULL, &err) == 0, "%s", err.msg);
    trace_reader *r = trace_reader_open(tpath("p1.trace"), NULL, &err);
    ck_assert_ptr_nonnull(r);
    trace_event ev;
    uint64_t n = 0;
    static const uint32_t pcs[4] = {0xa0, 0xb0, 0x1e0, 0x1f0};
    while (trace_reader_next(r, &ev, &err) == 1) {
        if (ev.type != TRACE_EV_MEM)
            continue;
        /* one CTA at a time; its 4 warps in lockstep: PC by PC, warp by warp */
        ck_assert_uint_eq(ev.mem.cta, n / 16);
        ck_assert_uint_eq(ev.mem.pc, pcs[n % 16 / 4]);
        ck_assert_uint_eq(ev.mem.warp, n % 4);
        n++;
    }
    ck_assert_uint_eq(n, 880);
    trace_reader_close(r);

    /* 2 SMs, 1 CTA each: CTAs 0 and 1 together, then 2 and 3 */
    ck_assert_msg(import(POW "/kernel-593-ctx_0x55c28dad19e0.traceg.xz", tpath("p2.trace"),
                         TRACE_FORMAT_BINARY, 2, 1, NULL, &err) == 0, "%s", err.msg);
    r = trace_reader_open(tpath("p2.trace"), NULL, &err);
    ck_assert_ptr_nonnull(r);
    n = 0;
    while (trace_reader_next(r, &ev, &err) == 1) {
        if (ev.type != TRACE_EV_MEM)
            continue;
        if (n < 32)
            ck_assert_uint_eq(ev.mem.cta, (n % 8) / 4);
        else if (n < 64)
            ck_assert_uint_eq(ev.mem.cta, 2 + (n % 8) / 4);
        n++;
    }
    trace_reader_close(r);
    remove_tmp_dir();
}
END_TEST

START_TEST(derived_occupancy_uses_h200_limits)
{
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(128, 0, 1), 16);    /* 64 warps / 4 */
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(32, 16, 0), 32);    /* the CTA limit */
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(256, 64, 0), 4);    /* 65536 / (64 x 256) */
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(256, 21955, 0), 8); /* nonsense registers ignored */
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(64, 16, 48 * 1024), 4); /* 228 KiB / 49 KiB */
    ck_assert_uint_eq(trace_accelsim_ctas_per_sm(1024, 255, 0), 1);  /* at least one */
}
END_TEST

/* ---- what the tracer writes, read as Accel-Sim reads it (anchors-simulators.md §1a) ---- */

START_TEST(tracer_forms_are_read_as_accel_sim_reads_them)
{
    make_tmp_dir();
    /* A bare '#' ends the header (Accel-Sim's reader stops at any '#' line);
     * .S8 and .S16 carry mem_width 4 (the tracer's width rule knows U8, U16
     * and numbers only) but are 1- and 2-byte accesses, at odd addresses too;
     * a predicated-off load is written base_stride 0x0 0 (the tracer's
     * base_stride_compress succeeds on an empty mask); tracer v3/v4 lines have
     * no immediate. */
    const char *in = tpath("kernel-1.traceg");
    write_file(in, "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n"
                   "-block dim = (32,1,1)\n-shmem = 64\n-nregs = 16\n"
                   "-shmem base_addr = 0x00007f59dd000000\n"
                   "-local mem base_addr = 0x00007f59db000000\n"
                   "-accelsim tracer version = 4\n#\n"
                   "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n"
                   "0010 00000003 1 R2 LDG.E.S8 1 R4 4 1 0x7f0000001001 1 0\n"
                   "0020 00000001 1 R3 LDS.S16 1 R4 4 2 0x7f59dd000006 0\n"
                   "0030 00000000 1 R5 LDG.E 1 R4 4 1 0x0 0 0\n"
                   "0040 ffffffff 0 EXIT 0 0\n#END_TB\n");
    err_info err;
    accelsim_summary sum;
    ck_assert_msg(import(in, tpath("o.trace"), TRACE_FORMAT_TEXT, 0, 0, &sum, &err) == 0, "%s",
                  err.msg);
    ck_assert_uint_eq(sum.mem_records, 2);
    ck_assert_uint_eq(sum.pred_off_insts, 1);
    ck_assert_uint_eq(sum.other_insts, 1);
    trace_reader *r = trace_reader_open(tpath("o.trace"), NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    /* the interleaving's metadata keys, all accelsim_* */
    const char *k = trace_meta_get(trace_reader_meta(r), "accelsim_ctas_per_sm");
    ck_assert_ptr_nonnull(k);
    ck_assert_str_eq(k, "derived per kernel (H200 limits)");
    ck_assert_ptr_nonnull(trace_meta_get(trace_reader_meta(r), "accelsim_sm_count"));
    ck_assert_ptr_nonnull(trace_meta_get(trace_reader_meta(r), "accelsim_interleave"));
    trace_event ev;
    trace_mem m[2];
    int n = 0;
    while (trace_reader_next(r, &ev, &err) == 1)
        if (ev.type == TRACE_EV_MEM && n < 2)
            m[n++] = ev.mem;
    trace_reader_close(r);
    ck_assert_int_eq(n, 2);
    ck_assert_uint_eq(m[0].size_bytes, 1);
    ck_assert_uint_eq(m[0].space, TRACE_SPACE_GLOBAL);
    ck_assert_uint_eq(m[0].addr[0], 0x7f0000001001u);
    ck_assert_uint_eq(m[0].addr[1], 0x7f0000001002u);
    ck_assert_uint_eq(m[1].size_bytes, 2);
    ck_assert_uint_eq(m[1].space, TRACE_SPACE_SHARED);
    ck_assert_uint_eq(m[1].addr[0], 6);
    remove_tmp_dir();
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------- */

#define HDR(grid, block, extra)                                                              \
    "-kernel name = k\n-kernel id = 1\n-grid dim = " grid "\n-block dim = " block "\n"      \
    "-shmem = 0\n-nregs = 16\n-binary version = 90\n-cuda stream id = 0\n"                   \
    "-shmem base_addr = 0x00007f59dd000000\n-local mem base_addr = 0x00007f59db000000\n"     \
    "-nvbit version = 1.7.6\n-accelsim tracer version = 5\n" extra "\n"                      \
    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "    \
    "mem_width [adrrescompress?] [mem_addresses] immediate\n\n"
/* 15 lines of header and format line; the first TB line is line 16 */
#define TB0 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
#define K1(body) HDR("(1,1,1)", "(32,1,1)", "-enable lineinfo = 0") TB0 body

typedef struct bad_case {
    const char *what;
    const char *text;
    const char *expect; /* in the message, after "PATH:" */
} bad_case;

static const bad_case bad_cases[] = {
    {"unknown header key", "-kernel name = k\n-kernel colour = red\n", "2: unknown header key 'kernel colour'"},
    {"header key twice", "-kernel name = k\n-kernel name = j\n", "2: header key 'kernel name' given twice"},
    {"bad grid", "-grid dim = (1,1)\n", "1: grid dim = '(1,1)' (expected (X,Y,Z))"},
    {"kernel id 0", "-kernel id = 0\n", "1: kernel id = '0' (expected a decimal number from 1)"},
    {"not a header line", "kernel name = k\n", "1: 'kernel name = k' (expected a header line"},
    {"no nregs", "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                 "-shmem = 0\n-accelsim tracer version = 5\n#traces format\n",
     "7: the kernel header has no '-nregs = ' line"},
    {"tracer v2", "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                  "-shmem = 0\n-nregs = 16\n-accelsim tracer version = 2\n#traces format\n",
     "accelsim tracer version 2 (expected 3 or later"},
    {"tracer version twice", HDR("(1,1,1)", "(32,1,1)", "-accelsim tracer version = 2") TB0,
     "13: header key 'accelsim tracer version' given twice"},
    {"header ends", "-kernel name = k\n", "1: the file ends in the kernel header"},
    {"no format line", "-kernel name = k\n#BEGIN_TB\n", "2: '#BEGIN_TB' (expected the '#traces format' line"},
    {"block too big", HDR("(1,1,1)", "(2048,1,1)", "") TB0, "(expected no 0 and at most 1024 threads per block)"},
    {"no BEGIN_TB", HDR("(1,1,1)", "(32,1,1)", "") "thread block = 0,0,0\n",
     "16: 'thread block = 0,0,0' (expected #BEGIN_TB)"},
    {"TB outside grid", HDR("(1,1,1)", "(32,1,1)", "") "#BEGIN_TB\nthread block = 1,0,0\n",
     "17: thread block (1,0,0) is outside the grid (1,1,1)"},
    {"bad thread block", HDR("(1,1,1)", "(32,1,1)", "") "#BEGIN_TB\nthread block = 0,0\n",
     "17: 'thread block = 0,0' (expected 'thread block = X,Y,Z')"},
    {"warp beyond CTA", HDR("(1,1,1)", "(32,1,1)", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\n",
     "18: 'warp = 1' (expected 'warp = W' with W below the 1 warps of a CTA of 32 threads)"},
    {"no insts", K1("inst = 3\n"), "19: 'inst = 3' (expected 'insts = N' after 'warp = 0')"},
    {"truncated warp", K1("insts = 3\n0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
     "22: '#END_TB': warp 0 of thread block (0,0,0) has 2 instruction lines (expected insts = 3)"},
    {"file ends in warp", K1("insts = 3\n0000 ffffffff 0 EXIT 0 0 0\n"),
     "20: the file ends inside thread block (0,0,0) begun on line 16 (a warp has fewer"},
    {"file ends in TB", K1("insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n"),
     "20: the file ends inside thread block (0,0,0) begun on line 16 (expected #END_TB)"},
    {"extra instruction", K1("insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
     "21: an instruction line after the 1 that warp 0 declares (expected 'warp = W' or #END_TB)"},
    {"missing CTA", HDR("(2,1,1)", "(32,1,1)", "") TB0 "insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
     " 1 thread blocks with warps, but the grid (2,1,1) has 2 (expected every thread block"},
    {"warp twice", K1("insts = 1\n0000 ffffffff 0 EXIT 0 0 0\nwarp = 0\ninsts = 1\n"
                      "0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
     "22: warp 0 of CTA 0 again (first on line 19; expected each warp once)"},
    {"bad PC", K1("insts = 1\n00g0 ffffffff 0 EXIT 0 0 0\n#END_TB\n"), "20: PC '00g0' (expected a hexadecimal PC"},
    {"bad mask", K1("insts = 1\n0000 fffffffff 0 EXIT 0 0 0\n#END_TB\n"), "20: active mask 'fffffffff' (expected 8 hexadecimal digits)"},
    {"bad register", K1("insts = 1\n0000 ffffffff 1 X EXIT 0 0 0\n#END_TB\n"), "20: 'X' (expected destination register 1 of 1, e.g. R12)"},
    {"bad opcode", K1("insts = 1\n0000 ffffffff 0 exit 0 0 0\n#END_TB\n"), "20: opcode 'exit' (expected a SASS opcode"},
    {"unknown memory opcode", K1("insts = 1\n0000 ffffffff 1 R2 TLD.SCR.LZ 1 R4 4 1 0x7f0000001000 4 0\n#END_TB\n"),
     "20: opcode TLD.SCR.LZ carries memory addresses (mem_width 4) but is not an instruction gpumemsim imports"},
    {"LDG without width", K1("insts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 0 0\n#END_TB\n"),
     "20: LDG.E: mem_width 0 (expected 1, 2, 4, 8 or 16 bytes per thread)"},
    {"width 32", K1("insts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 32 1 0x7f0000001000 32 0\n#END_TB\n"),
     "20: LDG.E: mem_width 32 (expected 1, 2, 4, 8 or 16"},
    {"address mode 3", K1("insts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 4 3 0x7f0000001000 4 0\n#END_TB\n"),
     "20: address mode '3' (expected 0 list_all, 1 base_stride or 2 base_delta)"},
    {"list_all short", K1("insts = 1\n0000 00000003 1 R2 LDG.E 1 R4 4 0 0x7f0000001000\n#END_TB\n"),
     "20: list_all: '' (expected the hexadecimal address of lane 1; the mask has 2 active lanes)"},
    {"base_delta short", K1("insts = 1\n0000 00000007 1 R2 LDG.E 1 R4 4 2 0x7f0000001000 4\n#END_TB\n"),
     "20: base_delta: '' (expected the signed decimal delta of lane 2"},
    {"base_stride holes", K1("insts = 1\n0000 00000005 1 R2 LDG.E 1 R4 4 1 0x7f0000001000 4 0\n#END_TB\n"),
     "20: base_stride with active mask 00000005 (expected the active lanes in one run"},
    {"trailing garbage", K1("insts = 1\n0000 ffffffff 0 EXIT 0 0 0 x\n#END_TB\n"),
     "20: 'x' after the mem_width (expected at most 2 decimal immediates"},
    {"misaligned", K1("insts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000001002 4 0\n#END_TB\n"),
     "20: lane 0: address 0x7f0000001002 is not aligned to the access size 4"},
    {"lanes beyond threads", HDR("(1,1,1)", "(40,1,1)", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\n"
                             "insts = 1\n0000 000001ff 1 R2 LDG.E 1 R4 4 1 0x7f0000001000 4 0\n#END_TB\n",
     "20: lane 8 is active but warp 1 of a CTA of 40 threads has only 8 lanes"},
    {"generic mixes spaces", K1("insts = 1\n0000 00000003 1 R2 LD.E 1 R4 4 0 0x7f59dd000000 0x7f0000001000\n#END_TB\n"),
     "20: LD.E: lane 1's address 0x7f0000001000 is in another memory space than lane 0's 0x7f59dd000000"},
    {"generic atom on local", K1("insts = 1\n0000 00000001 1 R2 ATOM.E.ADD 1 R4 4 2 0x7f59db000000 0\n#END_TB\n"),
     "20: atom on local memory (atomics and reductions apply to global and shared memory only)"},
    {"LDS outside window", K1("insts = 1\n0000 00000001 1 R2 LDS 1 R4 4 2 0x7f0000001000 0\n#END_TB\n"),
     "20: LDS: lane 0's address 0x7f0000001000 is neither in the shared window"},
    {"one PC two opcodes", K1("insts = 2\n0000 ffffffff 0 NOP 0 0 0\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
     "21: PC 0000 is EXIT (line 0) here but NOP (line 0) before (expected one instruction per PC)"},
    {"S8 width 8", K1("insts = 1\n0000 00000001 1 R2 LDG.E.S8 1 R4 8 0 0x7f0000001000 0\n#END_TB\n"),
     "20: LDG.E.S8: mem_width 8 (expected 1, or 4 as the tracer writes for a signed sub-word access)"},
    {"lineinfo number", HDR("(1,1,1)", "(32,1,1)", "-enable lineinfo = 1") TB0 "insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
     "20: 'EXIT' (expected the number of destination registers, 0..8)"},
};

START_TEST(bad_kernel_file_gives_one_line_with_place)
{
    make_tmp_dir();
    const bad_case *c = &bad_cases[_i];
    const char *in = tpath("kernel-1.traceg");
    write_file(in, c->text);
    err_info err;
    int rc = import(in, tpath("out.trace"), TRACE_FORMAT_BINARY, 0, 0, NULL, &err);
    ck_assert_msg(rc == -1, "%s: accepted", c->what);
    char want[512];
    snprintf(want, sizeof want, "%s:%s", in, c->expect);
    if (!strchr("0123456789 ", c->expect[0])) /* a message without a line */
        snprintf(want, sizeof want, "%s", c->expect);
    ck_assert_msg(strstr(err.msg, want) != NULL, "%s: message '%s' lacks '%s'", c->what, err.msg,
                  want);
    ck_assert_msg(strncmp(err.msg, in, strlen(in)) == 0, "%s: '%s' does not start with the path",
                  c->what, err.msg);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    remove_tmp_dir();
}
END_TEST

START_TEST(line_too_long_is_refused_by_name)
{
    make_tmp_dir();
    const char *in = tpath("kernel-1.traceg");
    size_t n = ACCELSIM_MAX_LINE_BYTES + 100;
    char *text = malloc(n + 600);
    char *p = text + sprintf(text, "%s", K1("insts = 1\n0000 ffffffff 0 EXIT 0 0"));
    for (size_t i = 0; i < n / 2; i++)
        p += sprintf(p, " 0");
    sprintf(p, "\n#END_TB\n");
    write_file(in, text);
    free(text);
    err_info err;
    ck_assert_int_eq(import(in, tpath("o.trace"), TRACE_FORMAT_BINARY, 0, 0, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, ":20: line longer than 4096 bytes") != NULL, "%s", err.msg);
    remove_tmp_dir();
}
END_TEST

START_TEST(bad_list_and_files_are_refused)
{
    make_tmp_dir();
    err_info err;
    static const struct {
        const char *list, *expect;
    } cases[] = {
        {"MemcpyHtoD,0x10\n", "kernelslist.g:1: 'MemcpyHtoD,0x10' (expected 'MemcpyHtoD,0xADDRESS,BYTES')"},
        {"MemcpyHtoD,0x10,4\nfoo\n", "kernelslist.g:2: 'foo' (expected 'MemcpyHtoD,0xADDRESS,BYTES' or a kernel file"},
        {"kernel-1.trace\n", "kernelslist.g:1: 'kernel-1.trace' (expected"},
        {"MemcpyHtoD,0x10,4\nkernel-2.trace.xz\n", "kernelslist.g:2: 'kernel-2.trace.xz' (expected "
         "'MemcpyHtoD,0xADDRESS,BYTES' or a kernel file 'kernel-N...traceg' or '...traceg.xz': a "
         "raw tracer file; the tracer's post-traces-processing turns kernelslist and its .trace "
         "files into kernelslist.g and .traceg files)"},
        {"\n-kernel name = k\n", "kernelslist.g:2: '-kernel name = k' (expected 'MemcpyHtoD,"
         "0xADDRESS,BYTES' or a kernel file 'kernel-N...traceg' or '...traceg.xz'; this looks like "
         "a kernel file's header, but a kernel file is read as one only when named *.traceg or "
         "*.traceg.xz)"},
        {"MemcpyHtoD,0x10,4\n", "kernelslist.g: no kernel lines"},
        {"MemcpyHtoD,0x10,x4\nkernel-1.traceg\n", "kernelslist.g:1: 'MemcpyHtoD,0x10,x4' (expected"},
        {"kernel-9.traceg\n", "kernel-9.traceg: cannot open: No such file or directory"},
        {"kernel-8.traceg.xz\n", "kernel-8.traceg.xz: not an xz file (expected an xz-compressed .traceg)"},
        {"kernel-7.traceg.xz\n", "kernel-7.traceg.xz: the xz stream is truncated"},
    };
    write_file(tpath("kernel-8.traceg.xz"), "-kernel name = k\n");
    /* the real kernel cut in half */
    FILE *f = fopen(POW "/kernel-593-ctx_0x55c28dad19e0.traceg.xz", "rb");
    ck_assert_ptr_nonnull(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    FILE *g = fopen(tpath("kernel-7.traceg.xz"), "wb");
    fwrite(buf, 1, n / 2, g);
    fclose(g);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(tpath("kernelslist.g"), cases[i].list);
        ck_assert_int_eq(import(tpath("kernelslist.g"), tpath("o.trace"), TRACE_FORMAT_BINARY,
                                0, 0, NULL, &err), -1);
        ck_assert_msg(strstr(err.msg, cases[i].expect) != NULL, "'%s' lacks '%s'", err.msg,
                      cases[i].expect);
        ck_assert_msg(access(tpath("o.trace"), F_OK) != 0, "output left for '%s'", err.msg);
    }
    remove_tmp_dir();
}
END_TEST

START_TEST(command_removes_output_on_error_and_checks_usage)
{
    make_tmp_dir();
    FILE *saved = fdopen(dup(STDERR_FILENO), "w");
    ck_assert_ptr_nonnull(freopen(tpath("stderr.txt"), "w", stderr));
    /* the second kernel is bad: the first was written, then removed */
    write_file(tpath("kernel-2.traceg"), K1("insts = 1\n0000 ffffffff 0 EXIT 0 0\n"));
    FILE *l = fopen(tpath("kernelslist.g"), "w");
    fprintf(l, "kernel-1.traceg\nkernel-2.traceg\n");
    fclose(l);
    FILE *src = fopen(MIXED "/kernel-1.traceg", "rb");
    FILE *dst = fopen(tpath("kernel-1.traceg"), "wb");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, src)) > 0)
        fwrite(buf, 1, n, dst);
    fclose(src);
    fclose(dst);
    const char *out = tpath("o.trace");
    char list[256];
    snprintf(list, sizeof list, "%s", tpath("kernelslist.g"));
    char o[256];
    snprintf(o, sizeof o, "%s", out);
    char w[][16] = {"import", "--accelsim", "-o", "--sm-count", "0", "--ctas-per-sm", "65", "x"};
    char *a1[] = {w[0], w[1], list, w[2], o};
    ck_assert_int_eq(cmd_trace_import(5, a1), 2);
    ck_assert_int_ne(access(out, F_OK), 0);
    char *a2[] = {w[0], w[1], list};
    ck_assert_int_eq(cmd_trace_import(3, a2), 2);
    char *a3[] = {w[0], w[1], w[7], w[2], o, w[3], w[4]};
    ck_assert_int_eq(cmd_trace_import(7, a3), 2);
    char *a4[] = {w[0], w[1], w[7], w[2], o, w[5], w[6]};
    ck_assert_int_eq(cmd_trace_import(7, a4), 2);
    fflush(stderr);
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
    dup2(fileno(saved), STDERR_FILENO);
    fclose(saved);
    FILE *e = fopen(tpath("stderr.txt"), "r");
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, e));
    ck_assert_msg(strstr(line, "kernel-2.traceg:20: the file ends inside thread block (0,0,0)") != NULL,
                  "%s", line);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, e));
    ck_assert_msg(strstr(line, "-o OUT is required") != NULL, "%s", line);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, e));
    ck_assert_msg(strstr(line, "--sm-count '0': expected a whole number from 1 to 4096") != NULL,
                  "%s", line);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, e));
    ck_assert_msg(strstr(line, "--ctas-per-sm '65'") != NULL, "%s", line);
    fclose(e);
    remove_tmp_dir();
}
END_TEST

/* ---- progress ------------------------------------------------------------------- */

typedef struct seen_progress {
    uint32_t n;
    accelsim_progress p[16];
    char names[16][64];
} seen_progress;

static void note_progress(const accelsim_progress *p, void *ctx)
{
    seen_progress *s = ctx;
    if (s->n < 16) {
        s->p[s->n] = *p;
        const char *slash = strrchr(p->path, '/');
        snprintf(s->names[s->n], sizeof s->names[0], "%s", slash ? slash + 1 : p->path);
    }
    s->n++;
}

START_TEST(progress_is_told_each_pass_and_every_65536_lines_and_records)
{
    make_tmp_dir();
    seen_progress seen;
    memset(&seen, 0, sizeof seen);
    accelsim_options opt = {.input = ACCELSIM_INPUT_AUTO, .tmp_dir = tmp_dir,
                            .format = TRACE_FORMAT_BINARY, .progress = note_progress,
                            .progress_ctx = &seen};
    err_info err;
    accelsim_summary sum;
    ck_assert_msg(trace_accelsim_import(MIXED "/kernelslist.g", tpath("o.trace"), &opt, &sum,
                                        &err) == 0, "%s", err.msg);
    /* two small kernels: each pass of each once, records counted across kernels */
    ck_assert_uint_eq(seen.n, 4);
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(seen.p[i].kernel, i / 2);
        ck_assert_uint_eq(seen.p[i].kernels, 2);
        ck_assert(seen.p[i].writing == (i % 2 == 1));
        ck_assert_str_eq(seen.names[i], i < 2 ? "kernel-1.traceg" : "kernel-2.traceg");
    }
    ck_assert_uint_eq(seen.p[0].records, 0);
    ck_assert_uint_eq(seen.p[3].records, seen.p[2].records);
    ck_assert_uint_gt(seen.p[2].records, 0);

    /* one warp of 70,000 loads: pass 1 says 65,536 lines, pass 2 65,536 records */
    const char *in = tpath("kernel-1.traceg");
    FILE *f = fopen(in, "w");
    ck_assert_ptr_nonnull(f);
    fputs(K1("insts = 70000\n"), f);
    for (uint32_t i = 0; i < 70000; i++)
        fprintf(f, "%04x 00000001 1 R2 LDG.E 1 R4 4 0 0x%" PRIx64 " 0\n", 16 * (i % 64),
                (uint64_t)0x7f0000000000 + 4 * (uint64_t)i);
    fputs("#END_TB\n", f);
    ck_assert_int_eq(fclose(f), 0);
    memset(&seen, 0, sizeof seen);
    ck_assert_msg(trace_accelsim_import(in, tpath("o.trace"), &opt, &sum, &err) == 0, "%s",
                  err.msg);
    ck_assert_uint_eq(sum.mem_records, 70000);
    ck_assert_uint_eq(seen.n, 4);
    ck_assert(!seen.p[0].writing && seen.p[0].lines == 0);
    ck_assert(!seen.p[1].writing && seen.p[1].lines == 65536);
    ck_assert(seen.p[2].writing && seen.p[2].records == 0);
    ck_assert(seen.p[3].writing && seen.p[3].records == 65536);
    remove_tmp_dir();
}
END_TEST

Suite *accelsim_suite(void)
{
    Suite *s = suite_create("accelsim");
    TCase *tc = tcase_create("import");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, mixed_matches_hand_written_trace);
    tcase_add_test(tc, imported_kernels_simulate_like_the_hand_written_trace);
    tcase_add_test(tc, real_tracer_v5_kernel_from_xz);
    tcase_add_test(tc, one_sm_one_cta_replays_ctas_in_launch_order);
    tcase_add_test(tc, derived_occupancy_uses_h200_limits);
    tcase_add_test(tc, tracer_forms_are_read_as_accel_sim_reads_them);
    tcase_add_loop_test(tc, bad_kernel_file_gives_one_line_with_place, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, line_too_long_is_refused_by_name);
    tcase_add_test(tc, bad_list_and_files_are_refused);
    tcase_add_test(tc, command_removes_output_on_error_and_checks_usage);
    tcase_add_test(tc, progress_is_told_each_pass_and_every_65536_lines_and_records);
    suite_add_tcase(s, tc);
    return s;
}

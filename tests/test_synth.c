/* test_synth.c - `gpumemsim trace synth`: record counts, determinism, the
 * shape of the kernel (grid over all 132 SMs, a PC table), and what each
 * pattern costs when replayed on the H200 config: the exact sectors, lines
 * and wavefronts per instruction that its addresses imply.
 *
 * Files go to a private directory under /tmp, removed at the end. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_synth.h"
#include "replay.h"
#include "suites.h"
#include "trace.h"

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gms-synth-test-XXXXXX");
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

/* Run `trace synth ARGS...` in-process, stderr into a file; returns the exit code. */
static int synth(const char *const *args, int n)
{
    char *argv[16];
    argv[0] = (char *)"synth";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    argv[n + 1] = NULL;
    fflush(stderr);
    int se = dup(2);
    ck_assert(freopen(tpath("stderr"), "w", stderr) != NULL);
    int rc = cmd_trace_synth(n + 1, argv);
    fflush(stderr);
    dup2(se, 2);
    close(se);
    return rc;
}

static const char *make(const char *pattern, const char *instructions, const char *seed)
{
    const char *out = tpath(pattern);
    const char *args[] = {"--pattern", pattern, "--instructions", instructions, "-o", out,
                          "--seed", seed};
    ck_assert_int_eq(synth(args, 8), 0);
    return out;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)len + 1);
    ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
    p[len] = '\0';
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* What a trace holds, read back through the reader (which validates every record). */
typedef struct shape {
    uint64_t mem, barriers, kernels;
    uint32_t n_pcs;
    uint64_t ctas;
    bool sm_seen[132];
    uint32_t sms;
    uint32_t max_cta;
} shape;

static void read_shape(const char *path, shape *s)
{
    memset(s, 0, sizeof *s);
    err_info err = {{0}};
    trace_reader *r = trace_reader_open(path, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "sm_count"), "132");
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            s->kernels++;
            s->n_pcs = ev.kernel->n_pcs;
            s->ctas = trace_kernel_ctas(ev.kernel);
        } else if (ev.type == TRACE_EV_MEM) {
            s->mem++;
            ck_assert_int_ge(ev.mem.sm, 0);
            ck_assert_int_lt(ev.mem.sm, 132);
            if (!s->sm_seen[ev.mem.sm]) {
                s->sm_seen[ev.mem.sm] = true;
                s->sms++;
            }
            if (ev.mem.cta > s->max_cta)
                s->max_cta = ev.mem.cta;
            ck_assert_ptr_nonnull(trace_kernel_find_pc(ev.kernel, ev.mem.pc));
        } else if (ev.type == TRACE_EV_BARRIER) {
            s->barriers++;
        }
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert(!trace_reader_incomplete(r, NULL));
    trace_reader_close(r);
}

START_TEST(writes_exactly_n_instructions_over_all_sms)
{
    static const char *const names[] = {"coalesced", "misaligned", "strided", "random", "shared",
                                        "mix"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        shape s;
        read_shape(make(names[i], "30011", "7"), &s);
        ck_assert_uint_eq(s.kernels, 1);
        ck_assert_uint_eq(s.mem, 30011);
        ck_assert_uint_ge(s.n_pcs, 3);
        /* every SM runs CTAs */
        ck_assert_uint_eq(s.sms, 132);
        ck_assert_uint_ge(s.ctas, 132);
        ck_assert_uint_gt(s.ctas, s.max_cta);
        /* coalesced: 8 CTAs of 256 threads fill an SM; 30011 instructions need
         * 1251 CTAs, more than the 1056 of one wave, so finished CTAs were replaced */
        if (i == 0) {
            ck_assert_uint_eq(s.ctas, 1251);
            ck_assert_uint_ge(s.max_cta, 1056);
        }
        bool has_bar = strcmp(names[i], "shared") == 0 || strcmp(names[i], "mix") == 0;
        ck_assert_msg(has_bar == (s.barriers > 0), "%s: %" PRIu64 " barriers", names[i],
                      s.barriers);
    }
}
END_TEST

START_TEST(same_arguments_same_bytes)
{
    size_t n1, n2, n3;
    char *a = slurp(make("random", "5000", "3"), &n1);
    char *b = slurp(make("random", "5000", "3"), &n2);
    char *c = slurp(make("random", "5000", "4"), &n3);
    ck_assert_uint_eq(n1, n2);
    ck_assert(memcmp(a, b, n1) == 0);
    ck_assert(n1 != n3 || memcmp(a, c, n1) != 0);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(coalesced_is_small_on_disk)
{
    size_t n;
    char *p = slurp(make("coalesced", "200000", "1"), &n);
    free(p);
    ck_assert_msg(n <= 4u * 200000u, "%zu bytes for 200000 instructions", n);
}
END_TEST

/* ---- replayed on the H200: the counts each pattern's addresses imply ---- */

typedef struct pc_counts {
    uint32_t n;
    uint32_t pc[16];
    uint64_t exec[16];
    stats s[16];
} pc_counts;

static int keep_pcs(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    pc_counts *c = ctx;
    ck_assert_uint_le(r->n_pcs, 16);
    c->n = r->n_pcs;
    for (uint32_t i = 0; i < r->n_pcs; i++) {
        c->pc[i] = r->pcs[i].pc;
        c->exec[i] = r->pcs[i].executions;
        c->s[i] = r->pcs[i].s;
    }
    return 0;
}

static void replay(const char *path, pc_counts *c)
{
    cfg_gpu cfg;
    err_info err = {{0}};
    ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
    memset(c, 0, sizeof *c);
    replay_options opt = {0};
    ck_assert_msg(replay_trace(path, &cfg, &opt, keep_pcs, c, &err) == 0, "%s", err.msg);
}

/* The PCs of the synthetic kernels: 0x100 + 0x30 x (op index). */
static uint32_t at(const pc_counts *c, uint32_t op)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->pc[i] == 0x100u + 0x30u * op)
            return i;
    ck_abort_msg("no PC for op %u", op);
    return 0;
}

START_TEST(coalesced_loads_four_sectors_in_one_line)
{
    pc_counts c;
    replay(make("coalesced", "30000", "1"), &c);
    ck_assert_uint_eq(c.n, 3);
    for (uint32_t op = 0; op < 2; op++) {
        const stats *s = &c.s[at(&c, op)];
        uint64_t n = c.exec[at(&c, op)];
        ck_assert_uint_eq(n, 10000);
        ck_assert_uint_eq(s->v[STAT_INST_GLOBAL_LD], n);
        ck_assert_uint_eq(s->v[STAT_L1_REQ_GLOBAL_LD], n);
        ck_assert_uint_eq(s->v[STAT_L1_SECT_GLOBAL_LD], 4 * n);
        ck_assert_uint_eq(s->v[STAT_SRC_TAG_REQ_GLOBAL], n);
        ck_assert_uint_eq(s->v[STAT_L1_DATA_WF_GLOBAL_LD], n);
    }
    const stats *st = &c.s[at(&c, 2)];
    ck_assert_uint_eq(st->v[STAT_INST_GLOBAL_ST], 10000);
    ck_assert_uint_eq(st->v[STAT_L1_SECT_GLOBAL_ST], 40000);
}
END_TEST

START_TEST(misaligned_loads_five_sectors_in_two_lines)
{
    pc_counts c;
    replay(make("misaligned", "30000", "1"), &c);
    for (uint32_t op = 0; op < 2; op++) {
        const stats *s = &c.s[at(&c, op)];
        ck_assert_uint_eq(s->v[STAT_L1_SECT_GLOBAL_LD], 5 * 10000);
        ck_assert_uint_eq(s->v[STAT_SRC_TAG_REQ_GLOBAL], 2 * 10000);
    }
}
END_TEST

START_TEST(strided_loads_spread_over_lines)
{
    pc_counts c;
    replay(make("strided", "30000", "1"), &c);
    const stats *a = &c.s[at(&c, 0)], *b = &c.s[at(&c, 1)];
    ck_assert_uint_eq(a->v[STAT_L1_SECT_GLOBAL_LD], 8 * 10000); /* stride 8 B */
    ck_assert_uint_eq(a->v[STAT_SRC_TAG_REQ_GLOBAL], 2 * 10000);
    ck_assert_uint_eq(b->v[STAT_L1_SECT_GLOBAL_LD], 32 * 10000); /* stride 128 B */
    ck_assert_uint_eq(b->v[STAT_SRC_TAG_REQ_GLOBAL], 32 * 10000);
    ck_assert_uint_eq(b->v[STAT_L1_SET_CONFLICTS_GLOBAL_LD], 7 * 10000); /* 8 tag wavefronts */
}
END_TEST

START_TEST(random_gathers_touch_a_line_per_lane)
{
    pc_counts c;
    replay(make("random", "20000", "1"), &c);
    const stats *s = &c.s[at(&c, 0)];
    uint64_t n = c.exec[at(&c, 0)];
    ck_assert_uint_eq(n, 5000);
    /* 32 lanes over 2^21 lines: two lanes share a line about once in 4,000 loads */
    ck_assert_uint_le(s->v[STAT_SRC_TAG_REQ_GLOBAL], 32 * n);
    ck_assert_uint_ge(s->v[STAT_SRC_TAG_REQ_GLOBAL], 32 * n - 10);
    ck_assert_uint_eq(s->v[STAT_L1_SECT_GLOBAL_LD], s->v[STAT_SRC_TAG_REQ_GLOBAL]);
}
END_TEST

START_TEST(shared_strides_conflict_as_measured)
{
    pc_counts c;
    replay(make("shared", "25344", "1"), &c); /* 132 whole CTAs */
    /* ops: LDG, STS stride 4, BAR, LDS stride 8, LDS stride 64, LDS.64 stride 8, STG, BAR */
    uint64_t n = c.exec[at(&c, 1)];
    ck_assert_uint_eq(n, 132 * 8 * 4);
    ck_assert_uint_eq(c.s[at(&c, 1)].v[STAT_SMEM_WF_ST], n);     /* conflict-free */
    ck_assert_uint_eq(c.s[at(&c, 3)].v[STAT_SMEM_WF_LD], 2 * n); /* 2-way */
    ck_assert_uint_eq(c.s[at(&c, 4)].v[STAT_SMEM_WF_LD], 16 * n); /* 16-way */
    ck_assert_uint_eq(c.s[at(&c, 4)].v[STAT_SMEM_BC_LD], 15 * n);
    ck_assert_uint_eq(c.s[at(&c, 5)].v[STAT_SMEM_WF_LD], 2 * n); /* LDS.64: two half-warps */
    ck_assert_uint_eq(c.s[at(&c, 5)].v[STAT_SMEM_BC_LD], 0);
}
END_TEST

START_TEST(bad_arguments_exit_2)
{
    const char *o = tpath("bad");
    const char *a1[] = {"--pattern", "nope", "--instructions", "10", "-o", o};
    ck_assert_int_eq(synth(a1, 6), 2);
    const char *a2[] = {"--pattern", "coalesced", "--instructions", "0", "-o", o};
    ck_assert_int_eq(synth(a2, 6), 2);
    const char *a3[] = {"--pattern", "coalesced", "--instructions", "10"};
    ck_assert_int_eq(synth(a3, 4), 2);
    const char *a4[] = {"--pattern", "coalesced", "--instructions", "1e6", "-o", o};
    ck_assert_int_eq(synth(a4, 6), 2);
    const char *a5[] = {"--pattern", "coalesced", "--instructions", "10", "-o", o, "--seed", "-1"};
    ck_assert_int_eq(synth(a5, 8), 2);
    ck_assert_int_ne(access(o, F_OK), 0);
}
END_TEST

Suite *synth_suite(void)
{
    Suite *s = suite_create("synth");
    TCase *tc = tcase_create("synth");
    tcase_add_unchecked_fixture(tc, make_tmp_dir, remove_tmp_dir);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, writes_exactly_n_instructions_over_all_sms);
    tcase_add_test(tc, same_arguments_same_bytes);
    tcase_add_test(tc, coalesced_is_small_on_disk);
    tcase_add_test(tc, coalesced_loads_four_sectors_in_one_line);
    tcase_add_test(tc, misaligned_loads_five_sectors_in_two_lines);
    tcase_add_test(tc, strided_loads_spread_over_lines);
    tcase_add_test(tc, random_gathers_touch_a_line_per_lane);
    tcase_add_test(tc, shared_strides_conflict_as_measured);
    tcase_add_test(tc, bad_arguments_exit_2);
    suite_add_tcase(s, tc);
    return s;
}

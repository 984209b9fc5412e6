/* selftest_check.c - reads a trace of capture/selftest/selftest.cu and checks
 * every kernel's records against what its code implies (counts per space and
 * kind, active masks, addresses, flags, cache operators, dynamic shared
 * memory), and the END record against the run's mode.
 *
 *   selftest_check MODE TRACE     MODE: all, graph, stream, crash, nosync, oom,
 *                                 maxrec (all with --max-records 100),
 *                                 generic (all with --kernel k_generic),
 *                                 launch23 (all with --launch 2-3),
 *                                 single (all with --launch N: one kernel),
 *                                 any (another program: generic checks only),
 *                                 shfl (selftest shfl with --shuffles), shfl_off
 *                                 (selftest shfl without it)
 * Prints one PASS/FAIL line per check and a summary per kernel; exits 1 when
 * a check failed, 2 when the trace cannot be read. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"
#include "trace.h"

static int failed, passed;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (ok)
        passed++;
    else
        failed++;
}

typedef struct kstats {
    uint64_t n[TRACE_SPACE_COUNT][TRACE_KIND_COUNT];
    uint64_t lanes[TRACE_SPACE_COUNT][TRACE_KIND_COUNT];
    uint64_t generic[TRACE_SPACE_COUNT][TRACE_KIND_COUNT];
    uint64_t ldgsts[TRACE_SPACE_COUNT][TRACE_KIND_COUNT];
    uint64_t barriers;
    uint64_t shfl;        /* shuffle records (TRACE_BAR_SHFL), not counted in barriers */
    uint64_t shfl_not_shfl; /* shuffle records whose PC is not a SHFL instruction */
    uint64_t no_pc;       /* records whose pc has no PC-table entry */
    uint64_t ldsm, stsm;  /* records at LDSM / STSM instructions */
    uint64_t not_consecutive; /* global records whose active lanes are not 4 B apart (k_copy) */
    uint64_t partial;     /* records with a partial mask */
    uint32_t partial_mask[8];
    uint32_t ldgsts_sizes[TRACE_SPACE_COUNT]; /* bit s: size s seen */
    uint32_t ldgsts_cache[17];                /* global half: cache op + 1 per size */
    int32_t sm_min, sm_max;
    uint64_t full_ldsm_rows; /* LDSM records whose lanes are 16 B apart */
} kstats;

static const char *base_name(const char *demangled, char *buf, size_t n)
{
    snprintf(buf, n, "%s", demangled);
    buf[strcspn(buf, "(<")] = '\0';
    return buf;
}

static void count(kstats *s, const trace_kernel *k, const trace_mem *m)
{
    s->n[m->space][m->kind]++;
    s->lanes[m->space][m->kind] += (uint64_t)__builtin_popcount(m->active_mask);
    if (m->flags & TRACE_MEM_GENERIC)
        s->generic[m->space][m->kind]++;
    if (m->flags & TRACE_MEM_LDGSTS) {
        s->ldgsts[m->space][m->kind]++;
        s->ldgsts_sizes[m->space] |= 1u << m->size_bytes;
        if (m->space == TRACE_SPACE_GLOBAL)
            s->ldgsts_cache[m->size_bytes] = m->cache_op + 1u;
    }
    if (m->active_mask != TRACE_FULL_MASK) {
        if (s->partial < 8)
            s->partial_mask[s->partial] = m->active_mask;
        s->partial++;
    }
    if (s->sm_min > m->sm)
        s->sm_min = m->sm;
    if (s->sm_max < m->sm)
        s->sm_max = m->sm;
    const trace_pc_info *pi = trace_kernel_find_pc(k, m->pc);
    if (!pi)
        s->no_pc++;
    else if (!strncmp(pi->sass, "LDSM", 4) || !strncmp(pi->sass, "STSM", 4)) {
        if (pi->sass[0] == 'L')
            s->ldsm++;
        else
            s->stsm++;
        int rows = 1;
        for (int l = 1; l < 32; l++)
            rows &= m->addr[l] == m->addr[0] + 16u * (unsigned)l;
        s->full_ldsm_rows += rows && m->active_mask == TRACE_FULL_MASK;
    }
    if (m->space == TRACE_SPACE_GLOBAL && m->size_bytes == 4 && !m->flags) {
        int first = __builtin_ctz(m->active_mask);
        for (int l = first + 1; l < 32; l++)
            if ((m->active_mask >> l & 1u) && m->addr[l] != m->addr[first] + 4u * (unsigned)(l - first)) {
                s->not_consecutive++;
                break;
            }
    }
}

#define G TRACE_SPACE_GLOBAL
#define S TRACE_SPACE_SHARED
#define L TRACE_SPACE_LOCAL
#define LD TRACE_KIND_LD
#define ST TRACE_KIND_ST
#define ATOM TRACE_KIND_ATOM
#define RED TRACE_KIND_RED

static uint64_t total(const kstats *s)
{
    uint64_t t = 0;
    for (int a = 0; a < TRACE_SPACE_COUNT; a++)
        for (int b = 0; b < TRACE_KIND_COUNT; b++)
            t += s->n[a][b];
    return t;
}

/* The expectations, per kernel. */
static void check_kernel(const trace_kernel *k, const kstats *s, const char *mode)
{
    char nb[256];
    const char *name = base_name(k->demangled, nb, sizeof nb);
    uint32_t L_ = k->launch;
    printf("kernel launch %u %s grid %ux%ux%u block %ux%ux%u smem %u+%u regs %u local %u pcs %u files %u: "
           "g ld/st/atom/red %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 ", s ld/st/atom %" PRIu64 "/%" PRIu64
           "/%" PRIu64 ", l ld/st %" PRIu64 "/%" PRIu64 ", barriers %" PRIu64 ", generic %" PRIu64 "/%" PRIu64
           "/%" PRIu64 ", sm %d..%d\n",
           L_, k->demangled, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
           k->smem_static_bytes, k->smem_dynamic_bytes, k->regs_per_thread, k->local_bytes_per_thread, k->n_pcs,
           k->n_files, s->n[G][LD], s->n[G][ST], s->n[G][ATOM], s->n[G][RED], s->n[S][LD], s->n[S][ST],
           s->n[S][ATOM], s->n[L][LD], s->n[L][ST], s->barriers, s->generic[G][LD] + s->generic[G][ST],
           s->generic[S][LD] + s->generic[S][ST], s->generic[L][LD], s->sm_min, s->sm_max);
    check(s->no_pc == 0, "launch %u %s: every record's pc is in the PC table (%" PRIu64 " are not)", L_, name,
          s->no_pc);
    check(total(s) + s->barriers == 0 || (s->sm_min >= 0 && s->sm_max < 1024), "launch %u %s: SM ids %d..%d",
          L_, name, s->sm_min, s->sm_max);
    check(k->regs_per_thread > 0, "launch %u %s: registers per thread %u", L_, name, k->regs_per_thread);
    /* the whole SASS, branch targets as PCs (capture_kernel_set_sass, model/sassflow.h) */
    uint32_t gap = k->n_pcs, labels = 0;
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        if (gap == k->n_pcs && k->pcs[i].pc != 16u * i)
            gap = i;
        labels += strstr(k->pcs[i].sass, "`(") != NULL;
    }
    char where[64] = "no gap";
    if (gap < k->n_pcs)
        snprintf(where, sizeof where, "entry %u is pc 0x%x", gap, k->pcs[gap].pc);
    check(k->n_pcs == 0 || (gap == k->n_pcs && labels == 0),
          "launch %u %s: the PC table holds every instruction from 0x0 (%u entries, %s), branch targets as PCs "
          "(%u label operands left)", L_, name, k->n_pcs, where, labels);
    if (strcmp(mode, "any") != 0)
        check(k->n_files >= 1, "launch %u %s: source files from -lineinfo (%u files)", L_, name, k->n_files);

    if (!strcmp(name, "k_copy") || !strcmp(name, "k_scale")) {
        uint64_t warps = ST_COPY_GRID * ST_COPY_BLOCK / 32, partial_warps = 1;
        check(k->grid[0] == ST_COPY_GRID && k->block[0] == ST_COPY_BLOCK, "launch %u %s: grid/block", L_, name);
        check(s->n[G][LD] == 32 && s->n[G][ST] == 32 && total(s) == 64,
              "launch %u %s: 32 global loads and 32 stores (one per warp with a thread below n=%d; %" PRIu64
              " warps)", L_, name, ST_COPY_N, warps);
        check(s->lanes[G][LD] == ST_COPY_N && s->lanes[G][ST] == ST_COPY_N,
              "launch %u %s: %d active lanes per instruction class", L_, name, ST_COPY_N);
        check(s->partial == 2 * partial_warps && s->partial_mask[0] == 0xff && s->partial_mask[1] == 0xff,
              "launch %u %s: the last warp's mask is 0x000000ff", L_, name);
        check(s->not_consecutive == 0, "launch %u %s: lane addresses 4 bytes apart", L_, name);
    } else if (!strcmp(name, "k_transpose")) {
        uint64_t warps = (ST_TR_DIM / ST_TR_TILE) * (ST_TR_DIM / ST_TR_TILE) * ST_TR_TILE * ST_TR_ROWS / 32;
        uint64_t per = ST_TR_TILE / ST_TR_ROWS * warps;
        if (!strcmp(mode, "maxrec")) {
            check(total(s) + s->barriers == 100, "launch %u %s: the first 100 records only (--max-records)", L_,
                  name);
            return;
        }
        check(s->n[G][LD] == per && s->n[S][ST] == per && s->n[S][LD] == per && s->n[G][ST] == per &&
                  s->barriers == warps && total(s) == 4 * per,
              "launch %u %s: %" PRIu64 " each of global ld, shared st, shared ld, global st; %" PRIu64
              " barriers", L_, name, per, warps);
        check(s->partial == 0, "launch %u %s: all masks full", L_, name);
    } else if (!strcmp(name, "k_atomics")) {
        uint64_t warps = ST_AT_GRID * ST_AT_BLOCK / 32;
        check(s->n[G][RED] == warps && s->lanes[G][RED] == warps,
              "launch %u %s: %" PRIu64 " global reductions, one lane each (warp-aggregated atomicAdd)", L_, name,
              warps);
        check(s->n[G][ATOM] == warps && s->lanes[G][ATOM] == 32 * warps,
              "launch %u %s: %" PRIu64 " global atomics, full warps", L_, name, warps);
        check(s->n[S][ATOM] == warps, "launch %u %s: %" PRIu64 " shared atomics", L_, name, warps);
        check(s->n[S][ST] == ST_AT_GRID && s->barriers == 2 * warps && s->n[S][LD] == warps &&
                  s->n[G][ST] == warps,
              "launch %u %s: shared init, 2 barriers per warp, shared read, global store", L_, name);
    } else if (!strcmp(name, "k_diverge")) {
        check(s->n[G][ST] == 2 && total(s) == 2, "launch %u %s: two global stores", L_, name);
        check(s->partial == 2 && s->partial_mask[0] == 0x49249249u && s->partial_mask[1] == 0x00006db6u,
              "launch %u %s: masks 0x49249249 (tid %% 3 == 0) and 0x00006db6 (the rest below 16): got "
              "0x%08x 0x%08x", L_, name, s->partial_mask[0], s->partial_mask[1]);
    } else if (!strcmp(name, "k_generic")) {
        int sel = (int)L_ - 4; /* launches 4, 5, 6 of "all" pass sel 0, 1, 2 */
        uint64_t gg = s->generic[G][LD] + s->generic[G][ST], gs = s->generic[S][LD] + s->generic[S][ST],
                 gl = s->generic[L][LD] + s->generic[L][ST];
        if (sel == 0)
            check(gs == 2 && gg == 0 && gl == 0 && s->generic[S][LD] == 1,
                  "launch %u %s(sel 0): generic load and store resolved to shared", L_, name);
        else if (sel == 1)
            check(gg == 2 && gs == 0 && gl == 0 && s->generic[G][LD] == 1,
                  "launch %u %s(sel 1): generic load and store resolved to global", L_, name);
        else
            check(gl == 1 && gg == 1 && gs == 0 && s->generic[L][LD] == 1 && s->generic[G][ST] == 1,
                  "launch %u %s(sel 2): generic load from local, store to global", L_, name);
        check(s->n[L][ST] > 0, "launch %u %s: local stores of the local array", L_, name);
    } else if (!strcmp(name, "k_cpasync")) {
        check(s->ldgsts[G][LD] == 3 && s->ldgsts[S][ST] == 3 && s->n[G][LD] == 3,
              "launch %u %s: 3 cp.async = 3 global reads + 3 shared writes flagged LDGSTS", L_, name);
        check(s->ldgsts_sizes[G] == ((1u << 16) | (1u << 8) | (1u << 4)) &&
                  s->ldgsts_sizes[S] == s->ldgsts_sizes[G],
              "launch %u %s: sizes 16, 8, 4", L_, name);
        check(s->ldgsts_cache[16] == TRACE_CACHE_CG + 1u && s->ldgsts_cache[8] == TRACE_CACHE_CA + 1u &&
                  s->ldgsts_cache[4] == TRACE_CACHE_CA + 1u,
              "launch %u %s: cache ops cg (16 B, BYPASS), ca, ca", L_, name);
        check(s->barriers == 1 && s->n[S][LD] == 3 && s->n[G][ST] == 1, "launch %u %s: barrier, 3 LDS, STG", L_,
              name);
    } else if (!strcmp(name, "k_ldmatrix")) {
        check(s->ldsm == 1 && s->stsm == 1 && s->full_ldsm_rows == 2,
              "launch %u %s: one ldmatrix and one stmatrix record, 32 rows 16 bytes apart", L_, name);
    } else if (!strcmp(name, "k_dynsmem")) {
        uint64_t warps = ST_DYN_BLOCK / 32;
        check(k->smem_dynamic_bytes == ST_DYN_BYTES, "launch %u %s: %u bytes of dynamic shared memory (got %u)",
              L_, name, ST_DYN_BYTES, k->smem_dynamic_bytes);
        check(s->n[S][ST] == warps && s->n[S][LD] == warps && s->barriers == warps && s->n[G][ST] == warps,
              "launch %u %s: per warp one STS, one barrier, one LDS, one STG", L_, name);
    } else if (!strcmp(name, "k_local")) {
        check(s->n[L][ST] > 0 && s->n[L][LD] > 0 && s->n[G][ST] == 1,
              "launch %u %s: local stores and loads, one global store", L_, name);
        check(k->local_bytes_per_thread >= 256, "launch %u %s: local bytes per thread %u >= 256", L_, name,
              k->local_bytes_per_thread);
    } else if (!strcmp(name, "k_tex") || !strcmp(name, "k_const")) {
        int found = 0;
        for (uint32_t i = 0; i < k->n_pcs; i++) /* LDC of __constant__ data reads bank 3 */
            found |= name[2] == 't' ? !strncmp(k->pcs[i].sass, "TLD", 3)
                                    : !strncmp(k->pcs[i].sass, "LDC", 3) && strstr(k->pcs[i].sass, "c[0x3]");
        check(found && s->n[G][ST] == 1 && total(s) == 1,
              "launch %u %s: only the global store is recorded; the PC table shows the invisible load", L_, name);
    } else if (!strcmp(name, "k_shfl")) {
        uint64_t warps = ST_SHFL_GRID * ST_SHFL_BLOCK / 32;
        uint64_t want = !strcmp(mode, "shfl") ? warps * (5u + ST_SHFL_LOOP) : 0;
        check(s->shfl == want && s->shfl_not_shfl == 0,
              "launch %u %s: %" PRIu64 " shuffle records at SHFL instructions (5 unrolled and %d in a loop a warp; "
              "none without --shuffles): got %" PRIu64 ", %" PRIu64 " elsewhere",
              L_, name, want, ST_SHFL_LOOP, s->shfl, s->shfl_not_shfl);
        check(s->n[G][LD] == warps && s->n[G][ST] == warps && s->barriers == 0 && total(s) == 2 * warps,
              "launch %u %s: a global load and a store a warp, no barrier", L_, name);
    } else if (!strcmp(name, "k_stream")) {
        uint64_t warps = ST_STREAM_N / 32;
        check(s->n[G][LD] == warps && s->n[G][ST] == warps && s->partial == 0,
              "launch %u %s: %" PRIu64 " 16-byte loads and stores", L_, name, warps);
    } else if (strcmp(mode, "any") != 0) {
        check(0, "launch %u: unexpected kernel %s", L_, k->demangled);
    }
}

typedef struct expect {
    const char *mode;
    uint32_t n;              /* kernels in the trace */
    uint32_t launches[16];   /* their launch indices (mode "all": 0, 1, 2, ...) */
    int complete;
    const char *reason_has; /* for incomplete traces */
} expect;

static const expect expects[] = {
    {"all", 23, {0}, 1, NULL},
    {"graph", 2, {0, 5}, 0, "came from CUDA graphs"},
    {"stream", 3, {0, 1, 2}, 1, NULL},
    {"crash", 1, {0}, 0, "failed on the device"},
    {"nosync", 1, {0}, 1, NULL},
    /* complete = -1: either traced whole, or incomplete for want of device memory */
    {"oom", 2, {0, 1}, -1, "memory"},
    {"maxrec", 2, {0, 1}, 0, "--max-records 100"},
    {"generic", 3, {4, 5, 6}, 1, NULL},
    {"launch23", 2, {2, 3}, 1, NULL},
    {"single", 1, {0}, 1, NULL}, /* one kernel of "all", any launch index */
    {"any", 0, {0}, 1, NULL},    /* another program: generic checks only */
    {"shfl", 1, {0}, 1, NULL},
    {"shfl_off", 1, {0}, 1, NULL},
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: selftest_check MODE TRACE\n");
        return 2;
    }
    const char *mode = argv[1];
    const expect *ex = NULL;
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++)
        if (!strcmp(expects[i].mode, mode))
            ex = &expects[i];
    if (!ex) {
        fprintf(stderr, "selftest_check: unknown mode %s\n", mode);
        return 2;
    }
    err_info err;
    err_clear(&err);
    trace_reader_options ro = {.allow_incomplete = true};
    trace_reader *r = trace_reader_open(argv[2], &ro, &err);
    if (!r) {
        fprintf(stderr, "selftest_check: %s\n", err.msg);
        return 2;
    }
    const trace_meta *meta = trace_reader_meta(r);
    static const char *keys[] = {"capture_tool", "capture_version", "gpu", "cc", "sm_count", "driver", "cuda",
                                 "date"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = trace_meta_get(meta, keys[i]);
        printf("meta %s = %s\n", keys[i], v ? v : "(absent)");
        check(v && v[0] && strcmp(v, "unknown") != 0, "metadata %s", keys[i]);
    }
    printf("format %s\n", trace_reader_format(r) == TRACE_FORMAT_TEXT ? "text" : "binary");

    kstats s;
    uint32_t nk = 0;
    int rc;
    trace_event ev;
    const trace_kernel *cur = NULL;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        switch (ev.type) {
        case TRACE_EV_KERNEL:
            memset(&s, 0, sizeof s);
            s.sm_min = INT32_MAX;
            s.sm_max = INT32_MIN;
            cur = ev.kernel;
            {
                uint32_t want = !strcmp(mode, "all") ? nk
                                : !strcmp(mode, "single") || !strcmp(mode, "any") ? cur->launch
                                : nk < 16 ? ex->launches[nk] : UINT32_MAX;
                check(cur->launch == want, "kernel %u has launch index %u (expected %u)", nk, cur->launch, want);
            }
            nk++;
            break;
        case TRACE_EV_MEM:
            count(&s, cur, &ev.mem);
            break;
        case TRACE_EV_BARRIER:
            if (ev.barrier.kind == TRACE_BAR_SHFL) {
                const trace_pc_info *pi = trace_kernel_find_pc(cur, ev.barrier.pc);
                s.shfl++;
                s.shfl_not_shfl += !pi || strncmp(pi->sass, "SHFL", 4) != 0;
            } else
                s.barriers++;
            break;
        case TRACE_EV_KERNEL_END:
            check_kernel(cur, &s, mode);
            break;
        default:
            break;
        }
    }
    if (rc < 0) {
        printf("FAIL reading: %s\n", err.msg);
        failed++;
    }
    const char *reason = NULL;
    bool incomplete = trace_reader_incomplete(r, &reason);
    printf("end: %u kernels, %s%s%s\n", trace_reader_kernels(r), incomplete ? "incomplete: " : "complete",
           incomplete && reason ? reason : "", "");
    if (strcmp(mode, "any") != 0 && !(ex->complete < 0 && incomplete))
        check(nk == ex->n, "%u kernels in the trace (expected %u)", nk, ex->n);
    if (ex->complete >= 0)
        check(incomplete == !ex->complete, "trace is %s", ex->complete ? "complete" : "incomplete");
    if (ex->reason_has && (ex->complete == 0 || incomplete))
        check(reason && strstr(reason, ex->reason_has), "the reason names '%s'", ex->reason_has);
    trace_reader_close(r);
    printf("%s: %d passed, %d failed\n", mode, passed, failed);
    return failed ? 1 : 0;
}

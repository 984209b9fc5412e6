/* validate_pc.c - `validate --per-pc`: compare the model with Nsight Compute's
 * source view (NAME.source.csv beside the trace), SASS instruction by SASS
 * instruction.
 *
 * Source-view counters are derived from the addresses alone, so they are the
 * numbers a trace replay must reproduce exactly: executions, L1 tag requests
 * (distinct lines) and L2 theoretical sectors (distinct sectors) of global
 * instructions, and the average n-way
 * shared-memory conflict (wavefronts / executions). Which columns exist
 * depends on the ncu section that made the CSV (kernels/capture-all.sh uses
 * SourceCounters); columns that are absent are skipped. */
#include "validate_pc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"
#include "validate.h"

typedef struct column_rule {
    const char *column;   /* ncu's source-view column */
    bool per_execution;   /* the column is an average per execution */
    double tolerance;     /* absolute; 0 = exact */
} column_rule;

static const column_rule columns[] = {
    {"Instructions Executed", false, 0},
    {"L1 Tag Requests Global", false, 0},
    {"L2 Theoretical Sectors Global", false, 0},
    /* ncu prints the average with two decimals at most */
    {"L1 Conflicts Shared N-Way", true, 0.006},
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

/* The model's value for column c at one PC. */
static double predicted(size_t c, const gpu_pc_stats *p)
{
    const stats *s = &p->s;
    switch (c) {
    case 0:
        return (double)p->executions;
    case 1:
        return (double)s->v[STAT_SRC_TAG_REQ_GLOBAL];
    case 2:
        return (double)s->v[STAT_SRC_L2_THEO_SECT_GLOBAL];
    case 3: {
        uint64_t wf = s->v[STAT_SMEM_WF_LD] + s->v[STAT_SMEM_WF_ST] + s->v[STAT_SMEM_WF_ATOM];
        return p->executions ? (double)wf / (double)p->executions : 0.0;
    }
    default:
        return NAN;
    }
}

typedef struct pc_ctx {
    const char *trace;
    const char *source_path;
    ncu_source_report src;
    FILE *out;
    bool failures_only;
    validate_pc_totals *t;
} pc_ctx;

static const gpu_pc_stats *find_pc(const replay_kernel_result *r, uint64_t pc)
{
    for (uint32_t i = 0; i < r->n_pcs; i++)
        if (r->pcs[i].pc == pc)
            return &r->pcs[i];
    return NULL;
}

static int compare_kernel(void *vctx, const replay_kernel_result *r, err_info *err)
{
    pc_ctx *c = vctx;
    char want[256], have[256];
    validate_base_name(r->kernel->demangled, want, sizeof want);
    const ncu_source_kernel *k = NULL;
    for (uint32_t i = 0; i < c->src.n && !k; i++) {
        validate_base_name(c->src.kernels[i].kernel, have, sizeof have);
        if (strcmp(want, have) == 0)
            k = &c->src.kernels[i];
    }
    if (!k) {
        err_set(err, "%s: no source view of kernel %s", c->source_path, want);
        return -1;
    }
    int col[N_COLUMNS];
    for (size_t j = 0; j < N_COLUMNS; j++)
        col[j] = ncu_source_column(k, columns[j].column);
    fprintf(c->out, "\n== %s: launch %u: %s (source view, per SASS instruction)\n", c->trace, r->kernel->launch,
            r->kernel->demangled);
    for (uint32_t row = 0; row < k->n_rows; row++) {
        const ncu_source_row *sr = &k->rows[row];
        const gpu_pc_stats *p = find_pc(r, sr->pc_offset);
        if (!p)
            continue; /* not a memory instruction, or never executed in the trace */
        const trace_pc_info *info = trace_kernel_find_pc(r->kernel, (uint32_t)sr->pc_offset);
        const char *file = info && info->file >= 0 ? r->kernel->files[info->file] : NULL;
        const char *base = file ? strrchr(file, '/') : NULL;
        char where[160];
        if (file)
            snprintf(where, sizeof where, "%s:%u", base ? base + 1 : file, info->line);
        else
            snprintf(where, sizeof where, "-");
        c->t->instructions++;
        for (size_t j = 0; j < N_COLUMNS; j++) {
            if (col[j] < 0)
                continue;
            double m = ncu_source_value(k, row, (uint32_t)col[j]);
            if (isnan(m))
                continue;
            double pv = predicted(j, p);
            bool pass = fabs(pv - m) <= columns[j].tolerance;
            /* A guarded instruction ("@P0 LDG") whose lanes are all predicated off
             * in some warp is still executed by that warp for ncu, but no lane
             * calls the tracer: the trace can only see fewer executions. (That
             * no executing lane was lost is checked exactly by `trace check`.) */
            if (j == 0 && sr->sass[0] == '@' && pv <= m)
                pass = true;
            c->t->values++;
            c->t->failed += !pass;
            if (c->failures_only && pass)
                continue;
            fprintf(c->out, "  0x%05llx %-34.34s %-22.22s %-30s %12.6g %12.6g %s\n", (unsigned long long)sr->pc_offset,
                    sr->sass, where, columns[j].column, m, pv, pass ? "pass" : "FAIL");
        }
    }
    return 0;
}

int validate_pc_capture(const char *trace, const char *source_csv, const cfg_gpu *cfg, const replay_options *ropt,
                        FILE *out, bool failures_only, validate_pc_totals *t, err_info *err)
{
    pc_ctx c = {.trace = trace, .source_path = source_csv, .out = out, .failures_only = failures_only, .t = t};
    if (ncu_source_read(source_csv, &c.src, err) != 0)
        return -1;
    int rc = replay_trace(trace, cfg, ropt, compare_kernel, &c, err);
    ncu_source_free(&c.src);
    return rc;
}

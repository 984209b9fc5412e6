/* validate_pc.c - `validate --per-pc`: compare the model with Nsight Compute's
 * source view (NAME.source.csv beside the trace), SASS instruction by SASS
 * instruction.
 *
 * Source-view counters are derived from the addresses alone, so they are the
 * numbers a trace replay must reproduce exactly; the columns compared are
 * model/source_view.h's. Which columns exist depends on the ncu section that
 * made the CSV (kernels/capture-all.sh uses SourceCounters); columns that
 * are absent are skipped. */
#include "validate_pc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"
#include "source_view.h"
#include "validate.h"

/* Absolute tolerance of a column: exact for counts; ncu prints averages per
 * execution with two decimals at most. */
static double column_tolerance(const source_column *c)
{
    return c->per_execution ? 0.006 : 0.0;
}

/* The model's value of a per-execution column (the n-way conflicts) as ncu
 * computes and prints it: per ncu execution, and rounded down to a whole
 * number (measured: histogram_uniform's ATOMS 12,911 wavefronts over 4,096
 * executions print 3; reduce_sequential's guarded LDS 8,192 over 16,384 print
 * 0). A guarded instruction ("@P0 LDS") is executed, for ncu, also by warps
 * whose lanes are all predicated off, which the trace cannot see: its ncu
 * count of executions (measured_execs) is the divisor then. */
static double per_execution_as_ncu(size_t col, const gpu_pc_stats *p, const char *sass, double measured_execs)
{
    double execs = (double)p->executions;
    if (sass[0] == '@' && !isnan(measured_execs) && measured_execs > execs)
        execs = measured_execs;
    double per = execs > 0 ? source_view_value(col, p->executions, &p->s) * (double)p->executions / execs : 0.0;
    return floor(per + 1e-9);
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
    size_t n_cols;
    const source_column *cols = source_view_columns(&n_cols);
    int col[16];
    if (n_cols > sizeof col / sizeof col[0])
        n_cols = sizeof col / sizeof col[0];
    for (size_t j = 0; j < n_cols; j++)
        col[j] = ncu_source_column(k, cols[j].name);
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
        for (size_t j = 0; j < n_cols; j++) {
            if (col[j] < 0)
                continue;
            double m = ncu_source_value(k, row, (uint32_t)col[j]);
            if (isnan(m))
                continue;
            double pv = source_view_value(j, p->executions, &p->s);
            if (cols[j].per_execution)
                pv = per_execution_as_ncu(j, p, sr->sass,
                                          col[0] >= 0 ? ncu_source_value(k, row, (uint32_t)col[0]) : (double)NAN);
            bool pass = fabs(pv - m) <= column_tolerance(&cols[j]);
            /* A guarded instruction ("@P0 LDG") whose lanes are all predicated off
             * in some warp is still executed by that warp for ncu, but no lane
             * calls the tracer: the trace can only see fewer executions. (That
             * no executing lane was lost is checked exactly by `trace check`.) */
            if (j == 0 /* Instructions Executed */ && sr->sass[0] == '@' && pv <= m)
                pass = true;
            c->t->values++;
            c->t->failed += !pass;
            if (c->failures_only && pass)
                continue;
            fprintf(c->out, "  0x%05llx %-34.34s %-22.22s %-39s %12.6g %12.6g %s\n", (unsigned long long)sr->pc_offset,
                    sr->sass, where, cols[j].name, m, pv, pass ? "pass" : "FAIL");
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

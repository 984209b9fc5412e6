/* explain_timing.c - `explain --timing`: where a launch's warps spend their
 * cycles, per SASS instruction and per source line, as the timing model
 * sees it (timing_result.pc_cycles: the cycles a warp waits with an
 * instruction next to issue, and its issue cycle) beside what Nsight
 * Compute's warp state sampling saw on the GPU ("Warp Stall Sampling (All
 * Samples)" of the source view the capture left next to the trace): the same
 * question, "which instruction are the warps stuck at", answered by the
 * model and by the hardware. docs/explain.md, "Where the warps wait". */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"
#include "ncu_csv.h"
#include "validate.h"

#define SHOWN_SHARE 1.0   /* percent: instructions and lines below it on both sides are summed */
#define SAMPLES_COLUMN "Warp Stall Sampling (All Samples)"
#define TOP_REASONS 2

/* One instruction's two shares (percent of the launch's total). */
typedef struct pc_share {
    uint32_t index;      /* into the kernel's PC table */
    double model, ncu;   /* ncu NAN without a source view */
    double samples;      /* ncu's samples at it */
    int64_t ncu_row;     /* its row of the source view, -1 */
} pc_share;

/* The source view of d's kernel in src (the first block of that name), or NULL. */
static const ncu_source_kernel *source_kernel_of(const ncu_source_report *src, const launch_data *d)
{
    char want[256], have[256];
    validate_base_name(d->k.demangled, want, sizeof want);
    for (uint32_t i = 0; i < src->n; i++) {
        validate_base_name(src->kernels[i].kernel, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &src->kernels[i];
    }
    return NULL;
}

/* A source view column of ncu's stall reasons over all samples ("stall_NAME",
 * not the "(Not Issued)" ones). */
static bool is_stall_column(const char *name)
{
    return strncmp(name, "stall_", 6) == 0 && !strchr(name, '(');
}

/* "long_sb, short_sb": the row's largest stall reasons (ncu's stall_*
 * columns, all samples, not the "(Not Issued)" ones), largest first. */
static void top_reasons(const ncu_source_kernel *k, int64_t row, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!k || row < 0)
        return;
    uint32_t best[TOP_REASONS] = {0};
    double val[TOP_REASONS] = {0};
    for (uint32_t c = 0; c < k->n_cols; c++) {
        const char *name = k->column_names[c];
        if (!is_stall_column(name))
            continue;
        double v = ncu_source_value(k, (uint32_t)row, c);
        if (isnan(v) || v <= 0)
            continue;
        for (int j = 0; j < TOP_REASONS; j++)
            if (v > val[j]) {
                for (int m = TOP_REASONS - 1; m > j; m--) {
                    val[m] = val[m - 1];
                    best[m] = best[m - 1];
                }
                val[j] = v;
                best[j] = c;
                break;
            }
    }
    size_t o = 0;
    for (int j = 0; j < TOP_REASONS && val[j] > 0 && o + 1 < n; j++) {
        int w = snprintf(buf + o, n - o, "%s%s", j ? ", " : "", k->column_names[best[j]] + 6);
        o += w > 0 ? (size_t)w : 0;
    }
}

static void share_text(double v, char *buf, size_t n);

/* The model's largest reason for entry i's cycles (timing.h, TIMING_WHY_*),
 * or "" when it has none. */
static const char *model_reason(const launch_data *d, uint32_t i)
{
    if (!d->pc_why || i >= d->n_pc_cycles || d->pc_cycles[i] == 0)
        return "";
    const uint64_t *why = &d->pc_why[(size_t)i * TIMING_WHYS];
    unsigned best = 0;
    for (unsigned r = 1; r < TIMING_WHYS; r++)
        if (why[r] > why[best])
            best = r;
    return timing_why_name(best);
}

/* The launch's cycles by reason, the model's (percent of its warp cycles)
 * beside ncu's (percent of the samples, by its stall_ columns): every
 * reason either side gives 0.5% or more, the model's reasons first. */
static void write_reason_table(FILE *f, const launch_data *d, const ncu_source_kernel *k)
{
    double model[TIMING_WHYS] = {0}, total = 0;
    for (uint32_t i = 0; d->pc_why && i < d->n_pc_cycles; i++)
        for (unsigned r = 0; r < TIMING_WHYS; r++) {
            model[r] += (double)d->pc_why[(size_t)i * TIMING_WHYS + r];
            total += (double)d->pc_why[(size_t)i * TIMING_WHYS + r];
        }
    double samples = 0;
    uint32_t n_cols = k ? k->n_cols : 0;
    double *ncu = xcalloc((size_t)n_cols + 1u, sizeof *ncu);
    bool *is_reason = xcalloc((size_t)n_cols + 1u, sizeof *is_reason);
    for (uint32_t c = 0; c < n_cols; c++) {
        const char *name = k->column_names[c];
        if (!is_stall_column(name))
            continue;
        is_reason[c] = true;
        for (uint32_t r = 0; r < k->n_rows; r++) {
            double v = ncu_source_value(k, r, c);
            ncu[c] += isnan(v) ? 0 : v;
        }
        samples += ncu[c];
    }
    fprintf(f, "by reason (ncu's stall reasons; the model's are its own account of the same waits):\n"
               "  %-18s %7s %7s\n", "reason", "model %", "ncu %");
    bool *done = xcalloc((size_t)n_cols + 1u, sizeof *done);
    for (unsigned r = 0; r < TIMING_WHYS; r++) {
        const char *name = timing_why_name(r);
        double m = total > 0 ? 100.0 * model[r] / total : 0, nv = (double)NAN;
        for (uint32_t c = 0; c < n_cols; c++)
            if (is_reason[c] && strcmp(k->column_names[c] + 6, name) == 0) {
                nv = samples > 0 ? 100.0 * ncu[c] / samples : 0;
                done[c] = true;
            }
        if (m < 0.5 && !(nv >= 0.5))
            continue;
        char nt[16];
        share_text(nv, nt, sizeof nt);
        fprintf(f, "  %-18s %7.1f %7s\n", name, m, nt);
    }
    for (uint32_t c = 0; c < n_cols; c++)
        if (is_reason[c] && !done[c] && samples > 0 && 100.0 * ncu[c] / samples >= 0.5)
            fprintf(f, "  %-18s %7s %7.1f\n", k->column_names[c] + 6, "-", 100.0 * ncu[c] / samples);
    free(ncu);
    free(is_reason);
    free(done);
}

/* The shares of every instruction with cycles or samples; returns how many. */
static uint32_t shares_of(const launch_data *d, const ncu_source_kernel *k, pc_share *out, double *total_samples)
{
    int col = k ? ncu_source_column(k, SAMPLES_COLUMN) : -1;
    double cycles = 0, samples = 0;
    for (uint32_t i = 0; i < d->n_pc_cycles; i++)
        cycles += (double)d->pc_cycles[i];
    if (col >= 0)
        for (uint32_t r = 0; r < k->n_rows; r++) {
            double v = ncu_source_value(k, r, (uint32_t)col);
            samples += isnan(v) ? 0 : v;
        }
    *total_samples = col >= 0 ? samples : (double)NAN;
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->k.n_pcs && i < d->n_pc_cycles; i++) {
        int64_t row = k ? ncu_source_row_at(k, d->k.pcs[i].pc) : -1;
        double s = row >= 0 && col >= 0 ? ncu_source_value(k, (uint32_t)row, (uint32_t)col) : (double)NAN;
        if (isnan(s) && col >= 0)
            s = 0;
        double m = cycles > 0 ? 100.0 * (double)d->pc_cycles[i] / cycles : 0;
        double ns = col < 0 ? (double)NAN : samples > 0 ? 100.0 * s / samples : 0;
        if (d->pc_cycles[i] == 0 && !(s > 0))
            continue;
        out[n++] = (pc_share){.index = i, .model = m, .ncu = ns, .samples = isnan(s) ? 0 : s, .ncu_row = row};
    }
    return n;
}

static bool shown(const pc_share *p)
{
    return p->model >= SHOWN_SHARE || (!isnan(p->ncu) && p->ncu >= SHOWN_SHARE);
}

static void share_text(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f", v);
}

static void write_launch_table(FILE *f, const launch_data *d, const ncu_source_kernel *k, const char *src_path)
{
    pc_share *sh = xmalloc(((size_t)d->k.n_pcs + 1u) * sizeof *sh);
    double total_samples;
    uint32_t n = shares_of(d, k, sh, &total_samples);
    uint64_t warp_cycles = 0;
    for (uint32_t i = 0; i < d->n_pc_cycles; i++)
        warp_cycles += d->pc_cycles[i];
    fprintf(f, "\n== launch %u: %s\n   predicted %" PRIu64 " cycles (sm__cycles_elapsed.avg); an SM active %" PRIu64
            " (sm__cycles_active.avg),\n   achieved occupancy %.1f%% (sm__warps_active.avg.pct_of_peak_sustained_active);\n   %" PRIu64
            " warp cycles before the instructions below\n\n",
            d->k.launch, d->k.demangled, d->cycles, d->sm_active, d->occupancy, warp_cycles);
    fputs("where the warps wait: per SASS instruction, the share of the warps' cycles spent with it as the\n"
          "next instruction to issue (model), and of Nsight Compute's warp state samples taken at it (ncu)",
          f);
    if (k)
        fprintf(f, ",\nfrom %s (%.0f samples)\n\n", src_path, total_samples);
    else
        fprintf(f, ";\n%s\n\n", src_path ? src_path : "no ncu source view next to the trace (NAME.source.csv)");
    fprintf(f, "%-7s %-24s %-16s %7s  %-16s %7s  %s\n", "PC", "SASS", "line", "model %", "model's why", "ncu %",
            "ncu's why");
    double rest_m = 0, rest_n = 0, agree = 0;
    uint32_t rest = 0;
    for (uint32_t i = 0; i < n; i++) {
        const pc_share *p = &sh[i];
        if (!isnan(p->ncu))
            agree += p->model < p->ncu ? p->model : p->ncu;
        if (!shown(p)) {
            rest++;
            rest_m += p->model;
            rest_n += isnan(p->ncu) ? 0 : p->ncu;
            continue;
        }
        const trace_pc_info *info = &d->k.pcs[p->index];
        char pc[16], where[192], m[16], nn[16], why[96];
        ex_pc_text(info->pc, pc, sizeof pc);
        ex_where_of(d, info->pc, where, sizeof where);
        share_text(p->model, m, sizeof m);
        share_text(p->ncu, nn, sizeof nn);
        top_reasons(k, p->ncu_row, why, sizeof why);
        fprintf(f, "%-7s %-24.24s %-16.16s %7s  %-16.16s %7s  %.15s\n", pc, info->sass ? info->sass : "?", where, m,
                model_reason(d, p->index), nn, why);
    }
    if (rest)
        fprintf(f, "(%u more instructions under %.0f%% on both sides: model %.1f%%, ncu %.1f%%)\n", rest, SHOWN_SHARE,
                rest_m, rest_n);
    if (k)
        fprintf(f, "agreement: %.0f%% (the sum over instructions of the smaller of the two shares: 100%% when the\n"
                "model's warps wait where the GPU's do, in the same proportions)\n", agree);
    write_reason_table(f, d, k);
    free(sh);
}

static void write_launch_csv(FILE *f, const launch_data *d, const ncu_source_kernel *k)
{
    pc_share *sh = xmalloc(((size_t)d->k.n_pcs + 1u) * sizeof *sh);
    double total_samples;
    uint32_t n = shares_of(d, k, sh, &total_samples);
    for (uint32_t i = 0; i < n; i++) {
        const pc_share *p = &sh[i];
        const trace_pc_info *info = &d->k.pcs[p->index];
        char pc[16], where[192];
        ex_pc_text(info->pc, pc, sizeof pc);
        ex_where_of(d, info->pc, where, sizeof where);
        fprintf(f, "%u,", d->k.launch);
        report_csv_field(f, d->k.demangled);
        fprintf(f, ",%s,", pc);
        report_csv_field(f, info->sass ? info->sass : "");
        fputc(',', f);
        report_csv_field(f, where);
        fprintf(f, ",%" PRIu64 ",%.4f,", d->pc_cycles[p->index], p->model);
        if (isnan(p->ncu))
            fputs(",", f);
        else
            fprintf(f, "%.0f,%.4f", p->samples, p->ncu);
        for (unsigned r = 0; r < TIMING_WHYS; r++)
            fprintf(f, ",%" PRIu64, d->pc_why ? d->pc_why[(size_t)p->index * TIMING_WHYS + r] : 0);
        fputc('\n', f);
    }
    free(sh);
}

/* The source view next to trace: "X.trace" -> "X.source.csv" (the capture's
 * naming), when it can be opened. */
static char *sibling_source_csv(const char *trace)
{
    size_t n = strlen(trace);
    const char *ext = ".trace";
    size_t e = strlen(ext);
    if (n <= e || strcmp(trace + n - e, ext) != 0)
        return NULL;
    char *p = xmalloc(n - e + sizeof ".source.csv");
    memcpy(p, trace, n - e);
    strcpy(p + n - e, ".source.csv");
    FILE *f = fopen(p, "r");
    if (!f) {
        free(p);
        return NULL;
    }
    fclose(f);
    return p;
}

int explain_write_timing(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err)
{
    char *owned = NULL;
    const char *src_path = o->source_csv;
    if (!src_path)
        src_path = owned = sibling_source_csv(o->trace);
    ncu_source_report src = {0};
    bool have_src = false;
    if (src_path) {
        if (ncu_source_read(src_path, &src, err) != 0) {
            free(owned);
            return -1;
        }
        have_src = true;
    }
    if (o->fmt == REPORT_CSV) {
        fputs("launch,kernel,pc,sass,line,model_warp_cycles,model_share_pct,ncu_samples,ncu_share_pct", f);
        for (unsigned r = 0; r < TIMING_WHYS; r++)
            fprintf(f, ",model_%s_cycles", timing_why_name(r));
        fputc('\n', f);
    }
    else
        ex_write_head(f, o, cfg);
    for (uint32_t l = 0; l < c->n; l++) {
        const launch_data *d = &c->launches[l];
        const ncu_source_kernel *k = have_src ? source_kernel_of(&src, d) : NULL;
        if (o->fmt == REPORT_CSV)
            write_launch_csv(f, d, k);
        else
            write_launch_table(f, d, k, have_src && !k ? "its ncu source view has no block of this kernel" : src_path);
    }
    if (have_src)
        ncu_source_free(&src);
    free(owned);
    return 0;
}

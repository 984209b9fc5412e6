/* cmd_validate.c - `gpumemsim validate`: simulate captured traces and compare
 * the predictions with the Nsight Compute counters measured for the same
 * kernels, metric by metric, against each metric's tolerance.
 *
 * A CAPTURE is a trace NAME.trace with NAME.ncu.csv beside it, or a folder
 * holding such pairs. Trace launches and ncu launches are paired by launch
 * index (ncu's ID counts profiled launches in program order, the capture tool
 * counts launches the same way) and the pair must name the same function. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cfg.h"
#include "commands.h"
#include "ncu_csv.h"
#include "replay.h"
#include "report.h"
#include "validate.h"
#include "validate_pc.h"
#include "version.h"

static const char validate_usage[] =
    "usage: gpumemsim validate --config FILE CAPTURE... [--format table|csv|markdown]\n"
    "                          [--kernel REGEX] [-o FILE] [--failures-only]\n"
    "                          [--timing [--time-order]] [--per-pc]\n"
    "\n"
    "A CAPTURE is a trace NAME.trace with the Nsight Compute CSV NAME.ncu.csv beside it\n"
    "(ncu --csv --metrics ... output, unedited), or a folder of such pairs. For every\n"
    "kernel launch and every metric present in both: measured, predicted, absolute and\n"
    "relative error, and pass/fail against the metric's tolerance; then a summary per\n"
    "metric. Metrics the model does not predict are listed as skipped.\n"
    "\n"
    "  --format F        table (default), csv (kernel,launch,metric,measured,predicted,\n"
    "                    abs_err,rel_err,tolerance,pass) or markdown (docs/validation.md)\n"
    "  --failures-only   table: show only rows that fail\n"
    "  --timing          also run the timing model (the config's [timing] section) and compare\n"
    "                    sm__cycles_elapsed.avg (tolerance: docs/timing.md) and, where the CSV\n"
    "                    has them, the warp instructions issued (smsp__inst_executed.sum, info)\n"
    "                    and the L2 request coalescer's merged read sectors; prints the\n"
    "                    mean absolute percentage error of the cycles. L2 read sectors are\n"
    "                    then those left after the coalescer, L2 write requests and sectors\n"
    "                    those left after the SMs' write queues\n"
    "  --time-order      with --timing: replay in the timing model's time order (gpumemsim run\n"
    "                    --help)\n"
    "  --per-pc          compare per SASS instruction with Nsight Compute's source view\n"
    "                    (NAME.source.csv beside each trace): executions, L1 tag requests\n"
    "                    and L2 theoretical sectors of global instructions, n-way shared\n"
    "                    conflicts; rows name the PC, the SASS and the source line\n"
    "\n"
    "exit: 0 every metric within tolerance, 1 some metric failed, 2 bad input\n";

typedef enum out_format { OUT_TABLE, OUT_CSV, OUT_MARKDOWN } out_format;

/* One simulated launch, kept until its capture's CSV is compared. */
typedef struct predicted {
    uint32_t launch;
    char *demangled;
    stats s;
    bool has_timing;
    timing_result timing;
} predicted;

typedef struct predicted_list {
    uint32_t n, cap;
    predicted *v;
} predicted_list;

/* Per-metric summary over every launch of every capture. */
typedef struct metric_summary {
    char *name;
    validate_tolerance tol;
    uint32_t launches, failed;
    double max_abs_rel; /* largest |rel_err| over launches with measured != 0 */
    double sum_abs_err, sum_measured;
} metric_summary;

typedef struct validator {
    const cfg_gpu *cfg;
    const char *config_path;
    replay_options ropt;
    out_format fmt;
    bool failures_only;
    bool per_pc;
    bool timing;
    uint32_t cycles_n;        /* --timing: launches whose cycles were compared */
    double cycles_ape_sum;    /* sum of |predicted - measured| / measured over them */
    validate_pc_totals pc;
    FILE *out;
    uint32_t n_sum, cap_sum;
    metric_summary *sum;
    uint32_t rows, failed_rows, launches_compared;
    char **skipped; /* metric names seen in CSVs and not predicted */
    uint32_t n_skipped, cap_skipped;
    char **notes;   /* launches without a partner, refused pairs: shown at the end */
    uint32_t n_notes, cap_notes;
} validator;

static void add_note(validator *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(validator *v, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (v->n_notes == v->cap_notes) {
        v->cap_notes = v->cap_notes ? 2 * v->cap_notes : 16;
        v->notes = xrealloc(v->notes, v->cap_notes * sizeof *v->notes);
    }
    v->notes[v->n_notes++] = xstrdup(buf);
}

static void add_skipped(validator *v, const char *name)
{
    for (uint32_t i = 0; i < v->n_skipped; i++)
        if (strcmp(v->skipped[i], name) == 0)
            return;
    if (v->n_skipped == v->cap_skipped) {
        v->cap_skipped = v->cap_skipped ? 2 * v->cap_skipped : 16;
        v->skipped = xrealloc(v->skipped, v->cap_skipped * sizeof *v->skipped);
    }
    v->skipped[v->n_skipped++] = xstrdup(name);
}

static metric_summary *summary_of(validator *v, const char *name, validate_tolerance tol)
{
    for (uint32_t i = 0; i < v->n_sum; i++)
        if (strcmp(v->sum[i].name, name) == 0)
            return &v->sum[i];
    if (v->n_sum == v->cap_sum) {
        v->cap_sum = v->cap_sum ? 2 * v->cap_sum : 64;
        v->sum = xrealloc(v->sum, v->cap_sum * sizeof *v->sum);
    }
    metric_summary *m = &v->sum[v->n_sum++];
    *m = (metric_summary){.name = xstrdup(name), .tol = tol};
    return m;
}

static int collect(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    predicted_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (predicted){.launch = r->kernel->launch, .demangled = xstrdup(r->kernel->demangled),
                               .s = r->totals, .has_timing = r->timing != NULL,
                               .timing = r->timing ? *r->timing : (timing_result){0}};
    return 0;
}

static void predicted_free(predicted_list *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        free(l->v[i].demangled);
    free(l->v);
}

/* "x.trace" -> "x.ncu.csv" (also for "x.trace.txt"); NULL when path does not end in .trace[.txt]. */
static char *csv_path_of(const char *trace)
{
    size_t n = strlen(trace);
    static const char *const exts[] = {".trace", ".trace.txt"};
    for (size_t i = 0; i < 2; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(trace + n - e, exts[i]) == 0) {
            char *p = xmalloc(n - e + sizeof ".ncu.csv");
            memcpy(p, trace, n - e);
            strcpy(p + n - e, ".ncu.csv");
            return p;
        }
    }
    return NULL;
}

/* "x.trace" -> "x.source.csv" */
static char *source_path_of(const char *trace)
{
    char *csv = csv_path_of(trace); /* x.ncu.csv */
    size_t n = strlen(csv) - strlen(".ncu.csv");
    char *p = xmalloc(n + sizeof ".source.csv");
    memcpy(p, csv, n);
    strcpy(p + n, ".source.csv");
    free(csv);
    return p;
}

static void fmt_num(char *buf, size_t n, double x)
{
    if (isnan(x))
        snprintf(buf, n, "-");
    else if (x == floor(x) && fabs(x) < 1e15)
        snprintf(buf, n, "%.0f", x);
    else
        snprintf(buf, n, "%.4g", x);
}

static void fmt_rel(char *buf, size_t n, double rel)
{
    if (isinf(rel))
        snprintf(buf, n, "%sinf", rel < 0 ? "-" : "");
    else
        snprintf(buf, n, "%+.2f%%", rel * 100.0);
}

static const char *result_word(const validate_row *row)
{
    if (row->tol.kind == VALIDATE_INFO)
        return "info";
    return row->pass ? "pass" : "FAIL";
}

static void emit_row(validator *v, const char *kernel, uint32_t launch, const char *metric,
                     const validate_row *row)
{
    char meas[40], pred[40], abs_e[40], rel[40], tol[16];
    fmt_num(meas, sizeof meas, row->measured);
    fmt_num(pred, sizeof pred, row->predicted);
    fmt_num(abs_e, sizeof abs_e, row->abs_err);
    validate_tolerance_text(row->tol, tol, sizeof tol);
    if (v->fmt == OUT_CSV) {
        report_csv_field(v->out, kernel);
        if (isinf(row->rel_err))
            snprintf(rel, sizeof rel, "%sinf", row->rel_err < 0 ? "-" : "");
        else
            snprintf(rel, sizeof rel, "%.6f", row->rel_err);
        fprintf(v->out, ",%u,%s,%s,%s,%s,%s,%s,%s\n", launch, metric, meas, pred, abs_e, rel, tol,
                result_word(row));
    } else if (v->fmt == OUT_TABLE) {
        if (v->failures_only && row->pass)
            return;
        fmt_rel(rel, sizeof rel, row->rel_err);
        fprintf(v->out, "  %-62s %14s %14s %10s %9s %6s %s\n", metric, meas, pred, abs_e, rel, tol,
                result_word(row));
    }
}

/* Whether ncu's count m is compared as its metric's rule says: not a
 * _pred_on_any instruction count where warps ran the class all-off
 * (validate_pred_on_any_trusted). */
static bool pred_on_any_trusted(const ncu_launch *l, const ncu_metric *m)
{
    char plain[256];
    if (!validate_pred_on_any_plain(m->name, plain, sizeof plain))
        return true;
    const ncu_metric *all = ncu_launch_metric(l, plain);
    return validate_pred_on_any_trusted(m->value, all && all->kind == NCU_VALUE_NUMBER ? all->value : (double)NAN);
}

/* A measured value of launch ctx, NAN when not measured. */
static double launch_value(const void *ctx, const char *name)
{
    const ncu_metric *m = ncu_launch_metric(ctx, name);
    return m && m->kind == NCU_VALUE_NUMBER ? m->value : (double)NAN;
}

/* Compare one simulated launch with its ncu launch. */
static void compare_launch(validator *v, const char *capture, const predicted *p, const ncu_launch *l)
{
    if (v->fmt == OUT_TABLE && !v->failures_only)
        fprintf(v->out, "\n== %s: launch %u: %s\n  %-62s %14s %14s %10s %9s %6s %s\n", capture, p->launch,
                p->demangled, "metric", "measured", "predicted", "abs err", "rel err", "tol", "result");
    else if (v->fmt == OUT_TABLE)
        fprintf(v->out, "\n== %s: launch %u: %s (failures only)\n", capture, p->launch, p->demangled);
    v->launches_compared++;
    for (uint32_t i = 0; i < l->n; i++) {
        const ncu_metric *m = &l->metrics[i];
        double pred;
        if (p->has_timing && validate_timing_predicted(m->name, &p->timing, &pred) == 0) {
            if (m->kind != NCU_VALUE_NUMBER)
                continue;
            validate_row row;
            validate_tolerance tol = validate_timing_tolerance_of(m->name);
            validate_compare(m->value, pred, tol, &row);
            emit_row(v, p->demangled, p->launch, m->name, &row);
            metric_summary *s = summary_of(v, m->name, tol);
            s->launches++;
            s->failed += !row.pass;
            if (row.measured != 0 && fabs(row.rel_err) > s->max_abs_rel)
                s->max_abs_rel = fabs(row.rel_err);
            s->sum_abs_err += fabs(row.abs_err);
            s->sum_measured += fabs(row.measured);
            v->rows++;
            v->failed_rows += !row.pass;
            if (strcmp(m->name, "sm__cycles_elapsed.avg") == 0 && row.measured > 0) {
                v->cycles_n++;
                v->cycles_ape_sum += fabs(row.rel_err);
            }
            continue;
        }
        if (validate_predicted(m->name, &p->s, &pred) != 0) {
            add_skipped(v, m->name);
            continue;
        }
        if (m->kind != NCU_VALUE_NUMBER)
            continue; /* measured absent ("n/a"): nothing to compare */
        validate_row row;
        validate_tolerance tol = validate_tolerance_of(m->name);
        metric_summary *s = summary_of(v, m->name, tol);
        if (!pred_on_any_trusted(l, m) ||
            !validate_smem_counter_trusted(m->name, m->value, launch_value, l))
            tol = (validate_tolerance){VALIDATE_INFO, 0, 0};
        validate_compare(m->value, pred, tol, &row);
        emit_row(v, p->demangled, p->launch, m->name, &row);
        s->launches++;
        s->failed += !row.pass;
        if (row.measured != 0 && fabs(row.rel_err) > s->max_abs_rel)
            s->max_abs_rel = fabs(row.rel_err);
        if (row.measured == 0 && row.predicted != 0)
            s->max_abs_rel = INFINITY;
        s->sum_abs_err += fabs(row.abs_err);
        s->sum_measured += fabs(row.measured);
        v->rows++;
        v->failed_rows += !row.pass;
    }
}

/* Refuse a CSV measured on another GPU than the config describes. */
static int check_same_gpu(const validator *v, const char *csv, const ncu_report *rep, err_info *err)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%u.%u", v->cfg->cc_major, v->cfg->cc_minor);
    for (uint32_t i = 0; i < rep->n; i++) {
        const ncu_launch *l = &rep->launches[i];
        if (l->cc && l->cc[0] && strcmp(l->cc, cc) != 0) {
            err_set(err, "%s: measured on a GPU of compute capability %s, but %s describes %s (%s, cc %s)", csv,
                    l->cc, v->config_path, v->cfg->name, v->cfg->chip, cc);
            return -1;
        }
        const ncu_metric *name = ncu_launch_metric(l, "device__attribute_display_name");
        if (name && name->text && strcmp(name->text, v->cfg->name) != 0) {
            err_set(err, "%s: measured on %s, but %s describes %s", csv, name->text, v->config_path, v->cfg->name);
            return -1;
        }
    }
    return 0;
}

static int validate_capture(validator *v, const char *trace, err_info *err)
{
    char *csv = csv_path_of(trace);
    if (!csv) {
        err_set(err, "%s: a capture is a trace named NAME.trace (or NAME.trace.txt) with NAME.ncu.csv beside it",
                trace);
        return -1;
    }
    ncu_report rep;
    if (ncu_report_read(csv, &rep, err) != 0) {
        free(csv);
        return -1;
    }
    int rc = check_same_gpu(v, csv, &rep, err);
    predicted_list pl = {0};
    if (rc == 0)
        rc = replay_trace(trace, v->cfg, &v->ropt, collect, &pl, err);
    for (uint32_t i = 0; rc == 0 && i < pl.n; i++) {
        const predicted *p = &pl.v[i];
        const ncu_launch *l = NULL;
        for (uint32_t j = 0; j < rep.n && !l; j++)
            if (rep.launches[j].id == p->launch)
                l = &rep.launches[j];
        if (!l) {
            add_note(v, "%s: launch %u (%s) was not profiled by ncu", trace, p->launch, p->demangled);
            continue;
        }
        char a[256], b[256];
        validate_base_name(p->demangled, a, sizeof a);
        validate_base_name(l->kernel, b, sizeof b);
        if (strcmp(a, b) != 0) {
            err_set(err, "%s: launch %u is %s in the trace but %s in %s: the capture and the CSV are not of the same "
                    "run", trace, p->launch, a, b, csv);
            rc = -1;
            break;
        }
        compare_launch(v, trace, p, l);
    }
    for (uint32_t j = 0; rc == 0 && j < rep.n; j++) {
        bool found = false;
        for (uint32_t i = 0; i < pl.n && !found; i++)
            found = pl.v[i].launch == rep.launches[j].id;
        if (!found && !v->ropt.kernel_regex)
            add_note(v, "%s: ncu launch %u (%s) is not in the trace", csv, rep.launches[j].id, rep.launches[j].kernel);
    }
    for (uint32_t k = 0; k < rep.n_notes; k++)
        add_note(v, "%s", rep.notes[k]);
    predicted_free(&pl);
    ncu_report_free(&rep);
    free(csv);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expand a folder into its NAME.trace files that have NAME.ncu.csv beside them, sorted. */
static int expand_capture(const char *arg, char ***list, uint32_t *n, uint32_t *cap, err_info *err)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        err_set(err, "%s: no such file or folder", arg);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *list = xrealloc(*list, *cap * sizeof **list);
        }
        (*list)[(*n)++] = xstrdup(arg);
        return 0;
    }
    DIR *d = opendir(arg);
    if (!d) {
        err_set(err, "%s: cannot read the folder", arg);
        return -1;
    }
    uint32_t first = *n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 6 || strcmp(e->d_name + len - 6, ".trace") != 0)
            continue;
        char *path = xmalloc(strlen(arg) + len + 2);
        sprintf(path, "%s/%s", arg, e->d_name);
        char *csv = csv_path_of(path);
        bool paired = csv && stat(csv, &st) == 0;
        free(csv);
        if (!paired) {
            free(path);
            continue;
        }
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *list = xrealloc(*list, *cap * sizeof **list);
        }
        (*list)[(*n)++] = path;
    }
    closedir(d);
    if (*n == first) {
        err_set(err, "%s: no NAME.trace with NAME.ncu.csv beside it in this folder", arg);
        return -1;
    }
    qsort(*list + first, *n - first, sizeof **list, by_name);
    return 0;
}

static void emit_summary(validator *v)
{
    char tol[16], maxrel[40], agg[40];
    if (v->fmt == OUT_CSV)
        return;
    if (v->fmt == OUT_MARKDOWN)
        fputs("| metric | tolerance | launches | failed | max \\|rel err\\| | aggregate error |\n"
              "|---|---|---:|---:|---:|---:|\n", v->out);
    else
        fprintf(v->out, "\n== summary per metric over %u launches\n  %-62s %6s %8s %6s %12s %10s\n",
                v->launches_compared, "metric", "tol", "launches", "failed", "max|rel|", "aggregate");
    for (uint32_t i = 0; i < v->n_sum; i++) {
        const metric_summary *s = &v->sum[i];
        validate_tolerance_text(s->tol, tol, sizeof tol);
        if (isinf(s->max_abs_rel))
            snprintf(maxrel, sizeof maxrel, "inf");
        else
            snprintf(maxrel, sizeof maxrel, "%.2f%%", s->max_abs_rel * 100.0);
        if (s->sum_measured > 0)
            snprintf(agg, sizeof agg, "%.2f%%", 100.0 * s->sum_abs_err / s->sum_measured);
        else
            snprintf(agg, sizeof agg, s->sum_abs_err == 0 ? "0.00%%" : "inf");
        if (v->fmt == OUT_MARKDOWN)
            fprintf(v->out, "| `%s` | %s | %u | %u | %s | %s |\n", s->name, tol, s->launches, s->failed, maxrel, agg);
        else
            fprintf(v->out, "  %-62s %6s %8u %6u %12s %10s\n", s->name, tol, s->launches, s->failed, maxrel, agg);
    }
    if (v->n_skipped) {
        qsort(v->skipped, v->n_skipped, sizeof *v->skipped, by_name);
        fprintf(v->out, v->fmt == OUT_MARKDOWN ? "\nSkipped (measured, not predicted by the model):" :
                                                 "\nskipped (measured, not predicted by the model):");
        for (uint32_t i = 0; i < v->n_skipped; i++)
            fprintf(v->out, v->fmt == OUT_MARKDOWN ? " `%s`%s" : " %s%s", v->skipped[i],
                    i + 1 < v->n_skipped ? "," : "\n");
    }
    for (uint32_t i = 0; i < v->n_notes; i++)
        fprintf(v->out, "%snote: %s\n", v->fmt == OUT_MARKDOWN ? "\n" : "", v->notes[i]);
    if (v->timing && v->cycles_n)
        fprintf(v->out, "%ssm__cycles_elapsed.avg: mean absolute percentage error %.2f%% over %u launches\n",
                v->fmt == OUT_MARKDOWN ? "\n" : "\n", 100.0 * v->cycles_ape_sum / v->cycles_n, v->cycles_n);
    fprintf(v->out, "%s%u of %u compared values within tolerance; %u failed\n", v->fmt == OUT_MARKDOWN ? "\n" : "\n",
            v->rows - v->failed_rows, v->rows, v->failed_rows);
}

static void validator_free(validator *v)
{
    for (uint32_t i = 0; i < v->n_sum; i++)
        free(v->sum[i].name);
    free(v->sum);
    for (uint32_t i = 0; i < v->n_skipped; i++)
        free(v->skipped[i]);
    free(v->skipped);
    for (uint32_t i = 0; i < v->n_notes; i++)
        free(v->notes[i]);
    free(v->notes);
}

static int validate_with(int argc, char **argv, char ***captures, uint32_t *n_caps, uint32_t *cap_caps)
{
    const char *config_path = NULL, *out_path = NULL;
    validator v = {.ropt = {.progress = true}, .fmt = OUT_TABLE};
    err_info err = {{0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(validate_usage, stdout);
            return 0;
        } else if (strcmp(a, "--config") == 0) {
            if (!(config_path = val))
                return cmd_fail("validate: --config needs a file");
            i++;
        } else if (strcmp(a, "--kernel") == 0) {
            if (!(v.ropt.kernel_regex = val))
                return cmd_fail("validate: --kernel needs a regular expression");
            i++;
        } else if (strcmp(a, "-o") == 0) {
            if (!(out_path = val))
                return cmd_fail("validate: -o needs a file");
            i++;
        } else if (strcmp(a, "--format") == 0) {
            if (val && strcmp(val, "table") == 0)
                v.fmt = OUT_TABLE;
            else if (val && strcmp(val, "csv") == 0)
                v.fmt = OUT_CSV;
            else if (val && strcmp(val, "markdown") == 0)
                v.fmt = OUT_MARKDOWN;
            else
                return cmd_fail("validate: --format expects table, csv or markdown%s%s", val ? ", got " : "",
                                val ? val : "");
            i++;
        } else if (strcmp(a, "--failures-only") == 0) {
            v.failures_only = true;
        } else if (strcmp(a, "--per-pc") == 0) {
            v.per_pc = true;
        } else if (strcmp(a, "--timing") == 0) {
            v.timing = true;
            v.ropt.timing = true;
        } else if (strcmp(a, "--time-order") == 0) {
            v.ropt.time_order = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cmd_fail("validate: unknown option '%s' (see gpumemsim validate --help)", a);
        } else if (expand_capture(a, captures, n_caps, cap_caps, &err) != 0) {
            return cmd_fail("validate: %s", err.msg);
        }
    }
    if (!config_path)
        return cmd_fail("validate: --config FILE is required (see gpumemsim validate --help)");
    if (*n_caps == 0)
        return cmd_fail("validate: no capture given (see gpumemsim validate --help)");
    cfg_gpu cfg;
    if (cfg_load(config_path, &cfg, &err) != 0)
        return cmd_fail("%s", err.msg);
    if (v.timing && !cfg.timing)
        return cmd_fail("validate: --timing: %s has no [timing] section (the timing model's constants, "
                        "docs/timing.md)", config_path);
    if (v.timing && v.per_pc)
        return cmd_fail("validate: --timing and --per-pc do not go together");
    v.cfg = &cfg;
    v.config_path = config_path;
    v.out = stdout;
    if (replay_options_check(&v.ropt, &err) != 0)
        return cmd_fail("validate: %s", err.msg);
    if (!(v.out = cmd_open_output(out_path)))
        return cmd_fail("validate: cannot create %s: %s", out_path, strerror(errno));

    if (v.fmt == OUT_CSV)
        fputs("kernel,launch,metric,measured,predicted,abs_err,rel_err,tolerance,pass\n", v.out);
    else if (v.fmt == OUT_TABLE) {
        fprintf(v.out, "# gpumemsim %s validate\n# config: %s\n", GMS_VERSION, config_path);
        cfg_dump(&cfg, v.out, "# ");
        if (v.timing)
            cfg_dump_timing(&cfg, v.out, "# ");
    }
    int rc = 0;
    for (uint32_t i = 0; i < *n_caps && rc == 0; i++) {
        if (v.per_pc) {
            char *src = source_path_of((*captures)[i]);
            if (validate_pc_capture((*captures)[i], src, &cfg, &v.ropt, v.out, v.failures_only, &v.pc, &err) != 0)
                rc = 2;
            free(src);
        } else if (validate_capture(&v, (*captures)[i], &err) != 0) {
            rc = 2;
        }
    }
    if (rc == 0 && v.per_pc) {
        fprintf(v.out, "\n%u of %u values within tolerance over %u SASS instructions; %u failed\n",
                v.pc.values - v.pc.failed, v.pc.values, v.pc.instructions, v.pc.failed);
        rc = v.pc.failed ? 1 : 0;
    } else if (rc == 0) {
        emit_summary(&v);
        rc = v.failed_rows ? 1 : 0;
    } else {
        /* never leave a partial report that reads as complete, in any format
         * (run's CSV ends the same way) */
        fprintf(v.out, "%s# ERROR: validation incomplete: %s\n", v.fmt == OUT_CSV ? "" : "\n", err.msg);
        cmd_fail("%s", err.msg);
    }
    validator_free(&v);
    bool to_stdout = v.out == stdout;
    if (cmd_close_output(v.out) != 0)
        return cmd_fail("validate: writing %s failed", to_stdout ? "standard output" : out_path);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    char **captures = NULL;
    uint32_t n = 0, cap = 0;
    int rc = validate_with(argc, argv, &captures, &n, &cap);
    for (uint32_t i = 0; i < n; i++)
        free(captures[i]);
    free(captures);
    return rc;
}

/* report.c - table, CSV and JSON output of per-kernel and total counters. */
#include "report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

struct report {
    FILE *out;
    report_format fmt;
    const cfg_gpu *cfg;
    stats total;
    uint32_t kernels;
    bool timing;              /* --timing: the cycle model's rows too */
    timing_result timing_total;
};

/* The timing model's values (timing.h), under the names they are compared with. */
enum { TIMING_ROWS = 6 };
static const char *const timing_names[TIMING_ROWS] = {
    "sm__cycles_elapsed.avg",
    "sm__cycles_active.avg",
    "sm__warps_active.sum",
    "smsp__inst_executed.sum",
    "gpumemsim__lrc_input_sectors_op_read.sum",
    "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum",
};

static uint64_t timing_value(const timing_result *t, int i)
{
    switch (i) {
    case 0: return t->cycles;
    case 1: return t->sm_cycles_active;
    case 2: return t->warp_cycles;
    case 3: return t->instructions;
    case 4: return t->lrc_input_sectors;
    default: return t->lrc.sectors;
    }
}

int report_format_parse(const char *s, report_format *out)
{
    static const char *const names[REPORT_FORMAT_COUNT] = {"table", "csv", "json"};
    for (int i = 0; i < REPORT_FORMAT_COUNT; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (report_format)i;
            return 0;
        }
    return -1;
}

void report_thousands(char *buf, size_t n, uint64_t v)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 1 < n)
            buf[o++] = ',';
        if (o + 1 < n)
            buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

void report_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void report_csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static void write_config_comments(report *rp, const char *command, const char *config_path)
{
    fprintf(rp->out, "# gpumemsim %s %s\n# config: %s\n", GMS_VERSION, command, config_path);
    cfg_dump(rp->cfg, rp->out, "# ");
    if (rp->timing)
        cfg_dump_timing(rp->cfg, rp->out, "# ");
}

static void write_config_json(report *rp, const char *command, const char *config_path)
{
    fprintf(rp->out, "{\n  \"gpumemsim\": ");
    report_json_string(rp->out, GMS_VERSION);
    fprintf(rp->out, ",\n  \"command\": ");
    report_json_string(rp->out, command);
    fprintf(rp->out, ",\n  \"config_file\": ");
    report_json_string(rp->out, config_path);
    fprintf(rp->out, ",\n  \"config\": {");
    char value[512];
    for (size_t i = 0; i < cfg_key_count(); i++) {
        if (cfg_key_is_timing(i) && !rp->timing)
            continue;
        cfg_key_value(rp->cfg, i, value, sizeof value);
        fprintf(rp->out, "%s\n    ", i ? "," : "");
        report_json_string(rp->out, cfg_key_name(i));
        fputs(": ", rp->out);
        report_json_string(rp->out, value);
    }
    fprintf(rp->out, "\n  },\n  \"kernels\": [");
}

static report *open_report(FILE *out, report_format fmt, const char *command, const char *config_path,
                           const cfg_gpu *cfg, bool with_timing)
{
    report *rp = xcalloc(1, sizeof *rp);
    rp->timing = with_timing;
    rp->out = out;
    rp->fmt = fmt;
    rp->cfg = cfg;
    switch (fmt) {
    case REPORT_TABLE:
        write_config_comments(rp, command, config_path);
        break;
    case REPORT_CSV:
        write_config_comments(rp, command, config_path);
        fputs("kernel,launch,metric,value\n", out);
        break;
    case REPORT_JSON:
        write_config_json(rp, command, config_path);
        break;
    case REPORT_FORMAT_COUNT:
        break;
    }
    return rp;
}

report *report_open(FILE *out, report_format fmt, const char *command, const char *config_path,
                    const cfg_gpu *cfg)
{
    return open_report(out, fmt, command, config_path, cfg, false);
}

report *report_open_timing(FILE *out, report_format fmt, const char *command, const char *config_path,
                           const cfg_gpu *cfg)
{
    return open_report(out, fmt, command, config_path, cfg, true);
}

static void table_timing(FILE *f, const timing_result *t)
{
    char num[40];
    fputs("  -- timing model (docs/timing.md)\n", f);
    for (int i = 0; i < TIMING_ROWS; i++) {
        report_thousands(num, sizeof num, timing_value(t, i));
        fprintf(f, "  %-66s %18s\n", timing_names[i], num);
    }
}

static void csv_timing(FILE *f, const char *kernel, const char *launch, const timing_result *t)
{
    for (int i = 0; i < TIMING_ROWS; i++) {
        report_csv_field(f, kernel);
        fprintf(f, ",%s,%s,%" PRIu64 "\n", launch, timing_names[i], timing_value(t, i));
    }
}

static void json_timing(FILE *f, const timing_result *t, const char *indent)
{
    fprintf(f, ",\n%s\"timing\": {", indent);
    for (int i = 0; i < TIMING_ROWS; i++) {
        fprintf(f, "%s", i ? ", " : "");
        report_json_string(f, timing_names[i]);
        fprintf(f, ": %" PRIu64, timing_value(t, i));
    }
    fputs("}", f);
}

/* ---- table ------------------------------------------------------------------ */

static void table_metrics(FILE *f, const stats *s)
{
    char num[40];
    bool any = false;
    for (int i = 0; i < STAT_COUNT; i++) {
        if (s->v[i] == 0)
            continue;
        report_thousands(num, sizeof num, s->v[i]);
        fprintf(f, "  %-66s %18s\n", stat_name((stat_id)i), num);
        any = true;
    }
    for (int i = 0; i < STAT_RATIO_COUNT; i++) {
        double v;
        if (stat_ratio_value(&stat_ratios[i], s, &v) == 0)
            fprintf(f, "  %-66s %18.2f\n", stat_ratios[i].name, v);
    }
    if (!any)
        fputs("  (no memory instructions)\n", f);
}

static void table_kernel(report *rp, const replay_kernel_result *r)
{
    const trace_kernel *k = r->kernel;
    fprintf(rp->out, "\n== %s: launch %u: %s\n", r->trace_path, k->launch, k->demangled);
    fprintf(rp->out,
            "   grid %ux%ux%u, block %ux%ux%u; %u CTAs/SM, shared carveout %u KiB, L1 %u KiB, CTAs on %s"
            " (zero counters omitted)\n",
            k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], r->info.ctas_per_sm,
            r->info.carveout_kib, r->info.l1_kib, r->info.trace_sms ? "the SMs the trace recorded" : "SMs round-robin");
    table_metrics(rp->out, &r->totals);
    if (r->timing)
        table_timing(rp->out, r->timing);
}

/* ---- csv ----------------------------------------------------------------------- */

static void csv_rows(report *rp, const char *kernel, const char *launch, const stats *s)
{
    for (int i = 0; i < STAT_COUNT; i++) {
        report_csv_field(rp->out, kernel);
        fprintf(rp->out, ",%s,%s,%" PRIu64 "\n", launch, stat_name((stat_id)i), s->v[i]);
    }
    for (int i = 0; i < STAT_RATIO_COUNT; i++) {
        double v;
        if (stat_ratio_value(&stat_ratios[i], s, &v) != 0)
            continue;
        report_csv_field(rp->out, kernel);
        fprintf(rp->out, ",%s,%s,%.4f\n", launch, stat_ratios[i].name, v);
    }
}

/* ---- json ----------------------------------------------------------------------- */

static void json_metrics(FILE *f, const stats *s, const char *indent)
{
    fputs("{", f);
    for (int i = 0; i < STAT_COUNT; i++) {
        fprintf(f, "%s\n%s  ", i ? "," : "", indent);
        report_json_string(f, stat_name((stat_id)i));
        fprintf(f, ": %" PRIu64, s->v[i]);
    }
    for (int i = 0; i < STAT_RATIO_COUNT; i++) {
        double v;
        if (stat_ratio_value(&stat_ratios[i], s, &v) != 0)
            continue;
        fprintf(f, ",\n%s  ", indent);
        report_json_string(f, stat_ratios[i].name);
        fprintf(f, ": %.4f", v);
    }
    fprintf(f, "\n%s}", indent);
}

static void json_kernel(report *rp, const replay_kernel_result *r)
{
    const trace_kernel *k = r->kernel;
    FILE *f = rp->out;
    fprintf(f, "%s\n    {\"trace\": ", rp->kernels ? "," : "");
    report_json_string(f, r->trace_path);
    fprintf(f, ", \"launch\": %u, \"name\": ", k->launch);
    report_json_string(f, k->name);
    fputs(", \"demangled\": ", f);
    report_json_string(f, k->demangled);
    fprintf(f, ",\n     \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", k->grid[0], k->grid[1], k->grid[2],
            k->block[0], k->block[1], k->block[2]);
    fprintf(f, "     \"ctas_per_sm\": %u, \"carveout_kib\": %u, \"l1_kib\": %u, \"trace_sms\": %s,\n",
            r->info.ctas_per_sm, r->info.carveout_kib, r->info.l1_kib, r->info.trace_sms ? "true" : "false");
    fputs("     \"metrics\": ", f);
    json_metrics(f, &r->totals, "     ");
    if (r->timing)
        json_timing(f, r->timing, "     ");
    fputs("}", f);
}

void report_kernel(report *rp, const replay_kernel_result *r)
{
    switch (rp->fmt) {
    case REPORT_TABLE:
        table_kernel(rp, r);
        break;
    case REPORT_CSV: {
        char launch[16];
        snprintf(launch, sizeof launch, "%u", r->kernel->launch);
        csv_rows(rp, r->kernel->demangled, launch, &r->totals);
        if (r->timing)
            csv_timing(rp->out, r->kernel->demangled, launch, r->timing);
        break;
    }
    case REPORT_JSON:
        json_kernel(rp, r);
        break;
    case REPORT_FORMAT_COUNT:
        break;
    }
    stats_add(&rp->total, &r->totals);
    if (r->timing) {
        rp->timing_total.cycles += r->timing->cycles;
        rp->timing_total.sm_cycles_active += r->timing->sm_cycles_active;
        rp->timing_total.warp_cycles += r->timing->warp_cycles;
        rp->timing_total.instructions += r->timing->instructions;
        rp->timing_total.lrc_input_sectors += r->timing->lrc_input_sectors;
        rp->timing_total.lrc.sectors += r->timing->lrc.sectors;
    }
    rp->kernels++;
}

void report_close(report *rp)
{
    switch (rp->fmt) {
    case REPORT_TABLE:
        fprintf(rp->out, "\n== total over %u kernel launch%s\n", rp->kernels, rp->kernels == 1 ? "" : "es");
        table_metrics(rp->out, &rp->total);
        if (rp->timing) /* cycles: the launches' sum, as if run one after another */
            table_timing(rp->out, &rp->timing_total);
        break;
    case REPORT_CSV:
        csv_rows(rp, "total", "", &rp->total);
        if (rp->timing)
            csv_timing(rp->out, "total", "", &rp->timing_total);
        break;
    case REPORT_JSON:
        fprintf(rp->out, "\n  ],\n  \"total\": {\"launches\": %u, \"metrics\": ", rp->kernels);
        json_metrics(rp->out, &rp->total, "  ");
        if (rp->timing)
            json_timing(rp->out, &rp->timing_total, "  ");
        fputs("}\n}\n", rp->out);
        break;
    case REPORT_FORMAT_COUNT:
        break;
    }
    free(rp);
}

void report_abort(report *rp, const char *why)
{
    if (rp->fmt == REPORT_JSON) {
        fputs("\n  ],\n  \"error\": ", rp->out);
        report_json_string(rp->out, why);
        fputs("\n}\n", rp->out);
    } else {
        fprintf(rp->out, "\n# ERROR: report incomplete: %s\n", why);
    }
    free(rp);
}

/* cmd_run.c - `gpumemsim run`: simulate traces with a GPU config and report
 * the Nsight Compute counters per kernel launch and in total. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "cfg.h"
#include "commands.h"
#include "replay.h"
#include "report.h"

static const char run_usage[] =
    "usage: gpumemsim run --config FILE TRACE... [--kernel REGEX] [--format table|csv|json]\n"
    "                     [-o FILE] [--allow-incomplete]\n"
    "                     [--timing [--time-order] [--timeline FILE]]\n"
    "\n"
    "Simulate each TRACE (binary or text form; '-' reads standard input) on the GPU that\n"
    "FILE describes, and print per kernel launch and in total the counters Nsight Compute\n"
    "would report, under its metric names. The report starts with the effective config.\n"
    "\n"
    "  --config FILE       GPU config (configs/*.ini)\n"
    "  --kernel REGEX      simulate only launches whose (demangled or mangled) name matches\n"
    "                      this POSIX extended regular expression\n"
    "  --format F          table (default), csv (kernel,launch,metric,value) or json\n"
    "  -o FILE             write the report to FILE instead of standard output (- : stdout)\n"
    "  --allow-incomplete  read traces whose capture did not complete (with a warning)\n"
    "  --timing            also predict each launch's cycles (sm__cycles_elapsed.avg) with the\n"
    "                      timing model (the config's [timing] section, docs/timing.md) and the\n"
    "                      warp instructions it issued (smsp__inst_executed.sum); the\n"
    "                      L2 read sectors become those left after the L2 request coalescer,\n"
    "                      the L2 write requests and sectors those left after the SMs' write\n"
    "                      queues (both merge by time; without --timing nothing merges)\n"
    "  --time-order        with --timing: replay each kernel's records in the timing model's\n"
    "                      time order (the warp that would issue soonest first, over 64 Ki\n"
    "                      records read ahead) instead of the trace's; a research option\n"
    "                      (docs/timing.md, \"Replay in time order\")\n"
    "  --timeline FILE     with --timing and one TRACE: write a CSV line per memory record to\n"
    "                      FILE as the model times it: launch,cta,warp,sm,pc,op,issue,done (cycles\n"
    "                      from the first CTA's dispatch; docs/timing.md, \"The record timeline\")\n";

static int report_one(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    report_kernel(ctx, r);
    return 0;
}

/* Fetch the value of option argv[*i]; fails when it is the last argument. */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

/* The command, with traces[] sized for every argument. */
static int run_with(int argc, char **argv, const char **traces)
{
    const char *config_path = NULL, *out_path = NULL, *timeline_path = NULL;
    replay_options opt = {.progress = true};
    report_format fmt = REPORT_TABLE;
    int n_traces = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(run_usage, stdout);
            return 0;
        } else if (strcmp(a, "--config") == 0) {
            if (!(config_path = option_value(argc, argv, &i)))
                return cmd_fail("run: --config needs a file");
        } else if (strcmp(a, "--kernel") == 0) {
            if (!(opt.kernel_regex = option_value(argc, argv, &i)))
                return cmd_fail("run: --kernel needs a regular expression");
        } else if (strcmp(a, "--format") == 0) {
            const char *f = option_value(argc, argv, &i);
            if (!f || report_format_parse(f, &fmt) != 0)
                return cmd_fail("run: --format expects table, csv or json%s%s", f ? ", got " : "", f ? f : "");
        } else if (strcmp(a, "-o") == 0) {
            if (!(out_path = option_value(argc, argv, &i)))
                return cmd_fail("run: -o needs a file");
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            opt.allow_incomplete = true;
        } else if (strcmp(a, "--timing") == 0) {
            opt.timing = true;
        } else if (strcmp(a, "--time-order") == 0) {
            opt.time_order = true;
        } else if (strcmp(a, "--timeline") == 0) {
            if (!(timeline_path = option_value(argc, argv, &i)))
                return cmd_fail("run: --timeline needs a file");
        } else if (a[0] == '-' && a[1] != '\0') {
            return cmd_fail("run: unknown option '%s' (see gpumemsim run --help)", a);
        } else {
            traces[n_traces++] = a;
        }
    }
    if (!config_path)
        return cmd_fail("run: --config FILE is required (see gpumemsim run --help)");
    if (n_traces == 0)
        return cmd_fail("run: no trace given (see gpumemsim run --help)");

    err_info err = {{0}};
    cfg_gpu cfg;
    if (cfg_load(config_path, &cfg, &err) != 0)
        return cmd_fail("%s", err.msg);

    if (opt.timing && !cfg.timing)
        return cmd_fail("run: --timing: %s has no [timing] section (the timing model's constants, docs/timing.md)",
                        config_path);
    if (timeline_path && !opt.timing)
        return cmd_fail("run: --timeline writes the timing model's cycles: it needs --timing");
    if (timeline_path && n_traces > 1) /* launch numbers restart in each trace: its lines would be ambiguous */
        return cmd_fail("run: --timeline takes one trace, got %d", n_traces);
    if (replay_options_check(&opt, &err) != 0)
        return cmd_fail("run: %s", err.msg);
    bool out_is_stdout = !out_path || strcmp(out_path, "-") == 0;
    if (timeline_path && strcmp(timeline_path, "-") == 0 && out_is_stdout)
        return cmd_fail("run: --timeline - and the report would both go to standard output; give -o FILE");
    if (timeline_path && !(opt.timeline = cmd_open_output(timeline_path)))
        return cmd_fail("run: cannot create %s: %s", timeline_path, strerror(errno));
    FILE *out = cmd_open_output(out_path);
    if (!out) {
        if (opt.timeline && opt.timeline != stdout)
            fclose(opt.timeline);
        return cmd_fail("run: cannot create %s: %s", out_path, strerror(errno));
    }

    report *rp = opt.timing ? report_open_timing(out, fmt, "run", config_path, &cfg)
                            : report_open(out, fmt, "run", config_path, &cfg);
    int rc = 0;
    for (int t = 0; t < n_traces && rc == 0; t++)
        if (replay_trace(traces[t], &cfg, &opt, report_one, rp, &err) != 0)
            rc = 2;
    if (rc == 0) {
        report_close(rp);
    } else {
        /* never present a partial report as complete: say so in the output too */
        report_abort(rp, err.msg);
        cmd_fail("%s", err.msg);
    }
    if (opt.timeline && cmd_close_output(opt.timeline) != 0 && rc == 0)
        rc = cmd_fail("run: writing %s failed", timeline_path);
    if (cmd_close_output(out) != 0 && rc == 0)
        return cmd_fail("run: writing %s failed", out_is_stdout ? "standard output" : out_path);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    const char **traces = xcalloc((size_t)argc + 1, sizeof *traces);
    int rc = run_with(argc, argv, traces);
    free(traces);
    return rc;
}

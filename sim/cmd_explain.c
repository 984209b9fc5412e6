/* cmd_explain.c - `gpumemsim explain`: what each memory instruction of a trace
 * costs and why, for people who are learning coalescing and bank conflicts
 * and for tools.
 *
 * This file reads the command line, replays the trace once for the per-PC
 * counts of the selected launches (sim/replay.h), and picks the instructions
 * of --pc / --line. The views are elsewhere: explain_source.c (default: the
 * columns of Nsight Compute's source view per line and per instruction) and
 * explain_lanes.c (--lanes: one execution lane by lane, and why),
 * explain_html.c (--format html: both on one page); explain_int.h is what
 * they share. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfg.h"
#include "commands.h"
#include "replay.h"
#include "explain_int.h"
#include "report.h"

static const char explain_usage[] =
    "usage: gpumemsim explain --config FILE TRACE [--kernel REGEX] [--launch N]\n"
    "                         [--pc 0xPC | --line FILE:LINE] [--lanes] [--warp CTA:WARP]\n"
    "                         [--format table|csv|json] [-o FILE] [--allow-incomplete]\n"
    "       gpumemsim explain --config FILE TRACE --format html -o FILE.html [--source-dir DIR]\n"
    "                         [--max-lanes-views N] [the selections above]\n"
    "       gpumemsim explain --config FILE TRACE --timing [--source-csv FILE] [--kernel REGEX]\n"
    "                         [--launch N] [--format table|csv] [-o FILE]\n"
    "\n"
    "Show what each memory instruction of TRACE costs on the GPU that FILE describes, and why.\n"
    "\n"
    "Default: per source line (summed over its memory instructions) and per SASS instruction,\n"
    "the columns of Nsight Compute's source view (ncu --page source) under ncu's names, so\n"
    "the two sit side by side; then per instruction the model's cache counters (L1, L2,\n"
    "DRAM), which ncu reports per kernel only, with their metric names.\n"
    "\n"
    "With --lanes: one execution of the instruction (the first in capture order, or the\n"
    "one of --warp), lane by lane: address, 128-B line and 32-B sector (global, local);\n"
    "bank, bank entry, phase and wavefront (shared memory, and the L1 data stage of global\n"
    "loads); and why it costs what it costs.\n"
    "\n"
    "With --timing: where the warps wait, per SASS instruction: the share of the warps' cycles\n"
    "the timing model spends with each instruction next to issue, beside the share of Nsight\n"
    "Compute's warp state samples taken at it (the source view NAME.source.csv next to\n"
    "NAME.trace, as captures leave it, or --source-csv FILE), and ncu's top stall reasons.\n"
    "\n"
    "  --config FILE       GPU config (configs/*.ini)\n"
    "  --kernel REGEX      only launches whose (demangled or mangled) name matches this\n"
    "                      POSIX extended regular expression\n"
    "  --launch N          only launch N (numbered as `gpumemsim trace info` shows them)\n"
    "  --pc 0xPC           only the instruction at this byte offset from the kernel entry\n"
    "  --line FILE:LINE    only the memory instructions of this source line; FILE is the\n"
    "                      recorded path or its last components (readSegment.cu:20)\n"
    "  --lanes             one execution, lane by lane (needs --pc or --line), in the first\n"
    "                      selected launch (--launch N picks another)\n"
    "  --warp CTA:WARP     the execution of this warp (flat CTA index, warp in the CTA);\n"
    "                      implies --lanes\n"
    "  --format F          table (default, for people), csv or json (for tools), or html:\n"
    "                      one self-contained page with both views, for a browser\n"
    "  --source-dir DIR    html: read the CUDA source under DIR, found by the last path\n"
    "                      components of the recorded file (else at the recorded path)\n"
    "  --max-lanes-views N html: draw the lanes of at most N memory instructions per launch\n"
    "                      (default 64, at most 1024; the others are listed)\n"
    "  --timing            where the warps wait, per instruction (needs the config's [timing])\n"
    "  --source-csv FILE   --timing: ncu's source view (ncu --page source --csv) to compare with\n"
    "  -o FILE             write to FILE instead of standard output (- : stdout)\n"
    "  --allow-incomplete  read a trace whose capture did not complete (with a warning)\n";


static int parse_u32(const char *s, int base, uint32_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, base);
    if (*end != '\0' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static const char *option_value(int argc, char **argv, int *i)
{
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static int parse_options(int argc, char **argv, options *o, bool *help)
{
    memset(o, 0, sizeof *o);
    o->replay.progress = true;
    o->fmt = REPORT_TABLE;
    o->max_lanes_views = EXPLAIN_HTML_LANES_DEFAULT;
    bool have_max_lanes = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
            return 0;
        } else if (strcmp(a, "--config") == 0) {
            if (!(o->config_path = option_value(argc, argv, &i)))
                return cmd_fail("explain: --config needs a file");
        } else if (strcmp(a, "--kernel") == 0) {
            if (!(o->replay.kernel_regex = option_value(argc, argv, &i)))
                return cmd_fail("explain: --kernel needs a regular expression");
        } else if (strcmp(a, "--launch") == 0) {
            v = option_value(argc, argv, &i);
            if (parse_u32(v, 10, &o->launch) != 0)
                return cmd_fail("explain: --launch expects a launch number (0, 1, ...)%s%s", v ? ", got " : "",
                                v ? v : "");
            o->have_launch = true;
        } else if (strcmp(a, "--pc") == 0) {
            v = option_value(argc, argv, &i);
            if (!v || strncmp(v, "0x", 2) != 0 || parse_u32(v + 2, 16, &o->pc) != 0)
                return cmd_fail("explain: --pc expects a hexadecimal offset from the kernel entry, like 0x0d0%s%s",
                                v ? ", got " : "", v ? v : "");
            o->have_pc = true;
        } else if (strcmp(a, "--line") == 0) {
            v = option_value(argc, argv, &i);
            const char *colon = v ? strrchr(v, ':') : NULL;
            if (!colon || colon == v || strlen(v) >= sizeof o->line_arg || parse_u32(colon + 1, 10, &o->line) != 0 ||
                o->line == 0)
                return cmd_fail("explain: --line expects FILE:LINE, like readSegment.cu:20%s%s", v ? ", got " : "",
                                v ? v : "");
            snprintf(o->line_arg, sizeof o->line_arg, "%s", v);
            o->line_arg[colon - v] = '\0';
            o->line_file = o->line_arg;
            o->have_line = true;
        } else if (strcmp(a, "--lanes") == 0) {
            o->lanes = true;
        } else if (strcmp(a, "--warp") == 0) {
            v = option_value(argc, argv, &i);
            const char *colon = v ? strchr(v, ':') : NULL;
            char cta[32];
            if (!colon || (size_t)(colon - v) >= sizeof cta)
                return cmd_fail("explain: --warp expects CTA:WARP (flat CTA index, warp in the CTA), like 3:1%s%s",
                                v ? ", got " : "", v ? v : "");
            memcpy(cta, v, (size_t)(colon - v));
            cta[colon - v] = '\0';
            if (parse_u32(cta, 10, &o->cta) != 0 || parse_u32(colon + 1, 10, &o->warp) != 0)
                return cmd_fail("explain: --warp expects CTA:WARP (flat CTA index, warp in the CTA), like 3:1, "
                                "got %s", v);
            o->have_warp = o->lanes = true;
        } else if (strcmp(a, "--format") == 0) {
            v = option_value(argc, argv, &i);
            o->html = v && strcmp(v, "html") == 0;
            o->fmt = REPORT_TABLE;
            if (!v || (!o->html && report_format_parse(v, &o->fmt) != 0))
                return cmd_fail("explain: --format expects table, csv, json or html%s%s", v ? ", got " : "",
                                v ? v : "");
        } else if (strcmp(a, "--source-dir") == 0) {
            struct stat st;
            if (!(o->source_dir = option_value(argc, argv, &i)))
                return cmd_fail("explain: --source-dir needs a directory");
            if (stat(o->source_dir, &st) != 0)
                return cmd_fail("explain: --source-dir %s: %s", o->source_dir, strerror(errno));
            if (!S_ISDIR(st.st_mode))
                return cmd_fail("explain: --source-dir %s: not a directory", o->source_dir);
        } else if (strcmp(a, "--max-lanes-views") == 0) {
            v = option_value(argc, argv, &i);
            if (parse_u32(v, 10, &o->max_lanes_views) != 0 || o->max_lanes_views > EXPLAIN_HTML_LANES_MAX)
                return cmd_fail("explain: --max-lanes-views expects a number of instructions from 0 to %u%s%s",
                                EXPLAIN_HTML_LANES_MAX, v ? ", got " : "", v ? v : "");
            have_max_lanes = true;
        } else if (strcmp(a, "--timing") == 0) {
            o->timing = true;
        } else if (strcmp(a, "--source-csv") == 0) {
            if (!(o->source_csv = option_value(argc, argv, &i)))
                return cmd_fail("explain: --source-csv needs a file");
        } else if (strcmp(a, "-o") == 0) {
            if (!(o->out_path = option_value(argc, argv, &i)))
                return cmd_fail("explain: -o needs a file");
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            o->replay.allow_incomplete = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cmd_fail("explain: unknown option '%s' (see gpumemsim explain --help)", a);
        } else if (o->trace) {
            return cmd_fail("explain: one trace at a time, got %s and %s", o->trace, a);
        } else {
            o->trace = a;
        }
    }
    if (!o->config_path)
        return cmd_fail("explain: --config FILE is required (see gpumemsim explain --help)");
    if (!o->trace)
        return cmd_fail("explain: no trace given (see gpumemsim explain --help)");
    if (o->have_pc && o->have_line)
        return cmd_fail("explain: give --pc or --line, not both");
    if (!o->html && (o->source_dir || have_max_lanes))
        return cmd_fail("explain: %s is an option of --format html", o->source_dir ? "--source-dir" : "--max-lanes-views");
    if (o->html && o->max_lanes_views && strcmp(o->trace, "-") == 0)
        return cmd_fail("explain: --format html reads the trace twice to draw lanes: give a file, not standard "
                        "input (or --max-lanes-views 0)");
    if (o->lanes && !o->html && strcmp(o->trace, "-") == 0)
        return cmd_fail("explain: --lanes reads the trace twice: give a file, not standard input");
    if (o->source_csv && !o->timing)
        return cmd_fail("explain: --source-csv is an option of --timing");
    if (o->timing && (o->html || o->fmt == REPORT_JSON))
        return cmd_fail("explain: --timing writes a table or csv (--format table|csv)");
    if (o->timing && (o->lanes || o->have_pc || o->have_line))
        return cmd_fail("explain: --timing shows every instruction of the selected launches: drop %s",
                        o->lanes ? "--lanes" : o->have_pc ? "--pc" : "--line");
    o->replay.timing = o->replay.pc_cycles = o->timing;
    if (o->lanes && !o->have_pc && !o->have_line)
        return cmd_fail("explain: --lanes%s needs the instruction: --pc 0xPC or --line FILE:LINE",
                        o->have_warp ? " (implied by --warp)" : "");
    return 0;
}

/* ---- the replay: per-PC counters of the selected launches ---------------------- */


static bool is_memory_pc(const gpu_pc_stats *p)
{
    for (int i = 0; i < STAT_COUNT; i++)
        if (p->s.v[i])
            return true;
    return false; /* a barrier, or a PC that no memory record used */
}

static int collect(void *ctx, const replay_kernel_result *r, err_info *err)
{
    collected *c = ctx;
    if (c->replayed++ == 0)
        c->first_launch = r->kernel->launch;
    c->last_launch = r->kernel->launch;
    if (c->opt->have_launch && r->kernel->launch != c->opt->launch)
        return 0;
    uint32_t mem_pcs = 0;
    for (uint32_t i = 0; i < r->n_pcs; i++)
        mem_pcs += is_memory_pc(&r->pcs[i]);
    c->kept_pcs += mem_pcs;
    c->kept_table += r->kernel->n_pcs;
    if (c->n == EXPLAIN_MAX_LAUNCHES || c->kept_pcs > EXPLAIN_MAX_KEPT_PCS ||
        c->kept_table > EXPLAIN_MAX_KEPT_TABLE) {
        err_set(err, "%s: launch %u: the launches selected so far exceed what explain shows at once (%u launches, "
                "%u memory instructions, %u PC-table entries); narrow them with --kernel REGEX or --launch N",
                r->trace_path, r->kernel->launch, EXPLAIN_MAX_LAUNCHES, EXPLAIN_MAX_KEPT_PCS, EXPLAIN_MAX_KEPT_TABLE);
        return -1;
    }
    if (c->n == 0)
        c->launches = xcalloc(EXPLAIN_MAX_LAUNCHES, sizeof *c->launches);
    launch_data *d = &c->launches[c->n++];
    trace_kernel_copy(&d->k, r->kernel);
    d->pcs = xmalloc(((size_t)mem_pcs + 1u) * sizeof *d->pcs);
    for (uint32_t i = 0; i < r->n_pcs; i++)
        if (is_memory_pc(&r->pcs[i]))
            d->pcs[d->n_pcs++] = r->pcs[i];
    d->selected = xcalloc((size_t)d->n_pcs + 1u, sizeof *d->selected);
    d->launch_dram_reads = r->info.dram_reads;
    if (r->timing && r->timing->pc_cycles) {
        d->n_pc_cycles = r->timing->n_pc_cycles;
        d->pc_cycles = xmalloc(((size_t)d->n_pc_cycles + 1u) * sizeof *d->pc_cycles);
        memcpy(d->pc_cycles, r->timing->pc_cycles, (size_t)d->n_pc_cycles * sizeof *d->pc_cycles);
        d->pc_why = xmalloc(((size_t)d->n_pc_cycles + 1u) * TIMING_WHYS * sizeof *d->pc_why);
        memcpy(d->pc_why, r->timing->pc_why, (size_t)d->n_pc_cycles * TIMING_WHYS * sizeof *d->pc_why);
        d->cycles = r->timing->cycles;
        d->sm_active = r->timing->sm_cycles_active;
        d->occupancy = r->timing->warps_active_pct;
    }
    return 0;
}

static void free_collected(collected *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        trace_kernel_free(&c->launches[i].k);
        free(c->launches[i].pcs);
        free(c->launches[i].selected);
        free(c->launches[i].pc_cycles);
        free(c->launches[i].pc_why);
    }
    free(c->launches);
}

/* --line FILE matches a recorded path equal to it or ending in "/FILE". */
static bool file_matches(const char *recorded, const char *want)
{
    size_t lr = strlen(recorded), lw = strlen(want);
    if (lw > lr)
        return false;
    if (strcmp(recorded + lr - lw, want) != 0)
        return false;
    return lw == lr || recorded[lr - lw - 1] == '/';
}

/* ---- selection: --pc, --line ------------------------------------------------------- */

/* "0x00d0 LDG.E, 0x0100 LDG.E, ..." (at most 8, then "...") */
static void list_memory_pcs(const launch_data *d, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->n_pcs && o + 1 < n; i++) {
        char pc[16], op[32];
        ex_pc_text(d->pcs[i].pc, pc, sizeof pc);
        ex_opcode_of(ex_pc_sass(d, d->pcs[i].pc), op, sizeof op);
        int w = i == 8 ? snprintf(buf + o, n - o, ", ...") : snprintf(buf + o, n - o, "%s%s %s", i ? ", " : "", pc, op);
        o += w > 0 ? (size_t)w : 0;
        if (i == 8)
            break;
    }
}

/* "readSegment.cu:20, readSegment.cu:21" (distinct, at most 8) */
static void list_memory_lines(const launch_data *d, char *buf, size_t n)
{
    size_t o = 0;
    uint32_t shown = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->n_pcs && o + 1 < n; i++) {
        char w[192];
        ex_where_of(d, d->pcs[i].pc, w, sizeof w);
        if (strstr(buf, w)) /* crude but enough for a message */
            continue;
        if (shown++ == 8) {
            snprintf(buf + o, n - o, ", ...");
            break;
        }
        int k = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", w);
        o += k > 0 ? (size_t)k : 0;
    }
    if (!shown)
        snprintf(buf, n, "none");
}

static int select_pcs(collected *c, const options *o, err_info *err)
{
    if (c->n == 0) {
        if (c->replayed == 0 && o->replay.kernel_regex)
            err_set(err, "%s: no kernel launch matches --kernel '%s'", o->trace, o->replay.kernel_regex);
        else if (c->replayed == 0)
            err_set(err, "%s: the trace has no kernel launch", o->trace);
        else
            err_set(err, "%s: no launch %u%s (the launches replayed are %u to %u)", o->trace, o->launch,
                    o->replay.kernel_regex ? " matching --kernel" : "", c->first_launch, c->last_launch);
        return -1;
    }
    uint32_t launches_with = 0;
    for (uint32_t l = 0; l < c->n; l++) {
        launch_data *d = &c->launches[l];
        for (uint32_t i = 0; i < d->n_pcs; i++) {
            uint32_t pc = d->pcs[i].pc;
            bool sel = true;
            if (o->have_pc)
                sel = pc == o->pc;
            else if (o->have_line)
                sel = ex_pc_file(d, pc) && file_matches(ex_pc_file(d, pc), o->line_file) && ex_pc_line(d, pc) == o->line;
            d->selected[i] = sel;
            d->n_selected += sel;
        }
        launches_with += d->n_selected > 0;
    }
    if (launches_with > 0 || (!o->have_pc && !o->have_line))
        return 0; /* without a selection, a kernel that touched no memory is shown as such */
    const launch_data *d = &c->launches[0];
    char list[1024];
    if (o->have_pc) {
        const trace_pc_info *p = trace_kernel_find_pc(&d->k, o->pc);
        list_memory_pcs(d, list, sizeof list);
        if (p)
            err_set(err, "%s: --pc 0x%04x: launch %u has \"%s\" there, not a memory instruction it executed "
                    "(its memory instructions: %s)", o->trace, o->pc, d->k.launch, p->sass ? p->sass : "?",
                    list[0] ? list : "none");
        else
            err_set(err, "%s: --pc 0x%04x: launch %u (%s) has no instruction at that offset (its memory "
                    "instructions: %s)", o->trace, o->pc, d->k.launch, d->k.demangled, list[0] ? list : "none");
    } else {
        list_memory_lines(d, list, sizeof list);
        err_set(err, "%s: --line %s:%u: no memory instruction of launch %u is on that line (lines with memory "
                "instructions: %s)", o->trace, o->line_file, o->line, d->k.launch, list);
    }
    return -1;
}

/* ---- the command ------------------------------------------------------------------- */




int cmd_explain(int argc, char **argv)
{
    options o;
    bool help = false;
    int rc = parse_options(argc, argv, &o, &help);
    if (help) {
        fputs(explain_usage, stdout);
        return 0;
    }
    if (rc != 0)
        return rc;

    err_info err = {{0}};
    cfg_gpu cfg;
    if (cfg_load(o.config_path, &cfg, &err) != 0)
        return cmd_fail("%s", err.msg);
    if (o.timing && !cfg.timing)
        return cmd_fail("explain: --timing: %s has no [timing] section (the timing model's constants, docs/timing.md)",
                        o.config_path);
    collected c = {.opt = &o};
    if (replay_trace(o.trace, &cfg, &o.replay, collect, &c, &err) != 0 || select_pcs(&c, &o, &err) != 0) {
        free_collected(&c);
        return cmd_fail("%s", err.msg);
    }
    FILE *out = cmd_open_output(o.out_path);
    if (!out) {
        free_collected(&c);
        return cmd_fail("explain: cannot create %s", o.out_path);
    }
    rc = 0;
    if (o.timing) {
        if (explain_write_timing(out, &o, &cfg, &c, &err) != 0)
            rc = cmd_fail("%s", err.msg);
    } else if (o.html) {
        if (explain_write_html(out, &o, &cfg, &c, &err) != 0)
            rc = cmd_fail("%s", err.msg);
    } else if (o.lanes) {
        if (explain_write_lanes(out, &o, &cfg, &c, &err) != 0)
            rc = cmd_fail("%s", err.msg);
    } else {
        explain_write_source_view(out, &o, &cfg, &c);
    }
    free_collected(&c);
    bool to_stdout = out == stdout;
    if (cmd_close_output(out) != 0 && rc == 0)
        return cmd_fail("explain: writing %s failed", to_stdout ? "standard output" : o.out_path);
    return rc;
}

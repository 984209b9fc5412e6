/* cmd_explain.c - `gpumemsim explain`: what each memory instruction of a trace
 * costs and why, for people who are learning coalescing and bank conflicts
 * and for tools.
 *
 * Default view: per source line and per SASS instruction, the columns of
 * Nsight Compute's source view (model/source_view.h, the same table as
 * `validate --per-pc`), so the output sits beside `ncu --page source`; then
 * the model's cache counters per instruction under their ncu metric names.
 * With --lanes: one execution of an instruction, lane by lane
 * (model/explain.h), and the reason for its cost in words.
 *
 * The per-PC counts come from one replay (sim/replay.h); the execution shown
 * by --lanes is found by reading the trace a second time, and its
 * source-view values come from replaying that one record on a fresh model. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "commands.h"
#include "explain.h"
#include "replay.h"
#include "report.h"
#include "source_view.h"
#include "version.h"

/* What is kept of the selected launches for output, at most: more is refused
 * by name (narrow with --kernel or --launch) so that memory stays bounded. */
#define EXPLAIN_MAX_LAUNCHES 256u
#define EXPLAIN_MAX_KEPT_PCS 65536u         /* memory instructions, all launches (~45 MB of counters) */
#define EXPLAIN_MAX_KEPT_TABLE (1u << 20)   /* PC-table entries copied, all launches */
#define TABLE_LEFT 24       /* "  0x00d0 LDG.E.SYS..." and "file.cu:123" */
#define TABLE_COL 15        /* one source-view column: " " + 14 */
#define HEADER_WRAP 14
#define WHY_WIDTH 98

static const char explain_usage[] =
    "usage: gpumemsim explain --config FILE TRACE [--kernel REGEX] [--launch N]\n"
    "                         [--pc 0xPC | --line FILE:LINE] [--lanes] [--warp CTA:WARP]\n"
    "                         [--format table|csv|json] [-o FILE] [--allow-incomplete]\n"
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
    "  --format F          table (default, for people), csv or json (for tools)\n"
    "  -o FILE             write to FILE instead of standard output\n"
    "  --allow-incomplete  read a trace whose capture did not complete (with a warning)\n";

/* ---- options ------------------------------------------------------------------ */

typedef struct options {
    const char *config_path, *trace, *out_path;
    replay_options replay;
    report_format fmt;
    bool have_launch, have_pc, have_line, lanes, have_warp;
    uint32_t launch, pc, line, cta, warp;
    const char *line_file; /* the FILE of --line FILE:LINE (points into argv) */
    char line_arg[512];
} options;

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
            if (!v || report_format_parse(v, &o->fmt) != 0)
                return cmd_fail("explain: --format expects table, csv or json%s%s", v ? ", got " : "", v ? v : "");
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
    if (o->lanes && strcmp(o->trace, "-") == 0)
        return cmd_fail("explain: --lanes reads the trace twice: give a file, not standard input");
    if (o->lanes && !o->have_pc && !o->have_line)
        return cmd_fail("explain: --lanes%s needs the instruction: --pc 0xPC or --line FILE:LINE",
                        o->have_warp ? " (implied by --warp)" : "");
    return 0;
}

/* ---- the replay: per-PC counters of the selected launches ---------------------- */

typedef struct launch_data {
    trace_kernel k;       /* deep copy */
    uint32_t n_pcs;
    gpu_pc_stats *pcs;    /* the memory instructions, ascending PC */
    bool *selected;       /* [n_pcs]: chosen by --pc / --line (all without them) */
    uint32_t n_selected;
} launch_data;

typedef struct collected {
    const options *opt;
    launch_data *launches;
    uint32_t n;
    uint32_t replayed;    /* launches the replay simulated (matching --kernel) */
    uint64_t kept_pcs, kept_table; /* against EXPLAIN_MAX_KEPT_* */
    uint32_t first_launch, last_launch;
} collected;

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
    return 0;
}

static void free_collected(collected *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        trace_kernel_free(&c->launches[i].k);
        free(c->launches[i].pcs);
        free(c->launches[i].selected);
    }
    free(c->launches);
}

/* ---- what a PC is ----------------------------------------------------------------- */

static const trace_pc_info *pc_info(const launch_data *d, uint32_t pc)
{
    return pc == GPU_PC_NONE ? NULL : trace_kernel_find_pc(&d->k, pc);
}

static const char *pc_file(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = pc_info(d, pc);
    return p && p->file >= 0 && (uint32_t)p->file < d->k.n_files ? d->k.files[p->file] : NULL;
}

static uint32_t pc_line(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = pc_info(d, pc);
    return p && pc_file(d, pc) ? p->line : 0;
}

static const char *pc_sass(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = pc_info(d, pc);
    return p && p->sass ? p->sass : "";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "file.cu:20", or "-" when the trace has no line for the PC */
static void where_of(const launch_data *d, uint32_t pc, char *buf, size_t n)
{
    const char *f = pc_file(d, pc);
    if (f)
        snprintf(buf, n, "%s:%u", base_name(f), pc_line(d, pc));
    else
        snprintf(buf, n, "-");
}

/* The opcode with its predicate: "@!P3 LDG.E" of "@!P3 LDG.E R10, desc[UR6][R2.64+-0x28]". */
static void opcode_of(const char *sass, char *buf, size_t n)
{
    size_t len = 0;
    const char *p = sass;
    if (*p == '@')
        p = strchr(p, ' ') ? strchr(p, ' ') + 1 : p + strlen(p);
    len = (size_t)(p - sass) + strcspn(p, " ");
    if (len >= n)
        len = n - 1;
    memcpy(buf, sass, len);
    buf[len] = '\0';
}

static void pc_text(uint32_t pc, char *buf, size_t n)
{
    if (pc == GPU_PC_NONE)
        snprintf(buf, n, "other");
    else
        snprintf(buf, n, "0x%04x", pc);
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
        pc_text(d->pcs[i].pc, pc, sizeof pc);
        opcode_of(pc_sass(d, d->pcs[i].pc), op, sizeof op);
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
        where_of(d, d->pcs[i].pc, w, sizeof w);
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
                sel = pc_file(d, pc) && file_matches(pc_file(d, pc), o->line_file) && pc_line(d, pc) == o->line;
            d->selected[i] = sel;
            d->n_selected += sel;
        }
        launches_with += d->n_selected > 0;
    }
    if (launches_with > 0)
        return 0;
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

/* ---- source lines --------------------------------------------------------------------- */

typedef struct line_key {
    int32_t file;   /* index in the kernel's files, -1 unknown */
    uint32_t line;
    uint32_t idx;   /* into launch_data.pcs */
    uint32_t pc;
} line_key;

static int cmp_line_key(const void *a, const void *b)
{
    const line_key *x = a, *y = b;
    if (x->file != y->file)
        return x->file < 0 ? 1 : y->file < 0 ? -1 : (x->file > y->file) - (x->file < y->file);
    if (x->line != y->line)
        return (x->line > y->line) - (x->line < y->line);
    return (x->pc > y->pc) - (x->pc < y->pc);
}

/* The selected PCs sorted by file, line and PC; returns the count. */
static uint32_t sorted_lines(const launch_data *d, line_key *keys)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_pcs; i++) {
        if (!d->selected[i])
            continue;
        const trace_pc_info *p = pc_info(d, d->pcs[i].pc);
        bool known = p && pc_file(d, d->pcs[i].pc);
        keys[n] = (line_key){known ? p->file : -1, known ? p->line : 0, i, d->pcs[i].pc};
        n++;
    }
    qsort(keys, n, sizeof *keys, cmp_line_key);
    return n;
}

/* ---- which table a PC belongs to ---------------------------------------------------- */

typedef enum pc_class {
    CLASS_GLOBAL,
    CLASS_LOCAL,
    CLASS_SHARED,
    CLASS_COUNT
} pc_class;

static bool in_class(const stats *s, pc_class c)
{
    const uint64_t *v = s->v;
    switch (c) {
    case CLASS_GLOBAL:
        return v[STAT_SRC_TAG_REQ_GLOBAL] || v[STAT_INST_GLOBAL_LD] || v[STAT_INST_GLOBAL_ST] ||
               v[STAT_INST_GLOBAL_ATOM] || v[STAT_INST_GLOBAL_RED] || v[STAT_INST_LDGSTS];
    case CLASS_LOCAL:
        return v[STAT_SRC_L2_THEO_SECT_LOCAL] || v[STAT_INST_LOCAL_LD] || v[STAT_INST_LOCAL_ST];
    case CLASS_SHARED:
        return v[STAT_SMEM_WF_LD] || v[STAT_SMEM_WF_ST] || v[STAT_SMEM_WF_ATOM];
    case CLASS_COUNT:
        break;
    }
    return false;
}

typedef struct class_table {
    const char *title;
    const char *columns[5]; /* source-view column names (model/source_view.h) */
    int n;
} class_table;

static const class_table class_tables[CLASS_COUNT] = {
    [CLASS_GLOBAL] = {"global memory",
                      {"Instructions Executed", "L1 Tag Requests Global", "L2 Theoretical Sectors Global",
                       "L2 Theoretical Sectors Global Ideal", "L2 Theoretical Sectors Global Excessive"},
                      5},
    [CLASS_LOCAL] = {"local memory", {"Instructions Executed", "L2 Theoretical Sectors Local"}, 2},
    [CLASS_SHARED] = {"shared memory",
                      {"Instructions Executed", "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal",
                       "L1 Wavefronts Shared Excessive", "L1 Conflicts Shared N-Way"},
                      5},
};

static int column_index(const char *name)
{
    int c = source_view_find(name);
    if (c < 0) {
        /* the names above are model/source_view.c's; a mismatch is a programming error */
        fprintf(stderr, "gpumemsim: internal error: no source-view column \"%s\"\n", name);
        abort();
    }
    return c;
}

/* ---- output helpers ----------------------------------------------------------------- */

static void value_text(double v, bool per_execution, bool thousands, char *buf, size_t n)
{
    if (per_execution)
        snprintf(buf, n, "%.2f", v);
    else if (thousands)
        report_thousands(buf, n, (uint64_t)v);
    else
        snprintf(buf, n, "%" PRIu64, (uint64_t)v);
}

static void json_number(FILE *f, double v)
{
    if (v == (double)(uint64_t)v)
        fprintf(f, "%" PRIu64, (uint64_t)v);
    else
        fprintf(f, "%.6g", v);
}

/* Split a column name into up to 3 lines of at most HEADER_WRAP characters. */
static int wrap_header(const char *name, char lines[3][32])
{
    int n = 0;
    lines[0][0] = lines[1][0] = lines[2][0] = '\0';
    const char *p = name;
    while (*p && n < 3) {
        size_t len = strlen(lines[n]);
        size_t word = strcspn(p, " ");
        if (len && len + 1 + word > HEADER_WRAP) {
            n++;
            continue;
        }
        if (word > 31 - len - 1)
            word = 31 - len - 1;
        if (len)
            lines[n][len++] = ' ';
        memcpy(lines[n] + len, p, word);
        lines[n][len + word] = '\0';
        p += word;
        while (*p == ' ')
            p++;
    }
    return lines[n < 3 ? n : 2][0] ? (n < 3 ? n + 1 : 3) : n;
}

/* Write text wrapped at WHY_WIDTH, each line starting with indent. */
static void write_wrapped(FILE *f, const char *text, const char *indent, const char *cont)
{
    const char *p = text;
    const char *lead = indent;
    while (*p) {
        size_t room = WHY_WIDTH - strlen(lead);
        size_t len = strlen(p);
        size_t take = len;
        if (len > room) {
            take = room;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0)
                take = room;
        }
        fprintf(f, "%s%.*s\n", lead, (int)take, p);
        p += take;
        while (*p == ' ')
            p++;
        lead = cont;
    }
}

/* ---- default view: table ------------------------------------------------------------ */

static void table_class(FILE *f, const launch_data *d, const line_key *keys, uint32_t n_keys, pc_class cls)
{
    const class_table *t = &class_tables[cls];
    bool any = false;
    for (uint32_t i = 0; i < n_keys && !any; i++)
        any = in_class(&d->pcs[keys[i].idx].s, cls);
    if (!any)
        return;
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    int ci[5];
    char head[5][3][32];
    int rows = 1;
    for (int j = 0; j < t->n; j++) {
        ci[j] = column_index(t->columns[j]);
        int r = wrap_header(t->columns[j], head[j]);
        if (r > rows)
            rows = r;
    }
    fputc('\n', f);
    for (int r = 0; r < rows; r++) {
        char row[256];
        const char *left = r == 0 ? t->title : r == rows - 1 ? "line / PC SASS" : "";
        int o = snprintf(row, sizeof row, "%-*s", TABLE_LEFT, left);
        for (int j = 0; j < t->n && o > 0 && (size_t)o < sizeof row; j++) {
            int have = 0;
            while (have < 3 && head[j][have][0])
                have++;
            int k = r - (rows - have); /* bottom-aligned */
            o += snprintf(row + o, sizeof row - (size_t)o, "%*s", TABLE_COL, k >= 0 ? head[j][k] : "");
        }
        size_t len = strlen(row);
        while (len && row[len - 1] == ' ')
            row[--len] = '\0';
        fprintf(f, "%s\n", row);
    }
    for (uint32_t i = 0; i < n_keys;) {
        /* one source line: its PCs of this class */
        uint32_t j = i;
        while (j < n_keys && keys[j].file == keys[i].file && keys[j].line == keys[i].line)
            j++;
        stats sum;
        stats_clear(&sum);
        uint64_t execs = 0;
        uint32_t members = 0;
        for (uint32_t k = i; k < j; k++) {
            const gpu_pc_stats *p = &d->pcs[keys[k].idx];
            if (!in_class(&p->s, cls))
                continue;
            stats_add(&sum, &p->s);
            execs += p->executions;
            members++;
        }
        if (members) {
            char where[192], num[40];
            where_of(d, d->pcs[keys[i].idx].pc, where, sizeof where);
            size_t wl = strlen(where);
            fprintf(f, "%-*s", TABLE_LEFT, wl > TABLE_LEFT - 1 ? where + wl - (TABLE_LEFT - 1) : where);
            for (int c = 0; c < t->n; c++) {
                value_text(source_view_value((size_t)ci[c], execs, &sum), cols[ci[c]].per_execution, true, num,
                           sizeof num);
                fprintf(f, "%*s", TABLE_COL, num);
            }
            fputc('\n', f);
            for (uint32_t k = i; k < j; k++) {
                const gpu_pc_stats *p = &d->pcs[keys[k].idx];
                if (!in_class(&p->s, cls))
                    continue;
                char pc[16], op[64];
                pc_text(p->pc, pc, sizeof pc);
                opcode_of(pc_sass(d, p->pc), op, sizeof op);
                fprintf(f, "  %-7s %-14.14s", pc, op);
                for (int c = 0; c < t->n; c++) {
                    value_text(source_view_value((size_t)ci[c], p->executions, &p->s), cols[ci[c]].per_execution,
                               true, num, sizeof num);
                    fprintf(f, "%*s", TABLE_COL, num);
                }
                fputc('\n', f);
            }
        }
        i = j;
    }
}

/* The model's cache counters, grouped per column. */
typedef struct counter_group {
    const char *head;
    const char *metrics; /* the ncu metrics summed, as a pattern for the legend */
    stat_id ids[8];
    int n;
} counter_group;

static const counter_group counter_groups[] = {
    {"L1 req", "l1tex__t_requests_pipe_lsu_mem_{global_op_{ld,st,atom,red},local_op_{ld,st}}.sum\n"
               "+ l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
     {STAT_L1_REQ_GLOBAL_LD, STAT_L1_REQ_GLOBAL_ST, STAT_L1_REQ_GLOBAL_ATOM, STAT_L1_REQ_GLOBAL_RED,
      STAT_L1_REQ_LOCAL_LD, STAT_L1_REQ_LOCAL_ST, STAT_L1_REQ_LDGSTS},
     7},
    {"L1 sect", "l1tex__t_sectors_pipe_lsu_mem_{global_op_{ld,st,atom,red},local_op_{ld,st}}.sum\n"
                "+ l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
     {STAT_L1_SECT_GLOBAL_LD, STAT_L1_SECT_GLOBAL_ST, STAT_L1_SECT_GLOBAL_ATOM, STAT_L1_SECT_GLOBAL_RED,
      STAT_L1_SECT_LOCAL_LD, STAT_L1_SECT_LOCAL_ST, STAT_L1_SECT_LDGSTS},
     7},
    {"L1 hit", "l1tex__t_sectors_pipe_lsu_mem_{global_op_{ld,st},local_op_ld}_lookup_hit.sum",
     {STAT_L1_SECT_GLOBAL_LD_HIT, STAT_L1_SECT_GLOBAL_ST_HIT, STAT_L1_SECT_LOCAL_LD_HIT},
     3},
    {"L2 sect", "lts__t_sectors_srcunit_tex_op_{read,write,atom,red}.sum",
     {STAT_L2_SECT_READ, STAT_L2_SECT_WRITE, STAT_L2_SECT_ATOM, STAT_L2_SECT_RED},
     4},
    {"L2 hit", "lts__t_sectors_srcunit_tex_op_{read,write}_lookup_hit.sum",
     {STAT_L2_SECT_READ_HIT, STAT_L2_SECT_WRITE_HIT},
     2},
    {"DRAM rd", "dram__sectors_read.sum", {STAT_DRAM_SECT_READ}, 1},
    {"DRAM wr", "dram__sectors_write.sum", {STAT_DRAM_SECT_WRITE}, 1},
};
#define N_COUNTER_GROUPS ((int)(sizeof counter_groups / sizeof counter_groups[0]))
#define COUNTER_COL 11

static uint64_t group_value(const counter_group *g, const stats *s)
{
    uint64_t v = 0;
    for (int i = 0; i < g->n; i++)
        v += s->v[g->ids[i]];
    return v;
}

static bool has_counters(const stats *s)
{
    for (int g = 0; g < N_COUNTER_GROUPS; g++)
        if (group_value(&counter_groups[g], s))
            return true;
    return false;
}

static void table_counters(FILE *f, const launch_data *d, const line_key *keys, uint32_t n_keys)
{
    bool any = false;
    for (uint32_t i = 0; i < n_keys && !any; i++)
        any = has_counters(&d->pcs[keys[i].idx].s);
    if (!any)
        return;
    fputs("\nmodel counters: the kernel-level ncu metrics below, attributed by the model to each\n"
          "instruction; they depend on the caches (ncu has them per kernel only, not in the source view)\n",
          f);
    fprintf(f, "%-*s", TABLE_LEFT - 1, "line / PC SASS");
    for (int g = 0; g < N_COUNTER_GROUPS; g++)
        fprintf(f, "%*s", COUNTER_COL, counter_groups[g].head);
    fputc('\n', f);
    for (uint32_t i = 0; i < n_keys; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        if (!has_counters(&p->s))
            continue;
        char pc[16], op[64], where[192], num[40];
        pc_text(p->pc, pc, sizeof pc);
        opcode_of(pc_sass(d, p->pc), op, sizeof op);
        where_of(d, p->pc, where, sizeof where);
        fprintf(f, "  %-7s %-13.13s", pc, op);
        for (int g = 0; g < N_COUNTER_GROUPS; g++) {
            report_thousands(num, sizeof num, group_value(&counter_groups[g], &p->s));
            fprintf(f, "%*s", COUNTER_COL, num);
        }
        fputc('\n', f);
    }
    fputs("columns (sums of these ncu metrics):\n", f);
    for (int g = 0; g < N_COUNTER_GROUPS; g++) {
        const char *m = counter_groups[g].metrics;
        size_t first = strcspn(m, "\n");
        fprintf(f, "  %-8s %.*s\n", counter_groups[g].head, (int)first, m);
        if (m[first])
            fprintf(f, "  %-8s %s\n", "", m + first + 1);
    }
}

static void table_launch(FILE *f, const options *o, const launch_data *d)
{
    fprintf(f, "\n== launch %u: %s\n   grid %u,%u,%u, block %u,%u,%u; %u memory instruction%s", d->k.launch,
            d->k.demangled, d->k.grid[0], d->k.grid[1], d->k.grid[2], d->k.block[0], d->k.block[1], d->k.block[2],
            d->n_pcs, d->n_pcs == 1 ? "" : "s");
    if (o->have_pc || o->have_line)
        fprintf(f, ", %u selected by %s", d->n_selected, o->have_pc ? "--pc" : "--line");
    fputc('\n', f);
    if (d->n_selected == 0) {
        fputs("(no memory instruction selected in this launch)\n", f);
        return;
    }
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = sorted_lines(d, keys);
    fputs("\nsource view: the columns of ncu --page source, derived from the addresses alone; per source\n"
          "line (its memory instructions summed), then per SASS instruction\n", f);
    for (int c = 0; c < CLASS_COUNT; c++)
        table_class(f, d, keys, n, (pc_class)c);
    table_counters(f, d, keys, n);
    free(keys);
}

/* ---- default view: csv and json ----------------------------------------------------- */

static void csv_prefix(FILE *f, const launch_data *d, const char *row, uint32_t pc)
{
    fprintf(f, "%u,", d->k.launch);
    report_csv_field(f, d->k.demangled);
    fprintf(f, ",%s,", row);
    const char *file = pc_file(d, pc);
    report_csv_field(f, file ? file : "");
    if (file)
        fprintf(f, ",%u,", pc_line(d, pc));
    else
        fputs(",,", f);
    if (strcmp(row, "line") == 0) {
        fputs(",,", f);
    } else {
        char t[16];
        pc_text(pc, t, sizeof t);
        fprintf(f, "%s,", t);
        report_csv_field(f, pc_sass(d, pc));
        fputc(',', f);
    }
}

static void csv_source_values(FILE *f, const launch_data *d, const char *row, uint32_t pc, uint64_t execs,
                              const stats *s)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    for (size_t c = 0; c < ncols; c++) {
        csv_prefix(f, d, row, pc);
        fputs("source-view,", f);
        report_csv_field(f, cols[c].name);
        fputc(',', f);
        json_number(f, source_view_value(c, execs, s));
        fputc('\n', f);
    }
}

/* A source line's value of column c: its instructions' counters summed. A
 * per-execution column (the N-way conflict) averages over the executions of
 * the instructions it concerns (shared memory), not over every instruction
 * of the line, so that a line with a global load and a shared store shows
 * the store's conflict. */
static double line_value(size_t c, const launch_data *d, const line_key *keys, uint32_t from, uint32_t to)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    stats sum;
    stats_clear(&sum);
    uint64_t execs = 0;
    for (uint32_t k = from; k < to; k++) {
        const gpu_pc_stats *p = &d->pcs[keys[k].idx];
        stats_add(&sum, &p->s);
        if (!cols[c].per_execution || in_class(&p->s, CLASS_SHARED))
            execs += p->executions;
    }
    return source_view_value(c, execs, &sum);
}

/* The end of the source line that starts at keys[i]. */
static uint32_t line_end(const line_key *keys, uint32_t n, uint32_t i)
{
    uint32_t j = i;
    while (j < n && keys[j].file == keys[i].file && keys[j].line == keys[i].line)
        j++;
    return j;
}

static void csv_launch(FILE *f, const launch_data *d)
{
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = sorted_lines(d, keys);
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = line_end(keys, n, i);
        for (size_t c = 0; c < ncols; c++) {
            csv_prefix(f, d, "line", keys[i].pc);
            fputs("source-view,", f);
            report_csv_field(f, cols[c].name);
            fputc(',', f);
            json_number(f, line_value(c, d, keys, i, j));
            fputc('\n', f);
        }
        for (uint32_t k = i; k < j; k++) {
            const gpu_pc_stats *p = &d->pcs[keys[k].idx];
            csv_source_values(f, d, "instruction", p->pc, p->executions, &p->s);
            for (int m = 0; m < STAT_COUNT; m++) {
                if (!p->s.v[m])
                    continue;
                csv_prefix(f, d, "instruction", p->pc);
                fprintf(f, "model-counter,%s,%" PRIu64 "\n", stat_name((stat_id)m), p->s.v[m]);
            }
        }
        i = j;
    }
    free(keys);
}

static void json_source_view(FILE *f, uint64_t execs, const stats *s)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    fputc('{', f);
    for (size_t c = 0; c < ncols; c++) {
        fputs(c ? ", " : "", f);
        report_json_string(f, cols[c].name);
        fputs(": ", f);
        json_number(f, source_view_value(c, execs, s));
    }
    fputc('}', f);
}

static void json_where(FILE *f, const launch_data *d, uint32_t pc)
{
    const char *file = pc_file(d, pc);
    fputs("\"file\": ", f);
    if (file) {
        report_json_string(f, file);
        fprintf(f, ", \"line\": %u", pc_line(d, pc));
    } else {
        fputs("null, \"line\": null", f);
    }
}

static void json_launch_head(FILE *f, const launch_data *d)
{
    fprintf(f, "\"launch\": %u, \"kernel\": ", d->k.launch);
    report_json_string(f, d->k.demangled);
    fputs(", \"mangled\": ", f);
    report_json_string(f, d->k.name);
    fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u]", d->k.grid[0], d->k.grid[1], d->k.grid[2],
            d->k.block[0], d->k.block[1], d->k.block[2]);
}

static void json_launch(FILE *f, const launch_data *d, bool first)
{
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = sorted_lines(d, keys);
    fprintf(f, "%s\n    {", first ? "" : ",");
    json_launch_head(f, d);
    fputs(",\n     \"lines\": [", f);
    bool first_line = true;
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = line_end(keys, n, i);
        fprintf(f, "%s\n      {", first_line ? "" : ",");
        first_line = false;
        json_where(f, d, keys[i].pc);
        fputs(", \"pcs\": [", f);
        for (uint32_t k = i; k < j; k++) {
            char t[16];
            pc_text(keys[k].pc, t, sizeof t);
            fprintf(f, "%s\"%s\"", k > i ? ", " : "", t);
        }
        fputs("],\n       \"source_view\": {", f);
        for (size_t c = 0; c < ncols; c++) {
            fputs(c ? ", " : "", f);
            report_json_string(f, cols[c].name);
            fputs(": ", f);
            json_number(f, line_value(c, d, keys, i, j));
        }
        fputs("}}", f);
        i = j;
    }
    fputs("\n     ],\n     \"instructions\": [", f);
    for (uint32_t i = 0; i < n; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        char t[16];
        pc_text(p->pc, t, sizeof t);
        fprintf(f, "%s\n      {\"pc\": \"%s\", \"sass\": ", i ? "," : "", t);
        report_json_string(f, pc_sass(d, p->pc));
        fputs(", ", f);
        json_where(f, d, p->pc);
        fprintf(f, ", \"executions\": %" PRIu64 ",\n       \"source_view\": ", p->executions);
        json_source_view(f, p->executions, &p->s);
        fputs(",\n       \"model_counters\": {", f);
        bool first_m = true;
        for (int m = 0; m < STAT_COUNT; m++) {
            if (!p->s.v[m])
                continue;
            fputs(first_m ? "" : ", ", f);
            first_m = false;
            report_json_string(f, stat_name((stat_id)m));
            fprintf(f, ": %" PRIu64, p->s.v[m]);
        }
        fputs("}}", f);
    }
    fputs("\n     ]}", f);
    free(keys);
}

/* ---- --lanes: finding the execution ---------------------------------------------- */

typedef struct found_exec {
    uint32_t pc_index;    /* into launch_data.pcs */
    bool found;
    trace_mem mem;
} found_exec;

/* Read the trace again up to the launch and keep, per selected PC, the first
 * record (of the --warp warp when given). */
static int find_executions(const options *o, const launch_data *d, found_exec *ex, uint32_t n_ex, err_info *err)
{
    trace_reader_options ropt = {.allow_incomplete = o->replay.allow_incomplete};
    trace_reader *r = trace_reader_open(o->trace, &ropt, err);
    if (!r)
        return -1;
    trace_event ev;
    bool in_launch = false;
    uint32_t missing = n_ex;
    int got = 1;
    while (missing && (got = trace_reader_next(r, &ev, err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            if (in_launch)
                break;
            in_launch = ev.kernel->launch == d->k.launch;
            continue;
        }
        if (!in_launch || ev.type != TRACE_EV_MEM)
            continue;
        if (o->have_warp && (ev.mem.cta != o->cta || ev.mem.warp != o->warp))
            continue;
        for (uint32_t i = 0; i < n_ex; i++) {
            if (!ex[i].found && d->pcs[ex[i].pc_index].pc == ev.mem.pc) {
                ex[i].found = true;
                ex[i].mem = ev.mem;
                missing--;
            }
        }
    }
    trace_reader_close(r);
    return got < 0 ? -1 : 0;
}

/* The source-view values of one record alone, replayed as a kernel of its
 * own (they depend on the addresses only, not on what the caches hold). */
static void one_execution(gpu *g, const trace_kernel *k, const trace_mem *m, uint64_t *execs, stats *s)
{
    err_info err = {{0}};
    stats total;
    stats_clear(s);
    *execs = 0;
    if (gpu_kernel_begin(g, k, 0, &err) == 0) { /* it ran in the replay, so it fits */
        gpu_mem(g, m);
        gpu_kernel_end(g, &total);
        uint32_t n;
        const gpu_pc_stats *p = gpu_pc_breakdown(g, &n);
        for (uint32_t i = 0; i < n; i++)
            if (p[i].pc == m->pc) {
                *s = p[i].s;
                *execs = p[i].executions;
            }
    }
}

/* ---- --lanes: output ----------------------------------------------------------------- */

static const char *access_name(const explain_result *r)
{
    static const char *const names[TRACE_SPACE_COUNT][TRACE_KIND_COUNT] = {
        [TRACE_SPACE_GLOBAL] = {"global load", "global store", "global atomic", "global reduction"},
        [TRACE_SPACE_SHARED] = {"shared load", "shared store", "shared atomic", "shared reduction"},
        [TRACE_SPACE_LOCAL] = {"local load", "local store", "local atomic", "local reduction"},
    };
    if (r->ldgsts)
        return r->space == TRACE_SPACE_GLOBAL ? "cp.async global read" : "cp.async shared write";
    return names[r->space][r->kind];
}

/* "3", "0-3", "30,31,0,1" (the banks of a lane's words) */
static void lane_banks(const explain_result *r, const explain_lane *ln, char *buf, size_t n)
{
    const smem_word *w = &r->bank.words[ln->first_word];
    bool run = true;
    for (uint32_t k = 1; k < ln->n_words; k++)
        run = run && w[k].bank == w[k - 1].bank + 1;
    if (ln->n_words == 1 || run) {
        if (ln->n_words == 1)
            snprintf(buf, n, "%u", w[0].bank);
        else
            snprintf(buf, n, "%u-%u", w[0].bank, w[ln->n_words - 1].bank);
        return;
    }
    size_t o = 0;
    for (uint32_t k = 0; k < ln->n_words && o + 1 < n; k++) {
        int c = snprintf(buf + o, n - o, "%s%u", k ? "," : "", w[k].bank);
        o += c > 0 ? (size_t)c : 0;
    }
}

/* Distinct passes of a lane's words: "0", "0,1" */
static void lane_passes(const explain_result *r, const explain_lane *ln, char *buf, size_t n)
{
    uint32_t seen = 0; /* passes below 32 as bits; more are listed as they come */
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < ln->n_words && o + 1 < n; k++) {
        uint32_t p = r->bank.words[ln->first_word + k].pass;
        if (p < 32 && (seen & (1u << p)))
            continue;
        if (p < 32)
            seen |= 1u << p;
        int c = snprintf(buf + o, n - o, "%s%u", o ? "," : "", p);
        o += c > 0 ? (size_t)c : 0;
    }
}

static bool lane_broadcast(const explain_result *r, const explain_lane *ln)
{
    if (!ln->n_words)
        return false;
    for (uint32_t k = 0; k < ln->n_words; k++)
        if (!r->bank.words[ln->first_word + k].repeat)
            return false;
    return true;
}

/* Lanes whose non-repeated words fall in the worst bank of phase p. */
static uint32_t worst_bank_lanes(const explain_result *r, uint32_t p)
{
    const smem_phase *ph = &r->bank.phases[p];
    uint32_t mask = 0;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        for (uint32_t k = 0; k < ln->n_words; k++) {
            const smem_word *w = &r->bank.words[ln->first_word + k];
            if (ln->phase == p && w->bank == ph->worst_bank && !w->repeat)
                mask |= 1u << l;
        }
    }
    return mask;
}

static uint32_t phase_lane_mask(const explain_result *r, uint32_t p)
{
    uint32_t mask = 0;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
        if (r->lanes[l].n_words && r->lanes[l].phase == p)
            mask |= 1u << l;
    return mask;
}

static uint64_t line_base(const explain_geom *g, const explain_result *r)
{
    return r->lowest_addr & ~(uint64_t)(g->coal.line_bytes - 1u);
}

static void table_lanes(FILE *f, const explain_geom *g, const explain_result *r)
{
    char banks[48], passes[48], bytes[16];
    fputc('\n', f);
    if (r->space == TRACE_SPACE_SHARED) {
        fprintf(f, "lane  offset       word   B  bank(s)      entry  phase  wavefront  note\n");
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
            const explain_lane *ln = &r->lanes[l];
            if (!ln->active) {
                fprintf(f, "%4u  (inactive)\n", l);
                continue;
            }
            lane_banks(r, ln, banks, sizeof banks);
            lane_passes(r, ln, passes, sizeof passes);
            fprintf(f, "%4u  0x%-9" PRIx64 "  %5" PRIu64 "  %2u  %-11s  %5" PRIu64 "  %5u  %9s%s\n", l, ln->addr,
                    ln->addr / g->banks.mode_bytes, r->size_bytes, banks, r->bank.words[ln->first_word].entry,
                    ln->phase, passes, lane_broadcast(r, ln) ? "  broadcast" : "");
        }
        char note[256];
        snprintf(note, sizeof note, "(word = offset / %u B; bank = word %% %u; entry = offset / %u B; wavefront 0 "
                 "is the first pass of the phase)", g->banks.mode_bytes, g->banks.banks, g->banks.phase_bytes);
        write_wrapped(f, note, "", " ");
        return;
    }
    bool local = r->space == TRACE_SPACE_LOCAL;
    if (local)
        fprintf(f, "lane  offset      B  interleaved   line  sector  bytes\n");
    else
        fprintf(f, "lane  address             offset   B  line  sector  bytes%s\n",
                r->banked ? "  bank(s)      phase  wavefront" : "");
    uint64_t base = line_base(g, r);
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        if (!ln->active) {
            fprintf(f, "%4u  (inactive)\n", l);
            continue;
        }
        uint32_t chunk = local ? (r->size_bytes >= 4 ? 4u : r->size_bytes) : r->size_bytes;
        snprintf(bytes, sizeof bytes, "%u-%u", ln->sector_offset, ln->sector_offset + chunk - 1u);
        if (local) {
            fprintf(f, "%4u  0x%-8" PRIx64 "  %2u  0x%-10" PRIx64 "  %4u  %6u  %5s\n", l, ln->addr, r->size_bytes,
                    ln->coal_addr, ln->line_index, ln->sector, bytes);
            continue;
        }
        fprintf(f, "%4u  0x%-16" PRIx64 "  %6" PRIu64 "  %2u  %4u  %6u  %5s", l, ln->addr, ln->addr - base,
                r->size_bytes, ln->line_index, ln->sector, bytes);
        if (r->banked) {
            lane_banks(r, ln, banks, sizeof banks);
            lane_passes(r, ln, passes, sizeof passes);
            fprintf(f, "  %-11s  %5u  %9s", banks, ln->phase, passes);
        }
        fputc('\n', f);
    }
    char note[256];
    if (local)
        snprintf(note, sizeof note, "(interleaved: the address of the lane's first 4-byte word in the warp's local "
                 "region; %s)", r->local_words > 1 ? "its other words lie 128 B apart" : "one word per lane");
    else
        snprintf(note, sizeof note, "(offset: from the start of the %u-B line of the lowest address; line: in "
                 "order of first touch; bytes: in the %u-B sector)", g->coal.line_bytes, g->coal.sector_bytes);
    write_wrapped(f, note, "", " ");
}

static void table_lines(FILE *f, const explain_geom *g, const explain_result *r)
{
    fprintf(f, "\nline  address             sectors touched  bytes used\n");
    for (uint32_t i = 0; i < r->coal.n_lines; i++) {
        const coal_line *cl = &r->coal.lines[i];
        char list[32];
        size_t o = 0;
        uint32_t used = 0, n = 0;
        list[0] = '\0';
        for (uint32_t s = 0; s < g->coal.sectors_per_line; s++) {
            if (!(cl->sector_mask & (1u << s)))
                continue;
            int c = snprintf(list + o, sizeof list - o, "%s%u", n ? "," : "", s);
            o += c > 0 ? (size_t)c : 0;
            used += (uint32_t)__builtin_popcount(cl->byte_mask[s]);
            n++;
        }
        fprintf(f, "%4u  0x%-16" PRIx64 "  %-15s  %u of %u\n", i, cl->line << g->coal.line_shift, list, used,
                n * g->coal.sector_bytes);
    }
}

static void table_phases(FILE *f, const explain_result *r)
{
    fprintf(f, "\nphase  lanes          active  wavefronts  worst bank  its distinct entries (lanes)\n");
    for (uint32_t p = 0; p < r->bank.n_phases; p++) {
        const smem_phase *ph = &r->bank.phases[p];
        char lanes[160], worst[160];
        uint32_t first = ph->group * r->lanes_per_phase;
        if (r->lanes_per_phase == 1)
            snprintf(lanes, sizeof lanes, "%u", first);
        else
            snprintf(lanes, sizeof lanes, "%u-%u", first, first + r->lanes_per_phase - 1u);
        uint32_t active = (uint32_t)__builtin_popcount(phase_lane_mask(r, p));
        if (ph->wavefronts == 1) {
            fprintf(f, "%5u  %-13s  %6u  %10u  %10s  at most 1 in every bank\n", p, lanes, active, 1u, "-");
            continue;
        }
        explain_lane_list(worst_bank_lanes(r, p), worst, sizeof worst);
        fprintf(f, "%5u  %-13s  %6u  %10u  %10u  %u (%s)\n", p, lanes, active, ph->wavefronts, ph->worst_bank,
                ph->wavefronts, worst);
    }
}

static void table_execution(FILE *f, const options *o, const explain_geom *g, const launch_data *d,
                            const found_exec *ex, const explain_result *r, uint64_t execs1, const stats *s1,
                            const char *why)
{
    const gpu_pc_stats *p = &d->pcs[ex->pc_index];
    char where[192], pc[16], num[40];
    where_of(d, p->pc, where, sizeof where);
    pc_text(p->pc, pc, sizeof pc);
    report_thousands(num, sizeof num, p->executions);
    if (pc_sass(d, p->pc)[0])
        fprintf(f, "\n-- %s  %s  (%s)\n", pc, pc_sass(d, p->pc), where);
    else
        fprintf(f, "\n-- %s  (the trace has no SASS%s for this PC)\n", pc, pc_file(d, p->pc) ? "" : " or source line");
    fprintf(f, "   %s, %u B per lane, %u of 32 lanes active (mask 0x%08x)\n", access_name(r), r->size_bytes,
            r->active_lanes, r->active_mask);
    if (o->have_warp)
        fprintf(f, "   CTA %u warp %u: its first execution (%s in all, over every warp)\n", ex->mem.cta,
                ex->mem.warp, num);
    else if (p->executions == 1)
        fprintf(f, "   CTA %u warp %u: the only execution\n", ex->mem.cta, ex->mem.warp);
    else
        fprintf(f, "   CTA %u warp %u: the first of %s executions in capture order (--warp CTA:WARP for "
                "another)\n", ex->mem.cta, ex->mem.warp, num);
    if (r->coalesced || r->banked)
        table_lanes(f, g, r);
    if (r->coalesced)
        table_lines(f, g, r);
    if (r->banked)
        table_phases(f, r);

    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    fputs("\nthis execution in the source view (the model, from this record alone):\n", f);
    for (size_t c = 0; c < ncols; c++) {
        double v = source_view_value(c, execs1, s1);
        if (v == 0 && c != 0)
            continue;
        value_text(v, cols[c].per_execution, true, num, sizeof num);
        fprintf(f, "  %-42s %10s\n", cols[c].name, num);
    }
    fputs("\nwhy:\n", f);
    char line[1024];
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        write_wrapped(f, line, "  ", "    ");
        q += len + (q[len] == '\n');
    }
}

static void csv_lanes_header(FILE *f)
{
    fputs("launch,pc,cta,warp,lane,active,address,bytes,line,line_address,sector,sector_offset,phase,banks,"
          "entries,wavefronts,broadcast\n", f);
}

static void csv_execution(FILE *f, const explain_geom *g, const launch_data *d, const found_exec *ex,
                          const explain_result *r, const char *why)
{
    char pc[16];
    pc_text(d->pcs[ex->pc_index].pc, pc, sizeof pc);
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        fprintf(f, "# why %s: %.*s\n", pc, (int)len, q);
        q += len + (q[len] == '\n');
    }
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        fprintf(f, "%u,%s,%u,%u,%u,%d,", d->k.launch, pc, ex->mem.cta, ex->mem.warp, l, ln->active);
        if (!ln->active) {
            fputs(",,,,,,,,,,\n", f);
            continue;
        }
        fprintf(f, "0x%" PRIx64 ",%u,", ln->addr, r->size_bytes);
        if (r->coalesced)
            fprintf(f, "%u,0x%" PRIx64 ",%u,%u,", ln->line_index,
                    r->coal.lines[ln->line_index].line << g->coal.line_shift, ln->sector, ln->sector_offset);
        else
            fputs(",,,,", f);
        if (r->banked) {
            fprintf(f, "%u,", ln->phase);
            for (int part = 0; part < 3; part++) {
                fputc('"', f);
                for (uint32_t k = 0; k < ln->n_words; k++) {
                    const smem_word *w = &r->bank.words[ln->first_word + k];
                    if (part == 0)
                        fprintf(f, "%s%u", k ? " " : "", w->bank);
                    else if (part == 1)
                        fprintf(f, "%s%" PRIu64, k ? " " : "", w->entry);
                    else
                        fprintf(f, "%s%u", k ? " " : "", w->pass);
                }
                fputs("\",", f);
            }
            fprintf(f, "%d\n", lane_broadcast(r, ln));
        } else {
            fputs(",,,,\n", f);
        }
    }
}

static void json_execution(FILE *f, const explain_geom *g, const launch_data *d, const found_exec *ex,
                           const explain_result *r, uint64_t execs1, const stats *s1, const char *why, bool first)
{
    const gpu_pc_stats *p = &d->pcs[ex->pc_index];
    char pc[16];
    pc_text(p->pc, pc, sizeof pc);
    fprintf(f, "%s\n    {\"pc\": \"%s\", \"sass\": ", first ? "" : ",", pc);
    report_json_string(f, pc_sass(d, p->pc));
    fputs(", ", f);
    json_where(f, d, p->pc);
    fprintf(f, ",\n     \"access\": \"%s\", \"space\": \"%s\", \"kind\": \"%s\", \"size_bytes\": %u, "
            "\"active_mask\": \"0x%08x\",\n     \"cta\": %u, \"warp\": %u, \"executions_of_pc\": %" PRIu64 ",\n",
            access_name(r), trace_space_name(r->space), trace_kind_name(r->kind), r->size_bytes, r->active_mask,
            ex->mem.cta, ex->mem.warp, p->executions);
    fputs("     \"source_view\": ", f);
    json_source_view(f, execs1, s1);
    fputs(",\n     \"lanes\": [", f);
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        fprintf(f, "%s\n       {\"lane\": %u, \"active\": %s", l ? "," : "", l, ln->active ? "true" : "false");
        if (ln->active) {
            fprintf(f, ", \"address\": \"0x%" PRIx64 "\"", ln->addr);
            if (r->coalesced)
                fprintf(f, ", \"coalescer_address\": \"0x%" PRIx64 "\", \"line\": %u, \"sector\": %u, "
                        "\"sector_offset\": %u", ln->coal_addr, ln->line_index, ln->sector, ln->sector_offset);
            if (r->banked) {
                fprintf(f, ", \"phase\": %u, \"words\": [", ln->phase);
                for (uint32_t k = 0; k < ln->n_words; k++) {
                    const smem_word *w = &r->bank.words[ln->first_word + k];
                    fprintf(f, "%s{\"bank\": %u, \"entry\": %" PRIu64 ", \"wavefront\": %u, \"broadcast\": %s}",
                            k ? ", " : "", w->bank, w->entry, w->pass, w->repeat ? "true" : "false");
                }
                fputc(']', f);
            }
        }
        fputc('}', f);
    }
    fputs("\n     ]", f);
    if (r->coalesced) {
        fputs(",\n     \"lines\": [", f);
        for (uint32_t i = 0; i < r->coal.n_lines; i++) {
            const coal_line *cl = &r->coal.lines[i];
            fprintf(f, "%s{\"line\": %u, \"address\": \"0x%" PRIx64 "\", \"sectors\": [", i ? ", " : "", i,
                    cl->line << g->coal.line_shift);
            uint32_t n = 0, used = 0;
            for (uint32_t s = 0; s < g->coal.sectors_per_line; s++)
                if (cl->sector_mask & (1u << s)) {
                    fprintf(f, "%s%u", n++ ? ", " : "", s);
                    used += (uint32_t)__builtin_popcount(cl->byte_mask[s]);
                }
            fprintf(f, "], \"bytes_used\": %u}", used);
        }
        fprintf(f, "],\n     \"coalescing\": {\"lines\": %u, \"sectors\": %u, \"requested_bytes\": %u, "
                "\"distinct_bytes\": %u, \"ideal_sectors\": %u, \"excessive_sectors\": %u, \"tag_wavefronts\": %u}",
                r->coal.n_lines, r->coal.n_sectors, r->requested_bytes, r->distinct_bytes, r->ideal_sectors,
                r->excessive_sectors, r->tag_wavefronts);
    }
    if (r->banked) {
        fputs(",\n     \"phases\": [", f);
        for (uint32_t ph = 0; ph < r->bank.n_phases; ph++) {
            const smem_phase *x = &r->bank.phases[ph];
            char lanes[160];
            explain_lane_list(worst_bank_lanes(r, ph), lanes, sizeof lanes);
            fprintf(f, "%s{\"phase\": %u, \"first_lane\": %u, \"lanes\": %u, \"active\": %u, \"wavefronts\": %u, "
                    "\"worst_bank\": %u, \"worst_bank_lanes\": \"%s\"}", ph ? ", " : "", ph,
                    x->group * r->lanes_per_phase, r->lanes_per_phase,
                    (uint32_t)__builtin_popcount(phase_lane_mask(r, ph)), x->wavefronts, x->worst_bank, lanes);
        }
        fprintf(f, "],\n     \"banks\": {\"lanes_per_phase\": %u, \"merged\": %s, \"serialized\": %s, "
                "\"wavefronts\": %u, \"ideal\": %u", r->lanes_per_phase, r->merged ? "true" : "false",
                r->serialized ? "true" : "false", r->bank.cost.wavefronts, r->bank.cost.ideal);
        if (r->space == TRACE_SPACE_GLOBAL)
            fprintf(f, ", \"ideal_if_miss\": %u", r->data_ideal_if_miss);
        fputc('}', f);
    }
    fputs(",\n     \"why\": [", f);
    bool first_w = true;
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        fputs(first_w ? "\n       " : ",\n       ", f);
        first_w = false;
        report_json_string(f, line);
        q += len + (q[len] == '\n');
    }
    fputs("]}", f);
}

/* ---- the command ------------------------------------------------------------------- */

static void write_head(FILE *f, const options *o, const cfg_gpu *cfg)
{
    if (o->fmt == REPORT_JSON) {
        fputs("{\n  \"gpumemsim\": ", f);
        report_json_string(f, GMS_VERSION);
        fputs(",\n  \"command\": \"explain\",\n  \"config_file\": ", f);
        report_json_string(f, o->config_path);
        fputs(",\n  \"gpu\": ", f);
        report_json_string(f, cfg->name);
        fputs(",\n  \"trace\": ", f);
        report_json_string(f, o->trace);
        return;
    }
    fprintf(f, "# gpumemsim %s explain\n# config: %s (%s: %u banks x %u B, %u-B words; %u-B lines of %u-B "
            "sectors)\n# trace: %s\n", GMS_VERSION, o->config_path, cfg->name, cfg->smem_banks, cfg->smem_bank_bytes,
            cfg->smem_bank_mode_bytes, cfg->l1_line_bytes, cfg->l1_sector_bytes, o->trace);
}

static int explain_lanes(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err)
{
    const launch_data *d = NULL;
    for (uint32_t i = 0; i < c->n && !d; i++)
        if (c->launches[i].n_selected)
            d = &c->launches[i];
    if (o->have_warp) {
        uint64_t ctas = trace_kernel_ctas(&d->k);
        uint32_t warps = trace_kernel_warps_per_cta(&d->k);
        if (o->cta >= ctas || o->warp >= warps) {
            err_set(err, "%s: --warp %u:%u: launch %u has CTAs 0..%" PRIu64 " of warps 0..%u", o->trace, o->cta,
                    o->warp, d->k.launch, ctas - 1u, warps - 1u);
            return -1;
        }
    }
    found_exec *ex = xcalloc((size_t)d->n_selected, sizeof *ex);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_pcs; i++)
        if (d->selected[i])
            ex[n++].pc_index = i;
    if (find_executions(o, d, ex, n, err) != 0) {
        free(ex);
        return -1;
    }
    uint32_t found = 0;
    for (uint32_t i = 0; i < n; i++)
        found += ex[i].found;
    if (found == 0) {
        char what[600];
        if (o->have_pc)
            snprintf(what, sizeof what, "PC 0x%04x", o->pc);
        else
            snprintf(what, sizeof what, "the memory instructions of %s:%u", o->line_file, o->line);
        err_set(err, "%s: --warp %u:%u: CTA %u warp %u never executed %s in launch %u", o->trace, o->cta, o->warp,
                o->cta, o->warp, what, d->k.launch);
        free(ex);
        return -1;
    }

    explain_geom g;
    explain_geom_init(&g, cfg);
    explain_result *r = xmalloc(sizeof *r);
    char *why = xmalloc(8192);
    gpu *model = gpu_create(cfg);
    write_head(f, o, cfg);
    if (o->fmt == REPORT_TABLE) {
        fprintf(f, "\n== launch %u: %s\n", d->k.launch, d->k.demangled);
    } else if (o->fmt == REPORT_CSV) {
        csv_lanes_header(f);
    } else {
        fputs(",\n  ", f);
        json_launch_head(f, d);
        fputs(",\n  \"executions\": [", f);
    }
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        if (!ex[i].found) {
            if (o->fmt == REPORT_TABLE)
                fprintf(f, "\n-- 0x%04x  %s: not executed by CTA %u warp %u\n", d->pcs[ex[i].pc_index].pc,
                        pc_sass(d, d->pcs[ex[i].pc_index].pc), o->cta, o->warp);
            continue;
        }
        explain_mem(&g, &ex[i].mem, r);
        explain_why(&g, r, why, 8192);
        uint64_t execs1;
        stats s1;
        one_execution(model, &d->k, &ex[i].mem, &execs1, &s1);
        if (o->fmt == REPORT_TABLE)
            table_execution(f, o, &g, d, &ex[i], r, execs1, &s1, why);
        else if (o->fmt == REPORT_CSV)
            csv_execution(f, &g, d, &ex[i], r, why);
        else
            json_execution(f, &g, d, &ex[i], r, execs1, &s1, why, first);
        first = false;
    }
    if (o->fmt == REPORT_JSON)
        fputs("\n  ]\n}\n", f);
    gpu_destroy(model);
    free(why);
    free(r);
    free(ex);
    return 0;
}

static void explain_source_view(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c)
{
    write_head(f, o, cfg);
    if (o->fmt == REPORT_CSV)
        fputs("launch,kernel,row,file,line,pc,sass,origin,metric,value\n", f);
    else if (o->fmt == REPORT_JSON)
        fputs(",\n  \"launches\": [", f);
    bool first = true;
    for (uint32_t i = 0; i < c->n; i++) {
        const launch_data *d = &c->launches[i];
        if ((o->have_pc || o->have_line) && !d->n_selected)
            continue;
        if (o->fmt == REPORT_TABLE)
            table_launch(f, o, d);
        else if (o->fmt == REPORT_CSV)
            csv_launch(f, d);
        else
            json_launch(f, d, first);
        first = false;
    }
    if (o->fmt == REPORT_JSON)
        fputs("\n  ]\n}\n", f);
}

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
    collected c = {.opt = &o};
    if (replay_trace(o.trace, &cfg, &o.replay, collect, &c, &err) != 0 || select_pcs(&c, &o, &err) != 0) {
        free_collected(&c);
        return cmd_fail("%s", err.msg);
    }
    FILE *out = stdout;
    if (o.out_path && !(out = fopen(o.out_path, "w"))) {
        free_collected(&c);
        return cmd_fail("explain: cannot create %s", o.out_path);
    }
    rc = 0;
    if (o.lanes) {
        if (explain_lanes(out, &o, &cfg, &c, &err) != 0)
            rc = cmd_fail("%s", err.msg);
    } else {
        explain_source_view(out, &o, &cfg, &c);
    }
    free_collected(&c);
    if (out != stdout && fclose(out) != 0 && rc == 0)
        return cmd_fail("explain: writing %s failed", o.out_path);
    if (out == stdout && fflush(stdout) != 0 && rc == 0)
        return cmd_fail("explain: writing standard output failed");
    return rc;
}

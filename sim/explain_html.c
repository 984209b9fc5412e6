/* explain_html.c - `gpumemsim explain --format html`: the source view and the
 * lane-by-lane view of the selected launches on one self-contained page for
 * teaching (inline CSS, no script, no external asset: it reads the same in
 * any browser, offline).
 *
 * Per launch: the kernel, its grid and block; the tables of the source view
 * (the rows explain_source.c prints, from the same functions: ex_sorted_lines,
 * ex_class_line_sum, source_view_value) with a heat colour on the excessive
 * sectors, excessive wavefronts and N-way conflicts, and the recorded CUDA
 * source line beside each line when its file can be read (--source-dir DIR
 * looks for it by its last path components); the model's cache counters;
 * then, for at most --max-lanes-views memory instructions, their first
 * execution (or that of --warp) drawn as a 32-lane grid from
 * model/explain.h's decomposition, with its lines or phases and the "why"
 * text. Instructions beyond the limit are listed by name, never dropped.
 *
 * Bounds: the launches and instructions explain keeps at all
 * (EXPLAIN_MAX_KEPT_*), at most EXPLAIN_HTML_LANES_TOTAL lane views in the
 * report, source files of at most EXPLAIN_HTML_SOURCE_MAX_BYTES, source
 * lines cut at SOURCE_LINE_SHOWN bytes. No number is computed here: colours
 * are derived from the numbers shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "explain.h"
#include "explain_int.h"
#include "source_view.h"
#include "version.h"

#define SOURCE_LINE_SHOWN 300u  /* bytes of one source line shown; more is cut with an ellipsis */
#define SOURCE_SUFFIX_MAX 16u   /* path components tried under --source-dir */
#define PALETTE 8u              /* colours of lines and wavefronts; they repeat beyond (labels do not) */
#define WHY_BYTES 8192u

/* ---- escaping ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (at most len bytes), 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* Write len bytes of s as HTML text: markup characters escaped, control
 * characters (but tab and newline) and invalid UTF-8 as U+FFFD, so that no input can open a tag,
 * end an attribute or break the page's encoding. */
static void html_text_n(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        switch (c) {
        case '&': fputs("&amp;", f); i++; continue;
        case '<': fputs("&lt;", f); i++; continue;
        case '>': fputs("&gt;", f); i++; continue;
        case '"': fputs("&quot;", f); i++; continue;
        case '\'': fputs("&#39;", f); i++; continue;
        default: break;
        }
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
            fputs("&#xfffd;", f);
            i++;
            continue;
        }
        size_t n = utf8_sequence(p + i, len - i);
        if (n == 0) {
            fputs("&#xfffd;", f);
            i++;
            continue;
        }
        fwrite(p + i, 1, n, f);
        i += n;
    }
}

static void html_text(FILE *f, const char *s)
{
    html_text_n(f, s, strlen(s));
}

/* ---- source files -------------------------------------------------------------------- */

typedef struct source_file {
    bool tried;
    char *text;           /* the whole file, or NULL when it cannot be shown */
    size_t size;
    uint32_t n_lines;
    size_t *line_start;   /* [n_lines]: byte offset of each line */
    char *shown_path;     /* where it was read */
    char *why;            /* when text is NULL: why */
} source_file;

/* Read path whole if it is a regular text file of at most the limit. Returns
 * 0, or -1 with *why set (errno's text, "too large", "not a text file"). */
static int read_source(const char *path, source_file *sf, const char **why)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        *why = strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(in);
        *why = "not a regular file";
        return -1;
    }
    if ((uint64_t)st.st_size > EXPLAIN_HTML_SOURCE_MAX_BYTES) {
        fclose(in);
        *why = "larger than the 16 MiB a source file may have here";
        return -1;
    }
    size_t size = (size_t)st.st_size;
    char *text = xmalloc(size + 1u);
    size_t got = fread(text, 1, size, in);
    fclose(in);
    if (got != size) {
        free(text);
        *why = "read error";
        return -1;
    }
    text[size] = '\0';
    if (memchr(text, '\0', size)) {
        free(text);
        *why = "not a text file (it holds NUL bytes)";
        return -1;
    }
    uint32_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += text[i] == '\n' && i + 1 < size;
    sf->line_start = xmalloc((size_t)n * sizeof *sf->line_start);
    sf->line_start[0] = 0;
    n = 1;
    for (size_t i = 0; i < size; i++)
        if (text[i] == '\n' && i + 1 < size)
            sf->line_start[n++] = i + 1;
    sf->n_lines = size ? n : 0;
    sf->text = text;
    sf->size = size;
    return 0;
}

static char *path_join(const char *dir, const char *rest)
{
    size_t n = strlen(dir) + strlen(rest) + 2u;
    char *p = xmalloc(n);
    snprintf(p, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", rest);
    return p;
}

/* Find the recorded file: under --source-dir by its last path components
 * (the longest suffix first, never one with a "." or ".." component), then
 * at the recorded path itself. */
static void load_source(const options *o, const char *recorded, source_file *sf)
{
    sf->tried = true;
    const char *why = NULL;
    if (o->source_dir) {
        const char *starts[SOURCE_SUFFIX_MAX];
        uint32_t n = 0;
        for (const char *p = recorded + strlen(recorded); p > recorded && n < SOURCE_SUFFIX_MAX; p--)
            if (p[-1] == '/' && p[0])
                starts[n++] = p;
        if (n < SOURCE_SUFFIX_MAX && recorded[0] && recorded[0] != '/')
            starts[n++] = recorded;
        for (uint32_t i = n; i-- > 0;) { /* longest suffix first */
            const char *s = starts[i];
            if (strstr(s, "/../") || strstr(s, "/./") || strncmp(s, "../", 3) == 0 || strncmp(s, "./", 2) == 0)
                continue;
            char *path = path_join(o->source_dir, s);
            if (read_source(path, sf, &why) == 0) {
                sf->shown_path = path;
                return;
            }
            free(path);
        }
    }
    if (read_source(recorded, sf, &why) == 0) {
        sf->shown_path = xstrdup(recorded);
        return;
    }
    size_t n = strlen(recorded) + strlen(why) + 256u + (o->source_dir ? strlen(o->source_dir) : 0u);
    sf->why = xmalloc(n);
    if (o->source_dir)
        snprintf(sf->why, n, "%s: not found under --source-dir %s by its last path components, and the recorded "
                 "path cannot be read (%s)", recorded, o->source_dir, why);
    else
        snprintf(sf->why, n, "%s cannot be read (%s); --source-dir DIR looks for it under DIR by its last path "
                 "components", recorded, why);
}

static void free_sources(source_file *sf, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        free(sf[i].text);
        free(sf[i].line_start);
        free(sf[i].shown_path);
        free(sf[i].why);
    }
    free(sf);
}

/* The source file of pc, loaded on first use; NULL when the trace names none. */
static source_file *source_of(const options *o, const launch_data *d, source_file *files, uint32_t pc)
{
    const trace_pc_info *p = ex_pc_info(d, pc);
    if (!p || !ex_pc_file(d, pc))
        return NULL;
    source_file *sf = &files[p->file];
    if (!sf->tried)
        load_source(o, d->k.files[p->file], sf);
    return sf;
}

/* The text of line (1-based) as an HTML <code>, cut at SOURCE_LINE_SHOWN bytes. */
static void source_line_html(FILE *f, const source_file *sf, uint32_t line)
{
    if (!sf || !sf->text)
        return;
    if (line == 0 || line > sf->n_lines) {
        fprintf(f, "<span class=\"note\">(line %u is past the end of the file, %u lines: not the file that "
                "was compiled?)</span>", line, sf->n_lines);
        return;
    }
    const char *s = sf->text + sf->line_start[line - 1];
    size_t len = strcspn(s, "\n");
    if (len && s[len - 1] == '\r')
        len--;
    size_t shown = len;
    if (shown > SOURCE_LINE_SHOWN) {
        shown = SOURCE_LINE_SHOWN;
        while (shown > 0 && ((unsigned char)s[shown] & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
            shown--;
    }
    fputs("<code>", f);
    html_text_n(f, s, shown);
    fputs(shown < len ? "&#x2026;</code>" : "</code>", f);
}

/* ---- heat ------------------------------------------------------------------------------ */

/* 0 (no excess) to 5 by the share of the cost that is excessive: a column
 * "X Excessive" against its total "X"; the N-way column (wavefronts per
 * execution) by the share of excessive wavefronts, since an LDS.128 needs
 * 2 per execution without any conflict. */
static int heat_level(size_t col, uint64_t execs, const stats *s)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    const char *name = cols[col].name;
    double v = source_view_value(col, execs, s), share = 0;
    size_t len = strlen(name);
    static const char excessive[] = " Excessive";
    if (len > sizeof excessive - 1 && strcmp(name + len - (sizeof excessive - 1), excessive) == 0) {
        char total[96];
        snprintf(total, sizeof total, "%.*s", (int)(len - (sizeof excessive - 1)), name);
        int t = source_view_find(total);
        double tv = t >= 0 ? source_view_value((size_t)t, execs, s) : 0;
        share = tv > 0 ? v / tv : 0;
    } else if (strcmp(name, "L1 Conflicts Shared N-Way") == 0) {
        int x = source_view_find("L1 Wavefronts Shared Excessive"), t = source_view_find("L1 Wavefronts Shared");
        double tv = x >= 0 && t >= 0 ? source_view_value((size_t)t, execs, s) : 0;
        share = tv > 0 ? source_view_value((size_t)x, execs, s) / tv : 0;
    }
    if (share <= 0)
        return 0;
    int level = 1 + (int)(share * 5);
    return level > 5 ? 5 : level;
}

/* ---- page head and legend ------------------------------------------------------------ */

static const char page_style[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#111;background:#fff;max-width:110em}\n"
    "h1{font-size:1.5em}h2{font-size:1.25em;border-top:2px solid #888;padding-top:.5em;margin-top:2em}\n"
    "h3{font-size:1.1em;margin-top:1.5em}h4{font-size:1em;margin:1.2em 0 .3em}\n"
    "code{font-family:ui-monospace,monospace;font-size:.92em}\n"
    "table{border-collapse:collapse;margin:.4em 0 .8em}\n"
    "th,td{border:1px solid #bbb;padding:.15em .45em;vertical-align:top}\n"
    "thead th{background:#eee;font-weight:600;font-size:.85em}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.line>*{background:#f4f4f4;font-weight:600}tr.line td.src{font-weight:normal}\n"
    "td.src code{white-space:pre}\n"
    ".note{color:#555;font-size:.9em}.meta{color:#333}\n"
    ".h1{background:#fff3c4!important}.h2{background:#ffe08a!important}.h3{background:#ffbf69!important}\n"
    ".h4{background:#ff8a5c!important}.h5{background:#e8505b!important;color:#fff}\n"
    "table.grid td{width:5.2em;height:2.6em;text-align:center;font-size:.8em;line-height:1.25}\n"
    "table.grid td b{display:block;font-size:.8em;color:#333}\n"
    "td.off{background:repeating-linear-gradient(45deg,#eee,#eee 4px,#fff 4px,#fff 8px);color:#888}\n"
    ".c0{background:#9ecae1}.c1{background:#fdae6b}.c2{background:#a1d99b}.c3{background:#bcbddc}\n"
    ".c4{background:#fdd0a2}.c5{background:#c7e9c0}.c6{background:#fcbba1}.c7{background:#d9d9d9}\n"
    ".w0{background:#c6dbef}.w1{background:#fc9272}.w2{background:#fdd49e}.w3{background:#a1d99b}\n"
    ".w4{background:#dadaeb}.w5{background:#f768a1}.w6{background:#fee391}.w7{background:#9e9ac8}\n"
    "span.sw{display:inline-block;width:1.2em;height:.9em;border:1px solid #888;vertical-align:middle}\n"
    "article.exec{border-left:4px solid #ccc;padding-left:.8em;margin:1.2em 0}\n"
    ".why p{margin:.25em 0}\n";

static void write_head(FILE *f, const options *o, const cfg_gpu *cfg)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>gpumemsim explain: ",
          f);
    html_text(f, o->trace);
    fputs("</title>\n<style>\n", f);
    fputs(page_style, f);
    fputs("</style>\n</head>\n<body>\n<h1>What each memory access costs, and why</h1>\n<p class=\"meta\">gpumemsim ",
          f);
    html_text(f, GMS_VERSION);
    fputs(" explain; config <code>", f);
    html_text(f, o->config_path);
    fputs("</code> (", f);
    html_text(f, cfg->name);
    fprintf(f, ": %u banks &#xd7; %u B, %u-B words; %u-B lines of %u-B sectors); trace <code>", cfg->smem_banks,
            cfg->smem_bank_bytes, cfg->smem_bank_mode_bytes, cfg->l1_line_bytes, cfg->l1_sector_bytes);
    html_text(f, o->trace);
    fputs("</code></p>\n", f);
}

static void write_legend(FILE *f, const options *o)
{
    fputs("<details open>\n<summary>How to read this page</summary>\n"
          "<p>The <b>source view</b> has the columns of Nsight Compute&#39;s source page (<code>ncu --page "
          "source</code>) under ncu&#39;s names, per source line (its memory instructions summed) and per SASS "
          "instruction; they follow from the addresses alone. The <b>model counters</b> depend on the caches; ncu "
          "has them per kernel only.</p>\n<p>Heat on the costly columns, by the share of the cost that is excessive "
          "(excessive sectors or wavefronts against their total; the N-way column like its excessive wavefronts, "
          "since an LDS.128 needs 2 wavefronts without a conflict): "
          "<span class=\"sw h1\"></span> under 20&#xa0;% <span class=\"sw h2\"></span> 20&#x2013;40&#xa0;% "
          "<span class=\"sw h3\"></span> 40&#x2013;60&#xa0;% (a 2-way conflict) <span class=\"sw h4\"></span> "
          "60&#x2013;80&#xa0;% (4-way) <span class=\"sw h5\"></span> 80&#xa0;% and more; no colour: no excess."
          "</p>\n<p><b>Lane by lane</b>: one execution of an instruction, its 32 lanes in rows of 8. Global and "
          "local memory: each lane shows the 128-B line (L0, L1, ... in order of first touch) and the 32-B sector "
          "(s0&#x2013;s3) its first byte falls in, coloured by line. Shared memory: each lane shows its bank(s) "
          "(b) and the wavefront that serves it (w0 is the first pass of its phase), coloured by wavefront. A "
          "striped lane is inactive. Hover over a lane for its address.</p>\n", f);
    fprintf(f, "<p class=\"note\">Limits: lane views for at most %u memory instructions per launch "
            "(<code>--max-lanes-views N</code>, at most %u) and %u in the report; the rest are listed by name. "
            "Source lines are cut at %u bytes; source files over 16 MiB are not read.</p>\n</details>\n",
            o->max_lanes_views, EXPLAIN_HTML_LANES_MAX, EXPLAIN_HTML_LANES_TOTAL, SOURCE_LINE_SHOWN);
}

/* ---- the source view ------------------------------------------------------------------ */

static void view_id(char *buf, size_t n, const launch_data *d, uint32_t pc)
{
    snprintf(buf, n, "v%u-%04x", d->k.launch, pc);
}

static void class_html(FILE *f, const options *o, const launch_data *d, const line_key *keys, uint32_t n_keys,
                       pc_class cls, source_file *files, const bool *drawn)
{
    const class_table *t = &ex_class_tables[cls];
    bool any = false;
    for (uint32_t i = 0; i < n_keys && !any; i++)
        any = ex_in_class(&d->pcs[keys[i].idx].s, cls);
    if (!any)
        return;
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    int ci[5];
    fprintf(f, "<table class=\"sv\" data-class=\"%s\">\n<caption>", t->title);
    html_text(f, t->title);
    fputs("</caption>\n<thead><tr><th>line / PC</th><th>SASS</th>", f);
    for (int j = 0; j < t->n; j++) {
        ci[j] = ex_column_index(t->columns[j]);
        fputs("<th title=\"", f);
        html_text(f, cols[ci[j]].what);
        fputs("\">", f);
        html_text(f, cols[ci[j]].name);
        fputs("</th>", f);
    }
    fputs("<th>source</th></tr></thead>\n<tbody>\n", f);
    char num[40], where[192], pc[16];
    for (uint32_t i = 0; i < n_keys;) {
        uint32_t j = ex_line_end(keys, n_keys, i);
        stats sum;
        uint64_t execs;
        if (ex_class_line_sum(d, keys, i, j, cls, &sum, &execs)) {
            uint32_t first_pc = d->pcs[keys[i].idx].pc;
            ex_where_of(d, first_pc, where, sizeof where);
            fputs("<tr class=\"line\"><th scope=\"row\">", f);
            html_text(f, where);
            fputs("</th><td></td>", f);
            for (int c = 0; c < t->n; c++) {
                ex_value_text(source_view_value((size_t)ci[c], execs, &sum), cols[ci[c]].per_execution, true, num,
                              sizeof num);
                int h = heat_level((size_t)ci[c], execs, &sum);
                fprintf(f, "<td class=\"n%s%.0d\">%s</td>", h ? " h" : "", h, num);
            }
            fputs("<td class=\"src\">", f);
            source_line_html(f, source_of(o, d, files, first_pc), ex_pc_line(d, first_pc));
            fputs("</td></tr>\n", f);
            for (uint32_t k = i; k < j; k++) {
                const gpu_pc_stats *p = &d->pcs[keys[k].idx];
                if (!ex_in_class(&p->s, cls))
                    continue;
                ex_pc_text(p->pc, pc, sizeof pc);
                fprintf(f, "<tr class=\"pc\" data-pc=\"%s\"><td>", pc);
                if (drawn[keys[k].idx]) {
                    char id[48];
                    view_id(id, sizeof id, d, p->pc);
                    fprintf(f, "<a href=\"#%s\">%s</a>", id, pc);
                } else {
                    fputs(pc, f);
                }
                fputs("</td><td><code>", f);
                html_text(f, ex_pc_sass(d, p->pc));
                fputs("</code></td>", f);
                for (int c = 0; c < t->n; c++) {
                    ex_value_text(source_view_value((size_t)ci[c], p->executions, &p->s), cols[ci[c]].per_execution,
                                  true, num, sizeof num);
                    int h = heat_level((size_t)ci[c], p->executions, &p->s);
                    fprintf(f, "<td class=\"n%s%.0d\">%s</td>", h ? " h" : "", h, num);
                }
                fputs("<td></td></tr>\n", f);
            }
        }
        i = j;
    }
    fputs("</tbody>\n</table>\n", f);
}

static void counters_html(FILE *f, const launch_data *d, const line_key *keys, uint32_t n_keys)
{
    bool any = false;
    for (uint32_t i = 0; i < n_keys && !any; i++)
        any = ex_has_counters(&d->pcs[keys[i].idx].s);
    if (!any)
        return;
    fputs("<table class=\"mc\">\n<caption>model counters: kernel-level ncu metrics attributed by the model to each "
          "instruction (they depend on the caches)</caption>\n<thead><tr><th>PC</th><th>SASS</th><th>line</th>", f);
    for (int g = 0; g < EX_N_COUNTER_GROUPS; g++) {
        fputs("<th title=\"", f);
        html_text(f, ex_counter_groups[g].metrics);
        fputs("\">", f);
        html_text(f, ex_counter_groups[g].head);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (uint32_t i = 0; i < n_keys; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        if (!ex_has_counters(&p->s))
            continue;
        char pc[16], where[192], num[40];
        ex_pc_text(p->pc, pc, sizeof pc);
        ex_where_of(d, p->pc, where, sizeof where);
        fprintf(f, "<tr data-pc=\"%s\"><td>%s</td><td><code>", pc, pc);
        html_text(f, ex_pc_sass(d, p->pc));
        fputs("</code></td><td>", f);
        html_text(f, where);
        fputs("</td>", f);
        for (int g = 0; g < EX_N_COUNTER_GROUPS; g++) {
            report_thousands(num, sizeof num, ex_group_value(&ex_counter_groups[g], &p->s));
            fprintf(f, "<td class=\"n\">%s</td>", num);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n<p class=\"note\">Columns: sums of the ncu metrics named in each header&#39;s "
          "tooltip.</p>\n", f);
}

/* ---- finding the executions: one pass over the trace for every launch -------------- */

typedef struct launch_views {
    found_exec *ex;      /* the instructions drawn, ascending PC */
    uint32_t n_ex;
    bool *drawn;         /* [n_pcs]: has a lane view */
} launch_views;

static found_exec *find_exec(launch_views *v, uint32_t pc, const launch_data *d)
{
    uint32_t lo = 0, hi = v->n_ex;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        uint32_t mp = d->pcs[v->ex[mid].pc_index].pc;
        if (mp == pc)
            return &v->ex[mid];
        if (mp < pc)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return NULL;
}

static int find_all_executions(const options *o, const collected *c, launch_views *views, uint64_t missing,
                               err_info *err)
{
    if (missing == 0)
        return 0;
    trace_reader_options ropt = {.allow_incomplete = o->replay.allow_incomplete};
    trace_reader *r = trace_reader_open(o->trace, &ropt, err);
    if (!r)
        return -1;
    trace_event ev;
    int got = 1;
    uint32_t cur = UINT32_MAX; /* index into c->launches of the launch being read */
    while (missing && (got = trace_reader_next(r, &ev, err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            cur = UINT32_MAX;
            for (uint32_t i = 0; i < c->n; i++)
                if (c->launches[i].k.launch == ev.kernel->launch && views[i].n_ex)
                    cur = i;
            continue;
        }
        if (cur == UINT32_MAX || ev.type != TRACE_EV_MEM)
            continue;
        if (o->have_warp && (ev.mem.cta != o->cta || ev.mem.warp != o->warp))
            continue;
        found_exec *x = find_exec(&views[cur], ev.mem.pc, &c->launches[cur]);
        if (x && !x->found) {
            x->found = true;
            x->mem = ev.mem;
            missing--;
        }
    }
    trace_reader_close(r);
    return got < 0 ? -1 : 0;
}

/* ---- one execution, lane by lane ------------------------------------------------------- */

static void grid_coalesced(FILE *f, const explain_geom *g, const explain_result *r)
{
    bool local = r->space == TRACE_SPACE_LOCAL;
    fputs("<table class=\"grid\" data-view=\"lines\">\n<tbody>\n", f);
    for (uint32_t row = 0; row < 4; row++) {
        fputs("<tr>", f);
        for (uint32_t l = row * 8u; l < row * 8u + 8u; l++) {
            const explain_lane *ln = &r->lanes[l];
            if (!ln->active) {
                fprintf(f, "<td class=\"off\" data-lane=\"%u\"><b>lane %u</b>off</td>", l, l);
                continue;
            }
            uint32_t chunk = local ? (r->size_bytes >= 4 ? 4u : r->size_bytes) : r->size_bytes;
            fprintf(f, "<td class=\"c%u\" data-lane=\"%u\" data-line=\"%u\" data-sector=\"%u\" title=\"address 0x%"
                    PRIx64, ln->line_index % PALETTE, l, ln->line_index, ln->sector, ln->addr);
            if (local)
                fprintf(f, ", interleaved 0x%" PRIx64, ln->coal_addr);
            fprintf(f, "; bytes %u-%u of sector %u", ln->sector_offset, ln->sector_offset + chunk - 1u, ln->sector);
            if (r->banked) {
                char banks[48], passes[48];
                ex_lane_banks(r, ln, banks, sizeof banks);
                ex_lane_passes(r, ln, passes, sizeof passes);
                fprintf(f, "; L1 data stage: bank(s) %s, phase %u, wavefront %s", banks, ln->phase, passes);
            }
            fprintf(f, "\"><b>lane %u</b>L%u s%u</td>", l, ln->line_index, ln->sector);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);

    fputs("<table class=\"lines\">\n<thead><tr><th>line</th><th>address</th><th>sectors touched</th>"
          "<th>bytes used</th></tr></thead>\n<tbody>\n", f);
    for (uint32_t i = 0; i < r->coal.n_lines; i++) {
        const coal_line *cl = &r->coal.lines[i];
        char list[64];
        uint32_t used, n;
        ex_line_sectors(g, cl, list, sizeof list, &used, &n);
        fprintf(f, "<tr><td class=\"c%u\">L%u</td><td><code>0x%" PRIx64 "</code></td><td>%s</td>"
                "<td class=\"n\">%u of %u</td></tr>\n", i % PALETTE, i, cl->line << g->coal.line_shift, list, used,
                n * g->coal.sector_bytes);
    }
    fputs("</tbody>\n</table>\n", f);
    if (local)
        fprintf(f, "<p class=\"note\">Local memory is shown in the model&#39;s interleaved layout: the address "
                "of the lane&#39;s first 4-byte word in the warp&#39;s local region; %s.</p>\n",
                r->local_words > 1 ? "its other words lie 128 B apart" : "one word per lane");
}

static void grid_banked(FILE *f, const explain_geom *g, const explain_result *r)
{
    fputs("<table class=\"grid\" data-view=\"banks\">\n<tbody>\n", f);
    for (uint32_t row = 0; row < 4; row++) {
        fputs("<tr>", f);
        for (uint32_t l = row * 8u; l < row * 8u + 8u; l++) {
            const explain_lane *ln = &r->lanes[l];
            if (!ln->active) {
                fprintf(f, "<td class=\"off\" data-lane=\"%u\"><b>lane %u</b>off</td>", l, l);
                continue;
            }
            char banks[48], passes[48];
            ex_lane_banks(r, ln, banks, sizeof banks);
            ex_lane_passes(r, ln, passes, sizeof passes);
            const smem_word *w = &r->bank.words[ln->first_word];
            bool bcast = ex_lane_broadcast(r, ln);
            fprintf(f, "<td class=\"w%u\" data-lane=\"%u\" data-bank=\"%s\" data-wavefront=\"%s\" title=\"offset "
                    "0x%" PRIx64 ", word %" PRIu64 ", entry %" PRIu64 ", phase %u%s\"><b>lane %u</b>b%s w%s%s</td>",
                    w->pass % PALETTE, l, banks, passes, ln->addr, ln->addr / g->banks.mode_bytes, w->entry,
                    ln->phase, bcast ? ", served by another lane's word (broadcast)" : "", l, banks, passes,
                    bcast ? " &#x2022;" : "");
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

static void phases_html(FILE *f, const explain_result *r)
{
    fprintf(f, "<table class=\"phases\">\n<caption>%s</caption>\n<thead><tr><th>phase</th><th>lanes</th>"
            "<th>active</th><th>wavefronts</th><th>worst bank</th><th>its distinct entries (lanes)</th></tr>"
            "</thead>\n<tbody>\n", r->space == TRACE_SPACE_SHARED ? "phases" :
            "the L1 data stage (the shared-memory bank rule on the global addresses)");
    for (uint32_t p = 0; p < r->bank.n_phases; p++) {
        const smem_phase *ph = &r->bank.phases[p];
        uint32_t first = ph->group * r->lanes_per_phase;
        uint32_t active = (uint32_t)__builtin_popcount(ex_phase_lane_mask(r, p));
        fprintf(f, "<tr><td class=\"n\">%u</td><td>", p);
        if (r->lanes_per_phase == 1)
            fprintf(f, "%u", first);
        else
            fprintf(f, "%u-%u", first, first + r->lanes_per_phase - 1u);
        fprintf(f, "</td><td class=\"n\">%u</td>", active);
        if (ph->wavefronts == 1) {
            fputs("<td class=\"n\">1</td><td>-</td><td>at most 1 in every bank</td></tr>\n", f);
            continue;
        }
        char worst[160];
        explain_lane_list(ex_worst_bank_lanes(r, p), worst, sizeof worst);
        fprintf(f, "<td class=\"n h%d\">%u</td><td class=\"n\">%u</td><td>%u (%s)</td></tr>\n",
                ph->wavefronts >= 4 ? 4 : 3, ph->wavefronts, ph->worst_bank, ph->wavefronts, worst);
    }
    fputs("</tbody>\n</table>\n", f);
}

static void execution_html(FILE *f, const options *o, const explain_geom *g, gpu *model, const launch_data *d,
                           source_file *files, const found_exec *x, explain_result *r, char *why)
{
    const gpu_pc_stats *p = &d->pcs[x->pc_index];
    char id[48], pc[16], where[192], num[40];
    view_id(id, sizeof id, d, p->pc);
    ex_pc_text(p->pc, pc, sizeof pc);
    ex_where_of(d, p->pc, where, sizeof where);
    fprintf(f, "<article class=\"exec\" id=\"%s\" data-pc=\"%s\">\n<h4>%s ", id, pc, pc);
    if (ex_pc_sass(d, p->pc)[0]) {
        fputs("<code>", f);
        html_text(f, ex_pc_sass(d, p->pc));
        fputs("</code>", f);
    } else {
        fputs("(the trace has no SASS for this PC)", f);
    }
    fputs(" (", f);
    html_text(f, where);
    fputs(")</h4>\n", f);
    if (!x->found) {
        fprintf(f, "<p class=\"note\">Not executed by CTA %u warp %u (--warp).</p>\n</article>\n", o->cta, o->warp);
        return;
    }
    explain_mem(g, &x->mem, ex_pc_sass(d, x->mem.pc), r);
    explain_why(g, r, why, WHY_BYTES);
    report_thousands(num, sizeof num, p->executions);
    fprintf(f, "<p>%s, %u B per lane, %u of 32 lanes active (mask 0x%08x); CTA %u warp %u: ", ex_access_name(r),
            r->size_bytes, r->active_lanes, r->active_mask, x->mem.cta, x->mem.warp);
    if (o->have_warp)
        fprintf(f, "its first execution (%s in all, over every warp)", num);
    else if (p->executions == 1)
        fputs("the only execution", f);
    else
        fprintf(f, "the first of %s executions in capture order", num);
    fputs("</p>\n", f);
    source_file *sf = source_of(o, d, files, p->pc);
    if (sf && sf->text) {
        fputs("<p>source: ", f);
        source_line_html(f, sf, ex_pc_line(d, p->pc));
        fputs("</p>\n", f);
    }
    if (r->coalesced)
        grid_coalesced(f, g, r);
    else if (r->banked)
        grid_banked(f, g, r);
    if (r->banked)
        phases_html(f, r);

    uint64_t execs1;
    stats s1;
    ex_one_execution(model, &d->k, &x->mem, &execs1, &s1);
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    fputs("<table class=\"one\">\n<caption>this execution in the source view (the model, from this record "
          "alone)</caption>\n<tbody>\n", f);
    for (size_t c = 0; c < ncols; c++) {
        double v = source_view_value(c, execs1, &s1);
        if (v == 0 && c != 0)
            continue;
        ex_value_text(v, cols[c].per_execution, true, num, sizeof num);
        int h = heat_level(c, execs1, &s1);
        fputs("<tr><th scope=\"row\">", f);
        html_text(f, cols[c].name);
        fprintf(f, "</th><td class=\"n%s%.0d\">%s</td></tr>\n", h ? " h" : "", h, num);
    }
    fputs("</tbody>\n</table>\n<div class=\"why\">\n<h5>why</h5>\n", f);
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        fputs("<p>", f);
        html_text_n(f, q, len);
        fputs("</p>\n", f);
        q += len + (q[len] == '\n');
    }
    fputs("</div>\n</article>\n", f);
}

/* ---- a launch --------------------------------------------------------------------------- */

static void omitted_html(FILE *f, const options *o, const launch_data *d, const line_key *keys, uint32_t n_keys,
                         const launch_views *v, bool total_cut)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_keys; i++)
        n += !v->drawn[keys[i].idx];
    if (!n)
        return;
    fprintf(f, "<p class=\"omitted\">%u memory instruction%s without a lane view (", n, n == 1 ? "" : "s");
    if (total_cut)
        fprintf(f, "the limits: %u per launch with --max-lanes-views, %u in the report", o->max_lanes_views,
                EXPLAIN_HTML_LANES_TOTAL);
    else
        fprintf(f, "--max-lanes-views %u", o->max_lanes_views);
    fputs("; <code>--pc 0xPC</code> draws one): ", f);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_keys; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        if (v->drawn[keys[i].idx])
            continue;
        char pc[16], op[64], where[192];
        ex_pc_text(p->pc, pc, sizeof pc);
        ex_opcode_of(ex_pc_sass(d, p->pc), op, sizeof op);
        ex_where_of(d, p->pc, where, sizeof where);
        fprintf(f, "%s<span data-pc=\"%s\">%s ", k++ ? ", " : "", pc, pc);
        html_text(f, op);
        fputs(" (", f);
        html_text(f, where);
        fputs(")</span>", f);
    }
    fputs("</p>\n", f);
}

static void launch_html(FILE *f, const options *o, const explain_geom *g, gpu *model, const launch_data *d,
                        launch_views *v, bool total_cut, explain_result *r, char *why)
{
    fprintf(f, "<section class=\"launch\" id=\"launch-%u\">\n<h2>launch %u: <code>", d->k.launch, d->k.launch);
    html_text(f, d->k.demangled);
    fprintf(f, "</code></h2>\n<p>grid %u,%u,%u, block %u,%u,%u; %u memory instruction%s", d->k.grid[0],
            d->k.grid[1], d->k.grid[2], d->k.block[0], d->k.block[1], d->k.block[2], d->n_pcs,
            d->n_pcs == 1 ? "" : "s");
    if (o->have_pc || o->have_line)
        fprintf(f, ", %u selected by %s", d->n_selected, o->have_pc ? "--pc" : "--line");
    fputs("; mangled name <code>", f);
    html_text(f, d->k.name);
    fputs("</code></p>\n", f);
    if (d->n_selected == 0) {
        fputs(d->n_pcs ? "<p class=\"note\">(no memory instruction selected in this launch)</p>\n</section>\n"
                       : "<p class=\"note\">(this launch executed no memory instruction)</p>\n</section>\n", f);
        return;
    }
    source_file *files = xcalloc((size_t)d->k.n_files + 1u, sizeof *files);
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = ex_sorted_lines(d, keys);

    fputs("<h3>Source view</h3>\n", f);
    for (int c = 0; c < CLASS_COUNT; c++)
        class_html(f, o, d, keys, n, (pc_class)c, files, v->drawn);
    /* why a line's text is missing: once per file */
    for (uint32_t i = 0; i < d->k.n_files; i++)
        if (files[i].tried && !files[i].text) {
            fputs("<p class=\"note\">Source text not shown: ", f);
            html_text(f, files[i].why);
            fputs(".</p>\n", f);
        }
    counters_html(f, d, keys, n);

    fputs("<h3>Lane by lane</h3>\n", f);
    for (uint32_t i = 0; i < n; i++) {
        if (!v->drawn[keys[i].idx])
            continue;
        const found_exec *x = find_exec(v, d->pcs[keys[i].idx].pc, d);
        execution_html(f, o, g, model, d, files, x, r, why);
    }
    omitted_html(f, o, d, keys, n, v, total_cut);
    fputs("</section>\n", f);
    free(keys);
    free_sources(files, d->k.n_files);
}

/* ---- the page ------------------------------------------------------------------------- */

int explain_write_html(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err)
{
    if (o->have_warp)
        for (uint32_t i = 0; i < c->n; i++) {
            const launch_data *d = &c->launches[i];
            uint64_t ctas = trace_kernel_ctas(&d->k);
            uint32_t warps = trace_kernel_warps_per_cta(&d->k);
            if (d->n_selected && (o->cta >= ctas || o->warp >= warps)) {
                err_set(err, "%s: --warp %u:%u: launch %u has CTAs 0..%" PRIu64 " of warps 0..%u", o->trace,
                        o->cta, o->warp, d->k.launch, ctas - 1u, warps - 1u);
                return -1;
            }
        }
    /* Which instructions get a lane view: the first --max-lanes-views of each
     * launch in source order, within the report's total. */
    launch_views *views = xcalloc((size_t)c->n + 1u, sizeof *views);
    uint64_t total = 0;
    bool total_cut = false;
    for (uint32_t i = 0; i < c->n; i++) {
        const launch_data *d = &c->launches[i];
        launch_views *v = &views[i];
        v->drawn = xcalloc((size_t)d->n_pcs + 1u, sizeof *v->drawn);
        line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
        uint32_t n = ex_sorted_lines(d, keys), want = 0;
        for (uint32_t k = 0; k < n && want < o->max_lanes_views; k++) {
            if (d->pcs[keys[k].idx].pc == GPU_PC_NONE)
                continue;
            if (total == EXPLAIN_HTML_LANES_TOTAL) {
                total_cut = true;
                break;
            }
            v->drawn[keys[k].idx] = true;
            want++;
            total++;
        }
        free(keys);
        v->ex = xcalloc((size_t)want + 1u, sizeof *v->ex);
        for (uint32_t k = 0; k < d->n_pcs; k++) /* ascending PC, as find_exec needs */
            if (v->drawn[k])
                v->ex[v->n_ex++].pc_index = k;
    }
    int rc = find_all_executions(o, c, views, total, err);
    if (rc == 0) {
        explain_geom g;
        explain_geom_init(&g, cfg);
        explain_result *r = xmalloc(sizeof *r);
        char *why = xmalloc(WHY_BYTES);
        gpu *model = gpu_create(cfg);
        write_head(f, o, cfg);
        uint32_t shown = 0;
        for (uint32_t i = 0; i < c->n; i++)
            shown += !((o->have_pc || o->have_line) && !c->launches[i].n_selected);
        if (shown > 1) {
            fputs("<nav>\n<p>Launches:</p>\n<ul>\n", f);
            for (uint32_t i = 0; i < c->n; i++) {
                const launch_data *d = &c->launches[i];
                if ((o->have_pc || o->have_line) && !d->n_selected)
                    continue;
                fprintf(f, "<li><a href=\"#launch-%u\">launch %u</a>: <code>", d->k.launch, d->k.launch);
                html_text(f, d->k.demangled);
                fputs("</code></li>\n", f);
            }
            fputs("</ul>\n</nav>\n", f);
        }
        write_legend(f, o);
        for (uint32_t i = 0; i < c->n; i++) {
            const launch_data *d = &c->launches[i];
            if ((o->have_pc || o->have_line) && !d->n_selected)
                continue;
            launch_html(f, o, &g, model, d, &views[i], total_cut, r, why);
        }
        fputs("</body>\n</html>\n", f);
        gpu_destroy(model);
        free(why);
        free(r);
    }
    for (uint32_t i = 0; i < c->n; i++) {
        free(views[i].ex);
        free(views[i].drawn);
    }
    free(views);
    return rc;
}

/* explain_source.c - the default view of `gpumemsim explain`: per source line
 * and per SASS instruction, the columns of Nsight Compute's source view
 * (model/source_view.h, the table `validate --per-pc` uses), then the model's
 * cache counters per instruction; as a table, csv or json. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"
#include "source_view.h"

/* ---- source lines --------------------------------------------------------------------- */

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
uint32_t ex_sorted_lines(const launch_data *d, line_key *keys)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_pcs; i++) {
        if (!d->selected[i])
            continue;
        const trace_pc_info *p = ex_pc_info(d, d->pcs[i].pc);
        bool known = p && ex_pc_file(d, d->pcs[i].pc);
        keys[n] = (line_key){known ? p->file : -1, known ? p->line : 0, i, d->pcs[i].pc};
        n++;
    }
    qsort(keys, n, sizeof *keys, cmp_line_key);
    return n;
}

/* ---- which table a PC belongs to ---------------------------------------------------- */

bool ex_in_class(const stats *s, pc_class c)
{
    const uint64_t *v = s->v;
    switch (c) {
    case CLASS_GLOBAL:
        return v[STAT_SRC_TAG_REQ_GLOBAL] || v[STAT_INST_GLOBAL_LD] || v[STAT_INST_GLOBAL_ST] ||
               v[STAT_INST_GLOBAL_ATOM] || v[STAT_INST_GLOBAL_RED] || v[STAT_INST_LDGSTS];
    case CLASS_LOCAL:
        return v[STAT_SRC_L2_THEO_SECT_LOCAL] || v[STAT_INST_LOCAL_LD] || v[STAT_INST_LOCAL_ST];
    case CLASS_SHARED:
        return v[STAT_SMEM_WF_LD] || v[STAT_SMEM_WF_ST] || v[STAT_SMEM_WF_ATOM] || v[STAT_SMEM_WF_LDGSTS];
    case CLASS_COUNT:
        break;
    }
    return false;
}

const class_table ex_class_tables[CLASS_COUNT] = {
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

int ex_column_index(const char *name)
{
    int c = source_view_find(name);
    if (c < 0) {
        /* the names above are model/source_view.c's; a mismatch is a programming error */
        fprintf(stderr, "gpumemsim: internal error: no source-view column \"%s\"\n", name);
        abort();
    }
    return c;
}

/* The instructions of class cls among keys[from, to) (one source line): their
 * counters summed into *sum, their executions into *execs; returns how many
 * there are. The table's per-line row of that class. */
uint32_t ex_class_line_sum(const launch_data *d, const line_key *keys, uint32_t from, uint32_t to, pc_class cls,
                           stats *sum, uint64_t *execs)
{
    uint32_t members = 0;
    stats_clear(sum);
    *execs = 0;
    for (uint32_t k = from; k < to; k++) {
        const gpu_pc_stats *p = &d->pcs[keys[k].idx];
        if (!ex_in_class(&p->s, cls))
            continue;
        stats_add(sum, &p->s);
        *execs += p->executions;
        members++;
    }
    return members;
}

/* ---- default view: table ------------------------------------------------------------ */

static void table_class(FILE *f, const launch_data *d, const line_key *keys, uint32_t n_keys, pc_class cls)
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
    char head[5][3][32];
    int rows = 1;
    for (int j = 0; j < t->n; j++) {
        ci[j] = ex_column_index(t->columns[j]);
        int r = ex_wrap_header(t->columns[j], head[j]);
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
        uint32_t j = ex_line_end(keys, n_keys, i);
        stats sum;
        uint64_t execs;
        if (ex_class_line_sum(d, keys, i, j, cls, &sum, &execs)) {
            char where[192], num[40];
            ex_where_of(d, d->pcs[keys[i].idx].pc, where, sizeof where);
            size_t wl = strlen(where);
            fprintf(f, "%-*s", TABLE_LEFT, wl > TABLE_LEFT - 1 ? where + wl - (TABLE_LEFT - 1) : where);
            for (int c = 0; c < t->n; c++) {
                ex_value_text(source_view_value((size_t)ci[c], execs, &sum), cols[ci[c]].per_execution, true, num,
                           sizeof num);
                fprintf(f, "%*s", TABLE_COL, num);
            }
            fputc('\n', f);
            for (uint32_t k = i; k < j; k++) {
                const gpu_pc_stats *p = &d->pcs[keys[k].idx];
                if (!ex_in_class(&p->s, cls))
                    continue;
                char pc[16], op[64];
                ex_pc_text(p->pc, pc, sizeof pc);
                ex_opcode_of(ex_pc_sass(d, p->pc), op, sizeof op);
                fprintf(f, "  %-7s %-14.14s", pc, op);
                for (int c = 0; c < t->n; c++) {
                    ex_value_text(source_view_value((size_t)ci[c], p->executions, &p->s), cols[ci[c]].per_execution,
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
const counter_group ex_counter_groups[EX_N_COUNTER_GROUPS] = {
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
#define COUNTER_COL 11

uint64_t ex_group_value(const counter_group *g, const stats *s)
{
    uint64_t v = 0;
    for (int i = 0; i < g->n; i++)
        v += s->v[g->ids[i]];
    return v;
}

bool ex_has_counters(const stats *s)
{
    for (int g = 0; g < EX_N_COUNTER_GROUPS; g++)
        if (ex_group_value(&ex_counter_groups[g], s))
            return true;
    return false;
}

static void table_counters(FILE *f, const launch_data *d, const line_key *keys, uint32_t n_keys)
{
    bool any = false;
    for (uint32_t i = 0; i < n_keys && !any; i++)
        any = ex_has_counters(&d->pcs[keys[i].idx].s);
    if (!any)
        return;
    fputs("\nmodel counters: the kernel-level ncu metrics below, attributed by the model to each\n"
          "instruction; they depend on the caches (ncu has them per kernel only, not in the source view)\n",
          f);
    fprintf(f, "%-*s", TABLE_LEFT - 1, "line / PC SASS");
    for (int g = 0; g < EX_N_COUNTER_GROUPS; g++)
        fprintf(f, "%*s", COUNTER_COL, ex_counter_groups[g].head);
    fputc('\n', f);
    for (uint32_t i = 0; i < n_keys; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        if (!ex_has_counters(&p->s))
            continue;
        char pc[16], op[64], where[192], num[40];
        ex_pc_text(p->pc, pc, sizeof pc);
        ex_opcode_of(ex_pc_sass(d, p->pc), op, sizeof op);
        ex_where_of(d, p->pc, where, sizeof where);
        fprintf(f, "  %-7s %-13.13s", pc, op);
        for (int g = 0; g < EX_N_COUNTER_GROUPS; g++) {
            report_thousands(num, sizeof num, ex_group_value(&ex_counter_groups[g], &p->s));
            fprintf(f, "%*s", COUNTER_COL, num);
        }
        fputc('\n', f);
    }
    if (d->launch_dram_reads) {
        char num[40];
        report_thousands(num, sizeof num, d->launch_dram_reads);
        fprintf(f, "the launch also reads %s DRAM sectors of no instruction: its code and the profiler's\n"
                "background, fetched anew as caches are cold per kernel (docs/metrics.md, dram__sectors_read)\n",
                num);
    }
    fputs("columns (sums of these ncu metrics):\n", f);
    for (int g = 0; g < EX_N_COUNTER_GROUPS; g++) {
        const char *m = ex_counter_groups[g].metrics;
        size_t first = strcspn(m, "\n");
        fprintf(f, "  %-8s %.*s\n", ex_counter_groups[g].head, (int)first, m);
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
        fputs(d->n_pcs ? "(no memory instruction selected in this launch)\n"
                       : "(this launch executed no memory instruction)\n", f);
        return;
    }
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = ex_sorted_lines(d, keys);
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
    const char *file = ex_pc_file(d, pc);
    report_csv_field(f, file ? file : "");
    if (file)
        fprintf(f, ",%u,", ex_pc_line(d, pc));
    else
        fputs(",,", f);
    if (strcmp(row, "line") == 0) {
        fputs(",,", f);
    } else {
        char t[16];
        ex_pc_text(pc, t, sizeof t);
        fprintf(f, "%s,", t);
        report_csv_field(f, ex_pc_sass(d, pc));
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
        ex_json_number(f, source_view_value(c, execs, s));
        fputc('\n', f);
    }
}

/* A source line's value of column c: its instructions' counters summed. A
 * per-execution column (the N-way conflict) averages over the executions of
 * the instructions it concerns (shared memory), not over every instruction
 * of the line, so that a line with a global load and a shared store shows
 * the store's conflict. */
double ex_line_value(size_t c, const launch_data *d, const line_key *keys, uint32_t from, uint32_t to)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    stats sum;
    stats_clear(&sum);
    uint64_t execs = 0;
    for (uint32_t k = from; k < to; k++) {
        const gpu_pc_stats *p = &d->pcs[keys[k].idx];
        stats_add(&sum, &p->s);
        if (!cols[c].per_execution || ex_in_class(&p->s, CLASS_SHARED))
            execs += p->executions;
    }
    return source_view_value(c, execs, &sum);
}

/* The end of the source line that starts at keys[i]. */
uint32_t ex_line_end(const line_key *keys, uint32_t n, uint32_t i)
{
    uint32_t j = i;
    while (j < n && keys[j].file == keys[i].file && keys[j].line == keys[i].line)
        j++;
    return j;
}

static void csv_launch(FILE *f, const launch_data *d)
{
    line_key *keys = xmalloc(((size_t)d->n_pcs + 1u) * sizeof *keys);
    uint32_t n = ex_sorted_lines(d, keys);
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = ex_line_end(keys, n, i);
        for (size_t c = 0; c < ncols; c++) {
            csv_prefix(f, d, "line", keys[i].pc);
            fputs("source-view,", f);
            report_csv_field(f, cols[c].name);
            fputc(',', f);
            ex_json_number(f, ex_line_value(c, d, keys, i, j));
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

void ex_json_source_view(FILE *f, uint64_t execs, const stats *s)
{
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    fputc('{', f);
    for (size_t c = 0; c < ncols; c++) {
        fputs(c ? ", " : "", f);
        report_json_string(f, cols[c].name);
        fputs(": ", f);
        ex_json_number(f, source_view_value(c, execs, s));
    }
    fputc('}', f);
}

void ex_json_where(FILE *f, const launch_data *d, uint32_t pc)
{
    const char *file = ex_pc_file(d, pc);
    fputs("\"file\": ", f);
    if (file) {
        report_json_string(f, file);
        fprintf(f, ", \"line\": %u", ex_pc_line(d, pc));
    } else {
        fputs("null, \"line\": null", f);
    }
}

void ex_json_launch_head(FILE *f, const launch_data *d)
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
    uint32_t n = ex_sorted_lines(d, keys);
    fprintf(f, "%s\n    {", first ? "" : ",");
    ex_json_launch_head(f, d);
    /* dram__sectors_read.sum of no instruction (its code and background) */
    fprintf(f, ", \"launch_dram_sectors_read\": %" PRIu64, d->launch_dram_reads);
    fputs(",\n     \"lines\": [", f);
    bool first_line = true;
    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = ex_line_end(keys, n, i);
        fprintf(f, "%s\n      {", first_line ? "" : ",");
        first_line = false;
        ex_json_where(f, d, keys[i].pc);
        fputs(", \"pcs\": [", f);
        for (uint32_t k = i; k < j; k++) {
            char t[16];
            ex_pc_text(keys[k].pc, t, sizeof t);
            fprintf(f, "%s\"%s\"", k > i ? ", " : "", t);
        }
        fputs("],\n       \"source_view\": {", f);
        for (size_t c = 0; c < ncols; c++) {
            fputs(c ? ", " : "", f);
            report_json_string(f, cols[c].name);
            fputs(": ", f);
            ex_json_number(f, ex_line_value(c, d, keys, i, j));
        }
        fputs("}}", f);
        i = j;
    }
    fputs("\n     ],\n     \"instructions\": [", f);
    for (uint32_t i = 0; i < n; i++) {
        const gpu_pc_stats *p = &d->pcs[keys[i].idx];
        char t[16];
        ex_pc_text(p->pc, t, sizeof t);
        fprintf(f, "%s\n      {\"pc\": \"%s\", \"sass\": ", i ? "," : "", t);
        report_json_string(f, ex_pc_sass(d, p->pc));
        fputs(", ", f);
        ex_json_where(f, d, p->pc);
        fprintf(f, ", \"executions\": %" PRIu64 ",\n       \"source_view\": ", p->executions);
        ex_json_source_view(f, p->executions, &p->s);
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

void explain_write_source_view(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c)
{
    ex_write_head(f, o, cfg);
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

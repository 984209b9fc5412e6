/* explain_int.h - what the parts of `gpumemsim explain` share: the options,
 * the launches kept from the replay, and the helpers that name a PC and format
 * values. cmd_explain.c parses and replays, explain_source.c writes the
 * source view (per line and per instruction), explain_lanes.c one execution
 * lane by lane, explain_html.c both as one HTML page, explain_common.c the
 * helpers. Private to sim/. */
#ifndef GMS_EXPLAIN_INT_H
#define GMS_EXPLAIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "err.h"
#include "explain.h"
#include "gpu.h"
#include "replay.h"
#include "report.h"
#include "trace.h"

/* What is kept of the selected launches for output, at most: more is refused
 * by name (narrow with --kernel or --launch) so that memory stays bounded. */
#define EXPLAIN_MAX_LAUNCHES 256u
#define EXPLAIN_MAX_KEPT_PCS 65536u         /* memory instructions, all launches (~45 MB of counters) */
#define EXPLAIN_MAX_KEPT_TABLE (1u << 20)   /* PC-table entries copied, all launches */
#define TABLE_LEFT 24       /* "  0x00d0 LDG.E.SYS..." and "file.cu:123" */
#define TABLE_COL 15        /* one source-view column: " " + 14 */
#define HEADER_WRAP 14
#define WHY_WIDTH 98
/* --format html: lane views drawn per launch by default and at most (--max-lanes-views), and
 * in the whole report; source files read for their text at most this large. */
#define EXPLAIN_HTML_LANES_DEFAULT 64u
#define EXPLAIN_HTML_LANES_MAX 1024u
#define EXPLAIN_HTML_LANES_TOTAL 1024u
#define EXPLAIN_HTML_SOURCE_MAX_BYTES (16u << 20)

typedef struct options {
    const char *config_path, *trace, *out_path;
    replay_options replay;
    report_format fmt;
    bool html;                  /* --format html (fmt stays REPORT_TABLE) */
    const char *source_dir;     /* --source-dir DIR, or NULL */
    uint32_t max_lanes_views;   /* --max-lanes-views N (html) */
    bool have_launch, have_pc, have_line, lanes, have_warp;
    uint32_t launch, pc, line, cta, warp;
    const char *line_file; /* the FILE of --line FILE:LINE (points into argv) */
    char line_arg[512];
    bool timing;            /* --timing: where the warps wait (explain_timing.c) */
    const char *source_csv; /* --source-csv FILE: ncu's source view to set beside it */
} options;

typedef struct launch_data {
    trace_kernel k;       /* deep copy */
    uint32_t n_pcs;
    gpu_pc_stats *pcs;    /* the memory instructions, ascending PC */
    bool *selected;       /* [n_pcs]: chosen by --pc / --line (all without them) */
    uint32_t n_selected;
    uint64_t *pc_cycles;  /* --timing: warp cycles per entry of k's PC table (timing_result.pc_cycles) */
    uint64_t *pc_why;     /* --timing: the same by reason, [n_pc_cycles * TIMING_WHYS] (timing_result.pc_why) */
    uint32_t n_pc_cycles;
    uint64_t cycles;      /* --timing: the launch's predicted cycles */
    uint64_t sm_active;   /* --timing: sm__cycles_active.avg */
    double occupancy;     /* --timing: sm__warps_active.avg.pct_of_peak_sustained_active */
    uint64_t launch_dram_reads; /* dram__sectors_read.sum of no instruction (gpu_kernel_info.dram_reads) */
} launch_data;

typedef struct collected {
    const options *opt;
    launch_data *launches;
    uint32_t n;
    uint32_t replayed;    /* launches the replay simulated (matching --kernel) */
    uint64_t kept_pcs, kept_table; /* against EXPLAIN_MAX_KEPT_* */
    uint32_t first_launch, last_launch;
} collected;

/* ---- what a PC is (explain_common.c) ---- */
const trace_pc_info *ex_pc_info(const launch_data *d, uint32_t pc);
const char *ex_pc_file(const launch_data *d, uint32_t pc);   /* NULL when unknown */
uint32_t ex_pc_line(const launch_data *d, uint32_t pc);      /* 0 when unknown */
const char *ex_pc_sass(const launch_data *d, uint32_t pc);
void ex_where_of(const launch_data *d, uint32_t pc, char *buf, size_t n);  /* "file.cu:123" */
void ex_opcode_of(const char *sass, char *buf, size_t n);
void ex_pc_text(uint32_t pc, char *buf, size_t n);                         /* "0x00d0" */

/* ---- output helpers (explain_common.c) ---- */
void ex_value_text(double v, bool per_execution, bool thousands, char *buf, size_t n);
void ex_json_number(FILE *f, double v);
int ex_wrap_header(const char *name, char lines[3][32]);
void ex_write_wrapped(FILE *f, const char *text, const char *indent, const char *cont);
void ex_write_head(FILE *f, const options *o, const cfg_gpu *cfg);

/* ---- the source view (explain_source.c) ---- */
typedef struct line_key {
    int32_t file;   /* index in the kernel's files, -1 unknown */
    uint32_t line;
    uint32_t idx;   /* into launch_data.pcs */
    uint32_t pc;
} line_key;

/* The three tables of the source view: an instruction belongs to those whose counters it has. */
typedef enum pc_class {
    CLASS_GLOBAL,
    CLASS_LOCAL,
    CLASS_SHARED,
    CLASS_COUNT
} pc_class;

typedef struct class_table {
    const char *title;
    const char *columns[5]; /* source-view column names (model/source_view.h) */
    int n;
} class_table;

/* The model's cache counters, grouped per column. */
#define EX_N_COUNTER_GROUPS 7
typedef struct counter_group {
    const char *head;
    const char *metrics; /* the ncu metrics summed, as a pattern for the legend */
    stat_id ids[8];
    int n;
} counter_group;

extern const class_table ex_class_tables[CLASS_COUNT];
extern const counter_group ex_counter_groups[EX_N_COUNTER_GROUPS];
uint32_t ex_sorted_lines(const launch_data *d, line_key *keys);   /* keys: n_pcs + 1 */
uint32_t ex_line_end(const line_key *keys, uint32_t n, uint32_t i);
bool ex_in_class(const stats *s, pc_class c);
int ex_column_index(const char *name);                            /* aborts on an unknown name */
uint32_t ex_class_line_sum(const launch_data *d, const line_key *keys, uint32_t from, uint32_t to, pc_class cls,
                           stats *sum, uint64_t *execs);
double ex_line_value(size_t c, const launch_data *d, const line_key *keys, uint32_t from, uint32_t to);
uint64_t ex_group_value(const counter_group *g, const stats *s);
bool ex_has_counters(const stats *s);
void ex_json_source_view(FILE *f, uint64_t execs, const stats *s);
void ex_json_where(FILE *f, const launch_data *d, uint32_t pc);
void ex_json_launch_head(FILE *f, const launch_data *d);
void explain_write_source_view(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c);

/* ---- where the warps wait (explain_timing.c) ---- */
int explain_write_timing(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err);

/* ---- one execution, lane by lane (explain_lanes.c) ---- */
typedef struct found_exec {
    uint32_t pc_index;    /* into launch_data.pcs */
    bool found;
    trace_mem mem;
} found_exec;

void ex_one_execution(gpu *g, const trace_kernel *k, const trace_mem *m, uint64_t *execs, stats *s);
const char *ex_access_name(const explain_result *r);
void ex_lane_banks(const explain_result *r, const explain_lane *ln, char *buf, size_t n);
void ex_lane_passes(const explain_result *r, const explain_lane *ln, char *buf, size_t n);
bool ex_lane_broadcast(const explain_result *r, const explain_lane *ln);
uint32_t ex_worst_bank_lanes(const explain_result *r, uint32_t p);
uint32_t ex_phase_lane_mask(const explain_result *r, uint32_t p);
uint64_t ex_line_base(const explain_geom *g, const explain_result *r);
void ex_line_sectors(const explain_geom *g, const coal_line *cl, char *list, size_t size, uint32_t *used,
                     uint32_t *n);
int explain_write_lanes(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err);

/* ---- the HTML report: both views on one page (explain_html.c) ---- */
int explain_write_html(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err);

#endif

/* explain_int.h - what the parts of `gpumemsim explain` share: the options,
 * the launches kept from the replay, and the helpers that name a PC and format
 * values. cmd_explain.c parses and replays, explain_source.c writes the
 * source view (per line and per instruction), explain_lanes.c one execution
 * lane by lane, explain_common.c the helpers. Private to sim/. */
#ifndef GMS_EXPLAIN_INT_H
#define GMS_EXPLAIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "err.h"
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

typedef struct options {
    const char *config_path, *trace, *out_path;
    replay_options replay;
    report_format fmt;
    bool have_launch, have_pc, have_line, lanes, have_warp;
    uint32_t launch, pc, line, cta, warp;
    const char *line_file; /* the FILE of --line FILE:LINE (points into argv) */
    char line_arg[512];
} options;

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
void ex_json_source_view(FILE *f, uint64_t execs, const stats *s);
void ex_json_where(FILE *f, const launch_data *d, uint32_t pc);
void ex_json_launch_head(FILE *f, const launch_data *d);
void explain_write_source_view(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c);

/* ---- one execution, lane by lane (explain_lanes.c) ---- */
int explain_write_lanes(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err);

#endif

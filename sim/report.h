/* report.h - write simulation results as a table (people), CSV or JSON
 * (programs). Every report starts with the effective config. Counter names are
 * Nsight Compute's; ratio metrics are computed here from their counters. */
#ifndef GMS_REPORT_H
#define GMS_REPORT_H

#include <stdio.h>

#include "cfg.h"
#include "replay.h"

typedef enum report_format {
    REPORT_TABLE,
    REPORT_CSV,  /* columns kernel,launch,metric,value; '#' lines carry the config */
    REPORT_JSON,
    REPORT_FORMAT_COUNT
} report_format;

/* Parse "table", "csv" or "json"; -1 when it is none of them. */
int report_format_parse(const char *s, report_format *out);

typedef struct report report;

/* Start a report on out (not closed by the report). command is e.g. "run". */
report *report_open(FILE *out, report_format fmt, const char *command, const char *config_path,
                    const cfg_gpu *cfg);
/* As report_open, for `run --timing`: the config's [timing] section is
 * written too, and each launch's timing_result (replay.h) is reported. */
report *report_open_timing(FILE *out, report_format fmt, const char *command, const char *config_path,
                           const cfg_gpu *cfg);
/* One simulated kernel launch. */
void report_kernel(report *rp, const replay_kernel_result *r);
/* Totals over all kernels reported, then the end of the document. Frees rp. */
void report_close(report *rp);

/* End a report that cannot be completed: it says so in its own format (a
 * '# ERROR: report incomplete' line, or a JSON "error" member) and has no
 * totals, so it is never mistaken for a complete one. Frees rp. */
void report_abort(report *rp, const char *why);

/* Shared by other outputs: write s as a JSON string literal, and a CSV field. */
void report_json_string(FILE *f, const char *s);
void report_csv_field(FILE *f, const char *s);
/* 1234567 -> "1,234,567" (as ncu prints counts) */
void report_thousands(char *buf, size_t n, uint64_t v);

#endif

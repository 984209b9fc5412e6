/* source_view.h - the columns of Nsight Compute's source view (`ncu --page
 * source`) that a trace determines, and the model's value of each for one
 * SASS instruction. One table, so that `validate --per-pc` and `explain`
 * speak ncu's column names and agree on what each means.
 *
 * These counters are derived from the addresses alone (no caches, no
 * timing), which is why the model must match them exactly; docs/metrics.md
 * says how each is counted. */
#ifndef GMS_SOURCE_VIEW_H
#define GMS_SOURCE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

typedef struct source_column {
    const char *name;   /* ncu's column header, e.g. "L2 Theoretical Sectors Global" */
    const char *what;   /* one line for people */
    bool per_execution; /* ncu prints an average per execution (2 decimals) */
} source_column;

/* The columns, in the order ncu prints them; *n gets their count. */
const source_column *source_view_columns(size_t *n);

/* Column index by ncu's header, or -1. */
int source_view_find(const char *name);

/* The model's value of column col for an instruction executed executions
 * times whose counters are s. */
double source_view_value(size_t col, uint64_t executions, const stats *s);

#endif

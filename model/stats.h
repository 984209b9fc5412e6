/* stats.h - the model's counters: a uint64_t array indexed by stat_id.
 *
 * The list lives in stats.def (one X-macro line per counter, with its Nsight
 * Compute name), so a typo in a counter name is a compile error. Models count;
 * sim/ prints; ratios are computed only when printing. */
#ifndef GMS_STATS_H
#define GMS_STATS_H

#include <stdint.h>

typedef enum stat_id {
#define STAT(id, name, desc) STAT_##id,
#include "stats.def"
#undef STAT
    STAT_COUNT
} stat_id;

typedef struct stats {
    uint64_t v[STAT_COUNT];
} stats;

const char *stat_name(stat_id id);        /* the ncu metric name, e.g. "dram__sectors_read.sum" */
const char *stat_description(stat_id id);
/* The id whose name is name (exact match), or STAT_COUNT. */
stat_id stat_find(const char *name);

void stats_clear(stats *s);
void stats_add(stats *dst, const stats *src); /* dst += src, counter by counter */

/* Metrics that are ratios of two counters, computed when printing:
 * value = scale * numerator / (denominator * denominator_unit); undefined when
 * the denominator is 0. */
typedef struct stat_ratio {
    const char *name;
    stat_id numerator;
    stat_id denominator;
    double denominator_unit;
    double scale;
} stat_ratio;

enum { STAT_RATIO_COUNT = 2 };
extern const stat_ratio stat_ratios[STAT_RATIO_COUNT];
/* Returns 0 and sets *out, or -1 when the denominator is zero. */
int stat_ratio_value(const stat_ratio *r, const stats *s, double *out);

#endif

/* stats.c - counter names and the ratio metrics. */
#include "stats.h"

#include <string.h>

static const char *const names[STAT_COUNT] = {
#define STAT(id, name, desc) [STAT_##id] = name,
#include "stats.def"
#undef STAT
};

static const char *const descriptions[STAT_COUNT] = {
#define STAT(id, name, desc) [STAT_##id] = desc,
#include "stats.def"
#undef STAT
};

const stat_ratio stat_ratios[STAT_RATIO_COUNT] = {
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
     STAT_SASS_BYTES_GLOBAL_LD, STAT_L1_SECT_GLOBAL_LD, 32.0, 100.0},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
     STAT_SASS_BYTES_GLOBAL_ST, STAT_L1_SECT_GLOBAL_ST, 32.0, 100.0},
};

const char *stat_name(stat_id id)
{
    return (unsigned)id < STAT_COUNT ? names[id] : "?";
}

const char *stat_description(stat_id id)
{
    return (unsigned)id < STAT_COUNT ? descriptions[id] : "?";
}

stat_id stat_find(const char *name)
{
    for (int i = 0; i < STAT_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return (stat_id)i;
    return STAT_COUNT;
}

void stats_clear(stats *s)
{
    memset(s, 0, sizeof *s);
}

void stats_add(stats *dst, const stats *src)
{
    for (int i = 0; i < STAT_COUNT; i++)
        dst->v[i] += src->v[i];
}

int stat_ratio_value(const stat_ratio *r, const stats *s, double *out)
{
    uint64_t den = s->v[r->denominator];
    if (den == 0)
        return -1;
    *out = r->scale * (double)s->v[r->numerator] / ((double)den * r->denominator_unit);
    return 0;
}

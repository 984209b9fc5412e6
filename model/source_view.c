/* source_view.c - the source-view columns and the model's value of each. */
#include "source_view.h"

#include <math.h>
#include <string.h>

enum {
    COL_INST,
    COL_TAG_REQ,
    COL_L2_THEO,
    COL_L2_IDEAL,
    COL_L2_EXCESS,
    COL_L2_LOCAL,
    COL_WF_SHARED,
    COL_WF_IDEAL,
    COL_WF_EXCESS,
    COL_NWAY,
    COL_COUNT
};

static const source_column columns[COL_COUNT] = {
    [COL_INST] = {"Instructions Executed", "warp-level executions (a warp with at least one lane on)", false},
    [COL_TAG_REQ] = {"L1 Tag Requests Global", "distinct 128-byte lines per global instruction, summed", false},
    [COL_L2_THEO] = {"L2 Theoretical Sectors Global", "distinct 32-byte sectors per global instruction, summed", false},
    [COL_L2_IDEAL] = {"L2 Theoretical Sectors Global Ideal",
                      "min(distinct sectors, ceil(active lanes x size / 32)) per global instruction", false},
    [COL_L2_EXCESS] = {"L2 Theoretical Sectors Global Excessive", "theoretical minus ideal sectors", false},
    [COL_L2_LOCAL] = {"L2 Theoretical Sectors Local", "distinct sectors per local instruction (interleaved layout)",
                      false},
    [COL_WF_SHARED] = {"L1 Wavefronts Shared", "shared-memory wavefronts (bank passes)", false},
    [COL_WF_IDEAL] = {"L1 Wavefronts Shared Ideal", "one wavefront per phase with an active lane", false},
    [COL_WF_EXCESS] = {"L1 Wavefronts Shared Excessive", "wavefronts beyond the ideal: bank conflicts", false},
    [COL_NWAY] = {"L1 Conflicts Shared N-Way", "shared wavefronts per execution", true},
};

const source_column *source_view_columns(size_t *n)
{
    *n = COL_COUNT;
    return columns;
}

int source_view_find(const char *name)
{
    for (int i = 0; i < COL_COUNT; i++)
        if (strcmp(columns[i].name, name) == 0)
            return i;
    return -1;
}

static uint64_t shared_wavefronts(const stats *s)
{
    return s->v[STAT_SMEM_WF_LD] + s->v[STAT_SMEM_WF_ST] + s->v[STAT_SMEM_WF_ATOM] + s->v[STAT_SMEM_WF_LDGSTS];
}

double source_view_value(size_t col, uint64_t executions, const stats *s)
{
    const uint64_t *v = s->v;
    switch (col) {
    case COL_INST:
        return (double)executions;
    case COL_TAG_REQ:
        return (double)v[STAT_SRC_TAG_REQ_GLOBAL];
    case COL_L2_THEO:
        return (double)v[STAT_SRC_L2_THEO_SECT_GLOBAL];
    case COL_L2_IDEAL:
        return (double)v[STAT_SRC_L2_THEO_SECT_GLOBAL_IDEAL];
    case COL_L2_EXCESS:
        return (double)(v[STAT_SRC_L2_THEO_SECT_GLOBAL] - v[STAT_SRC_L2_THEO_SECT_GLOBAL_IDEAL]);
    case COL_L2_LOCAL:
        return (double)v[STAT_SRC_L2_THEO_SECT_LOCAL];
    case COL_WF_SHARED:
        return (double)shared_wavefronts(s);
    case COL_WF_IDEAL:
        return (double)v[STAT_SMEM_WF_IDEAL];
    case COL_WF_EXCESS: {
        uint64_t wf = shared_wavefronts(s), ideal = v[STAT_SMEM_WF_IDEAL];
        return wf > ideal ? (double)(wf - ideal) : 0.0;
    }
    case COL_NWAY:
        return executions ? (double)shared_wavefronts(s) / (double)executions : 0.0;
    default:
        return NAN;
    }
}

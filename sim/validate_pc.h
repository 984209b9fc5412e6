/* validate_pc.h - compare the model with Nsight Compute's source view, one
 * SASS instruction at a time (`gpumemsim validate --per-pc`). */
#ifndef GMS_VALIDATE_PC_H
#define GMS_VALIDATE_PC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "err.h"
#include "replay.h"

typedef struct validate_pc_totals {
    uint32_t instructions; /* SASS instructions compared */
    uint32_t values;       /* column values compared */
    uint32_t failed;
} validate_pc_totals;

/* Replay trace and compare each memory instruction with its row of the
 * source view source_csv; rows go to out (only failing ones when
 * failures_only) and counts add to *t. Returns 0, or -1 on bad input. */
int validate_pc_capture(const char *trace, const char *source_csv, const cfg_gpu *cfg, const replay_options *ropt,
                        FILE *out, bool failures_only, validate_pc_totals *t, err_info *err);

#endif

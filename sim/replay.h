/* replay.h - read one trace and drive a gpu model with it, kernel by kernel.
 * Shared by run, validate and (later) explain. */
#ifndef GMS_REPLAY_H
#define GMS_REPLAY_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "cfg.h"
#include "err.h"
#include "gpu.h"
#include "stats.h"
#include "timing.h"
#include "trace.h"

typedef struct replay_kernel_result {
    const char *trace_path;
    const trace_kernel *kernel;   /* valid during the callback only */
    stats totals;                 /* the kernel's counters */
    const gpu_pc_stats *pcs;      /* per PC, ascending; valid during the callback only */
    uint32_t n_pcs;
    gpu_kernel_info info;
    const timing_result *timing;  /* --timing: the cycle model's prediction; NULL without */
} replay_kernel_result;

/* Called once per replayed kernel; return 0 to go on, -1 (with err set) to stop. */
typedef int (*replay_fn)(void *ctx, const replay_kernel_result *r, err_info *err);

typedef struct replay_options {
    const char *kernel_regex;  /* POSIX extended regex on the demangled name (or mangled); NULL = all */
    bool allow_incomplete;     /* read traces marked incomplete (a warning is printed) */
    bool progress;             /* show progress on stderr when it is a terminal */
    bool timing;               /* also run the timing model (cfg->timing must be set) */
    bool pc_cycles;            /* with timing: keep where the warps' cycles go, per PC
                                * (timing_result.pc_cycles) */
    bool time_order;           /* with timing: replay each kernel's records in the timing
                                * model's time order, not the trace's (docs/timing.md,
                                * "Replay in time order") */
    FILE *timeline;            /* with timing: a CSV line per memory record as the model
                                * times it (timing_set_timeline); NULL for none. Without
                                * timing there are no cycles to write: run refuses it
                                * before opening the file */
} replay_options;

/* Check the options before any output (a bad --kernel regex, time order
 * without timing): 0, or -1 with err set. */
/* With timing, a launch's totals are the functional model's less the L2 reads
 * the LRC merged (timing_result.lrc, lrc_counts_apply) and the writes the
 * SMs' write queues merged (timing_result.wq, wqueue_counts_apply), so that
 * every reader of them sees the same counters; its per-PC counters stay
 * functional (docs/timing.md). */
int replay_options_check(const replay_options *opt, err_info *err);

/* Replay path on a fresh gpu built from cfg. Returns 0, or -1 with err set
 * (bad trace, or the callback's error). Kernels not matching the regex are
 * read and checked but not simulated. */
int replay_trace(const char *path, const cfg_gpu *cfg, const replay_options *opt,
                 replay_fn fn, void *ctx, err_info *err);

#endif

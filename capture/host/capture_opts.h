/* capture_opts.h - the options of gpumemsim-capture: its command line, how
 * they travel to the injection library (environment variables set by the
 * wrapper, read back with the same parsers), and which launches they select.
 *
 * Launch selection: --launch N or N-M (inclusive, counted from 0 over every
 * kernel launch the program makes, graph kernel nodes included) and --kernel
 * REGEX (POSIX extended, unanchored, on the demangled name); a launch is
 * recorded when it passes both. */
#ifndef GMS_CAPTURE_OPTS_H
#define GMS_CAPTURE_OPTS_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "trace.h"

#define CAPTURE_TOOL_NAME "gpumemsim-capture"
#define CAPTURE_VERSION "0.1.0"
#define CAPTURE_DEFAULT_BUFFER_MB 1024u
#define CAPTURE_MAX_BUFFER_MB (1u << 20)          /* 1 TiB */
#define CAPTURE_MAX_RECORDS_LIMIT ((uint64_t)1 << 40)

/* Environment of the traced program, set by the wrapper. The option values
 * are passed as the user wrote them and parsed again by the library. */
#define CAPTURE_ENV_OUTPUT "GPUMEMSIM_CAPTURE_OUTPUT"           /* absolute trace path */
#define CAPTURE_ENV_FORMAT "GPUMEMSIM_CAPTURE_FORMAT"           /* binary | text */
#define CAPTURE_ENV_ZSTD_LEVEL "GPUMEMSIM_CAPTURE_ZSTD_LEVEL"
#define CAPTURE_ENV_KERNEL "GPUMEMSIM_CAPTURE_KERNEL"           /* --kernel REGEX */
#define CAPTURE_ENV_LAUNCH "GPUMEMSIM_CAPTURE_LAUNCH"           /* --launch N[-M] */
#define CAPTURE_ENV_MAX_RECORDS "GPUMEMSIM_CAPTURE_MAX_RECORDS"
#define CAPTURE_ENV_BUFFER_MB "GPUMEMSIM_CAPTURE_BUFFER_MB"
#define CAPTURE_ENV_VERBOSE "GPUMEMSIM_CAPTURE_VERBOSE"         /* 1: a line per traced launch */
#define CAPTURE_ENV_SHUFFLES "GPUMEMSIM_CAPTURE_SHUFFLES"       /* 1: record warp shuffles (--shuffles) */
#define CAPTURE_ENV_TMPDIR "GPUMEMSIM_CAPTURE_TMPDIR"           /* saved cubins and listings */
#define CAPTURE_ENV_STATUS "GPUMEMSIM_CAPTURE_STATUS"           /* file the library leaves its outcome in */
#define CAPTURE_ENV_PID "GPUMEMSIM_CAPTURE_PID"                 /* the one process to trace */
#define CAPTURE_ENV_GPUS "GPUMEMSIM_CAPTURE_GPUS"               /* capture_gpu list, see capture_util.h */
#define CAPTURE_ENV_DRIVER "GPUMEMSIM_CAPTURE_DRIVER"           /* NVIDIA driver version */
#define CAPTURE_ENV_CUDA "GPUMEMSIM_CAPTURE_CUDA"               /* CUDA version the driver supports */
#define CAPTURE_ENV_NVDISASM "GPUMEMSIM_CAPTURE_NVDISASM"       /* absolute paths of the CUDA tools */
#define CAPTURE_ENV_CUOBJDUMP "GPUMEMSIM_CAPTURE_CUOBJDUMP"
#define CAPTURE_ENV_COMMAND "GPUMEMSIM_CAPTURE_COMMAND"         /* the traced command line, for the metadata */

typedef struct capture_opts {
    const char *output;        /* -o; NULL: the wrapper uses PROGRAM.trace */
    trace_format format;
    uint32_t zstd_level;       /* 1..19; 0 = the writer's default */
    const char *kernel_regex;  /* NULL: every kernel */
    const char *launch_text;   /* --launch as written; NULL: every launch */
    bool has_launch_range;
    uint64_t launch_first;
    uint64_t launch_last;      /* inclusive */
    uint64_t max_records;      /* records per launch; 0: only the buffer limits them */
    uint64_t buffer_mb;        /* device record buffer per launch in flight */
    bool verbose;
    bool shuffles;             /* record warp shuffles (barrier records of kind shfl, trace.h) */
    bool keep_temp;            /* wrapper: keep the saved cubins, listings and resource usage */
    int prog_argc;             /* wrapper: the program and its arguments */
    char **prog_argv;
} capture_opts;

typedef enum capture_action {
    CAPTURE_ACTION_RUN,
    CAPTURE_ACTION_HELP,
    CAPTURE_ACTION_VERSION,
    CAPTURE_ACTION_COUNT
} capture_action;

void capture_opts_init(capture_opts *o);

/* Parse the wrapper's command line. Option values are pointers into argv.
 * Returns 0 with *act set, or -1 with one line saying what was wrong. */
int capture_args_parse(int argc, char **argv, capture_opts *o, capture_action *act, err_info *err);
void capture_usage(FILE *f);

/* Decimal unsigned number in [min, max], nothing else. 0 or -1. */
int capture_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "N" or "N-M" with N <= M. */
int capture_parse_launch_range(const char *s, uint64_t *first, uint64_t *last, err_info *err);

/* Read the options back in the traced process; get is getenv or a stand-in.
 * Errors name the variable. */
typedef const char *(*capture_getenv_fn)(const char *name);
int capture_opts_from_env(capture_opts *o, capture_getenv_fn get, err_info *err);

/* Which launches are recorded. */
typedef struct capture_select {
    bool has_regex;
    regex_t re;
    bool has_range;
    uint64_t first, last;
} capture_select;

/* Compiles the regex; -1 with regerror's message when it is bad. */
int capture_select_init(capture_select *s, const capture_opts *o, err_info *err);
/* Is launch (index, demangled name) recorded? The name is only looked at
 * when a regex was given. */
bool capture_select_launch(const capture_select *s, uint64_t launch, const char *demangled);
void capture_select_free(capture_select *s);

#endif

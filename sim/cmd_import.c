/* cmd_import.c - `gpumemsim trace import`: an Accel-Sim trace collection (or
 * one kernel file) to a gpumemsim trace (model/trace_accelsim.h,
 * docs/accelsim.md).
 *
 *   trace import --accelsim PATH -o OUT [--text] [--sm-count N] [--ctas-per-sm K]
 *
 * PATH is a kernelslist.g (its kernel files are relative to it), or one
 * kernel-N.traceg or kernel-N.traceg.xz. The output is binary unless --text.
 * A summary goes to standard output (not when the trace itself does).
 * Bad usage or input: one line on stderr, exit 2; a half-written output is
 * removed. A long import shows its progress on stderr when that is a terminal
 * (as `run` does, sim/replay.c), on one line that is cleared at the end. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "trace_accelsim.h"

#define USAGE_IMPORT "gpumemsim trace import --accelsim PATH -o OUT [--text] [--sm-count N] " \
                     "[--ctas-per-sm K]"

/* A whole decimal number within [lo, hi]. */
static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    return true;
}

static void remove_output(const char *out)
{
    struct stat st;
    if (strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
        remove(out);
}

/* ---- progress on stderr, only when it is a terminal -------------------------- */

typedef struct progress {
    double start_s, last_s; /* last_s > 0 once a line was shown */
} progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* At most four lines a second, and none in the first second: a short import
 * shows nothing. */
static void progress_show(const accelsim_progress *ap, void *ctx)
{
    progress *p = ctx;
    double t = now_s();
    if (t - p->start_s < 1.0 || t - p->last_s < 0.25)
        return;
    p->last_s = t;
    const char *name = strrchr(ap->path, '/');
    name = name ? name + 1 : ap->path;
    if (ap->writing)
        fprintf(stderr, "\r\033[Kgpumemsim: import: kernel %" PRIu32 "/%" PRIu32 " %.48s: "
                "writing, %.1f M records", ap->kernel + 1, ap->kernels, name,
                (double)ap->records / 1e6);
    else
        fprintf(stderr, "\r\033[Kgpumemsim: import: kernel %" PRIu32 "/%" PRIu32 " %.48s: "
                "checking, %.1f M lines; %.1f M records", ap->kernel + 1, ap->kernels, name,
                (double)ap->lines / 1e6, (double)ap->records / 1e6);
    fflush(stderr);
}

static void progress_done(const progress *p)
{
    if (p->last_s > 0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

static void print_help(void)
{
    printf("usage: %s\n\n"
           "Import an Accel-Sim trace collection (the NVBit tracer's kernelslist.g and its\n"
           "kernel-N.traceg or .traceg.xz files), or one kernel file, into a gpumemsim trace.\n"
           "The warps are interleaved as a capture would record them: CTA c runs on SM\n"
           "c mod N (--sm-count, default %u), at most K CTAs at a time per SM (--ctas-per-sm,\n"
           "default: from threads, registers and shared memory with the H200's limits),\n"
           "every resident warp issuing one instruction per round, barriers respected.\n"
           "See docs/accelsim.md.\n", USAGE_IMPORT, ACCELSIM_DEFAULT_SM_COUNT);
}

int cmd_trace_import(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *sm_arg = NULL, *ctas_arg = NULL;
    bool text = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help();
            return 0;
        } else if (strcmp(a, "--text") == 0) {
            text = true;
            continue;
        } else if (strcmp(a, "--accelsim") == 0) {
            slot = &in;
        } else if (strcmp(a, "-o") == 0) {
            slot = &out;
        } else if (strcmp(a, "--sm-count") == 0) {
            slot = &sm_arg;
        } else if (strcmp(a, "--ctas-per-sm") == 0) {
            slot = &ctas_arg;
        } else {
            return cmd_fail("trace import: unexpected argument '%.100s' (usage: %s)", a,
                            USAGE_IMPORT);
        }
        if (i + 1 == argc)
            return cmd_fail("trace import: %s needs a value (usage: %s)", a, USAGE_IMPORT);
        if (*slot)
            return cmd_fail("trace import: %s given twice (usage: %s)", a, USAGE_IMPORT);
        *slot = argv[++i];
    }
    if (!in)
        return cmd_fail("trace import: --accelsim PATH is required (usage: %s)", USAGE_IMPORT);
    if (!out)
        return cmd_fail("trace import: -o OUT is required (usage: %s)", USAGE_IMPORT);
    accelsim_options opt = {.input = ACCELSIM_INPUT_AUTO,
                            .format = text ? TRACE_FORMAT_TEXT : TRACE_FORMAT_BINARY};
    if (sm_arg && !parse_u32(sm_arg, 1, ACCELSIM_MAX_SM_COUNT, &opt.sm_count))
        return cmd_fail("trace import: --sm-count '%.64s': expected a whole number from 1 to %u",
                        sm_arg, ACCELSIM_MAX_SM_COUNT);
    if (ctas_arg && !parse_u32(ctas_arg, 1, ACCELSIM_MAX_CTAS_PER_SM, &opt.ctas_per_sm))
        return cmd_fail("trace import: --ctas-per-sm '%.64s': expected a whole number from 1 to "
                        "%u", ctas_arg, ACCELSIM_MAX_CTAS_PER_SM);
    if (!text && strcmp(out, "-") == 0 && isatty(STDOUT_FILENO) == 1)
        return cmd_fail("trace import: -o -: will not write a binary trace to a terminal (use "
                        "--text)");
    struct stat si, so;
    if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino)
        return cmd_fail("trace import: the output %s is the input", out);

    progress prog = {.start_s = now_s()};
    if (isatty(STDERR_FILENO) == 1) {
        opt.progress = progress_show;
        opt.progress_ctx = &prog;
    }

    err_info err;
    err_clear(&err);
    accelsim_summary sum;
    int rc = trace_accelsim_import(in, out, &opt, &sum, &err);
    progress_done(&prog);
    if (rc < 0) {
        remove_output(out);
        return cmd_fail("%s", err.msg);
    }
    if (strcmp(out, "-") != 0) {
        printf("%s: %" PRIu32 " kernel%s, %" PRIu64 " memory and %" PRIu64 " barrier records; "
               "skipped %" PRIu64 " other instructions and %" PRIu64 " with no active lane; %"
               PRIu32 " memcpy lines (%" PRIu64 " bytes, not modelled)\n", out, sum.kernels,
               sum.kernels == 1 ? "" : "s", sum.mem_records, sum.barrier_records,
               sum.other_insts, sum.pred_off_insts, sum.memcpy_count, sum.memcpy_bytes);
        if (sum.bad_nregs)
            printf("%s: %" PRIu32 " kernel%s had -nregs beyond 255 (kernel id %" PRIu32 ": %"
                   PRIu32 "), written as 0 (unknown)\n", out, sum.bad_nregs,
                   sum.bad_nregs == 1 ? "" : "s", sum.bad_nregs_first_id,
                   sum.bad_nregs_first_value);
        if (fflush(stdout) != 0 || ferror(stdout))
            return cmd_fail("standard output: write error: %s", strerror(errno));
    }
    return 0;
}

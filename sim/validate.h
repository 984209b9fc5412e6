/* validate.h - compare predicted counters with Nsight Compute's, metric by
 * metric, against per-metric tolerances.
 *
 * The tolerance of each metric is one table (validate.c); the targets come
 * from the validation issue: exact for instruction counts, requests, L1 sector
 * lookups and shared-memory wavefronts and conflicts; 2% for L1 hit sectors
 * and L2 read and write sectors; 5% for DRAM sectors. Metrics the model
 * predicts but that have no target are reported as "info". */
#ifndef GMS_VALIDATE_H
#define GMS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "timing.h"

typedef enum validate_tolerance_kind {
    VALIDATE_EXACT,    /* predicted must equal measured */
    VALIDATE_RELATIVE, /* |predicted - measured| <= tolerance * measured */
    VALIDATE_INFO,     /* compared and shown, never fails */
    VALIDATE_TOLERANCE_KIND_COUNT
} validate_tolerance_kind;

typedef struct validate_tolerance {
    validate_tolerance_kind kind;
    double relative; /* VALIDATE_RELATIVE: e.g. 0.02 */
    double floor;    /* VALIDATE_RELATIVE: an absolute error up to this always passes */
} validate_tolerance;

/* The tolerance for a metric name as ncu prints it. */
validate_tolerance validate_tolerance_of(const char *metric);
/* "exact", "2%", "info" */
void validate_tolerance_text(validate_tolerance t, char *buf, size_t n);

typedef struct validate_row {
    double measured;
    double predicted;
    double abs_err;   /* predicted - measured */
    double rel_err;   /* abs_err / measured; 0 when both are 0; +-INFINITY when only measured is 0 */
    validate_tolerance tol;
    bool pass;        /* always true for VALIDATE_INFO */
} validate_row;

/* Fill a row for one metric value pair. */
void validate_compare(double measured, double predicted, validate_tolerance tol, validate_row *out);

/* The predicted value of an ncu metric name from a kernel's counters: a
 * counter of stats.def or one of the ratio metrics. Returns 0 and sets *out,
 * -1 when the model does not predict that metric (or a ratio is undefined). */
int validate_predicted(const char *metric, const stats *s, double *out);

/* For an instruction count smsp__inst_executed_op_X_pred_on_any(.sum): true,
 * and its plain name smsp__inst_executed_op_X(.sum) in plain. Else false. */
bool validate_pred_on_any_plain(const char *metric, char *plain, size_t n);

/* Whether ncu's pred_on_any count (value) can be compared exactly with a
 * trace's: not where ncu's plain count of the same class (plain_value, NAN
 * when not measured) is larger, i.e. warps ran the class with every lane off
 * (see validate.c). */
bool validate_pred_on_any_trusted(double value, double plain_value);

/* Whether ncu's hardware counter of shared wavefronts or bank conflicts
 * (metric, measured value) can be compared exactly: not where ncu also
 * measured its instrumented (smsp__sass_) counts of the same quantity and
 * they differ from it, i.e. the counter saw events the kernel's instructions
 * did not cause (see validate.c). lookup(ctx, name) gives a measured value of
 * the same launch, NAN when not measured. True for every other metric. */
bool validate_smem_counter_trusted(const char *metric, double value, double (*lookup)(const void *ctx, const char *name),
                                   const void *ctx);

/* --timing: the timing model's predicted value of an ncu metric
 * (sm__cycles_elapsed.avg, the LRC's merged read sectors): 0 and *out, or -1
 * when the timing model does not predict that metric. */
int validate_timing_predicted(const char *metric, const timing_result *t, double *out);
/* Their tolerances (validate.c says where they come from). */
validate_tolerance validate_timing_tolerance_of(const char *metric);

/* The function name of a kernel signature, without return type, template
 * arguments and parameters: "void foo<int>(int *)" -> "foo",
 * "readOffset(float*, float*, float*, int, int)" -> "readOffset". Used to check
 * that a trace launch and an ncu launch are the same kernel, since the two
 * tools print signatures differently. */
void validate_base_name(const char *signature, char *buf, size_t n);

#endif

/* cmd_trace_check.c - `gpumemsim trace check TRACE NCU_CSV`: is the trace
 * complete? Compare, launch by launch, the warp-level instruction counts the
 * trace holds with the ones Nsight Compute measured for the same program.
 *
 * A trace holds the instructions with at least one lane predicated on, so it
 * is compared with ncu's instrumented smsp__sass_inst_executed_op_* counts
 * (exact, the same thing) where the CSV has them, else with the
 * smsp__inst_executed_op_*_pred_on_any counts, else with the plain counts
 * (which also count warps whose lanes were all predicated off). Where warps
 * ran a class all-off (plain > pred_on_any), ncu's pred_on_any split moves
 * between runs (docs/findings.md §9): without a sass count that class is not
 * compared. Launches pair by launch index (ncu's ID). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpu.h"
#include "ncu_csv.h"
#include "stats.h"
#include "trace.h"
#include "validate.h"

#define USAGE_CHECK "gpumemsim trace check [--allow-incomplete] TRACE NCU_CSV"

/* The instruction counters a trace determines. */
static const stat_id checked[] = {
    STAT_INST_GLOBAL_LD, STAT_INST_GLOBAL_ST, STAT_INST_GLOBAL_ATOM, STAT_INST_GLOBAL_RED,
    STAT_INST_GENERIC_LD, STAT_INST_GENERIC_ST, STAT_INST_GENERIC_ATOM, STAT_INST_LOCAL_LD,
    STAT_INST_LOCAL_ST, STAT_INST_SHARED_LD, STAT_INST_SHARED_ST, STAT_INST_SHARED_ATOM,
    STAT_INST_LDGSTS, STAT_INST_LDSM, STAT_INST_STSM,
};
#define N_CHECKED (sizeof checked / sizeof checked[0])

static const ncu_metric *number(const ncu_launch *l, const char *name)
{
    const ncu_metric *m = ncu_launch_metric(l, name);
    return m && m->kind == NCU_VALUE_NUMBER ? m : NULL;
}

/* ncu's value for counter id, by the order above. Sets *name to the metric
 * used; NULL when the CSV has none, or only an unreliable _pred_on_any
 * (*unreliable then set). */
static const ncu_metric *measured(const ncu_launch *l, stat_id id, char *name, size_t n, bool *unreliable)
{
    static const char inst[] = "smsp__inst_executed_op_";
    const char *plain = stat_name(id);
    const char *dot = strrchr(plain, '.');
    size_t stem = dot ? (size_t)(dot - plain) : strlen(plain);
    *unreliable = false;
    if (strncmp(plain, inst, sizeof inst - 1) == 0) {
        snprintf(name, n, "smsp__sass_inst_executed_op_%s", plain + sizeof inst - 1);
        const ncu_metric *s = number(l, name);
        if (s)
            return s;
    }
    const ncu_metric *all = number(l, plain);
    snprintf(name, n, "%.*s_pred_on_any%s", (int)stem, plain, dot ? dot : "");
    const ncu_metric *m = number(l, name);
    if (m && !validate_pred_on_any_trusted(m->value, all ? all->value : (double)NAN)) {
        *unreliable = true;
        return NULL;
    }
    if (m)
        return m;
    snprintf(name, n, "%s", plain);
    return all;
}

typedef struct checker {
    const char *trace_path, *csv_path;
    ncu_report rep;
    uint32_t launches, compared, differ;
} checker;

static void check_launch(checker *c, const trace_kernel *k, const stats *s)
{
    const ncu_launch *l = NULL;
    for (uint32_t i = 0; i < c->rep.n && !l; i++)
        if (c->rep.launches[i].id == k->launch)
            l = &c->rep.launches[i];
    if (!l) {
        printf("launch %u %s: not in %s\n", k->launch, k->demangled, c->csv_path);
        c->differ++;
        return;
    }
    char a[256], b[256];
    validate_base_name(k->demangled, a, sizeof a);
    validate_base_name(l->kernel, b, sizeof b);
    bool same_kernel = strcmp(a, b) == 0;
    printf("launch %u %s%s\n", k->launch, k->demangled, same_kernel ? "" : "  (ncu names another kernel!)");
    if (!same_kernel)
        c->differ++;
    for (size_t i = 0; i < N_CHECKED; i++) {
        char name[256];
        bool unreliable;
        const ncu_metric *m = measured(l, checked[i], name, sizeof name, &unreliable);
        /* a sass count also holds the generic instructions of its space */
        bool sass = m && strncmp(name, "smsp__sass_", 11) == 0;
        uint64_t mine = sass ? gpu_sass_count(s, checked[i]) : s->v[checked[i]];
        if (!m) {
            if (mine || unreliable)
                printf("  %-58s %12llu %12s  %s\n", stat_name(checked[i]), (unsigned long long)mine, "-",
                       unreliable ? "not comparable (warps ran it with every lane off)" : "not measured");
            continue;
        }
        bool equal = m->is_integer && m->u == mine;
        c->compared++;
        c->differ += !equal;
        if (mine || m->value != 0 || !equal)
            printf("  %-58s %12llu %12.0f  %s\n", name, (unsigned long long)mine, m->value,
                   equal ? "ok" : "DIFFERS");
    }
    c->launches++;
}

int cmd_trace_check(int argc, char **argv)
{
    trace_reader_options opt = {0};
    const char *paths[2] = {NULL, NULL};
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s\n\nCompare each launch's warp-level instruction counts in TRACE with\n"
                   "Nsight Compute's for the same program (exit 0 all equal, 1 some differ, 2 bad input).\n",
                   USAGE_CHECK);
            return 0;
        } else if (strcmp(argv[i], "--allow-incomplete") == 0) {
            opt.allow_incomplete = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cmd_fail("trace check: unknown option %s (usage: %s)", argv[i], USAGE_CHECK);
        } else if (n == 2) {
            return cmd_fail("trace check: too many arguments (usage: %s)", USAGE_CHECK);
        } else {
            paths[n++] = argv[i];
        }
    }
    if (n != 2)
        return cmd_fail("trace check: needs a trace and an ncu CSV (usage: %s)", USAGE_CHECK);
    checker c = {.trace_path = paths[0], .csv_path = paths[1]};
    err_info err = {{0}};
    if (ncu_report_read(c.csv_path, &c.rep, &err) != 0)
        return cmd_fail("%s", err.msg);
    trace_reader *r = trace_reader_open(c.trace_path, &opt, &err);
    if (!r) {
        ncu_report_free(&c.rep);
        return cmd_fail("%s", err.msg);
    }
    printf("%-60s %12s %12s\n", "# launch / metric", "trace", "ncu");
    stats s;
    stats_clear(&s);
    trace_event ev;
    const trace_kernel *k = NULL;
    int got, rc = 0;
    while ((got = trace_reader_next(r, &ev, &err)) > 0) {
        if (ev.type == TRACE_EV_KERNEL) {
            stats_clear(&s);
            k = ev.kernel;
        } else if (ev.type == TRACE_EV_MEM) {
            const trace_pc_info *pi = k ? trace_kernel_find_pc(k, ev.mem.pc) : NULL;
            gpu_count_instruction(&ev.mem, gpu_inst_kind_of(pi ? pi->sass : NULL), &s);
        }
        else if (ev.type == TRACE_EV_KERNEL_END)
            check_launch(&c, ev.kernel, &s);
    }
    if (got < 0) {
        rc = cmd_fail("%s", err.msg);
    } else {
        for (uint32_t i = 0; i < c.rep.n; i++)
            if (c.rep.launches[i].id >= trace_reader_kernels(r)) {
                printf("ncu launch %u %s: not in the trace\n", c.rep.launches[i].id, c.rep.launches[i].kernel);
                c.differ++;
            }
        printf("# %u launches, %u counts compared, %u differ\n", c.launches, c.compared, c.differ);
        rc = c.differ ? 1 : 0;
    }
    trace_reader_close(r);
    ncu_report_free(&c.rep);
    return rc;
}

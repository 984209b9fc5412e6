/* test_hwrows.c - every measured single-warp row of hardware-facts 2.2
 * (shared memory) and 3.4 (global loads) as a small text trace, replayed end
 * to end (text reader -> H200 config -> model) against its exact counts.
 *
 * The traces and their expectations are tests/data/hw/{h200_*.trace,EXPECTED};
 * make_hw_traces.py there wrote them from the measured tables. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "replay.h"
#include "suites.h"

typedef struct kernel_counts {
    char name[128];
    stats s;
} kernel_counts;

typedef struct collected {
    int n;
    kernel_counts k[256];
} collected;

static int keep(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    collected *c = ctx;
    ck_assert_int_lt(c->n, 256);
    snprintf(c->k[c->n].name, sizeof c->k[c->n].name, "%s", r->kernel->name);
    c->k[c->n].s = r->totals;
    c->n++;
    return 0;
}

static const stats *find(const collected *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->k[i].name, name) == 0)
            return &c->k[i].s;
    return NULL;
}

START_TEST(measured_rows_reproduce_exactly)
{
    cfg_gpu cfg;
    err_info err = {{0}};
    ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
    static collected c;
    c.n = 0;
    replay_options opt = {0};
    ck_assert_msg(replay_trace("tests/data/hw/h200_shared.trace", &cfg, &opt, keep, &c, &err) == 0, "%s", err.msg);
    ck_assert_msg(replay_trace("tests/data/hw/h200_global.trace", &cfg, &opt, keep, &c, &err) == 0, "%s", err.msg);

    FILE *f = fopen("tests/data/hw/EXPECTED", "r");
    ck_assert_ptr_nonnull(f);
    char line[512], kernel[128], metric[256];
    unsigned long long want;
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_int_eq(sscanf(line, "%127s %255s %llu", kernel, metric, &want), 3);
        const stats *s = find(&c, kernel);
        ck_assert_msg(s != NULL, "kernel %s not in the traces", kernel);
        stat_id id = stat_find(metric);
        ck_assert_msg(id != STAT_COUNT, "%s is not a counter", metric);
        ck_assert_msg(s->v[id] == want, "%s %s: model %llu, measured %llu", kernel, metric,
                      (unsigned long long)s->v[id], want);
        checked++;
    }
    fclose(f);
    ck_assert_int_gt(checked, 300);
}
END_TEST

Suite *hwrows_suite(void)
{
    Suite *s = suite_create("hwrows");
    TCase *tc = tcase_create("h200");
    tcase_add_test(tc, measured_rows_reproduce_exactly);
    suite_add_tcase(s, tc);
    return s;
}

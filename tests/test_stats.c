/* test_stats.c - counter names are real Nsight Compute metrics. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "suites.h"

/* Every counter named like an ncu metric ("unit__name.rollup") must exist in
 * the gh100 metric list that ncu --query-metrics printed on the H200
 * (docs/ncu/gh100-metrics.txt, base names). Source-view names (no "__") and
 * our own "gpumemsim__" counters are exempt. */
static int metric_listed(const char *base)
{
    FILE *f = fopen("docs/ncu/gh100-metrics.txt", "r");
    ck_assert_msg(f != NULL, "docs/ncu/gh100-metrics.txt missing (run from the repository root)");
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        found = strcmp(line, base) == 0;
    }
    fclose(f);
    return found;
}

static void base_name(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", name);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = '\0';
}

START_TEST(every_counter_is_an_ncu_metric)
{
    for (int i = 0; i < STAT_COUNT; i++) {
        const char *name = stat_name((stat_id)i);
        if (!strstr(name, "__") || strncmp(name, "gpumemsim__", 11) == 0)
            continue;
        char base[256];
        base_name(name, base, sizeof base);
        ck_assert_msg(metric_listed(base), "%s is not a gh100 metric", name);
    }
    for (int i = 0; i < STAT_RATIO_COUNT; i++) {
        char base[256];
        base_name(stat_ratios[i].name, base, sizeof base);
        ck_assert_msg(metric_listed(base), "%s is not a gh100 metric", stat_ratios[i].name);
    }
}
END_TEST

START_TEST(names_are_unique_and_found)
{
    for (int i = 0; i < STAT_COUNT; i++)
        ck_assert_int_eq(stat_find(stat_name((stat_id)i)), i);
    ck_assert_int_eq(stat_find("no_such_metric.sum"), STAT_COUNT);
}
END_TEST

START_TEST(ratio_is_undefined_on_zero_sectors)
{
    stats s;
    stats_clear(&s);
    double v = -1;
    ck_assert_int_eq(stat_ratio_value(&stat_ratios[0], &s, &v), -1);
    s.v[STAT_SASS_BYTES_GLOBAL_LD] = 128; /* 32 lanes x 4 B */
    s.v[STAT_L1_SECT_GLOBAL_LD] = 5;      /* misaligned: 5 sectors */
    ck_assert_int_eq(stat_ratio_value(&stat_ratios[0], &s, &v), 0);
    ck_assert_double_eq_tol(v, 80.0, 1e-9);
}
END_TEST

Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, every_counter_is_an_ncu_metric);
    tcase_add_test(tc, names_are_unique_and_found);
    tcase_add_test(tc, ratio_is_undefined_on_zero_sectors);
    suite_add_tcase(s, tc);
    return s;
}

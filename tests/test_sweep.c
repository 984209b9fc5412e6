/* test_sweep.c - runs the shell test of bench/sweep.sh (tests/sweep/run.sh)
 * with the gpumemsim built beside this test runner, so that `make check`
 * (and its sanitizer pass, with the sanitized binary) covers the sweep. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"

START_TEST(small_sweep_merges_like_single_runs)
{
    /* this runner is BUILD/tests/run-tests; the program is BUILD/gpumemsim */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    slash = strrchr(exe, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    char bin[PATH_MAX + 16], cmd[2 * PATH_MAX + 64];
    snprintf(bin, sizeof bin, "%s/gpumemsim", exe);
    ck_assert_msg(access(bin, X_OK) == 0, "%s: not built", bin);
    snprintf(cmd, sizeof cmd, "sh tests/sweep/run.sh '%s'", bin);
    ck_assert_msg(system(cmd) == 0, "%s failed (its message is above)", cmd);
}
END_TEST

Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, small_sweep_merges_like_single_runs);
    suite_add_tcase(s, tc);
    return s;
}

/* run_tests.c - the one Check runner: a suite per module.
 *
 * Run from the repository root (tests read configs/ and tests/data/).
 * CK_RUN_SUITE=name runs one suite; CK_FORK=no helps under a debugger. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    SRunner *sr = srunner_create(NULL);
#define SUITE(fn) srunner_add_suite(sr, fn());
#include "suites.def"
#undef SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

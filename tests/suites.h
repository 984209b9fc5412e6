/* suites.h - one Suite constructor per module's test file. */
#ifndef GMS_TEST_SUITES_H
#define GMS_TEST_SUITES_H

#include <check.h>

#define SUITE(fn) Suite *fn(void);
#include "suites.def"
#undef SUITE

#endif

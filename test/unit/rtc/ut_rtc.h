/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Shared bits of the lib/rtc unit tests: one suite through test/common's runner. */

#ifndef PV_TEST_UNIT_RTC_UT_RTC_H
#define PV_TEST_UNIT_RTC_UT_RTC_H

#include <stdio.h>

#include <CUnit/Basic.h>

#include "ut_common.h"

/* Run @p cases as one suite named @p suite; returns the process exit code. */
static inline int
ut_run(const char *suite, const struct ut_case *cases)
{
	const struct ut_suite s = { .name = suite, .cases = cases };

	return ut_cunit_run_one(&s);
}

#endif /* PV_TEST_UNIT_RTC_UT_RTC_H */

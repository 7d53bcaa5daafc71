/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Shared bits of the lib/rtc unit tests: CUnit runner. */

#ifndef PV_TEST_UNIT_RTC_UT_RTC_H
#define PV_TEST_UNIT_RTC_UT_RTC_H

#include <stdio.h>

#include <CUnit/Basic.h>

struct ut_case {
	const char *name;
	CU_TestFunc fn;
};

/* Run @p cases as one suite named @p suite; returns the process exit code. */
static inline int
ut_run(const char *suite, const struct ut_case *cases)
{
	unsigned int failures;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite(suite, NULL, NULL);
	if (s == NULL)
		goto err;
	for (; cases->name != NULL; cases++)
		if (CU_add_test(s, cases->name, cases->fn) == NULL)
			goto err;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failures != 0;
err:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 1;
}

#endif /* PV_TEST_UNIT_RTC_UT_RTC_H */

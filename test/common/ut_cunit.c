/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* The CUnit run of every test suite: see ut_common.h. */

#include <stdio.h>

#include <CUnit/Basic.h>

#include "ut_common.h"

int
ut_cunit_run(const struct ut_suite *const suites[], unsigned int n)
{
	const struct ut_case *c;
	unsigned int i, fails;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
		return 1;
	}
	for (i = 0; i < n; i++) {
		s = CU_add_suite(suites[i]->name, suites[i]->init, suites[i]->fini);
		if (s == NULL)
			goto err_registry;
		for (c = suites[i]->cases; c->name != NULL; c++)
			if ((c->when == NULL || c->when()) &&
			    CU_add_test(s, c->name, c->fn) == NULL)
				goto err_registry;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
		CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return fails != 0;

err_registry:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 1;
}

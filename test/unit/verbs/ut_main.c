/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/verbs unit tests: pv_init() with the fake drivers' devargs, then one
 * CUnit suite per lib/verbs source file.
 */

#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>

#include <rte_common.h>

#include "pv_rtc.h"
#include "ut_verbs.h"

int
main(void)
{
	static const struct ut_suite *const suites[] = {
		&ut_suite_verbs_device,
		&ut_suite_verbs_ops,
		&ut_suite_verbs_mr,
		&ut_suite_verbs_cq,
		&ut_suite_verbs_qp,
		&ut_suite_verbs_qp_state,
		&ut_suite_verbs_async,
		&ut_suite_verbs_str,
		&ut_suite_verbs_ex,
	};
	int ret;

	ret = ut_pv_init("test_verbs", 128, "pv_ut_verbs", "0",
			 "--log-level=pv.verbs:critical",	/* the tests provoke every error */
			 "--pv-dev=ut_fake:name=ut_fake0,ports=2",
			 "--pv-dev=ut_fake:name=ut_fake1",
			 "--pv-dev=ut_fake:ports=1",	/* no name: the driver skips it */
			 "--pv-dev=ut_nosuchdriver:x=1",	/* names no driver: logged */
			 NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %d\n", ret);
		return 77;
	}
	ret = ut_cunit_run(suites, RTE_DIM(suites));
	pv_cleanup();
	return ret;
}

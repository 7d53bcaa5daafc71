/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * mlx5 driver unit tests, through the device model stepped synchronously
 * (lcore=none): the data path writes WQEs and doorbells, the model executes
 * them when a test steps it, so every run is deterministic. Built again
 * with UT_HW (suite hw): the same cases on the first ConnectX, less those
 * that need the model's counters or error injection; exit 77 without one.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_common.h>

#include "pv_rtc.h"
#include "ut_mlx5.h"

#ifdef UT_HW
int ut_hw = 1;
#define UT_MLX5_DEV	NULL	/* the first ConnectX, probed without --pv-dev */
#else
int ut_hw;
#define UT_MLX5_DEV	"--pv-dev=mlx5_model:lcore=none"
#endif

/* Open the model, or with UT_HW the first ConnectX. 0, -1, or 77 (none). */
static int
ut_open(void)
{
	struct pv_device **list;
	int i, n;

	list = pv_get_device_list(&n);
	if (list == NULL)
		return -1;
	for (i = 0; i < n && ut_ctx == NULL; i++) {
		const char *name = pv_get_device_name(list[i]);

		if (ut_hw ? (strncmp(name, "mlx5_", 5) == 0 &&
			     strncmp(name, "mlx5_model", 10) != 0) :
			    strcmp(name, "mlx5_model0") == 0)
			ut_ctx = pv_open_device(list[i]);
	}
	pv_free_device_list(list);
	if (ut_ctx == NULL)
		return ut_hw ? 77 : -1;
	ut_pd = pv_alloc_pd(ut_ctx);
	return ut_pd == NULL ? -1 : 0;
}

int
main(void)
{
	static const struct ut_suite *const suites[] = {
		&ut_suite_mlx5_qp,
		&ut_suite_mlx5_cq,
		&ut_suite_mlx5_srq,
		&ut_suite_mlx5_mw,
		&ut_suite_mlx5_xrc,
		&ut_suite_mlx5_ex,
		&ut_suite_mlx5_model,	/* last: the model's own, not on a ConnectX */
	};
	int ret;

	ret = ut_pv_init("test_mlx5", 256, "pv_ut_mlx5", "0",
			 "--log-level=pv.drv.mlx5:critical",	/* the tests provoke errors */
			 UT_MLX5_DEV, NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %d\n", ret);
		return 77;
	}
	ret = ut_open();
	if (ret == 77) {
		printf("test_mlx5_hw: no mlx5 (ConnectX) device on this machine: skipped\n");
		pv_cleanup();
		return 77;
	}
	if (ret != 0) {
		fprintf(stderr, "cannot open %s\n", ut_hw ? "the mlx5 device" : "mlx5_model0");
		pv_cleanup();
		return 1;
	}
	ret = ut_cunit_run(suites, ut_hw ? RTE_DIM(suites) - 1 : RTE_DIM(suites));
	pv_dealloc_pd(ut_pd);
	pv_close_device(ut_ctx);
	pv_cleanup();
	return ret;
}

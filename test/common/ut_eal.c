/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The EAL arguments of the tests: see ut_common.h. Its own object, so that
 * suites which link no pv_init() can use the CUnit run alone.
 */

#include <stdarg.h>

#include "pv_app.h"
#include "pv_rtc.h"
#include "ut_common.h"

int
ut_pv_init(const char *prog, unsigned int mem_mb, const char *prefix, const char *lcores, ...)
{
	static struct pv_app_eal e;	/* EAL keeps pointers to argv */
	const char *arg;
	va_list ap;
	int ret;

	pv_app_eal_init(&e, prog);
	ret = pv_app_eal_add(&e, "--no-huge");
	ret = ret ?: pv_app_eal_add(&e, "--no-pci");
	ret = ret ?: pv_app_eal_add(&e, "-m");
	ret = ret ?: pv_app_eal_add(&e, "%u", mem_mb);
	ret = ret ?: pv_app_eal_add(&e, "--file-prefix=%s", prefix);
	ret = ret ?: pv_app_eal_add(&e, "--log-level=*:warning");
	ret = ret ?: pv_app_eal_add(&e, "-l");
	ret = ret ?: pv_app_eal_add(&e, "%s", lcores);
	va_start(ap, lcores);
	while (ret == 0 && (arg = va_arg(ap, const char *)) != NULL)
		ret = pv_app_eal_add(&e, "%s", arg);
	va_end(ap);
	return ret ?: pv_init(e.argc, e.argv);
}

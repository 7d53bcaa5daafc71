/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * An application outside the tree, built against an installed pollverbs
 * with `cc outside.c $(pkg-config --cflags --libs pollverbs)` (check.sh):
 * pv_init() with this program's arguments, then the device count.
 */

#include <stdio.h>

#include <pv_rtc.h>
#include <pv_verbs.h>

int
main(int argc, char **argv)
{
	struct pv_device **list;
	int n;

	if (pv_init(argc, argv) < 0)
		return 1;
	list = pv_get_device_list(&n);
	if (list == NULL)
		return 1;
	printf("pollverbs devices: %d\n", n);
	for (int i = 0; i < n; i++)
		printf("  %s\n", pv_get_device_name(list[i]));
	pv_free_device_list(list);
	return pv_cleanup() == 0 ? 0 : 1;
}

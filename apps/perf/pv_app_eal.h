/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Built-in EAL arguments of pv-perf and pv-pingpong (no EAL args given). */

#ifndef PV_APPS_PERF_PV_APP_EAL_H
#define PV_APPS_PERF_PV_APP_EAL_H

#include <stdint.h>

#define PV_APP_EAL_MAX_ARGS	16	/* what pv_app_eal_default() may fill */
#define PV_APP_SERVER_IP	"10.99.0.1"
#define PV_APP_CLIENT_IP	"10.99.0.2"

/**
 * Build EAL arguments for softroce over net_memif between two processes
 * on this machine: the server (lcore 0, memif server, 10.99.0.1) and the
 * client (lcore 1, or 0 on a one-CPU machine; memif client, 10.99.0.2),
 * meeting on the memif socket /tmp/pv-<app>-<tcp_port>.sock, with 4352-byte
 * memif buffers (bsize) and softroce's Ethernet MTU at 9000: path MTU 4096,
 * as usertools/pv-demo.sh. Hugepages when
 * hugetlbfs is mounted and 512 MiB are free, else --no-huge -m 1024. The
 * server removes a stale socket; the client waits up to 30 s for it.
 * Prints the arguments it chose.
 *
 * @param eal  Array of PV_APP_EAL_MAX_ARGS + 1 entries, NULL terminated;
 *             the strings are static (one call per process).
 * @return Number of arguments in @p eal.
 */
int pv_app_eal_default(const char *app, int server, uint16_t tcp_port, const char *prog,
		       char **eal);

/**
 * Build EAL arguments for a one-process run over the mlx5 device model:
 * -l 0,1 --no-huge --no-pci -m 512 --file-prefix=pv-<app>-model-<pid>
 * --log-level=*:warning --pv-dev=mlx5_model, so that the model polls on
 * lcore 1 beside the application on lcore 0. On a one-CPU machine: -l 0
 * and --pv-dev=mlx5_model:lcore=none (the model runs from pv_progress()).
 * Prints the arguments it chose.
 *
 * @param eal  Array of PV_APP_EAL_MAX_ARGS + 1 entries, NULL terminated;
 *             the strings are static (one call per process).
 * @return Number of arguments in @p eal.
 */
int pv_app_eal_model(const char *app, const char *prog, char **eal);

#endif /* PV_APPS_PERF_PV_APP_EAL_H */

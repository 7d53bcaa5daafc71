/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Built-in EAL arguments of pv-perf and pv-pingpong: see pv_app_eal.h. */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pv_app_eal.h"

#define PV_APP_NOHUGE_MEM_MB	"1024"
#define PV_APP_MODEL_MEM_MB	"512"
#define PV_APP_MIN_HUGE_KB	(512 * 1024)
#define PV_APP_SOCKET_WAIT_S	30
/*
 * Path MTU 4096: softroce on an Ethernet MTU of 9000, and memif buffers that
 * hold its largest frame (4096 + headers <= 4352 bytes) in one descriptor
 * (memif's chained descriptors garble mixed frame sizes in DPDK 22.11).
 * memif's default 2048-byte buffers and softroce's default MTU of 1500 give
 * path MTU 1024 and a third of the bandwidth. usertools/pv-demo.sh uses the
 * same.
 */
#define PV_APP_SROCE_MTU	"9000"
#define PV_APP_MEMIF_BSIZE	"4352"

/* Nonzero when hugetlbfs is mounted and enough huge pages are free. */
static int
pv_app_hugepages_usable(void)
{
	unsigned long free_pages = 0, page_kb = 0;
	char line[256];
	int mounted = 0;
	FILE *f;

	f = fopen("/proc/mounts", "r");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, " hugetlbfs ") != NULL)
				mounted = 1;
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %lu", &free_pages);
		sscanf(line, "Hugepagesize: %lu kB", &page_kb);
	}
	fclose(f);
	return mounted && free_pages * page_kb >= PV_APP_MIN_HUGE_KB;
}

/*
 * Nonzero when some process listens on the unix socket @p path. Read from
 * /proc/net/unix (flag __SO_ACCEPTCON, 0x10000): connecting to find out
 * would upset the memif server, and a stale socket file proves nothing.
 */
static int
pv_app_sock_listening(const char *path)
{
	char line[512], p[256];
	unsigned long flags;
	int found = 0;
	FILE *f;

	f = fopen("/proc/net/unix", "r");
	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, p) == 2 &&
		    (flags & 0x10000) != 0 && strcmp(p, path) == 0)
			found = 1;
	}
	fclose(f);
	return found;
}

static void
pv_app_eal_print(const char *app, char **eal, int n)
{
	int i;

	printf("pv-%s: built-in EAL args:", app);
	for (i = 1; i < n; i++)
		printf(" %s", eal[i]);
	printf("\n");
	fflush(stdout);
}

int
pv_app_eal_default(const char *app, int server, uint16_t tcp_port, const char *prog,
		   char **eal)
{
	static char lcore[8], prefix[64], vdev[192], pvdev[128], sock[96];
	int i, n = 0;

	snprintf(sock, sizeof(sock), "/tmp/pv-%s-%u.sock", app, tcp_port);
	snprintf(lcore, sizeof(lcore), "%d", server || sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 0 : 1);
	snprintf(prefix, sizeof(prefix), "--file-prefix=pv-%s-%s-%u", app, server ? "s" : "c",
		 tcp_port);
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no,"
		 "bsize=" PV_APP_MEMIF_BSIZE, server ? "server" : "client", sock);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=%s,mtu="
		 PV_APP_SROCE_MTU, server ? PV_APP_SERVER_IP : PV_APP_CLIENT_IP);
	eal[n++] = (char *)prog;
	eal[n++] = "--no-pci";
	eal[n++] = "-l";
	eal[n++] = lcore;
	eal[n++] = prefix;
	if (pv_app_hugepages_usable()) {
		eal[n++] = "--huge-unlink";
	} else {
		eal[n++] = "--no-huge";
		eal[n++] = "-m";
		eal[n++] = PV_APP_NOHUGE_MEM_MB;
	}
	eal[n++] = "--log-level=*:warning";
	eal[n++] = vdev;
	eal[n++] = pvdev;
	eal[n] = NULL;
	pv_app_eal_print(app, eal, n);
	if (server) {
		unlink(sock);	/* stale from a killed run */
	} else {
		/*
		 * The memif client connects once, when it is probed: wait until
		 * the server listens (a stale socket file is not enough).
		 */
		for (i = 0; i < PV_APP_SOCKET_WAIT_S * 10 && !pv_app_sock_listening(sock); i++)
			usleep(100000);
		/* the server listens from its EAL init on, but refuses clients
		 * until its port is started, a moment later */
		usleep(500000);
	}
	return n;
}

int
pv_app_eal_model(const char *app, const char *prog, char **eal)
{
	static char prefix[64];
	int one_cpu = sysconf(_SC_NPROCESSORS_ONLN) < 2;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=pv-%s-model-%d", app, (int)getpid());
	eal[n++] = (char *)prog;
	eal[n++] = "-l";
	eal[n++] = one_cpu ? "0" : "0,1";
	eal[n++] = "--no-huge";
	eal[n++] = "--no-pci";
	eal[n++] = "-m";
	eal[n++] = PV_APP_MODEL_MEM_MB;
	eal[n++] = prefix;
	eal[n++] = "--log-level=*:warning";
	eal[n++] = one_cpu ? "--pv-dev=mlx5_model:lcore=none" : "--pv-dev=mlx5_model";
	eal[n] = NULL;
	pv_app_eal_print(app, eal, n);
	return n;
}

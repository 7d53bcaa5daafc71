/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* EAL argument vectors of the applications and tests: see pv_app.h. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pv_rtc.h>

#include "pv_app.h"

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

/* Nonzero when some process listens on the unix socket @p path (flag __SO_ACCEPTCON, 0x10000). */
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

int
pv_app_sock_wait(const char *path, unsigned int timeout_ms)
{
	unsigned int waited_ms;

	for (waited_ms = 0; !pv_app_sock_listening(path); waited_ms += 100) {
		if (waited_ms >= timeout_ms)
			return -ETIMEDOUT;
		usleep(100000);
	}
	return 0;
}

void
pv_app_eal_init(struct pv_app_eal *e, const char *prog)
{
	e->argc = 0;
	e->used = 0;
	e->argv[0] = NULL;
	pv_app_eal_add(e, "%s", prog);
}

int
pv_app_eal_add(struct pv_app_eal *e, const char *fmt, ...)
{
	size_t room = sizeof(e->strings) - e->used;
	va_list ap;
	int len;

	if (e->argc >= PV_APP_EAL_MAX_ARGS)
		return -E2BIG;
	va_start(ap, fmt);
	len = vsnprintf(e->strings + e->used, room, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= room)
		return -E2BIG;
	e->argv[e->argc++] = e->strings + e->used;
	e->argv[e->argc] = NULL;
	e->used += len + 1;
	return 0;
}

static void
pv_app_eal_print(const char *app, const struct pv_app_eal *e)
{
	int i;

	printf("pv-%s: built-in EAL args:", app);
	for (i = 1; i < e->argc; i++)
		printf(" %s", e->argv[i]);
	printf("\n");
	fflush(stdout);
}

int
pv_app_eal_default(struct pv_app_eal *e, const char *app, int server, uint16_t tcp_port,
		   const char *prog)
{
	int lcore = server || sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 0 : 1;
	char sock[96];
	int ret;

	snprintf(sock, sizeof(sock), "/tmp/pv-%s-%u.sock", app, tcp_port);
	pv_app_eal_init(e, prog);
	ret = pv_app_eal_add(e, "--no-pci");
	ret = ret ?: pv_app_eal_add(e, "-l");
	ret = ret ?: pv_app_eal_add(e, "%d", lcore);
	ret = ret ?: pv_app_eal_add(e, "--file-prefix=pv-%s-%s-%u", app, server ? "s" : "c",
				    tcp_port);
	if (pv_app_hugepages_usable()) {
		ret = ret ?: pv_app_eal_add(e, "--huge-unlink");
	} else {
		ret = ret ?: pv_app_eal_add(e, "--no-huge");
		ret = ret ?: pv_app_eal_add(e, "-m");
		ret = ret ?: pv_app_eal_add(e, PV_APP_NOHUGE_MEM_MB);
	}
	ret = ret ?: pv_app_eal_add(e, "--log-level=*:warning");
	ret = ret ?: pv_app_eal_add(e, "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no,"
				    "bsize=" PV_APP_MEMIF_BSIZE, server ? "server" : "client",
				    sock);
	ret = ret ?: pv_app_eal_add(e, "--pv-dev=softroce:port=net_memif0,ip=%s,mtu="
				    PV_APP_SROCE_MTU, server ? PV_APP_SERVER_IP :
				    PV_APP_CLIENT_IP);
	if (ret != 0)
		return ret;
	pv_app_eal_print(app, e);
	if (server) {
		unlink(sock);	/* stale from a killed run */
	} else {
		/*
		 * The memif client connects once, when it is probed: wait until
		 * the server listens (a stale socket file is not enough).
		 */
		pv_app_sock_wait(sock, PV_APP_SOCKET_WAIT_S * 1000);
		/* the server listens from its EAL init on, but refuses clients
		 * until its port is started, a moment later */
		usleep(500000);
	}
	return 0;
}

int
pv_app_eal_model(struct pv_app_eal *e, const char *app, const char *prog)
{
	int one_cpu = sysconf(_SC_NPROCESSORS_ONLN) < 2;
	int ret;

	pv_app_eal_init(e, prog);
	ret = pv_app_eal_add(e, "-l");
	ret = ret ?: pv_app_eal_add(e, one_cpu ? "0" : "0,1");
	ret = ret ?: pv_app_eal_add(e, "--no-huge");
	ret = ret ?: pv_app_eal_add(e, "--no-pci");
	ret = ret ?: pv_app_eal_add(e, "-m");
	ret = ret ?: pv_app_eal_add(e, PV_APP_MODEL_MEM_MB);
	ret = ret ?: pv_app_eal_add(e, "--file-prefix=pv-%s-model-%d", app, (int)getpid());
	ret = ret ?: pv_app_eal_add(e, "--log-level=*:warning");
	ret = ret ?: pv_app_eal_add(e, one_cpu ? "--pv-dev=mlx5_model:lcore=none" :
				    "--pv-dev=mlx5_model");
	if (ret != 0)
		return ret;
	pv_app_eal_print(app, e);
	return 0;
}

/* Index of the first "--" in @p argv, or 0 when there is none. */
static int
pv_app_separator(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return 0;
}

int
pv_app_init(int *argc_p, char ***argv_p, const char *app, int server, uint16_t port)
{
	static struct pv_app_eal eal;	/* EAL keeps pointers to its argv */
	int argc = *argc_p;
	char **argv = *argv_p;
	int ret;

	if (pv_app_separator(argc, argv) == 0) {
		ret = pv_app_eal_default(&eal, app, server, port, argv[0]);
		ret = ret ?: pv_init(eal.argc, eal.argv);
		if (ret < 0) {
			fprintf(stderr, "pv-%s: pv_init: %s\n", app, strerror(-ret));
			return ret;
		}
		return 0;
	}
	ret = pv_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "pv-%s: pv_init: %s\n", app, strerror(-ret));
		return ret;
	}
	/* argv[ret] is the program name, the application's options follow;
	 * a "--" still in front of them goes, argv[0] taking its place */
	argc -= ret;
	argv += ret;
	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	*argc_p = argc;
	*argv_p = argv;
	return 0;
}

const char *
pv_app_opt_peek(int argc, char **argv, const char *optstring, int opt, const char *dflt)
{
	int i = pv_app_separator(argc, argv) + 1;

	for (; i < argc; i++) {
		const char *a = argv[i], *spec;

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;	/* an operand: getopt permutes past it */
		for (a++; *a != '\0'; a++) {
			spec = strchr(optstring, *a);
			if (spec == NULL || *a == ':')
				break;
			if (spec[1] != ':') {
				if (*a == opt)
					return "";
				continue;
			}
			/* the rest of the word, else the next word, is the argument */
			if (a[1] == '\0' && i + 1 >= argc)
				return dflt;
			if (*a == opt)
				return a[1] != '\0' ? a + 1 : argv[i + 1];
			if (a[1] == '\0')
				i++;
			break;
		}
	}
	return dflt;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-perf main: EAL arguments (given, or built for a memif pair on this
 * machine or for the mlx5 device model), then connect, agree, exchange,
 * run every size, report; or, with --loopback, connect two QPs of one
 * device to each other and run every size in this process.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include <pv_rtc.h>

#include "perf.h"
#include "pv_app.h"

#define PERF_PORT_UP_S		10

/* Links come up asynchronously (memif's handshake): wait for ACTIVE. */
static int
perf_port_wait(struct perf_run *r)
{
	uint64_t end = rte_rdtsc() + PERF_PORT_UP_S * rte_get_tsc_hz();

	while (r->port_attr.state != PV_PORT_ACTIVE) {
		if (rte_rdtsc() > end) {
			fprintf(stderr, "pv-perf: port %u of %s is %s, not active, after %d s\n",
				r->p.ib_port, r->p.ib_dev, pv_port_state_str(r->port_attr.state),
				PERF_PORT_UP_S);
			return -ENETDOWN;
		}
		pv_progress(r->ctx);
		usleep(1000);
		if (pv_query_port(r->ctx, r->p.ib_port, &r->port_attr) != 0)
			return -EIO;
	}
	return 0;
}

/* Banner, both address lines and the table's header. */
static void
perf_report_start(const struct perf_run *r)
{
	perf_report_banner(r);
	perf_report_dest(r, &r->local, 0);
	perf_report_dest(r, &r->remote, 1);
	printf("---------------------------------------------------------------------------"
	       "------------\n");
	perf_report_header(r);
	fflush(stdout);
}

/* The table's end, the verdict of --verify, what a model's figures are. */
static void
perf_report_end(const struct perf_run *r, int bad)
{
	perf_report_footer();
	if (r->p.verify)
		printf(" Data validation: %s\n",
		       bad ? "FAILED" : "every byte checked, all correct");
	perf_report_model(r);
}

static int
perf_run_all(struct perf_run *r)
{
	struct perf_result res;
	int i, ret, bad = 0;

	/*
	 * The server probes its devices (and so starts their ports) before it
	 * accepts: a memif server refuses a client that connects before its
	 * port is started, and the client connects when it probes, which it
	 * does after the TCP connection.
	 */
	if (r->is_server) {
		struct pv_device **list = pv_get_device_list(NULL);

		if (list != NULL)
			pv_free_device_list(list);
	}
	ret = perf_comm_connect(r);
	if (ret == 0)
		ret = perf_comm_params(r);
	if (ret == 0)
		ret = perf_res_init(r);
	if (ret == 0)
		ret = perf_port_wait(r);
	if (ret == 0)
		ret = perf_comm_exchange(r);
	/* -R: the CM has connected the QP (perf_comm_exchange()) */
	if (ret == 0 && !r->p.rdma_cm)
		ret = perf_res_connect(r);
	if (ret < 0)
		return ret;

	perf_report_start(r);

	for (i = 0; i < r->p.nb_sizes; i++) {
		perf_size_set(r, r->p.sizes[i]);
		ret = r->p.kind == PERF_BW ? perf_bw_run(r, &res) : perf_lat_run(r, &res);
		if (ret < 0 && ret != -EIO)
			return ret;
		if (ret == 0)
			perf_report_line(r, &res);
		if (r->p.verify && perf_comm_verdict(r, ret == 0) < 0)
			bad = 1;
		else if (ret < 0)
			return ret;
	}
	perf_report_end(r, bad);
	/* neither side tears its QP down while the other may still need ACKs */
	ret = perf_comm_sync(r);
	/* nor stops its port while the other may still poll it */
	if (ret == 0)
		ret = perf_comm_quiesce(r);
	return ret < 0 ? ret : bad ? -EIO : 0;
}

/*
 * --loopback: the client endpoint @p c opens the device, the server
 * endpoint @p s creates its own PD, MR, CQs and QP on it; the two QPs are
 * connected to each other with the device's own GID and LID, and the main
 * lcore drives both. The client's figures are reported.
 */
static int
perf_run_loopback(struct perf_run *c, struct perf_run *s)
{
	struct perf_result res;
	int i, ret, bad = 0;

	ret = perf_res_init(c);
	if (ret == 0)
		ret = perf_port_wait(c);
	if (ret == 0)
		ret = perf_res_peer_init(s, c);
	if (ret < 0)
		return ret;
	c->remote = s->local;
	s->remote = c->local;
	ret = perf_res_connect(c);
	if (ret == 0)
		ret = perf_res_connect(s);
	if (ret < 0)
		return ret;

	perf_report_start(c);

	for (i = 0; i < c->p.nb_sizes; i++) {
		perf_size_set(c, c->p.sizes[i]);
		perf_size_set(s, c->p.sizes[i]);
		ret = c->p.kind == PERF_BW ? perf_bw_loopback(c, s, &res) :
			perf_lat_loopback(c, s, &res);
		if (ret == 0)
			perf_report_line(c, &res);
		else if (ret != -EIO || !c->p.verify)
			return ret;
		else
			bad = 1;
	}
	perf_report_end(c, bad);
	return bad ? -EIO : 0;
}

static int
perf_is_test(const char *s)
{
	return s != NULL && perf_test_lookup(s, NULL) == 0;
}

int
main(int argc, char **argv)
{
	struct perf_run r, s;
	static struct pv_app_eal eal;	/* EAL keeps pointers to argv */
	char **app;
	int ret, napp;

	memset(&r, 0, sizeof(r));
	memset(&s, 0, sizeof(s));
	r.fd = -1;
	s.fd = -1;
	srand48((long)getpid() * time(NULL));
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		perf_usage(argc < 2 ? stderr : stdout, argv[0]);
		return argc < 2 ? 1 : 0;
	}
	if (perf_is_test(argv[1])) {
		/* no EAL arguments: parse ours first to pick the role */
		if (perf_params_parse(&r.p, argc - 1, argv + 1) < 0)
			return 1;
		/* a loopback without EAL args: the device that needs none */
		if (r.p.loopback)
			ret = pv_app_eal_model(&eal, "perf", argv[0]);
		else
			ret = pv_app_eal_default(&eal, "perf", r.p.server == NULL, r.p.tcp_port,
						 argv[0]);
		ret = ret ?: pv_init(eal.argc, eal.argv);
		if (ret < 0) {
			fprintf(stderr, "pv-perf: pv_init: %s\n", strerror(-ret));
			return 1;
		}
		if (perf_params_parse(&r.p, argc - 1, argv + 1) < 0)
			return 1;
		/* the hardware driver probes without --pv-dev: name the model */
		if (r.p.loopback && r.p.ib_dev == NULL)
			r.p.ib_dev = "mlx5_model0";
	} else {
		ret = pv_init(argc, argv);
		if (ret < 0) {
			fprintf(stderr, "pv-perf: pv_init: %s\n", strerror(-ret));
			return 1;
		}
		app = argv + ret;
		napp = argc - ret;
		/* tolerate both rte_eal_init() conventions: "--" or argv[0] left in front */
		while (napp > 0 && !perf_is_test(app[0]) &&
		       (strcmp(app[0], "--") == 0 || strcmp(app[0], argv[0]) == 0)) {
			app++;
			napp--;
		}
		if (napp < 1) {
			perf_usage(stderr, argv[0]);
			pv_cleanup();
			return 1;
		}
		if (perf_params_parse(&r.p, napp, app) < 0) {
			pv_cleanup();
			return 1;
		}
		if (r.p.model) {
			fprintf(stderr, "pv-perf: --model brings its own EAL arguments; with EAL "
				"arguments use --loopback (and --pv-dev=mlx5_model)\n");
			pv_cleanup();
			return 1;
		}
	}
	perf_params_finalize(&r.p);
	if (r.p.kind == PERF_LAT && r.p.duration_s > 0) {
		fprintf(stderr, "pv-perf: -D is not supported by latency tests yet\n");
		pv_cleanup();
		return 1;
	}
	r.is_server = r.p.server == NULL && !r.p.loopback;
	if (r.p.loopback) {
		ret = perf_run_loopback(&r, &s);
		perf_res_fini(&s);	/* before the client closes the shared context */
		perf_res_fini(&r);
		pv_cleanup();
		if (ret < 0)
			fprintf(stderr, "pv-perf: %s --loopback failed: %s\n", r.p.test_name,
				strerror(-ret));
		return ret < 0 ? 1 : 0;
	}
	if (r.is_server)
		printf("\n************************************\n* Waiting for client to connect... *\n"
		       "************************************\n");
	fflush(stdout);
	ret = perf_run_all(&r);
	perf_cm_test_close(&r);	/* -R: the QP goes with its CM id, before its CQs */
	perf_res_fini(&r);
	perf_comm_close(&r);
	pv_cleanup();
	if (ret < 0)
		fprintf(stderr, "pv-perf: %s failed: %s\n", r.p.test_name, strerror(-ret));
	return ret < 0 ? 1 : 0;
}

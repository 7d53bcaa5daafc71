/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-nvmf-tgt: an NVMe over Fabrics RDMA target. Subsystems, namespaces,
 * the listeners and the poll groups come from a JSON file (-c); the poll
 * groups run on the lcores given there (each must be in EAL's -l), the CM
 * on the control thread. Runs until SIGINT / SIGTERM (or -t seconds).
 * Statistics: DPDK telemetry, command /pv_nvmf/poll_groups.
 * Guide: doc/guides/apps/nvmf-tgt.rst.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <jansson.h>

#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "pv_nvmf.h"
#include "pv_nvmf_rdma.h"
#include "pv_rtc.h"

static volatile sig_atomic_t tgt_stop;
static struct pv_nvmf_rdma *tgt_rdma;
/* the listeners' addresses: the JSON's strings go with the document */
static char tgt_traddr[PV_NVMF_RDMA_MAX_LISTEN][INET_ADDRSTRLEN];

static void
tgt_signal(int sig)
{
	(void)sig;
	tgt_stop = 1;
}

static void
tgt_usage(const char *prog)
{
	printf("usage: %s [EAL options] -- -c CONFIG.json [-t SECONDS]\n"
	       "  -c FILE     the JSON configuration (doc/guides/apps/nvmf-tgt.rst)\n"
	       "  -t SECONDS  exit after this long (default: until SIGINT/SIGTERM)\n",
	       prog);
}

/* integer member @p key of @p o, or @p def when absent; -1 when not an integer */
static long long
tgt_json_int(json_t *o, const char *key, long long def)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return def;
	if (!json_is_integer(v)) {
		fprintf(stderr, "pv-nvmf-tgt: \"%s\" must be an integer\n", key);
		return -1;
	}
	return json_integer_value(v);
}

/* boolean member @p key of @p o, or @p def when absent; -1 when not a boolean */
static int
tgt_json_bool(json_t *o, const char *key, bool def)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return def;
	if (!json_is_boolean(v)) {
		fprintf(stderr, "pv-nvmf-tgt: \"%s\" must be true or false\n", key);
		return -1;
	}
	return json_is_true(v);
}

static const char *
tgt_json_str(json_t *o, const char *key, const char *def)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return def;
	if (!json_is_string(v)) {
		fprintf(stderr, "pv-nvmf-tgt: \"%s\" must be a string\n", key);
		return NULL;
	}
	return json_string_value(v);
}

/* a "file" namespace: queue_depth, direct, sqpoll, sqpoll_idle_ms; NULL + errno */
static struct pv_nvmf_ns *
tgt_file_ns(json_t *jn, const char *path, long long bs)
{
	long long qd = tgt_json_int(jn, "queue_depth", 128);
	long long idle = tgt_json_int(jn, "sqpoll_idle_ms", 0);
	int direct = tgt_json_bool(jn, "direct", false);
	int sqpoll = tgt_json_bool(jn, "sqpoll", false);
	struct pv_nvmf_ns_file_opts o;

	if (qd < 1 || qd > UINT32_MAX || idle < 0 || idle > UINT32_MAX || direct < 0 ||
	    sqpoll < 0) {
		fprintf(stderr, "pv-nvmf-tgt: file namespace %s: queue_depth 1..4096, "
			"sqpoll_idle_ms >= 0, direct and sqpoll true or false\n", path);
		errno = EINVAL;
		return NULL;
	}
	memset(&o, 0, sizeof(o));
	o.queue_depth = (uint32_t)qd;
	o.direct = direct != 0;
	o.sqpoll = sqpoll != 0;
	o.sqpoll_idle_ms = (uint32_t)idle;
	return pv_nvmf_ns_file_create_opts(path, (uint32_t)bs, &o);
}

static int
tgt_add_ns(struct pv_nvmf_subsys *s, json_t *jn)
{
	const char *type = tgt_json_str(jn, "type", "ram");
	long long bs = tgt_json_int(jn, "block_size", 512);
	long long nsid = tgt_json_int(jn, "nsid", 0);
	struct pv_nvmf_ns *ns;
	long long delay;
	int ret;

	if (type == NULL || bs < 0 || nsid < 0)
		return -EINVAL;
	if (strcmp(type, "ram") == 0) {
		long long mb = tgt_json_int(jn, "size_mb", 64);

		if (mb <= 0) {
			fprintf(stderr, "pv-nvmf-tgt: ram namespace: size_mb must be > 0\n");
			return -EINVAL;
		}
		ns = pv_nvmf_ns_ram_create((uint64_t)mb * 1024 * 1024 / (uint64_t)bs,
					   (uint32_t)bs);
		/* "delay_us": every I/O completes that much later (a slow device) */
		delay = tgt_json_int(jn, "delay_us", 0);
		if (ns != NULL && delay != 0)
			ns = pv_nvmf_ns_delay_create(ns, delay > 0 ? (uint64_t)delay : 0);
	} else if (strcmp(type, "file") == 0) {
		const char *path = tgt_json_str(jn, "path", NULL);

		if (path == NULL) {
			fprintf(stderr, "pv-nvmf-tgt: file namespace: \"path\" missing\n");
			return -EINVAL;
		}
		ns = tgt_file_ns(jn, path, bs);
	} else {
		fprintf(stderr, "pv-nvmf-tgt: namespace type \"%s\": not \"ram\" or \"file\"\n",
			type);
		return -EINVAL;
	}
	if (ns == NULL) {
		ret = -errno;
		fprintf(stderr, "pv-nvmf-tgt: %s namespace: %s\n", type, strerror(errno));
		return ret;
	}
	ns->nsid = (uint32_t)nsid;
	ret = pv_nvmf_subsys_add_ns(s, ns);
	if (ret != 0) {
		fprintf(stderr, "pv-nvmf-tgt: namespace %lld: %s\n", nsid, strerror(-ret));
		pv_nvmf_ns_destroy(ns);
	}
	return ret;
}

static int
tgt_add_subsys(struct pv_nvmf_tgt *tgt, json_t *js)
{
	const char *nqn = tgt_json_str(js, "nqn", NULL);
	const char *sn = tgt_json_str(js, "serial", "PV00000001");
	const char *mn = tgt_json_str(js, "model", "pollverbs NVMe-oF");
	json_t *any = json_object_get(js, "allow_any_host");
	json_t *hosts = json_object_get(js, "hosts");
	json_t *nss = json_object_get(js, "namespaces");
	struct pv_nvmf_subsys *s;
	size_t i;
	int ret;

	if (nqn == NULL || sn == NULL || mn == NULL) {
		fprintf(stderr, "pv-nvmf-tgt: a subsystem needs \"nqn\"\n");
		return -EINVAL;
	}
	s = pv_nvmf_subsys_create(tgt, nqn, sn, mn, any == NULL || json_is_true(any));
	if (s == NULL) {
		ret = -errno;
		fprintf(stderr, "pv-nvmf-tgt: subsystem %s: %s\n", nqn, strerror(errno));
		return ret;
	}
	for (i = 0; hosts != NULL && i < json_array_size(hosts); i++) {
		json_t *h = json_array_get(hosts, i);

		if (!json_is_string(h) || pv_nvmf_subsys_add_host(s, json_string_value(h)) != 0) {
			fprintf(stderr, "pv-nvmf-tgt: %s: bad host entry %zu\n", nqn, i);
			return -EINVAL;
		}
	}
	for (i = 0; nss != NULL && i < json_array_size(nss); i++) {
		ret = tgt_add_ns(s, json_array_get(nss, i));
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * "listeners": 1 .. PV_NVMF_RDMA_MAX_LISTEN objects { "traddr", "trsvcid"
 * (default "4420") }, no address and port twice; into @p ro (addresses in
 * tgt_traddr) and @p tgt's discovery log page. 0 or -EINVAL (said why).
 */
static int
tgt_listeners(json_t *jl, struct pv_nvmf_tgt *tgt, struct pv_nvmf_rdma_opts *ro)
{
	struct in_addr in[PV_NVMF_RDMA_MAX_LISTEN];
	const char *a, *p;
	char *end = NULL, svc[8];
	size_t i, j, n;
	long port;

	n = json_array_size(jl);
	if (!json_is_array(jl) || n == 0 || n > PV_NVMF_RDMA_MAX_LISTEN) {
		fprintf(stderr, "pv-nvmf-tgt: \"listeners\" must be an array of 1 to %u "
			"listeners\n", PV_NVMF_RDMA_MAX_LISTEN);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		a = tgt_json_str(json_array_get(jl, i), "traddr", NULL);
		p = tgt_json_str(json_array_get(jl, i), "trsvcid", "4420");
		port = p != NULL ? strtol(p, &end, 10) : 0;
		if (a == NULL || p == NULL || *end != '\0' || port <= 0 || port > 65535 ||
		    inet_pton(AF_INET, a, &in[i]) != 1) {
			fprintf(stderr, "pv-nvmf-tgt: listeners[%zu] needs an IPv4 \"traddr\" "
				"and a \"trsvcid\" of 1..65535\n", i);
			return -EINVAL;
		}
		ro->listen[i].port = (uint16_t)port;
		for (j = 0; j < i; j++)
			if (in[j].s_addr == in[i].s_addr && ro->listen[j].port == port) {
				fprintf(stderr, "pv-nvmf-tgt: listeners[%zu] and listeners[%zu] "
					"are both %s:%ld\n", j, i, a, port);
				return -EINVAL;
			}
		/* as the discovery log page gives them: canonical, as hosts type them */
		inet_ntop(AF_INET, &in[i], tgt_traddr[i], sizeof(tgt_traddr[i]));
		snprintf(svc, sizeof(svc), "%ld", port);
		ro->listen[i].traddr = tgt_traddr[i];
		if (pv_nvmf_tgt_add_listener(tgt, tgt_traddr[i], svc) != 0) {
			fprintf(stderr, "pv-nvmf-tgt: listeners[%zu]: not added\n", i);
			return -EINVAL;
		}
	}
	ro->num_listen = (unsigned int)n;
	return 0;
}

/* the configuration: target options, subsystems, the listeners, poll groups */
static int
tgt_config(const char *path, struct pv_nvmf_tgt **tgt_p, struct pv_nvmf_rdma_opts *ro)
{
	struct pv_nvmf_tgt_opts to = {
		.max_io_size = 128 * 1024,
		.in_capsule_data_size = 4096,
		.max_queue_depth = 128,
		.max_qpairs_per_ctrlr = 64,
		.kas_ms = 1000,
	};
	json_error_t err;
	json_t *root, *jt, *jg, *jss, *lc;
	struct pv_nvmf_tgt *tgt;
	long long v[7];
	size_t i;
	int ret = -EINVAL;

	root = json_load_file(path, 0, &err);
	if (root == NULL) {
		fprintf(stderr, "pv-nvmf-tgt: %s:%d:%d: %s\n", path, err.line, err.column,
			err.text);
		return -EINVAL;
	}
	jt = json_object_get(root, "transport");
	v[0] = tgt_json_int(jt, "max_io_size", to.max_io_size);
	v[1] = tgt_json_int(jt, "in_capsule_data_size", to.in_capsule_data_size);
	v[2] = tgt_json_int(jt, "max_queue_depth", to.max_queue_depth);
	v[3] = tgt_json_int(jt, "max_qpairs_per_ctrlr", to.max_qpairs_per_ctrlr);
	v[4] = tgt_json_int(jt, "buffers_per_group", 256);
	v[5] = tgt_json_int(jt, "keep_alive_granularity_ms", to.kas_ms);
	v[6] = tgt_json_int(jt, "srq_depth", 1024);
	for (i = 0; i < RTE_DIM(v); i++)
		if (v[i] < 0 || v[i] > UINT32_MAX)
			goto out;
	to.max_io_size = (uint32_t)v[0];
	to.in_capsule_data_size = (uint32_t)v[1];
	to.max_queue_depth = (uint16_t)RTE_MIN(v[2], 4096);
	to.max_qpairs_per_ctrlr = (uint16_t)RTE_MIN(v[3], 4096);
	to.kas_ms = (uint32_t)v[5];
	ro->buffers_per_group = (uint32_t)v[4];
	ro->use_srq = json_is_true(json_object_get(jt, "srq"));
	ro->srq_depth = (uint32_t)v[6];
	tgt = pv_nvmf_tgt_create(&to);
	if (tgt == NULL) {
		fprintf(stderr, "pv-nvmf-tgt: transport options out of range\n");
		goto out;
	}
	ret = tgt_listeners(json_object_get(root, "listeners"), tgt, ro);
	if (ret != 0)
		goto err_tgt;
	jg = json_object_get(root, "poll_groups");
	lc = json_object_get(jg, "lcores");
	ro->num_groups = 0;
	for (i = 0; i < json_array_size(lc) && i < PV_NVMF_RDMA_MAX_GROUPS; i++) {
		if (!json_is_integer(json_array_get(lc, i)))
			goto err_tgt;
		ro->lcores[ro->num_groups++] = (unsigned int)json_integer_value(
			json_array_get(lc, i));
	}
	if (ro->num_groups == 0) {
		ro->lcores[0] = rte_get_main_lcore();
		ro->num_groups = 1;
	}
	jss = json_object_get(root, "subsystems");
	for (i = 0; i < json_array_size(jss); i++) {
		ret = tgt_add_subsys(tgt, json_array_get(jss, i));
		if (ret != 0)
			goto err_tgt;
	}
	*tgt_p = tgt;
	ret = 0;
	goto out;
err_tgt:
	pv_nvmf_tgt_destroy(tgt);
	if (ret == 0)
		ret = -EINVAL;
out:
	json_decref(root);
	return ret;
}

/* telemetry: /pv_nvmf/poll_groups -> one dict per poll group */
static int
tgt_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct pv_nvmf_rdma_group_stats st;
	struct rte_tel_data *g;
	unsigned int i;
	char name[16];

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (i = 0; i < pv_nvmf_rdma_num_groups(tgt_rdma); i++) {
		if (pv_nvmf_rdma_group_stats(tgt_rdma, i, &st) != 0)
			continue;
		g = rte_tel_data_alloc();
		if (g == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(g);
		rte_tel_data_add_dict_u64(g, "lcore", st.lcore);
		rte_tel_data_add_dict_u64(g, "qpairs", st.qpairs);
		rte_tel_data_add_dict_u64(g, "completed", st.completed);
		rte_tel_data_add_dict_u64(g, "read_cmds", st.read_cmds);
		rte_tel_data_add_dict_u64(g, "write_cmds", st.write_cmds);
		rte_tel_data_add_dict_u64(g, "bytes_read", st.bytes_read);
		rte_tel_data_add_dict_u64(g, "bytes_written", st.bytes_written);
		rte_tel_data_add_dict_u64(g, "outstanding", st.outstanding);
		rte_tel_data_add_dict_u64(g, "no_buffer", st.no_buffer);
		snprintf(name, sizeof(name), "group%u", i);
		rte_tel_data_add_dict_container(d, name, g, 0);
	}
	return 0;
}

static int
tgt_worker(void *arg)
{
	(void)arg;
	return pv_rtc_loop_run();
}

int
main(int argc, char **argv)
{
	struct pv_nvmf_rdma_opts ro = { 0 };
	struct pv_nvmf_tgt *tgt = NULL;
	const char *config = NULL;
	double seconds = 0;
	struct timespec t0, t;
	unsigned int lc, i;
	int ret, opt;

	ret = pv_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "pv-nvmf-tgt: pv_init: %s\n", strerror(-ret));
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((opt = getopt(argc, argv, "c:t:h")) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		default:
			tgt_usage(argv[0]);
			pv_cleanup();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (config == NULL) {
		tgt_usage(argv[0]);
		pv_cleanup();
		return 2;
	}
	ret = tgt_config(config, &tgt, &ro);
	if (ret != 0)
		goto out;
	tgt_rdma = pv_nvmf_rdma_create(tgt, &ro);
	if (tgt_rdma == NULL) {
		ret = -errno;
		fprintf(stderr, "pv-nvmf-tgt: transport: %s\n", strerror(-ret));
		goto out;
	}
	rte_telemetry_register_cmd("/pv_nvmf/poll_groups", tgt_telemetry,
				   "Per poll group: qpairs, commands, bytes, outstanding");
	signal(SIGINT, tgt_signal);
	signal(SIGTERM, tgt_signal);
	RTE_LCORE_FOREACH_WORKER(lc)
		pv_rtc_lcore_launch(lc, tgt_worker, NULL);
	printf("pv-nvmf-tgt: listening on");
	for (i = 0; i < ro.num_listen; i++)
		printf(" %s:%u", ro.listen[i].traddr, ro.listen[i].port);
	printf(", %u poll group(s)\n", ro.num_groups);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long it = 1; !tgt_stop; it++) {
		pv_rtc_loop_once();
		/* the clock now and then: a system call per iteration costs the poll group */
		if (seconds > 0 && it % 4096 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 > seconds)
				break;
		}
	}
	printf("pv-nvmf-tgt: stopping\n");
	pv_nvmf_rdma_destroy(tgt_rdma);
	tgt_rdma = NULL;
	RTE_LCORE_FOREACH_WORKER(lc) {
		pv_rtc_loop_stop(lc);
		pv_rtc_lcore_wait(lc);
	}
	ret = 0;
out:
	pv_nvmf_tgt_destroy(tgt);
	pv_cleanup();
	return ret == 0 ? 0 : 1;
}

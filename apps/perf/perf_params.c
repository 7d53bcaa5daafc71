/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Command line of pv-perf: perftest's options, with perftest's defaults. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static const struct {
	const char *name;
	enum perf_verb verb;
	enum perf_kind kind;
} perf_tests[] = {
	{ "write_bw", PERF_WRITE, PERF_BW },
	{ "read_bw", PERF_READ, PERF_BW },
	{ "send_bw", PERF_SEND, PERF_BW },
	{ "write_lat", PERF_WRITE, PERF_LAT },
	{ "read_lat", PERF_READ, PERF_LAT },
	{ "send_lat", PERF_SEND, PERF_LAT },
};

int
perf_test_lookup(const char *name, struct perf_params *p)
{
	size_t i;

	for (i = 0; i < sizeof(perf_tests) / sizeof(perf_tests[0]); i++) {
		if (strcmp(name, perf_tests[i].name) == 0) {
			if (p != NULL) {
				p->test_name = perf_tests[i].name;
				p->verb = perf_tests[i].verb;
				p->kind = perf_tests[i].kind;
			}
			return 0;
		}
	}
	return -ENOENT;
}

void
perf_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage:\n"
"  %s [EAL and --pv-dev args] -- TEST [options]            server\n"
"  %s [EAL and --pv-dev args] -- TEST [options] HOST       client\n"
"  %s TEST [options] [HOST]     built-in EAL args: softroce over net_memif\n"
"                                 on this machine (see doc/guides/apps/perf.rst)\n"
"  %s [EAL and --pv-dev args] -- TEST --loopback [options]\n"
"                                 one process, two QPs of one device\n"
"  %s TEST --model [options]    loopback over the mlx5 device model, built-in\n"
"                                 EAL args -l 0,1 --no-huge --no-pci\n"
"                                 --pv-dev=mlx5_model (--loopback alone: the same)\n"
"\n"
"TEST: write_bw read_bw send_bw write_lat read_lat send_lat\n"
"\n"
"Options (as perftest):\n"
"  -p, --port=<port>         TCP port of the address exchange (default %d)\n"
"  -d, --ib-dev=<dev>        device (default: the first one)\n"
"  -i, --ib-port=<port>      device port (default 1)\n"
"  -x, --gid-index=<index>   source GID index (default: the first IPv4-mapped\n"
"                            GID on Ethernet, as perftest; else 0)\n"
"  -m, --mtu=<bytes>         path MTU 256..4096 (default: port's active MTU)\n"
"  -s, --size=<bytes>        message size (default %d for BW, %d for latency)\n"
"  -a, --all                 run sizes 2 B .. 8 MiB\n"
"  -n, --iters=<n>           iterations (default %d for BW, %d for latency)\n"
"  -D, --duration=<s>        run for <s> seconds instead of -n\n"
"  -t, --tx-depth=<n>        send queue depth (default %d for BW, %d for latency)\n"
"  -r, --rx-depth=<n>        receive queue depth for send tests (default %d)\n"
"  -l, --post_list=<n>       post <n> WRs per pv_post_send() call (BW)\n"
"  -Q, --cq-mod=<n>          signal one WR in <n> (default %d; 1 above %d B)\n"
"  -I, --inline_size=<n>     max inline payload (default %d write, %d send)\n"
"  -o, --outs=<n>            outstanding RDMA reads (default: device max)\n"
"      --sizes=<list>        run these sizes, e.g. 4k,64k,1m (pollverbs addition)\n"
"      --slots=<n>           BW: cycle over at most <n> buffer slots per size\n"
"                            (default: as many as fit in %u MiB, at most %u;\n"
"                            1: one buffer, as perftest; pollverbs addition)\n"
"      --verify              check every received byte against the pattern\n"
"      --report_gbits        report Gb/sec (default)\n"
"      --report_mib          report MiB/sec\n"
"      --loopback            client and server QP in this process (pollverbs)\n"
"      --model               --loopback over mlx5_model (no EAL args; pollverbs)\n"
"      --perftest            talk to perftest's ib_* tools (their TCP exchange;\n"
"                            one size, no --verify; both sides give the same -s -n)\n"
"  -R, --rdma_cm             connect the QP with rdma_cm (pv_rdma_*) and hold\n"
"                            --perftest's exchange over a first rdma_cm\n"
"                            connection to -p, as perftest -R; HOST is the\n"
"                            server's RoCE address; implies --perftest\n"
"      --thread-safe         keep the library's default thread-safe progress mode\n"
"                            (locks, background progress) instead of declaring\n"
"                            pv-perf the device's only thread (pollverbs)\n"
"  -h, --help                this text\n",
		prog, prog, prog, prog, prog, PERF_DEF_TCP_PORT, PERF_DEF_SIZE_BW,
		PERF_DEF_SIZE_LAT,
		PERF_DEF_ITERS_BW, PERF_DEF_ITERS_LAT, PERF_DEF_TX_DEPTH_BW,
		PERF_DEF_TX_DEPTH_LAT, PERF_DEF_RX_DEPTH, PERF_DEF_CQ_MOD,
		PERF_CQ_MOD_SIZE_LIMIT, PERF_DEF_INLINE_WRITE, PERF_DEF_INLINE_SEND,
		PERF_SLOT_BYTES >> 20, PERF_MAX_SLOTS);
}

static int
perf_num(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *val_p)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "pv-perf: %s: '%s' is not a number in %" PRIu64 "..%" PRIu64 "\n",
			opt, arg, min, max);
		return -EINVAL;
	}
	*val_p = v;
	return 0;
}

enum {
	OPT_VERIFY = 256,
	OPT_GBITS,
	OPT_MIB,
	OPT_SIZES,
	OPT_LOOPBACK,
	OPT_MODEL,
	OPT_PERFTEST,
	OPT_THREAD_SAFE,
	OPT_SLOTS,
};

/* "--sizes=4096,65536,1m": a comma list; k, m suffixes (KiB, MiB). */
static int
perf_sizes_parse(struct perf_params *p, const char *arg)
{
	const char *s = arg;
	unsigned long long v;
	char *end;

	p->nb_sizes = 0;
	while (*s != '\0') {
		errno = 0;
		v = strtoull(s, &end, 0);
		if (end != s && (*end == 'k' || *end == 'K'))
			v <<= 10, end++;
		else if (end != s && (*end == 'm' || *end == 'M'))
			v <<= 20, end++;
		if (errno != 0 || end == s || v < 1 || v > PERF_MAX_SIZE ||
		    (*end != ',' && *end != '\0') || p->nb_sizes == PERF_MAX_SIZES) {
			fprintf(stderr, "pv-perf: --sizes: bad list '%s' (at most %d sizes of 1..%u)\n",
				arg, PERF_MAX_SIZES, PERF_MAX_SIZE);
			return -EINVAL;
		}
		p->sizes[p->nb_sizes++] = v;
		s = *end == ',' ? end + 1 : end;
	}
	return p->nb_sizes > 0 ? 0 : -EINVAL;
}

/*
 * Parse "TEST [options] [HOST]" (argv[0] is TEST). Leaves defaults that
 * depend on the test to perf_params_finalize().
 */
int
perf_params_parse(struct perf_params *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'x' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "iters", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "post_list", required_argument, NULL, 'l' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "inline_size", required_argument, NULL, 'I' },
		{ "outs", required_argument, NULL, 'o' },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "report_gbits", no_argument, NULL, OPT_GBITS },
		{ "report_mib", no_argument, NULL, OPT_MIB },
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "slots", required_argument, NULL, OPT_SLOTS },
		{ "loopback", no_argument, NULL, OPT_LOOPBACK },
		{ "model", no_argument, NULL, OPT_MODEL },
		{ "perftest", no_argument, NULL, OPT_PERFTEST },
		{ "rdma_cm", no_argument, NULL, 'R' },
		{ "thread-safe", no_argument, NULL, OPT_THREAD_SAFE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(p, 0, sizeof(*p));
	p->tcp_port = PERF_DEF_TCP_PORT;
	p->ib_port = 1;
	p->inline_size = -1;
	p->gid_index = -1;
	p->report_gbits = 1;
	p->post_list = 1;
	p->rx_depth = PERF_DEF_RX_DEPTH;
	if (argc < 1 || perf_test_lookup(argv[0], p) < 0) {
		fprintf(stderr, "pv-perf: the first word must be a test name, not '%s'\n",
			argc < 1 ? "" : argv[0]);
		return -EINVAL;
	}
	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "p:d:i:x:m:s:an:D:t:r:l:Q:I:o:Rh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (perf_num("-p", optarg, 1, 65535, &v) < 0)
				return -EINVAL;
			p->tcp_port = v;
			break;
		case 'd':
			p->ib_dev = optarg;
			break;
		case 'i':
			if (perf_num("-i", optarg, 1, 255, &v) < 0)
				return -EINVAL;
			p->ib_port = v;
			break;
		case 'x':
			if (perf_num("-x", optarg, 0, 255, &v) < 0)
				return -EINVAL;
			p->gid_index = v;
			break;
		case 'm':
			if (perf_num("-m", optarg, 256, 4096, &v) < 0)
				return -EINVAL;
			if (v & (v - 1)) {
				fprintf(stderr, "pv-perf: -m: MTU must be 256, 512, 1024, 2048 or 4096\n");
				return -EINVAL;
			}
			p->mtu_bytes = v;
			break;
		case 's':
			if (perf_num("-s", optarg, 1, PERF_MAX_SIZE, &v) < 0)
				return -EINVAL;
			p->size = v;
			p->size_set = 1;
			break;
		case 'a':
			p->all_sizes = 1;
			break;
		case 'n':
			if (perf_num("-n", optarg, 5, 100000000, &v) < 0)
				return -EINVAL;
			p->iters = v;
			p->iters_set = 1;
			break;
		case 'D':
			if (perf_num("-D", optarg, 1, 3600, &v) < 0)
				return -EINVAL;
			p->duration_s = v;
			break;
		case 't':
			if (perf_num("-t", optarg, 1, 16384, &v) < 0)
				return -EINVAL;
			p->tx_depth = v;
			p->tx_depth_set = 1;
			break;
		case 'r':
			if (perf_num("-r", optarg, 1, 16384, &v) < 0)
				return -EINVAL;
			p->rx_depth = v;
			break;
		case 'l':
			if (perf_num("-l", optarg, 1, 1024, &v) < 0)
				return -EINVAL;
			p->post_list = v;
			break;
		case 'Q':
			if (perf_num("-Q", optarg, 1, 1024, &v) < 0)
				return -EINVAL;
			p->cq_mod = v;
			p->cq_mod_set = 1;
			break;
		case 'I':
			if (perf_num("-I", optarg, 0, 4096, &v) < 0)
				return -EINVAL;
			p->inline_size = v;
			break;
		case 'o':
			if (perf_num("-o", optarg, 1, 255, &v) < 0)
				return -EINVAL;
			p->out_reads = v;
			break;
		case OPT_VERIFY:
			p->verify = 1;
			break;
		case OPT_GBITS:
			p->report_gbits = 1;
			break;
		case OPT_MIB:
			p->report_gbits = 0;
			break;
		case OPT_SIZES:
			if (perf_sizes_parse(p, optarg) < 0)
				return -EINVAL;
			break;
		case OPT_SLOTS:
			if (perf_num("--slots", optarg, 1, PERF_MAX_SLOTS, &v) < 0)
				return -EINVAL;
			p->max_slots = (unsigned int)v;
			break;
		case OPT_LOOPBACK:
			p->loopback = 1;
			break;
		case OPT_MODEL:
			p->model = 1;
			p->loopback = 1;
			break;
		case OPT_PERFTEST:
			p->perftest = 1;
			break;
		case 'R':
			p->rdma_cm = 1;
			p->perftest = 1;
			break;
		case OPT_THREAD_SAFE:
			p->thread_safe = 1;
			break;
		case 'h':
			perf_usage(stdout, "pv-perf");
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind < argc)
		p->server = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "pv-perf: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (p->loopback && p->server != NULL) {
		fprintf(stderr, "pv-perf: a --loopback run has no HOST ('%s')\n", p->server);
		return -EINVAL;
	}
	if (p->all_sizes && p->duration_s > 0) {
		fprintf(stderr, "pv-perf: -a and -D cannot be used together\n");
		return -EINVAL;
	}
	if ((p->all_sizes != 0) + (p->size_set != 0) + (p->nb_sizes > 0) > 1) {
		fprintf(stderr, "pv-perf: use one of -a, -s and --sizes\n");
		return -EINVAL;
	}
	if (p->perftest && (p->loopback || p->verify || p->all_sizes || p->nb_sizes > 1 ||
			    p->duration_s > 0)) {
		fprintf(stderr, "pv-perf: --perftest runs one size by iterations, between two "
			"processes, without --verify\n");
		return -EINVAL;
	}
	if (p->kind == PERF_LAT && p->post_list > 1) {
		fprintf(stderr, "pv-perf: -l is for bandwidth tests\n");
		return -EINVAL;
	}
	return 0;
}

/* Fill the defaults that depend on the test, then apply perftest's rules. */
void
perf_params_finalize(struct perf_params *p)
{
	int bw = p->kind == PERF_BW;

	uint64_t s;
	int i;

	if (!p->size_set)
		p->size = bw ? PERF_DEF_SIZE_BW : PERF_DEF_SIZE_LAT;
	if (p->all_sizes) {
		p->nb_sizes = 0;
		for (s = 2; s <= PERF_MAX_SIZE; s *= 2)
			p->sizes[p->nb_sizes++] = s;
	} else if (p->nb_sizes == 0) {
		p->sizes[p->nb_sizes++] = p->size;
	}
	p->size = 0;
	for (i = 0; i < p->nb_sizes; i++)
		if (p->sizes[i] > p->size)
			p->size = p->sizes[i];
	if (!p->iters_set)
		p->iters = bw ? PERF_DEF_ITERS_BW : PERF_DEF_ITERS_LAT;
	if (!p->tx_depth_set)
		p->tx_depth = bw ? PERF_DEF_TX_DEPTH_BW : PERF_DEF_TX_DEPTH_LAT;
	if (p->tx_depth < p->post_list)
		p->tx_depth = p->post_list;
	if (!p->cq_mod_set) {
		p->cq_mod = PERF_DEF_CQ_MOD;
		/* as perftest: post lists signal their last WR */
		if (p->post_list > 1)
			p->cq_mod = p->post_list;
	}
	/* a blocked poster must always have a signalled WR outstanding */
	if (p->cq_mod > p->tx_depth - p->post_list + 1)
		p->cq_mod = p->tx_depth - p->post_list + 1;
	if (p->verb == PERF_READ)
		p->inline_size = 0;
	if (p->duration_s > 0)
		p->iters = 0;
	if (p->kind == PERF_LAT)
		p->tx_depth = p->tx_depth < 1 ? 1 : p->tx_depth;
	/* a size's iterations fit the receive queue exactly (no leftovers) */
	if (p->verb == PERF_SEND && p->iters > 0 && (uint64_t)p->rx_depth > p->iters)
		p->rx_depth = p->iters;
}

/*
 * CQ moderation for one size: as perftest, messages above 8 KiB are
 * signalled one by one unless -Q, -l or -a was given.
 */
int
perf_cq_mod(const struct perf_params *p, uint64_t size)
{
	if (size > PERF_CQ_MOD_SIZE_LIMIT && !p->cq_mod_set && p->post_list == 1 &&
	    !p->all_sizes)
		return 1;
	return p->cq_mod;
}

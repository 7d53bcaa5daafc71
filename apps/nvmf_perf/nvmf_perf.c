/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-nvmf-perf: an NVMe over Fabrics RDMA initiator and benchmark in the
 * manner of SPDK's perf: one I/O queue pair per lcore of -c, -q commands in
 * flight on each, -o bytes per I/O, -w pattern (-M read percentage for the
 * mixed ones), -t seconds, on every namespace of the subsystem. Reports
 * IOPS, MiB/s and average / min / max / p50 / p99 / p99.9 latency in
 * microseconds per namespace and lcore and in total; -H prints the latency
 * histogram. --verify writes a pattern and checks every block it reads
 * against a model of what it wrote (each queue entry owns its own LBA range,
 * so no two I/Os in flight overlap). Guide: doc/guides/apps/nvmf-perf.rst.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "pv_nvmf_host.h"
#include "pv_rtc.h"

#define PERF_MAX_WORKERS	16
#define PERF_HIST_SUB		32		/* linear sub-buckets per power of two */
#define PERF_HIST_BUCKETS	(40 * PERF_HIST_SUB)
#define PERF_PAT_HDR		16		/* lba (8), seq (4), nsid (4) per block */

struct perf_hist {
	uint64_t n[PERF_HIST_BUCKETS];
	uint64_t count, sum_ns, min_ns, max_ns;
};

struct perf_opts {
	char traddr[64];
	uint16_t port;
	char subnqn[224];
	uint32_t qd;
	uint32_t io_size;
	int read_pct;			/* 0..100 */
	bool random;
	double seconds;
	uint64_t core_mask;
	bool verify;
	bool histogram;
};

struct perf_worker;

struct perf_task {
	struct perf_worker *w;
	uint8_t *buf;
	uint64_t t0;
	uint32_t ns_idx;
	uint64_t slba;
	uint32_t nlb;
	uint32_t seq;
	bool is_read;
	uint64_t range_lba[PV_NVMF_HOST_MAX_NS];	/* --verify: this entry's range */
	uint64_t range_len[PV_NVMF_HOST_MAX_NS];
	uint64_t next_lba[PV_NVMF_HOST_MAX_NS];		/* sequential patterns */
};

struct perf_worker {
	unsigned int lcore;
	unsigned int idx;
	struct pv_nvmf_host_qpair *qp;
	struct pv_mr *mr;
	uint8_t *bufs;
	struct perf_task *tasks;
	struct perf_hist hist[PV_NVMF_HOST_MAX_NS];
	uint64_t ios[PV_NVMF_HOST_MAX_NS];
	uint64_t errors;
	uint64_t mismatches;
	uint64_t verified_blocks;
	bool draining;
	uint64_t end_tsc;
	uint64_t elapsed_tsc;
};

static struct perf_opts po = {
	.port = 4420,
	.qd = 32,
	.io_size = 4096,
	.read_pct = 100,
	.random = true,
	.seconds = 5,
};
static struct pv_nvmf_host_ctrlr *perf_ctrlr;
static const struct pv_nvmf_host_ns *perf_ns;
static unsigned int perf_nns;
static uint32_t **perf_model;		/* --verify: per namespace, last seq per block */
static struct perf_worker perf_workers[PERF_MAX_WORKERS];
static unsigned int perf_nworkers;

static void
perf_usage(const char *prog)
{
	printf("usage: %s [EAL options] -- -r TRID [options]\n"
	       "  -r 'trtype:RDMA adrfam:IPv4 traddr:A trsvcid:4420 subnqn:NQN'\n"
	       "  -q DEPTH      commands in flight per queue pair (32)\n"
	       "  -o BYTES      I/O size (4096)\n"
	       "  -w PATTERN    read|write|randread|randwrite|rw|randrw (randread)\n"
	       "  -M PERCENT    reads of rw / randrw (50)\n"
	       "  -t SECONDS    run time (5)\n"
	       "  -c MASK       hex mask of the lcores running I/O, one queue pair each\n"
	       "                (default: the main lcore); each must be in EAL's -l\n"
	       "  -H            print the latency histogram\n"
	       "  --verify      check every block read against what was written\n",
	       prog);
}

static int
perf_parse_trid(const char *s)
{
	char buf[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		char *v = strchr(tok, ':');

		if (v == NULL)
			return -EINVAL;
		*v++ = '\0';
		if (strcasecmp(tok, "trtype") == 0) {
			if (strcasecmp(v, "RDMA") != 0)
				return -EINVAL;
		} else if (strcasecmp(tok, "adrfam") == 0) {
			if (strcasecmp(v, "IPv4") != 0)
				return -EINVAL;
		} else if (strcasecmp(tok, "traddr") == 0) {
			snprintf(po.traddr, sizeof(po.traddr), "%s", v);
		} else if (strcasecmp(tok, "trsvcid") == 0) {
			po.port = (uint16_t)atoi(v);
		} else if (strcasecmp(tok, "subnqn") == 0) {
			snprintf(po.subnqn, sizeof(po.subnqn), "%s", v);
		} else {
			return -EINVAL;
		}
	}
	if (po.traddr[0] == '\0' || po.port == 0)
		return -EINVAL;
	if (po.subnqn[0] == '\0')
		snprintf(po.subnqn, sizeof(po.subnqn), "%s", "nqn.2016-06.io.spdk:cnode1");
	return 0;
}

static int
perf_parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "verify", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_r = false, have_m = false;
	const char *w = "randread";
	int opt;

	while ((opt = getopt_long(argc, argv, "r:q:o:w:M:t:c:Hh", lo, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (perf_parse_trid(optarg) != 0) {
				fprintf(stderr, "pv-nvmf-perf: bad -r '%s'\n", optarg);
				return -EINVAL;
			}
			have_r = true;
			break;
		case 'q':
			po.qd = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			po.io_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			w = optarg;
			break;
		case 'M':
			po.read_pct = atoi(optarg);
			have_m = true;
			break;
		case 't':
			po.seconds = atof(optarg);
			break;
		case 'c':
			po.core_mask = strtoull(optarg, NULL, 16);
			break;
		case 'H':
			po.histogram = true;
			break;
		case 'V':
			po.verify = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if (!have_r) {
		fprintf(stderr, "pv-nvmf-perf: -r is required\n");
		return -EINVAL;
	}
	po.random = strncmp(w, "rand", 4) == 0;
	if (po.random)
		w += 4;
	if (strcmp(w, "read") == 0)
		po.read_pct = 100;
	else if (strcmp(w, "write") == 0)
		po.read_pct = 0;
	else if (strcmp(w, "rw") == 0)
		po.read_pct = have_m ? po.read_pct : 50;
	else {
		fprintf(stderr, "pv-nvmf-perf: bad -w\n");
		return -EINVAL;
	}
	if (po.qd == 0 || po.qd > 1024 || po.io_size == 0 || po.read_pct < 0 ||
	    po.read_pct > 100 || po.seconds <= 0) {
		fprintf(stderr, "pv-nvmf-perf: -q 1..1024, -o > 0, -M 0..100, -t > 0\n");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* latency histogram                                                    */
/* ------------------------------------------------------------------ */

static unsigned int
perf_hist_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < PERF_HIST_SUB)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);	/* >= 5 */
	return RTE_MIN((e - 4) * PERF_HIST_SUB +
		       (unsigned int)((ns >> (e - 5)) & (PERF_HIST_SUB - 1)),
		       (unsigned int)PERF_HIST_BUCKETS - 1);
}

static uint64_t
perf_hist_bucket_hi(unsigned int b)	/* upper bound of bucket b, ns */
{
	unsigned int e;

	if (b < PERF_HIST_SUB)
		return b + 1;
	e = b / PERF_HIST_SUB + 4;
	return ((uint64_t)PERF_HIST_SUB + b % PERF_HIST_SUB + 1) << (e - 5);
}

static void
perf_hist_add(struct perf_hist *h, uint64_t ns)
{
	h->n[perf_hist_bucket(ns)]++;
	if (h->count == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
}

static void
perf_hist_merge(struct perf_hist *d, const struct perf_hist *s)
{
	unsigned int i;

	if (s->count == 0)
		return;
	for (i = 0; i < PERF_HIST_BUCKETS; i++)
		d->n[i] += s->n[i];
	if (d->count == 0 || s->min_ns < d->min_ns)
		d->min_ns = s->min_ns;
	d->max_ns = RTE_MAX(d->max_ns, s->max_ns);
	d->count += s->count;
	d->sum_ns += s->sum_ns;
}

static double
perf_hist_pct(const struct perf_hist *h, double pct)
{
	uint64_t want = (uint64_t)((double)h->count * pct / 100.0 + 0.999999), acc = 0;
	unsigned int i;

	for (i = 0; i < PERF_HIST_BUCKETS; i++) {
		acc += h->n[i];
		if (acc >= want && acc != 0)
			return (double)RTE_MIN(perf_hist_bucket_hi(i), h->max_ns) / 1000.0;
	}
	return (double)h->max_ns / 1000.0;
}

/* ------------------------------------------------------------------ */
/* I/O                                                                  */
/* ------------------------------------------------------------------ */

static uint64_t
perf_pat_word(uint64_t lba, uint32_t seq, uint32_t k)
{
	uint64_t x = lba * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seq << 32 | k);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

static void
perf_pat_fill(uint8_t *p, uint32_t bs, uint64_t lba, uint32_t seq, uint32_t nsid)
{
	uint32_t k;

	memcpy(p, &lba, 8);
	memcpy(p + 8, &seq, 4);
	memcpy(p + 12, &nsid, 4);
	for (k = PERF_PAT_HDR; k + 8 <= bs; k += 8) {
		uint64_t v = perf_pat_word(lba, seq, k);

		memcpy(p + k, &v, 8);
	}
}

static void perf_task_submit(struct perf_task *t);

static void
perf_task_done(void *arg, const struct pv_nvme_cpl *cpl)
{
	struct perf_task *t = arg;
	struct perf_worker *w = t->w;
	const struct pv_nvmf_host_ns *ns = &perf_ns[t->ns_idx];
	uint64_t now = rte_rdtsc();
	uint32_t i;

	if (cpl->status != 0) {
		if (w->errors++ < 5)
			fprintf(stderr, "pv-nvmf-perf: lcore %u: %s of LBA %" PRIu64
				" failed: status %#x\n", w->lcore, t->is_read ? "read" : "write",
				t->slba, rte_le_to_cpu_16(cpl->status));
	} else {
		perf_hist_add(&w->hist[t->ns_idx], (now - t->t0) * 1000000000ull / rte_get_tsc_hz());
		w->ios[t->ns_idx]++;
		if (po.verify) {
			uint32_t *m = perf_model[t->ns_idx];

			for (i = 0; i < t->nlb; i++) {
				if (!t->is_read) {
					m[t->slba + i] = t->seq;
					continue;
				}
				if (m[t->slba + i] == 0)
					continue;
				{
					uint8_t want[4096];

					perf_pat_fill(want, ns->block_size, t->slba + i,
						      m[t->slba + i], ns->nsid);
					w->verified_blocks++;
					if (memcmp(want, t->buf + (size_t)i * ns->block_size,
						   ns->block_size) != 0 && w->mismatches++ < 5)
						fprintf(stderr, "pv-nvmf-perf: MISMATCH nsid %u "
							"LBA %" PRIu64 "\n", ns->nsid,
							t->slba + i);
				}
			}
		}
	}
	if (!w->draining)
		perf_task_submit(t);
}

static void
perf_task_submit(struct perf_task *t)
{
	struct perf_worker *w = t->w;
	const struct pv_nvmf_host_ns *ns;
	uint64_t lo, span, nblk;
	uint32_t i;
	int ret;

	t->ns_idx = (t->ns_idx + 1) % perf_nns;
	ns = &perf_ns[t->ns_idx];
	t->nlb = po.io_size / ns->block_size;
	t->is_read = (int)rte_rand_max(100) < po.read_pct;
	lo = po.verify ? t->range_lba[t->ns_idx] : 0;
	span = po.verify ? t->range_len[t->ns_idx] : ns->num_blocks;
	nblk = span / t->nlb;			/* I/O-sized slots in the range */
	if (po.random) {
		t->slba = lo + rte_rand_max(nblk) * t->nlb;
	} else {
		t->slba = lo + t->next_lba[t->ns_idx];
		t->next_lba[t->ns_idx] = (t->next_lba[t->ns_idx] + t->nlb) % (nblk * t->nlb);
	}
	if (!t->is_read) {
		t->seq = (uint32_t)rte_rand() | 1;
		for (i = 0; i < t->nlb; i++)
			perf_pat_fill(t->buf + (size_t)i * ns->block_size, ns->block_size,
				      t->slba + i, t->seq, ns->nsid);
	}
	t->t0 = rte_rdtsc();
	ret = pv_nvmf_host_submit(w->qp, t->is_read ? PV_NVME_OPC_READ : PV_NVME_OPC_WRITE,
				  ns->nsid, t->slba, t->nlb, ns->block_size, t->buf, w->mr,
				  perf_task_done, t);
	if (ret != 0) {
		w->errors++;
		w->draining = true;
		fprintf(stderr, "pv-nvmf-perf: lcore %u: submit: %s\n", w->lcore, strerror(-ret));
	}
}

static int
perf_worker_run(void *arg)
{
	struct perf_worker *w = arg;
	uint64_t start, deadline;
	uint32_t i;

	start = rte_rdtsc();
	deadline = start + (uint64_t)(po.seconds * (double)rte_get_tsc_hz());
	for (i = 0; i < po.qd; i++)
		perf_task_submit(&w->tasks[i]);
	while (!w->draining) {
		if (pv_nvmf_host_poll(w->qp) < 0) {
			w->errors++;
			break;
		}
		if (rte_rdtsc() > deadline)
			w->draining = true;
	}
	w->elapsed_tsc = rte_rdtsc() - start;
	/* what is in flight still completes (and is checked), then we stop */
	deadline = rte_rdtsc() + 5 * rte_get_tsc_hz();
	while (pv_nvmf_host_outstanding(w->qp) != 0 && rte_rdtsc() < deadline)
		if (pv_nvmf_host_poll(w->qp) < 0)
			break;
	return 0;
}

/* --verify with reads: write each entry's range once, so every read checks */
static int
perf_prefill(struct perf_worker *w)
{
	uint64_t deadline;
	uint32_t i, k;

	for (i = 0; i < po.qd; i++) {
		struct perf_task *t = &w->tasks[i];

		for (k = 0; k < perf_nns; k++) {
			const struct pv_nvmf_host_ns *ns = &perf_ns[k];
			uint32_t nlb = po.io_size / ns->block_size;
			uint64_t lba;

			for (lba = 0; lba + nlb <= t->range_len[k]; lba += nlb) {
				uint32_t b;

				t->ns_idx = k;
				t->slba = t->range_lba[k] + lba;
				t->nlb = nlb;
				t->is_read = false;
				t->seq = (uint32_t)rte_rand() | 1;
				for (b = 0; b < nlb; b++)
					perf_pat_fill(t->buf + (size_t)b * ns->block_size,
						      ns->block_size, t->slba + b, t->seq, ns->nsid);
				t->t0 = rte_rdtsc();
				w->draining = true;	/* no resubmit from the callback */
				if (pv_nvmf_host_submit(w->qp, PV_NVME_OPC_WRITE, ns->nsid,
							t->slba, nlb, ns->block_size, t->buf,
							w->mr, perf_task_done, t) != 0)
					return -EIO;
				deadline = rte_rdtsc() + 30 * rte_get_tsc_hz();
				while (pv_nvmf_host_outstanding(w->qp) != 0)
					if (pv_nvmf_host_poll(w->qp) < 0 || rte_rdtsc() > deadline) {
						fprintf(stderr, "pv-nvmf-perf: prefill write of LBA %"
							PRIu64 " did not complete\n", t->slba);
						return -EIO;
					}
			}
		}
	}
	memset(w->hist, 0, sizeof(w->hist));
	memset(w->ios, 0, sizeof(w->ios));
	w->draining = false;
	return 0;
}

static int
perf_setup(void)
{
	unsigned int lc, i, k;
	uint64_t per;

	if (po.core_mask == 0)
		po.core_mask = 1ull << rte_get_main_lcore();
	for (lc = 0; lc < 64 && perf_nworkers < PERF_MAX_WORKERS; lc++) {
		if (!(po.core_mask & (1ull << lc)))
			continue;
		if (!rte_lcore_is_enabled(lc)) {
			fprintf(stderr, "pv-nvmf-perf: lcore %u of -c is not in EAL's -l\n", lc);
			return -EINVAL;
		}
		perf_workers[perf_nworkers].lcore = lc;
		perf_workers[perf_nworkers].idx = perf_nworkers;
		perf_nworkers++;
	}
	for (k = 0; k < perf_nns; k++) {
		if (po.io_size % perf_ns[k].block_size != 0 ||
		    po.io_size > pv_nvmf_host_max_xfer(perf_ctrlr)) {
			fprintf(stderr, "pv-nvmf-perf: -o %u: not a multiple of namespace %u's "
				"%u-byte blocks, or over the controller's %u-byte MDTS\n",
				po.io_size, perf_ns[k].nsid, perf_ns[k].block_size,
				pv_nvmf_host_max_xfer(perf_ctrlr));
			return -EINVAL;
		}
		per = perf_ns[k].num_blocks / perf_nworkers / po.qd;
		if (po.verify && per < po.io_size / perf_ns[k].block_size) {
			fprintf(stderr, "pv-nvmf-perf: --verify: namespace %u too small for "
				"%u lcores x %u entries of %u bytes\n", perf_ns[k].nsid,
				perf_nworkers, po.qd, po.io_size);
			return -EINVAL;
		}
	}
	if (po.verify) {
		perf_model = calloc(perf_nns, sizeof(*perf_model));
		for (k = 0; k < perf_nns && perf_model != NULL; k++) {
			perf_model[k] = calloc(perf_ns[k].num_blocks, sizeof(uint32_t));
			if (perf_model[k] == NULL)
				return -ENOMEM;
		}
		if (perf_model == NULL)
			return -ENOMEM;
	}
	for (i = 0; i < perf_nworkers; i++) {
		struct perf_worker *w = &perf_workers[i];
		int ret;

		/* one entry more than the depth: a queue has at least 2 (base 4.1.3) */
		ret = pv_nvmf_host_qpair_create(perf_ctrlr, (uint16_t)(i + 1),
						(uint16_t)(po.qd + 1), &w->qp);
		if (ret != 0) {
			fprintf(stderr, "pv-nvmf-perf: I/O queue %u: %s\n", i + 1, strerror(-ret));
			return ret;
		}
		w->bufs = rte_zmalloc("pv_nvmf_perf", (size_t)po.qd * po.io_size, 4096);
		w->tasks = calloc(po.qd, sizeof(*w->tasks));
		if (w->bufs == NULL || w->tasks == NULL)
			return -ENOMEM;
		w->mr = pv_nvmf_host_reg_mr(perf_ctrlr, w->bufs, (size_t)po.qd * po.io_size);
		if (w->mr == NULL)
			return -errno;
		for (k = 0; k < po.qd; k++) {
			struct perf_task *t = &w->tasks[k];
			unsigned int n;

			t->w = w;
			t->buf = w->bufs + (size_t)k * po.io_size;
			t->ns_idx = k % perf_nns;
			for (n = 0; n < perf_nns; n++) {
				per = perf_ns[n].num_blocks / perf_nworkers / po.qd;
				t->range_len[n] = per;
				t->range_lba[n] = ((uint64_t)i * po.qd + k) * per;
			}
		}
		if (po.verify && po.read_pct > 0 && perf_prefill(w) != 0) {
			fprintf(stderr, "pv-nvmf-perf: --verify prefill failed\n");
			return -EIO;
		}
	}
	return 0;
}

static void
perf_report_line(const char *name, const struct perf_hist *h, uint64_t ios, double secs)
{
	double iops = (double)ios / secs;

	printf("%-44s: %10.2f %8.2f %9.2f %8.2f %9.2f %8.2f %8.2f %8.2f\n", name, iops,
	       iops * po.io_size / (1024.0 * 1024.0),
	       h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0,
	       (double)h->min_ns / 1000.0, (double)h->max_ns / 1000.0, perf_hist_pct(h, 50),
	       perf_hist_pct(h, 99), perf_hist_pct(h, 99.9));
}

static int
perf_report(void)
{
	static struct perf_hist total, hns[PV_NVMF_HOST_MAX_NS];
	uint64_t tot_ios = 0, errors = 0, mism = 0, verified = 0;
	double secs = 0;
	unsigned int i, k, b;
	char name[96];

	for (i = 0; i < perf_nworkers; i++)
		secs = RTE_MAX(secs, (double)perf_workers[i].elapsed_tsc / rte_get_tsc_hz());
	printf("========================================================================="
	       "=====================================\n");
	printf("%-44s  %10s %8s %9s %8s %9s %8s %8s %8s\n", "", "", "", "Latency(us)", "", "",
	       "", "", "");
	printf("%-44s: %10s %8s %9s %8s %9s %8s %8s %8s\n", "Device Information", "IOPS",
	       "MiB/s", "Average", "min", "max", "p50", "p99", "p99.9");
	for (i = 0; i < perf_nworkers; i++) {
		struct perf_worker *w = &perf_workers[i];

		for (k = 0; k < perf_nns; k++) {
			snprintf(name, sizeof(name), "RDMA (%s:%u) NSID %u from core %u", po.traddr,
				 po.port, perf_ns[k].nsid, w->lcore);
			perf_report_line(name, &w->hist[k], w->ios[k], secs);
			perf_hist_merge(&total, &w->hist[k]);
			perf_hist_merge(&hns[k], &w->hist[k]);
			tot_ios += w->ios[k];
		}
		errors += w->errors;
		mism += w->mismatches;
		verified += w->verified_blocks;
	}
	printf("========================================================================="
	       "=====================================\n");
	perf_report_line("Total", &total, tot_ios, secs);
	if (po.histogram) {
		printf("\nLatency histogram (all namespaces and lcores)\n");
		printf("%12s %12s %10s %8s\n", "<= us", "count", "cumul.", "%");
		uint64_t acc = 0;

		for (b = 0; b < PERF_HIST_BUCKETS; b++) {
			if (total.n[b] == 0)
				continue;
			acc += total.n[b];
			printf("%12.3f %12" PRIu64 " %10" PRIu64 " %8.4f\n",
			       (double)perf_hist_bucket_hi(b) / 1000.0, total.n[b], acc,
			       100.0 * (double)acc / (double)total.count);
		}
	}
	if (po.verify)
		printf("verify: %" PRIu64 " blocks read back and compared, %" PRIu64
		       " mismatches\n", verified, mism);
	printf("errors: %" PRIu64 "\n", errors);
	return errors != 0 || mism != 0 || tot_ios == 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct pv_nvmf_host_opts ho = { 0 };
	unsigned int i;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = pv_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "pv-nvmf-perf: pv_init: %s\n", strerror(-ret));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (perf_parse(argc, argv) != 0) {
		perf_usage(argv[0]);
		pv_cleanup();
		return 2;
	}
	ho.traddr = po.traddr;
	ho.port = po.port;
	ho.subnqn = po.subnqn;
	ho.kato_ms = 0;		/* the host sends no Keep Alive: none asked for */
	ret = pv_nvmf_host_connect(&ho, &perf_ctrlr);
	if (ret != 0) {
		fprintf(stderr, "pv-nvmf-perf: connect to %s:%u %s: %s\n", po.traddr, po.port,
			po.subnqn, strerror(-ret));
		pv_cleanup();
		return 1;
	}
	perf_ns = pv_nvmf_host_namespaces(perf_ctrlr, &perf_nns);
	if (perf_nns == 0) {
		fprintf(stderr, "pv-nvmf-perf: %s has no namespace\n", po.subnqn);
		ret = -ENODEV;
		goto out;
	}
	printf("pv-nvmf-perf: %s: %u namespace(s), %s, qd %u, %u bytes, %d%% reads, %.1f s%s\n",
	       po.subnqn, perf_nns, po.random ? "random" : "sequential", po.qd, po.io_size,
	       po.read_pct, po.seconds, po.verify ? ", verify" : "");
	ret = perf_setup();
	if (ret != 0)
		goto out;
	for (i = 0; i < perf_nworkers; i++)
		if (perf_workers[i].lcore != rte_lcore_id())
			pv_rtc_lcore_launch(perf_workers[i].lcore, perf_worker_run,
					    &perf_workers[i]);
	for (i = 0; i < perf_nworkers; i++)
		if (perf_workers[i].lcore == rte_lcore_id())
			perf_worker_run(&perf_workers[i]);
	for (i = 0; i < perf_nworkers; i++)
		if (perf_workers[i].lcore != rte_lcore_id())
			pv_rtc_lcore_wait(perf_workers[i].lcore);
	ret = perf_report();
out:
	for (i = 0; i < perf_nworkers; i++) {
		pv_nvmf_host_qpair_destroy(perf_workers[i].qp);
		if (perf_workers[i].mr != NULL)
			pv_dereg_mr(perf_workers[i].mr);
		rte_free(perf_workers[i].bufs);
		free(perf_workers[i].tasks);
	}
	pv_nvmf_host_disconnect(perf_ctrlr);
	if (perf_model != NULL) {
		for (i = 0; i < perf_nns; i++)
			free(perf_model[i]);
		free(perf_model);
	}
	pv_cleanup();
	return ret == 0 ? 0 : 1;
}

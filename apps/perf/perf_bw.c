/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Bandwidth tests, as perftest's run_iter_bw(): the client keeps tx_depth
 * WRs outstanding, posts them post_list at a time, signals one WR in
 * cq_mod and timestamps every post and every completion with rte_rdtsc().
 * The server of write_bw/read_bw only makes progress; the server of send_bw
 * receives and measures itself.
 *
 * Each signalled WR carries in wr_id the number of WRs posted up to and
 * including it, so a completion says how many WRs are done (RC completes
 * in order) whatever cq_mod and post_list are.
 *
 * In a loopback run the client loop calls an idle function once a round
 * for the server endpoint of the same process: reposting receives
 * (send_bw) or progress (write_bw, read_bw: the device answers).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"

#define PERF_POLL_BATCH 16

static enum pv_wr_opcode
perf_wr_opcode(enum perf_verb verb)
{
	switch (verb) {
	case PERF_WRITE:
		return PV_WR_RDMA_WRITE;
	case PERF_READ:
		return PV_WR_RDMA_READ;
	default:
		return PV_WR_SEND;
	}
}

/* Source slots carry the pattern of their slot number, fixed for a size. */
static void
perf_bw_fill_sources(struct perf_run *r)
{
	unsigned int s;

	for (s = 0; s < r->nslots; s++)
		perf_pattern_fill(perf_src_slot(r, s), r->size, perf_seed(r->size, s));
}

static int
perf_bw_check_slot(struct perf_run *r, const uint8_t *p, uint64_t len, unsigned int slot,
		   const char *what)
{
	int64_t bad = perf_pattern_check(p, len, perf_seed(r->size, slot));

	if (bad >= 0) {
		fprintf(stderr, "pv-perf: verify: %s slot %u of %" PRIu64 " B: byte %" PRId64
			" is 0x%02x, expected another value\n", what, slot, r->size, bad, p[bad]);
		return -EIO;
	}
	return 0;
}

/*
 * The client's loop. @p idle (NULL in two-process runs) is called once per
 * round with @p idle_arg; a negative return ends the run with it.
 */
static int
perf_bw_client(struct perf_run *r, struct perf_result *res, int (*idle)(void *arg),
	       void *idle_arg)
{
	const struct perf_params *p = &r->p;
	int duration = p->duration_s > 0;
	uint64_t iters = duration ? UINT64_MAX : p->iters;
	int peak = !duration && p->iters <= 20000;
	struct pv_send_wr wrs[p->post_list], *bad;
	struct pv_sge sges[p->post_list];
	struct pv_wc wc[PERF_POLL_BATCH];
	unsigned int base_flags = 0;
	uint64_t scnt = 0, ccnt = 0, idx, t_start, t_end = 0, deadline = UINT64_MAX;
	uint64_t cq_mod = perf_cq_mod(p, r->size);
	int i, n, ne, ret;

	if (r->size <= (uint64_t)r->inline_size && p->verb != PERF_READ)
		base_flags |= PV_SEND_INLINE;
	memset(wrs, 0, sizeof(wrs));
	for (i = 0; i < p->post_list; i++) {
		sges[i].length = r->size;
		sges[i].lkey = r->mr->lkey;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].opcode = perf_wr_opcode(p->verb);
		wrs[i].wr.rdma.rkey = r->remote.rkey;
		wrs[i].next = i + 1 < p->post_list ? &wrs[i + 1] : NULL;
	}

	t_start = rte_rdtsc();
	if (duration)
		deadline = t_start + (uint64_t)p->duration_s * r->tsc_hz;
	while (scnt < iters || ccnt < scnt) {
		while (scnt < iters && scnt + p->post_list <= p->tx_depth + ccnt) {
			n = p->post_list;
			if ((uint64_t)n > iters - scnt)
				n = iters - scnt;
			for (i = 0; i < n; i++) {
				idx = scnt + i;
				unsigned int slot = idx % r->nslots;

				sges[i].addr = (uintptr_t)(p->verb == PERF_READ ?
							  perf_dst_slot(r, slot) :
							  perf_src_slot(r, slot));
				wrs[i].wr.rdma.remote_addr = perf_remote_slot(r, slot);
				wrs[i].wr_id = idx + 1;
				wrs[i].send_flags = base_flags;
				if ((idx + 1) % cq_mod == 0 || idx + 1 == iters)
					wrs[i].send_flags |= PV_SEND_SIGNALED;
			}
			/* in duration mode the last WR of a list is signalled so that
			 * the run can end on a completion */
			if (duration)
				wrs[n - 1].send_flags |= PV_SEND_SIGNALED;
			wrs[n - 1].next = NULL;
			if (peak)
				r->tposted[scnt] = rte_rdtsc();
			ret = pv_post_send(r->qp, &wrs[0], &bad);
			wrs[n - 1].next = n < p->post_list ? &wrs[n] : NULL;
			if (ret != 0) {
				fprintf(stderr, "pv-perf: post send at WR %" PRIu64 ": %s\n", scnt,
					strerror(ret));
				return -ret;
			}
			scnt += n;
		}
		ne = pv_poll_cq(r->send_cq, PERF_POLL_BATCH, wc);
		if (ne < 0) {
			fprintf(stderr, "pv-perf: poll CQ: %d\n", ne);
			return -EIO;
		}
		for (i = 0; i < ne; i++) {
			if (wc[i].status != PV_WC_SUCCESS) {
				fprintf(stderr, "pv-perf: completion of WR %" PRIu64 ": %s (%d), "
					"vendor error 0x%x\n", wc[i].wr_id,
					pv_wc_status_str(wc[i].status), wc[i].status,
					wc[i].vendor_err);
				return -EIO;
			}
			ccnt = wc[i].wr_id;
			if (peak)
				r->tcompleted[ccnt - 1] = rte_rdtsc();
		}
		if (ne > 0)
			t_end = rte_rdtsc();
		if (idle != NULL) {
			ret = idle(idle_arg);
			if (ret < 0)
				return ret;
		}
		if (duration && iters == UINT64_MAX && rte_rdtsc() >= deadline)
			iters = scnt;	/* stop posting; drain what is outstanding */
	}
	if (peak) {
		perf_bw_result(r, p->iters, cq_mod, 1, res);
	} else {
		r->tposted[0] = t_start;
		r->tcompleted[0] = t_end;
		perf_bw_result(r, ccnt, cq_mod, 0, res);
	}
	return 0;
}

/* send_bw server: receive into the target slots and time the run itself. */
struct perf_rx {
	struct perf_run *r;
	uint64_t rcnt;		/* receive completions */
	uint64_t posted;	/* receives posted in total */
	uint64_t limit;		/* receives to post in total; UINT64_MAX: duration */
	uint64_t t_last;
	int err;
};

static int
perf_rx_post(struct perf_rx *rx, unsigned int n)
{
	struct perf_run *r = rx->r;
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;
	unsigned int i;
	int ret;

	for (i = 0; i < n && rx->posted < rx->limit; i++) {
		unsigned int slot = rx->posted % r->nslots;

		sge.addr = (uintptr_t)perf_dst_slot(r, slot);
		sge.length = r->size;
		sge.lkey = r->mr->lkey;
		wr.wr_id = slot;
		wr.next = NULL;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = pv_post_recv(r->qp, &wr, &bad);
		if (ret != 0) {
			fprintf(stderr, "pv-perf: post receive %" PRIu64 ": %s\n", rx->posted,
				strerror(ret));
			return -ret;
		}
		rx->posted++;
	}
	return 0;
}

/* Progress callback of the server's wait for the client's result. */
static int
perf_rx_poll(void *arg)
{
	struct perf_rx *rx = arg;
	struct perf_run *r = rx->r;
	struct pv_wc wc[PERF_POLL_BATCH];
	int i, ne, ret;

	ne = pv_poll_cq(r->recv_cq, PERF_POLL_BATCH, wc);
	if (ne <= 0)
		return ne < 0 ? -EIO : pv_progress(r->ctx);
	rx->t_last = rte_rdtsc();
	for (i = 0; i < ne; i++) {
		if (wc[i].status != PV_WC_SUCCESS) {
			fprintf(stderr, "pv-perf: receive %" PRIu64 ": %s (%d)\n", rx->rcnt,
				pv_wc_status_str(wc[i].status), wc[i].status);
			return -EIO;
		}
		if (r->p.verify) {
			/* message n came from the client's source slot n % nslots */
			if (wc[i].byte_len != r->size) {
				fprintf(stderr, "pv-perf: verify: receive %" PRIu64 " has %u B, "
					"expected %" PRIu64 "\n", rx->rcnt, wc[i].byte_len,
					r->size);
				return -EIO;
			}
			if (wc[i].wr_id != rx->rcnt % r->nslots ||
			    perf_bw_check_slot(r, perf_dst_slot(r, wc[i].wr_id), r->size,
					       rx->rcnt % r->nslots, "received") < 0)
				return -EIO;
		}
		rx->rcnt++;
	}
	ret = perf_rx_post(rx, ne);
	return ret < 0 ? ret : ne;
}

static int
perf_bw_server_send(struct perf_run *r, struct perf_result *res)
{
	struct perf_rx rx = { .r = r };
	struct perf_result peer;
	uint64_t t_start;
	int ret;

	rx.limit = r->p.duration_s > 0 ? UINT64_MAX : r->p.iters;
	ret = perf_rx_post(&rx, r->p.rx_depth);
	if (ret < 0)
		return ret;
	ret = perf_comm_sync(r);
	if (ret < 0)
		return ret;
	t_start = rte_rdtsc();
	rx.t_last = t_start;
	ret = perf_comm_result_recv_poll(r, &peer, perf_rx_poll, &rx);
	if (ret < 0)
		return ret;
	/* the client saw its last send complete: drain what is left to poll */
	while (rx.rcnt < peer.iters) {
		ret = perf_rx_poll(&rx);
		if (ret < 0)
			return ret;
	}
	r->tposted[0] = t_start;
	r->tcompleted[0] = rx.t_last;
	perf_bw_result(r, rx.rcnt, 1, 0, res);
	return 0;
}

/*
 * --verify, before the start: the side whose memory is read or sent fills
 * its sources, the side whose memory is written clears its targets.
 */
static void
perf_bw_prepare(struct perf_run *r)
{
	enum perf_verb verb = r->p.verb;

	if (!r->p.verify)
		return;
	if (r->is_server ? verb == PERF_READ : verb != PERF_READ)
		perf_bw_fill_sources(r);
	if (r->is_server ? verb == PERF_WRITE : verb == PERF_READ)
		memset(perf_dst_slot(r, 0), 0, r->nslots * r->stride);
}

/* --verify, after the run: the target slots written (server) or read (client). */
static int
perf_bw_check(struct perf_run *r)
{
	enum perf_verb want = r->is_server ? PERF_WRITE : PERF_READ;
	unsigned int s, used;

	if (!r->p.verify || r->p.verb != want)
		return 0;
	used = r->p.iters > 0 && r->p.iters < r->nslots ? r->p.iters : r->nslots;
	for (s = 0; s < used; s++)
		if (perf_bw_check_slot(r, perf_dst_slot(r, s), r->size, s,
				       r->is_server ? "written" : "read") < 0)
			return -EIO;
	return 0;
}

int
perf_bw_run(struct perf_run *r, struct perf_result *res)
{
	int ret;

	if (r->is_server && r->p.verb == PERF_SEND)
		return perf_bw_server_send(r, res);
	perf_bw_prepare(r);
	ret = perf_comm_sync(r);
	if (ret == 0 && r->is_server)
		ret = perf_comm_result_recv(r, res);
	if (ret == 0 && !r->is_server)
		ret = perf_bw_client(r, res, NULL, NULL);
	if (ret == 0 && !r->is_server)
		ret = perf_comm_result_send(r, res);
	return ret < 0 ? ret : perf_bw_check(r);
}

/* Loopback idle function of write_bw and read_bw: the device answers. */
static int
perf_bw_progress(void *arg)
{
	struct perf_run *s = arg;

	return pv_progress(s->ctx);
}

int
perf_bw_loopback(struct perf_run *c, struct perf_run *s, struct perf_result *res)
{
	struct perf_rx rx = { .r = s };
	int ret;

	perf_bw_prepare(c);
	perf_bw_prepare(s);
	if (c->p.verb != PERF_SEND) {
		ret = perf_bw_client(c, res, perf_bw_progress, s);
	} else {
		/* the server's receives, reposted as they complete */
		rx.limit = c->p.duration_s > 0 ? UINT64_MAX : c->p.iters;
		ret = perf_rx_post(&rx, c->p.rx_depth);
		if (ret == 0)
			ret = perf_bw_client(c, res, perf_rx_poll, &rx);
		/* every send completed: so did every receive; poll them */
		while (ret == 0 && rx.rcnt < res->iters) {
			ret = perf_rx_poll(&rx);
			ret = ret > 0 ? 0 : ret;
		}
	}
	if (ret == 0)
		ret = perf_bw_check(c);
	if (ret == 0)
		ret = perf_bw_check(s);
	return ret;
}

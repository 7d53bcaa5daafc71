/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Latency tests, as perftest's run_iter_lat_write(), run_iter_lat_send()
 * and run_iter_lat(): one message in flight, a timestamp at every post;
 * the report is built from the gaps between consecutive posts (one round
 * trip; halved for write and send, whole for read).
 *
 * write_lat: each side writes into the peer's target slot and spins on the
 * last byte of its own target slot, which carries the iteration number;
 * spinning on memory calls pv_progress(), since nothing else would receive
 * the peer's packets. send_lat: each side answers a receive with a send.
 * read_lat: the client reads the server's source slot; the server only
 * makes progress until the client's result arrives.
 *
 * Each side's loop is a step function that runs until it has to wait (for
 * the peer's message or a completion) and then returns, so that one thread
 * can alternate between the two endpoints of a loopback run; a two-process
 * run just calls it again until it is done.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"

static int
perf_lat_check(struct perf_run *r, const uint8_t *p, uint64_t len, uint64_t n)
{
	int64_t bad = perf_pattern_check(p, len, perf_seed(r->size, n));

	if (bad >= 0) {
		fprintf(stderr, "pv-perf: verify: message %" PRIu64 " of %" PRIu64 " B: byte %"
			PRId64 " differs (0x%02x)\n", n, r->size, bad, p[bad]);
		return -EIO;
	}
	return 0;
}

enum perf_lat_phase {
	PERF_LAT_RECV,		/* wait for the peer's message (write, send) */
	PERF_LAT_POST,		/* post this side's message */
	PERF_LAT_WAIT,		/* wait for its completion, if signalled */
};

/** One side's position in a latency loop. */
struct perf_lat {
	struct perf_run *r;
	int (*step)(struct perf_lat *l);
	enum perf_lat_phase phase;
	int first;		/* speaks first: no receive before the first post */
	int signalled;		/* the last message posted is signalled */
	uint64_t scnt;		/* messages posted */
	uint64_t rcnt;		/* messages received */
	uint64_t ccnt;		/* send completions */
	uint64_t rposted;	/* receives posted (send_lat) */
	struct pv_send_wr wr;
	struct pv_sge sge;
};

/* Poll for one completion: 1 got it, 0 none yet, -EIO failed. */
static int
perf_lat_poll_wc(struct pv_cq *cq, struct pv_wc *wc)
{
	int ne = pv_poll_cq(cq, 1, wc);

	if (ne == 0)
		return 0;
	if (ne < 0) {
		fprintf(stderr, "pv-perf: poll CQ: %d\n", ne);
		return -EIO;
	}
	if (wc->status != PV_WC_SUCCESS) {
		fprintf(stderr, "pv-perf: completion: %s (%d), vendor error 0x%x\n",
			pv_wc_status_str(wc->status), wc->status, wc->vendor_err);
		return -EIO;
	}
	return 1;
}

static int
perf_lat_post(struct perf_run *r, struct pv_send_wr *wr)
{
	struct pv_send_wr *bad;
	int ret = pv_post_send(r->qp, wr, &bad);

	if (ret != 0)
		fprintf(stderr, "pv-perf: post send: %s\n", strerror(ret));
	return -ret;
}

static void
perf_lat_wr(struct perf_run *r, struct pv_send_wr *wr, struct pv_sge *sge,
	    enum pv_wr_opcode opcode)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)(opcode == PV_WR_RDMA_READ ? perf_dst_slot(r, 0) :
				perf_src_slot(r, 0));
	sge->length = r->size;
	sge->lkey = r->mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcode;
	wr->wr.rdma.remote_addr = perf_remote_slot(r, 0);
	wr->wr.rdma.rkey = r->remote.rkey;
	wr->send_flags = PV_SEND_SIGNALED;
	if (opcode != PV_WR_RDMA_READ && r->size <= (uint64_t)r->inline_size)
		wr->send_flags |= PV_SEND_INLINE;
}

/* @return 1 when this side is done, 0 when it has to wait, or -errno. */
static int
perf_lat_write_step(struct perf_lat *l)
{
	struct perf_run *r = l->r;
	uint64_t iters = r->p.iters;
	volatile uint8_t *poll = perf_dst_slot(r, 0) + r->size - 1;
	uint8_t *src = perf_src_slot(r, 0);
	struct pv_wc wc;
	int ret;

	for (;;) {
		switch (l->phase) {
		case PERF_LAT_RECV:
			if (l->rcnt < iters && !(l->scnt < 1 && l->first)) {
				/* nothing else would receive the peer's packets */
				if (*poll != (uint8_t)(l->rcnt + 1)) {
					ret = pv_progress(r->ctx);
					return ret < 0 ? ret : 0;
				}
				l->rcnt++;
				if (r->p.verify && r->size > 1 &&
				    perf_lat_check(r, perf_dst_slot(r, 0), r->size - 1,
						   l->rcnt) < 0)
					return -EIO;
			}
			l->phase = PERF_LAT_POST;
			/* fallthrough */
		case PERF_LAT_POST:
			if (l->scnt < iters) {
				r->tposted[l->scnt] = rte_rdtsc();
				l->scnt++;
				if (r->p.verify)
					perf_pattern_fill(src, r->size - 1,
							  perf_seed(r->size, l->scnt));
				src[r->size - 1] = (uint8_t)l->scnt;
				ret = perf_lat_post(r, &l->wr);
				if (ret < 0)
					return ret;
			}
			l->phase = PERF_LAT_WAIT;
			/* fallthrough */
		case PERF_LAT_WAIT:
			if (l->ccnt < iters) {
				ret = perf_lat_poll_wc(r->send_cq, &wc);
				if (ret <= 0)
					return ret;
				l->ccnt++;
			}
			l->phase = PERF_LAT_RECV;
			if (l->scnt == iters && l->ccnt == iters && l->rcnt == iters)
				return 1;
		}
	}
}

static int
perf_lat_recv_post(struct perf_run *r)
{
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;
	int ret;

	sge.addr = (uintptr_t)perf_dst_slot(r, 0);
	sge.length = r->size;
	sge.lkey = r->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = pv_post_recv(r->qp, &wr, &bad);
	if (ret != 0)
		fprintf(stderr, "pv-perf: post receive: %s\n", strerror(ret));
	return -ret;
}

static int
perf_lat_send_step(struct perf_lat *l)
{
	struct perf_run *r = l->r;
	uint64_t iters = r->p.iters;
	uint8_t *src = perf_src_slot(r, 0);
	struct pv_wc wc;
	int ret;

	for (;;) {
		switch (l->phase) {
		case PERF_LAT_RECV:
			if (l->rcnt < iters && !(l->scnt < 1 && l->first)) {
				ret = perf_lat_poll_wc(r->recv_cq, &wc);
				if (ret <= 0)
					return ret;
				l->rcnt++;
				if (r->p.verify) {
					if (wc.byte_len != r->size) {
						fprintf(stderr, "pv-perf: verify: message %" PRIu64
							" has %u B\n", l->rcnt, wc.byte_len);
						return -EIO;
					}
					if (perf_lat_check(r, perf_dst_slot(r, 0), r->size,
							   l->rcnt) < 0)
						return -EIO;
				}
				if (l->rposted < iters) {
					ret = perf_lat_recv_post(r);
					if (ret < 0)
						return ret;
					l->rposted++;
				}
			}
			l->phase = PERF_LAT_POST;
			/* fallthrough */
		case PERF_LAT_POST:
			l->signalled = 0;
			if (l->scnt < iters) {
				r->tposted[l->scnt] = rte_rdtsc();
				l->scnt++;
				/* unsignalled, as perftest, but one in cq_mod and the last */
				l->wr.send_flags &= ~PV_SEND_SIGNALED;
				if (l->scnt % r->p.cq_mod == 0 || l->scnt == iters)
					l->wr.send_flags |= PV_SEND_SIGNALED;
				l->signalled = (l->wr.send_flags & PV_SEND_SIGNALED) != 0;
				if (r->p.verify)
					perf_pattern_fill(src, r->size,
							  perf_seed(r->size, l->scnt));
				ret = perf_lat_post(r, &l->wr);
				if (ret < 0)
					return ret;
			}
			l->phase = PERF_LAT_WAIT;
			/* fallthrough */
		case PERF_LAT_WAIT:
			if (l->signalled) {
				ret = perf_lat_poll_wc(r->send_cq, &wc);
				if (ret <= 0)
					return ret;
				l->signalled = 0;
			}
			l->phase = PERF_LAT_RECV;
			if (l->scnt == iters && l->rcnt == iters)
				return 1;
		}
	}
}

/* The client's side of read_lat; the server's memory is only read. */
static int
perf_lat_read_step(struct perf_lat *l)
{
	struct perf_run *r = l->r;
	struct pv_wc wc;
	int ret;

	for (;;) {
		switch (l->phase) {
		case PERF_LAT_RECV:
		case PERF_LAT_POST:
			if (l->scnt == r->p.iters)
				return 1;
			r->tposted[l->scnt] = rte_rdtsc();
			ret = perf_lat_post(r, &l->wr);
			if (ret < 0)
				return ret;
			l->phase = PERF_LAT_WAIT;
			/* fallthrough */
		case PERF_LAT_WAIT:
			ret = perf_lat_poll_wc(r->send_cq, &wc);
			if (ret <= 0)
				return ret;
			if (r->p.verify) {
				if (perf_lat_check(r, perf_dst_slot(r, 0), r->size, 0) < 0)
					return -EIO;
				memset(perf_dst_slot(r, 0), 0, r->size);
			}
			l->scnt++;
			l->phase = PERF_LAT_POST;
		}
	}
}

static void
perf_lat_init(struct perf_lat *l, struct perf_run *r)
{
	uint64_t iters = r->p.iters;

	memset(l, 0, sizeof(*l));
	l->r = r;
	switch (r->p.verb) {
	case PERF_WRITE:
		l->step = perf_lat_write_step;
		l->first = r->is_server;
		perf_lat_wr(r, &l->wr, &l->sge, PV_WR_RDMA_WRITE);
		break;
	case PERF_SEND:
		l->step = perf_lat_send_step;
		l->first = !r->is_server;	/* the client speaks first */
		/* receives were posted before the start (perf_lat_prepare()) */
		l->rposted = (uint64_t)r->p.rx_depth < iters ? (uint64_t)r->p.rx_depth : iters;
		perf_lat_wr(r, &l->wr, &l->sge, PV_WR_SEND);
		break;
	default:
		l->step = perf_lat_read_step;
		l->phase = PERF_LAT_POST;
		perf_lat_wr(r, &l->wr, &l->sge, PV_WR_RDMA_READ);
		break;
	}
}

/* Before the start: clear the target, fill read_lat's source, post receives. */
static int
perf_lat_prepare(struct perf_run *r)
{
	uint64_t i, n;
	int ret = 0;

	memset(perf_dst_slot(r, 0), 0, r->stride);
	if (r->p.verb == PERF_READ && r->is_server)
		perf_pattern_fill(perf_src_slot(r, 0), r->size, perf_seed(r->size, 0));
	if (r->p.verb == PERF_SEND) {
		n = (uint64_t)r->p.rx_depth < r->p.iters ? (uint64_t)r->p.rx_depth : r->p.iters;
		for (i = 0; i < n && ret == 0; i++)
			ret = perf_lat_recv_post(r);
	}
	return ret;
}

int
perf_lat_run(struct perf_run *r, struct perf_result *res)
{
	struct perf_lat l;
	int ret;

	ret = perf_lat_prepare(r);
	if (ret == 0)
		ret = perf_comm_sync(r);
	if (ret < 0)
		return ret;
	if (r->p.verb == PERF_READ && r->is_server)
		return perf_comm_result_recv(r, res);
	perf_lat_init(&l, r);
	do {
		ret = l.step(&l);
	} while (ret == 0);
	if (ret < 0)
		return ret;
	ret = perf_lat_result(r, r->p.iters, res);
	if (ret == 0 && !r->is_server)
		ret = perf_comm_result_send(r, res);
	if (ret == 0 && r->is_server) {
		struct perf_result peer;

		/* the client's result: consumed to keep the channel in step */
		ret = perf_comm_result_recv(r, &peer);
	}
	return ret;
}

/*
 * One thread, both endpoints: step the client, then the server, until both
 * are done. Each round also makes progress, for a device that needs it
 * (the model without an lcore of its own); the server of read_lat has no
 * loop of its own.
 */
int
perf_lat_loopback(struct perf_run *c, struct perf_run *s, struct perf_result *res)
{
	struct perf_lat lc, ls;
	int done_c = 0, done_s = 0, ret;

	ret = perf_lat_prepare(c);
	if (ret == 0)
		ret = perf_lat_prepare(s);
	if (ret < 0)
		return ret;
	perf_lat_init(&lc, c);
	perf_lat_init(&ls, s);
	done_s = c->p.verb == PERF_READ;
	while (!done_c || !done_s) {
		if (!done_c) {
			ret = lc.step(&lc);
			if (ret < 0)
				return ret;
			done_c = ret;
		}
		if (!done_s) {
			ret = ls.step(&ls);
			if (ret < 0)
				return ret;
			done_s = ret;
		}
		if (pv_progress(c->ctx) < 0)
			return -EIO;
	}
	return perf_lat_result(c, c->p.iters, res);
}

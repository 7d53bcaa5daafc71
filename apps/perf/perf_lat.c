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

/* Wait for one completion on @p cq (pv_poll_cq() makes progress). */
static int
perf_lat_wait_wc(struct pv_cq *cq, struct pv_wc *wc)
{
	int ne;

	do {
		ne = pv_poll_cq(cq, 1, wc);
	} while (ne == 0);
	if (ne < 0) {
		fprintf(stderr, "pv-perf: poll CQ: %d\n", ne);
		return -EIO;
	}
	if (wc->status != PV_WC_SUCCESS) {
		fprintf(stderr, "pv-perf: completion: %s (%d), vendor error 0x%x\n",
			pv_wc_status_str(wc->status), wc->status, wc->vendor_err);
		return -EIO;
	}
	return 0;
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

static int
perf_lat_write(struct perf_run *r)
{
	uint64_t iters = r->p.iters, scnt = 0, rcnt = 0, ccnt = 0;
	volatile uint8_t *poll = perf_dst_slot(r, 0) + r->size - 1;
	uint8_t *src = perf_src_slot(r, 0);
	struct pv_send_wr wr;
	struct pv_sge sge;
	struct pv_wc wc;
	int ret;

	perf_lat_wr(r, &wr, &sge, PV_WR_RDMA_WRITE);
	while (scnt < iters || ccnt < iters || rcnt < iters) {
		/* the server answers; the client speaks first */
		if (rcnt < iters && !(scnt < 1 && r->is_server)) {
			rcnt++;
			while (*poll != (uint8_t)rcnt) {
				ret = pv_progress(r->ctx);
				if (ret < 0)
					return ret;
			}
			if (r->p.verify && r->size > 1 &&
			    perf_lat_check(r, perf_dst_slot(r, 0), r->size - 1, rcnt) < 0)
				return -EIO;
		}
		if (scnt < iters) {
			r->tposted[scnt] = rte_rdtsc();
			scnt++;
			if (r->p.verify)
				perf_pattern_fill(src, r->size - 1, perf_seed(r->size, scnt));
			src[r->size - 1] = (uint8_t)scnt;
			ret = perf_lat_post(r, &wr);
			if (ret < 0)
				return ret;
		}
		if (ccnt < iters) {
			ret = perf_lat_wait_wc(r->send_cq, &wc);
			if (ret < 0)
				return ret;
			ccnt++;
		}
	}
	return 0;
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
perf_lat_send(struct perf_run *r)
{
	uint64_t iters = r->p.iters, scnt = 0, rcnt = 0, rposted = 0;
	uint8_t *src = perf_src_slot(r, 0);
	struct pv_send_wr wr;
	struct pv_sge sge;
	struct pv_wc wc;
	int ret;

	perf_lat_wr(r, &wr, &sge, PV_WR_SEND);
	/* receives were posted before the start barrier (perf_lat_run()) */
	rposted = (uint64_t)r->p.rx_depth < iters ? (uint64_t)r->p.rx_depth : iters;
	while (scnt < iters || rcnt < iters) {
		if (rcnt < iters && !(scnt < 1 && !r->is_server)) {
			ret = perf_lat_wait_wc(r->recv_cq, &wc);
			if (ret < 0)
				return ret;
			rcnt++;
			if (r->p.verify) {
				if (wc.byte_len != r->size) {
					fprintf(stderr, "pv-perf: verify: message %" PRIu64 " has %u B\n",
						rcnt, wc.byte_len);
					return -EIO;
				}
				if (perf_lat_check(r, perf_dst_slot(r, 0), r->size, rcnt) < 0)
					return -EIO;
			}
			if (rposted < iters) {
				ret = perf_lat_recv_post(r);
				if (ret < 0)
					return ret;
				rposted++;
			}
		}
		if (scnt < iters) {
			r->tposted[scnt] = rte_rdtsc();
			scnt++;
			/* unsignalled, as perftest, but one in cq_mod and the last */
			wr.send_flags &= ~PV_SEND_SIGNALED;
			if (scnt % r->p.cq_mod == 0 || scnt == iters)
				wr.send_flags |= PV_SEND_SIGNALED;
			if (r->p.verify)
				perf_pattern_fill(src, r->size, perf_seed(r->size, scnt));
			ret = perf_lat_post(r, &wr);
			if (ret < 0)
				return ret;
			if (wr.send_flags & PV_SEND_SIGNALED) {
				ret = perf_lat_wait_wc(r->send_cq, &wc);
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

static int
perf_lat_read(struct perf_run *r)
{
	uint64_t scnt;
	struct pv_send_wr wr;
	struct pv_sge sge;
	struct pv_wc wc;
	int ret;

	perf_lat_wr(r, &wr, &sge, PV_WR_RDMA_READ);
	for (scnt = 0; scnt < r->p.iters; scnt++) {
		r->tposted[scnt] = rte_rdtsc();
		ret = perf_lat_post(r, &wr);
		if (ret == 0)
			ret = perf_lat_wait_wc(r->send_cq, &wc);
		if (ret < 0)
			return ret;
		if (r->p.verify) {
			if (perf_lat_check(r, perf_dst_slot(r, 0), r->size, 0) < 0)
				return -EIO;
			memset(perf_dst_slot(r, 0), 0, r->size);
		}
	}
	return 0;
}

int
perf_lat_run(struct perf_run *r, struct perf_result *res)
{
	uint64_t i, n;
	int ret;

	memset(perf_dst_slot(r, 0), 0, r->stride);
	if (r->p.verb == PERF_READ) {
		if (r->is_server) {
			perf_pattern_fill(perf_src_slot(r, 0), r->size, perf_seed(r->size, 0));
			ret = perf_comm_sync(r);
			return ret < 0 ? ret : perf_comm_result_recv(r, res);
		}
		ret = perf_comm_sync(r);
		if (ret == 0)
			ret = perf_lat_read(r);
	} else if (r->p.verb == PERF_WRITE) {
		ret = perf_comm_sync(r);
		if (ret == 0)
			ret = perf_lat_write(r);
	} else {
		n = (uint64_t)r->p.rx_depth < r->p.iters ? (uint64_t)r->p.rx_depth : r->p.iters;
		for (i = 0, ret = 0; i < n && ret == 0; i++)
			ret = perf_lat_recv_post(r);
		if (ret == 0)
			ret = perf_comm_sync(r);
		if (ret == 0)
			ret = perf_lat_send(r);
	}
	if (ret < 0)
		return ret;
	ret = perf_lat_result(r, r->p.iters, res);
	if (ret == 0 && !r->is_server)
		ret = perf_comm_result_send(r, res);
	if (ret == 0 && r->is_server && r->p.verb != PERF_READ) {
		struct perf_result peer;

		/* the client's result: consumed to keep the channel in step */
		ret = perf_comm_result_recv(r, &peer);
	}
	return ret;
}

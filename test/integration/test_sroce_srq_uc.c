/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce shared receive queues and UC queue pairs, in one process: two
 * devices on crossed net_ring ports driven from one thread (as
 * test_sroce_ring.c). Device A (10.0.1.1) sends, device B (10.0.1.2)
 * receives.
 *
 * sroce_srq: one SRQ on B shared by two RC QPs, messages from both peers
 * interleaved and compared byte for byte, completions naming the QP that
 * received; RNR NAK while the SRQ is empty; the srq_limit event; an ERR QP
 * leaving the SRQ's WQEs to the other QP (and LAST_WQE_REACHED); a receive
 * buffer too small (LOC_LEN_ERR on the WQE that QP took, the rest kept);
 * every documented errno.
 * sroce_uc: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM at 1 B,
 * MTU, MTU+1 and 64 KiB compared byte for byte; READ and atomics refused;
 * a message damaged by injected loss (MIDDLE or LAST lost) or sent without
 * a receive WQE gets no completion and is counted, the next one completes
 * into the same receive WQE.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define DEPTH	64
#define SLOT	(72u * 1024)	/* one receive buffer: 64 KiB messages + room */
#define NSLOT	16
#define BUFSZ	(SLOT * NSLOT)
#define MTU	1024u

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static uint8_t *sbuf, *rbuf, *chk;
static struct pv_mr *smr, *rmr;
static struct ut_buf *sb, *rb;

/* ---------------------------------------------------------------------- */
/* Connection helpers                                                     */
/* ---------------------------------------------------------------------- */

/* the local side of every QP here; RTR runs on a helper thread while this one
 * progresses @p other (RTR blocks on ARP) */
static void
qp_opts(struct pv_app_qp_opts *o, uint32_t psn, uint8_t rnr_retry, struct pv_context *other)
{
	pv_app_qp_opts_init(o);
	o->name = "test_sroce_srq_uc";
	o->sgid_index = 1;
	o->access = PV_ACCESS_REMOTE_WRITE;
	o->sq_psn = psn;
	o->rnr_retry = rnr_retry;
	o->min_rnr_timer = 1;	/* 10 us */
	o->modify = ut_qp_modify_progress_fn;
	o->modify_arg = other;
}

static int
qp_init(struct pv_qp *qp)
{
	struct pv_app_qp_opts o;

	qp_opts(&o, 0, 7, NULL);
	return -pv_app_qp_modify(qp, PV_QPS_INIT, &o, NULL);
}

struct pair {
	struct pv_qp *qa, *qb;		/* on A (sender), on B (receiver) */
};

static struct pv_qp *
qp_create(struct pv_pd *p, struct pv_cq *c, enum pv_qp_type type, struct pv_srq *srq)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c;
	ia.recv_cq = c;
	ia.srq = srq;
	ia.qp_type = type;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	return pv_create_qp(p, &ia);
}

/* @p psn_a: first PSN of A's requester (near the 24-bit wrap on purpose) */
static int
pair_connect(struct pair *p, enum pv_qp_type type, struct pv_srq *srq_b, uint32_t psn_a,
	     uint8_t rnr_retry)
{
	const uint32_t psn_b = 0x4321;
	struct pv_app_qp_peer peer_a = { 0 }, peer_b = { 0 };
	struct pv_app_qp_opts oa, ob;
	int ret;

	p->qa = qp_create(pd[0], cq[0], type, NULL);
	p->qb = qp_create(pd[1], cq[1], type, srq_b);
	if (p->qa == NULL || p->qb == NULL)
		return ENOMEM;
	qp_opts(&oa, psn_a, rnr_retry, ctx[1]);
	qp_opts(&ob, psn_b, rnr_retry, ctx[0]);
	peer_a.qpn = p->qa->qp_num;
	peer_a.psn = psn_a;
	peer_b.qpn = p->qb->qp_num;
	peer_b.psn = psn_b;
	pv_query_gid(ctx[0], 1, 1, &peer_a.gid);
	pv_query_gid(ctx[1], 1, 1, &peer_b.gid);
	ret = pv_app_qp_modify(p->qa, PV_QPS_INIT, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_INIT, &ob, NULL);
	ret = ret ?: pv_app_qp_modify(p->qa, PV_QPS_RTR, &oa, &peer_b);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_RTR, &ob, &peer_a);
	ret = ret ?: pv_app_qp_modify(p->qa, PV_QPS_RTS, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_RTS, &ob, NULL);
	ret = -ret;
	return ret;
}

static void
pair_destroy(struct pair *p)
{
	ut_cq_drain(cq, 2, 3);
	if (p->qa != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qa), 0);
	if (p->qb != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qb), 0);
}

static int
post_send(struct pv_qp *qp, enum pv_wr_opcode op, uint64_t wr_id, const uint8_t *src,
	  uint32_t len, uint8_t *dst, uint32_t imm)
{
	struct pv_sge sge = { (uintptr_t)src, len, smr->lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = rmr->rkey;
	return pv_post_send(qp, &wr, &bad);
}

static int
srq_post1(struct pv_srq *srq, uint64_t wr_id, uint8_t *buf, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)buf, len, rmr->lkey };
	struct pv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return pv_post_srq_recv(srq, &wr, &bad);
}

static struct pv_srq *
srq_create(uint32_t max_wr, uint32_t max_sge)
{
	struct pv_srq_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = max_wr;
	ia.attr.max_sge = max_sge;
	return pv_create_srq(pd[1], &ia);
}

static uint8_t *
slot(unsigned int i)
{
	return rbuf + (size_t)i * SLOT;
}

/*
 * The next SRQ or QP async event, or -1 with errno EAGAIN when none is
 * queued (async_fd is non-blocking); port events (link monitor) are skipped.
 */
static int
async_next(struct pv_context *c, struct pv_async_event *ev)
{
	for (;;) {
		if (pv_get_async_event(c, ev) != 0)
			return -1;
		if (ev->event_type != PV_EVENT_PORT_ACTIVE && ev->event_type != PV_EVENT_PORT_ERR)
			return 0;
		pv_ack_async_event(ev);
	}
}

/* ---------------------------------------------------------------------- */
/* SRQ                                                                    */
/* ---------------------------------------------------------------------- */

static void
test_srq_device_limits(void)
{
	struct pv_device_attr da;

	CU_ASSERT_EQUAL_FATAL(pv_query_device(ctx[1], &da), 0);
	CU_ASSERT_EQUAL(da.max_srq, 256);
	CU_ASSERT_EQUAL(da.max_srq_wr, 16384);
	CU_ASSERT_EQUAL(da.max_srq_sge, 32);
	CU_ASSERT_EQUAL(da.device_cap_flags & PV_DEVICE_SRQ_RESIZE, 0);
}

struct expect {
	uint32_t len;
	uint32_t seed;
	int imm;
};

/* two RC QPs on B share one SRQ; A's two QPs interleave their messages */
static void
test_srq_shared_two_qps(void)
{
	static const uint32_t lens[] = { 1, 1025, 65536, 0, 4096, 3 };
	struct pv_srq_attr sa;
	struct pv_srq *srq;
	struct pair p[2];
	struct expect exp[2][RTE_DIM(lens)];
	unsigned int head[2] = { 0, 0 }, i, k, nrecv = 0, nsend = 0;
	uint8_t slot_used[NSLOT];
	struct pv_wc wc;

	srq = srq_create(12, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL(pv_query_srq(srq, &sa), 0);
	CU_ASSERT_EQUAL(sa.max_wr, 16);		/* rounded up to a power of two */
	CU_ASSERT_EQUAL(sa.max_sge, 2);
	CU_ASSERT_EQUAL(sa.srq_limit, 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[0], PV_QPT_RC, srq, 0xfffff0, 7), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[1], PV_QPT_RC, srq, 0x100, 7), 0);
	CU_ASSERT_PTR_EQUAL(p[0].qb->srq, srq);
	memset(rbuf, 0xee, BUFSZ);
	memset(slot_used, 0, sizeof(slot_used));
	for (i = 0; i < 2 * RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL_FATAL(srq_post1(srq, i, slot(i), SLOT), 0);
	/* both QPs' messages in flight at once: their packets interleave */
	for (k = 0; k < RTE_DIM(lens); k++) {
		for (i = 0; i < 2; i++) {
			uint32_t seed = 1000 + k * 2 + i;
			uint8_t *src = sbuf + (size_t)(k * 2 + i) * SLOT;
			int imm = (k + i) % 3 == 0;

			ut_fill(src, lens[k], seed);
			exp[i][k] = (struct expect){ lens[k], seed, imm };
			CU_ASSERT_EQUAL_FATAL(post_send(p[i].qa, imm ? PV_WR_SEND_WITH_IMM :
							PV_WR_SEND, seed, src, lens[k], NULL,
							seed), 0);
		}
	}
	while (nrecv < 2 * RTE_DIM(lens) && ut_wait_wc(cq[1], &wc, 5000)) {
		int q = wc.qp_num == p[0].qb->qp_num ? 0 : 1;
		const struct expect *e;

		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
		CU_ASSERT_FATAL(wc.qp_num == p[q].qb->qp_num);
		CU_ASSERT_EQUAL(wc.src_qp, p[q].qa->qp_num);
		CU_ASSERT_FATAL(wc.wr_id < NSLOT && !slot_used[wc.wr_id]);
		CU_ASSERT_FATAL(head[q] < RTE_DIM(lens));
		slot_used[wc.wr_id] = 1;
		/* one QP's messages arrive in its order, whichever WQE they took */
		e = &exp[q][head[q]++];
		CU_ASSERT_EQUAL(wc.byte_len, e->len);
		CU_ASSERT_EQUAL(!!(wc.wc_flags & PV_WC_WITH_IMM), e->imm);
		if (e->imm)
			CU_ASSERT_EQUAL(wc.imm_data, htonl(e->seed));
		ut_fill(chk, e->len, e->seed);
		CU_ASSERT_EQUAL(memcmp(slot(wc.wr_id), chk, e->len), 0);
		CU_ASSERT_EQUAL(slot(wc.wr_id)[e->len], 0xee);
		nrecv++;
	}
	CU_ASSERT_EQUAL(nrecv, 2 * RTE_DIM(lens));
	while (nsend < 2 * RTE_DIM(lens) && ut_wait_wc(cq[0], &wc, 5000)) {
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		nsend++;
	}
	CU_ASSERT_EQUAL(nsend, 2 * RTE_DIM(lens));
	/* WRITE_WITH_IMM consumes an SRQ WQE too (no data placed in it) */
	CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 99, slot(15), 16), 0);
	ut_fill(sbuf, 3000, 77);
	CU_ASSERT_EQUAL_FATAL(post_send(p[1].qa, PV_WR_RDMA_WRITE_WITH_IMM, 5, sbuf, 3000,
					slot(14), 0xabc), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 99);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV_RDMA_WITH_IMM);
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(wc.qp_num, p[1].qb->qp_num);
	CU_ASSERT_EQUAL(wc.imm_data, htonl(0xabc));
	CU_ASSERT_EQUAL(memcmp(slot(14), sbuf, 3000), 0);
	CU_ASSERT_EQUAL(slot(15)[0], 0xee);
	/* the SRQ is in use */
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), EBUSY);
	pair_destroy(&p[0]);
	pair_destroy(&p[1]);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

/* an empty SRQ is an RNR NAK; a WQE posted later lets the retry through */
static void
test_srq_rnr_empty(void)
{
	struct pv_sroce_stats s0, s1;
	struct pv_srq *srq = srq_create(8, 1);
	struct pair p, q;
	struct pv_wc wc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC, srq, 0x10, 7), 0);
	pv_sroce_stats_get(ctx[1], &s0);
	ut_fill(sbuf, 2500, 5);
	memset(rbuf, 0xee, 4096);
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 1, sbuf, 2500, NULL, 0), 0);
	ut_spin(3);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[0], 1, &wc), 0);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[1], 1, &wc), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT(s1.rnr_naks_tx > s0.rnr_naks_tx);
	CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 7, rbuf, 4096), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(wc.byte_len, 2500);
	CU_ASSERT_EQUAL(wc.qp_num, p.qb->qp_num);
	CU_ASSERT_EQUAL(memcmp(rbuf, sbuf, 2500), 0);
	CU_ASSERT_EQUAL(rbuf[2500], 0xee);
	pair_destroy(&p);

	/* rnr_retry 0: the requester gives up */
	CU_ASSERT_EQUAL_FATAL(pair_connect(&q, PV_QPT_RC, srq, 0x10, 0), 0);
	CU_ASSERT_EQUAL_FATAL(post_send(q.qa, PV_WR_SEND, 2, sbuf, 8, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, PV_WC_RNR_RETRY_EXC_ERR);
	pair_destroy(&q);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

/* PV_EVENT_SRQ_LIMIT_REACHED when fewer than srq_limit WQEs stay, once */
static void
test_srq_limit_event(void)
{
	struct pv_srq *srq = srq_create(16, 1);
	struct pv_async_event ev;
	struct pv_srq_attr sa;
	struct pair p;
	struct pv_wc wc;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC, srq, 0x77, 7), 0);
	while (async_next(ctx[1], &ev) == 0)
		;	/* nothing of this test is queued yet */
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL_FATAL(srq_post1(srq, i, slot(i), 64), 0);
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 5;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_LIMIT), 0);
	memset(&sa, 0, sizeof(sa));
	CU_ASSERT_EQUAL(pv_query_srq(srq, &sa), 0);
	CU_ASSERT_EQUAL(sa.srq_limit, 5);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, i, sbuf, 16, NULL, 0), 0);
		CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
		CU_ASSERT_EQUAL(wc.wr_id, (uint64_t)i);
		CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
		if (i < 3) {
			/* 7, 6, 5 left: not below 5 */
			CU_ASSERT_EQUAL(async_next(ctx[1], &ev), -1);
			CU_ASSERT_EQUAL(errno, EAGAIN);
		}
	}
	/* 4 left */
	CU_ASSERT_EQUAL_FATAL(async_next(ctx[1], &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.srq, srq);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL(pv_query_srq(srq, &sa), 0);
	CU_ASSERT_EQUAL(sa.srq_limit, 0);	/* disarmed */
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 9, sbuf, 16, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(async_next(ctx[1], &ev), -1);
	/* armed above what is posted (3): fires at the next consumption */
	sa.srq_limit = 10;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(async_next(ctx[1], &ev), -1);
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 10, sbuf, 16, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL_FATAL(async_next(ctx[1], &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_SRQ_LIMIT_REACHED);
	pv_ack_async_event(&ev);
	pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

/* a QP in ERR flushes its own queues only: the SRQ's WQEs serve the other QP */
static void
test_srq_err_keeps_wqes(void)
{
	struct pv_srq *srq = srq_create(8, 1);
	struct pv_async_event ev;
	struct pv_qp_attr a;
	struct pair p[2];
	struct pv_wc wc;
	int i, n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[0], PV_QPT_RC, srq, 0x500, 7), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[1], PV_QPT_RC, srq, 0x600, 7), 0);
	while (async_next(ctx[1], &ev) == 0)
		;
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 40 + i, slot(i), 256), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_ERR;
	CU_ASSERT_EQUAL_FATAL(pv_modify_qp(p[0].qb, &a, PV_QP_STATE), 0);
	n += ut_cq_drain(&cq[1], 1, 3);
	CU_ASSERT_EQUAL(n, 0);	/* nothing flushed */
	CU_ASSERT_EQUAL_FATAL(async_next(ctx[1], &ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_QP_LAST_WQE_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p[0].qb);
	pv_ack_async_event(&ev);
	ut_fill(sbuf, 200, 3);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(post_send(p[1].qa, PV_WR_SEND, i, sbuf, 200, NULL, 0), 0);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 40 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.qp_num, p[1].qb->qp_num);
		CU_ASSERT_EQUAL(memcmp(slot(i), sbuf, 200), 0);
	}
	pair_destroy(&p[0]);
	pair_destroy(&p[1]);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

/* a receive buffer too small: the WQE the QP took completes LOC_LEN_ERR */
static void
test_srq_len_err(void)
{
	struct pv_srq *srq = srq_create(8, 1);
	struct pv_async_event ev;
	struct pair p[2];
	struct pv_wc wc;
	int i, n = 0, last_wqe = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[0], PV_QPT_RC, srq, 0x900, 7), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p[1], PV_QPT_RC, srq, 0xa00, 7), 0);
	while (async_next(ctx[1], &ev) == 0)
		;
	CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 50, slot(0), 64), 0);
	CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 51, slot(1), 4096), 0);
	CU_ASSERT_EQUAL_FATAL(srq_post1(srq, 52, slot(2), 4096), 0);
	ut_fill(sbuf, 2000, 9);
	CU_ASSERT_EQUAL_FATAL(post_send(p[0].qa, PV_WR_SEND, 1, sbuf, 2000, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 50);
	CU_ASSERT_EQUAL(wc.status, PV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(wc.qp_num, p[0].qb->qp_num);
	n += ut_cq_drain(&cq[1], 1, 3);
	CU_ASSERT_EQUAL(n, 0);	/* 51 and 52 stay in the SRQ */
	while (async_next(ctx[1], &ev) == 0) {
		if (ev.event_type == PV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == p[0].qb)
			last_wqe++;
		pv_ack_async_event(&ev);
	}
	CU_ASSERT_EQUAL(last_wqe, 1);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(post_send(p[1].qa, PV_WR_SEND, 2, sbuf, 2000, NULL, 0), 0);
		CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 51 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.qp_num, p[1].qb->qp_num);
		CU_ASSERT_EQUAL(memcmp(slot(1 + i), sbuf, 2000), 0);
	}
	pair_destroy(&p[0]);
	pair_destroy(&p[1]);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

static void
test_srq_errnos(void)
{
	struct pv_srq_init_attr ia;
	struct pv_srq_attr sa;
	struct pv_recv_wr wr[3], *bad;
	struct pv_sge sge[3];
	struct pv_srq *srq;
	struct pv_qp *qp;
	int i, ret = 0;

	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = 0;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq(pd[1], &ia));
	CU_ASSERT_EQUAL(errno, EINVAL);
	ia.attr.max_wr = 16385;
	CU_ASSERT_PTR_NULL(pv_create_srq(pd[1], &ia));
	CU_ASSERT_EQUAL(errno, EINVAL);
	ia.attr.max_wr = 4;
	ia.attr.max_sge = 33;
	CU_ASSERT_PTR_NULL(pv_create_srq(pd[1], &ia));
	CU_ASSERT_EQUAL(errno, EINVAL);

	srq = srq_create(4, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	for (i = 0; i < 3; i++)
		sge[i] = (struct pv_sge){ (uintptr_t)rbuf, 64, rmr->lkey };
	memset(wr, 0, sizeof(wr));
	wr[0].sg_list = sge;
	wr[0].num_sge = 3;		/* > max_sge 2 */
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(srq, wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[0]);
	/* a list: the bad entry is the second one; the first is posted */
	wr[0].num_sge = 1;
	wr[0].next = &wr[1];
	wr[1].sg_list = &(struct pv_sge){ (uintptr_t)rbuf, 64, rmr->lkey ^ 0x100 };
	wr[1].num_sge = 1;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(srq, wr, &bad), EINVAL);	/* no such MR */
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	wr[0].next = NULL;
	for (i = 0; i < 4 && ret == 0; i++)
		ret = pv_post_srq_recv(srq, wr, &bad);
	CU_ASSERT_EQUAL(ret, ENOMEM);	/* 1 + 3 posted fill 4 */
	CU_ASSERT_EQUAL(i, 4);
	CU_ASSERT_PTR_EQUAL(bad, &wr[0]);

	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 8;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_MAX_WR), EOPNOTSUPP);
	sa.srq_limit = 5;		/* above max_wr 4 */
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_LIMIT), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_query_srq(srq, NULL), EINVAL);

	/* a QP on an SRQ has no receive queue; UC QPs take no SRQ */
	qp = qp_create(pd[1], cq[1], PV_QPT_RC, srq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(qp->cap.max_recv_wr, 0);
	CU_ASSERT_EQUAL(qp_init(qp), 0);
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_recv(qp, wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[0]);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), EBUSY);
	CU_ASSERT_PTR_NULL(qp_create(pd[1], cq[1], PV_QPT_UC, srq));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

/* ---------------------------------------------------------------------- */
/* UC                                                                     */
/* ---------------------------------------------------------------------- */

/* wait until @p n bytes at @p dst equal @p src (a WRITE has no completion) */
static int
wait_equal(const uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint64_t end = ut_now_ms() + 5000;

	while (memcmp(dst, src, n) != 0) {
		if (ut_now_ms() > end)
			return 0;
		ut_progress();
	}
	return 1;
}

static void
uc_one(struct pair *p, enum pv_wr_opcode op, uint32_t len, uint32_t seed)
{
	int imm = op == PV_WR_SEND_WITH_IMM || op == PV_WR_RDMA_WRITE_WITH_IMM;
	int send = op == PV_WR_SEND || op == PV_WR_SEND_WITH_IMM;
	struct pv_wc wc;

	ut_fill(sbuf, len, seed);
	memset(rbuf, 0xee, len + 64);
	if (send || imm)
		CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p->qb, seed, rbuf, send ? SLOT : 0,
						    rmr->lkey), 0);
	CU_ASSERT_EQUAL_FATAL(post_send(p->qa, op, seed, sbuf, len, rbuf, seed), 0);
	/* the requester completes once the last packet is on the wire */
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, seed);
	CU_ASSERT_EQUAL(wc.qp_num, p->qa->qp_num);
	CU_ASSERT_EQUAL(wc.opcode, send ? PV_WC_SEND : PV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(wc.byte_len, len);
	if (send || imm) {
		CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, seed);
		CU_ASSERT_EQUAL(wc.byte_len, len);
		CU_ASSERT_EQUAL(wc.qp_num, p->qb->qp_num);
		CU_ASSERT_EQUAL(wc.src_qp, p->qa->qp_num);
		CU_ASSERT_EQUAL(wc.opcode, send ? PV_WC_RECV : PV_WC_RECV_RDMA_WITH_IMM);
		CU_ASSERT_EQUAL(!!(wc.wc_flags & PV_WC_WITH_IMM), imm);
		if (imm)
			CU_ASSERT_EQUAL(wc.imm_data, htonl(seed));
	} else {
		CU_ASSERT(wait_equal(rbuf, sbuf, len));
	}
	CU_ASSERT_EQUAL(memcmp(rbuf, sbuf, len), 0);
	CU_ASSERT_EQUAL(rbuf[len], 0xee);
}

static void
test_uc_opcodes_sizes(void)
{
	static const enum pv_wr_opcode ops[] = {
		PV_WR_SEND, PV_WR_SEND_WITH_IMM, PV_WR_RDMA_WRITE, PV_WR_RDMA_WRITE_WITH_IMM,
	};
	static const uint32_t lens[] = { 1, MTU, MTU + 1, 65536, 0 };
	struct pv_sroce_stats s0, s1;
	struct pair p;
	unsigned int i, j;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_UC, NULL, 0xffffe0, 0), 0);
	pv_sroce_stats_get(ctx[1], &s0);
	for (i = 0; i < RTE_DIM(ops); i++)
		for (j = 0; j < RTE_DIM(lens); j++)
			uc_one(&p, ops[i], lens[j], 100 * (i + 1) + j);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.uc_drops, s0.uc_drops);
	CU_ASSERT_EQUAL(s1.acks_tx, s0.acks_tx);	/* UC is never acknowledged */
	pair_destroy(&p);
}

static void
test_uc_errnos(void)
{
	struct pv_sge sge = { (uintptr_t)sbuf, 8, 0 };
	struct pv_send_wr wr, *bad;
	struct pair p;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_UC, NULL, 0x10, 0), 0);
	sge.lkey = smr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
	wr.wr.rdma.rkey = rmr->rkey;
	wr.opcode = PV_WR_RDMA_READ;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)rbuf;
	wr.wr.atomic.rkey = rmr->rkey;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	wr.opcode = PV_WR_SEND;
	wr.num_sge = 3;		/* > max_send_sge 2 */
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	pair_destroy(&p);
}

/*
 * A message damaged on the wire gets no completion; the receiver resyncs at
 * the next FIRST/ONLY, which completes into the same receive WQE.
 * @p every: drop every Nth frame of A while the 3-packet message is sent.
 */
static void
uc_loss_one(struct pair *p, enum pv_wr_opcode op, uint32_t every, uint32_t seed)
{
	/* every 1: the whole message is lost, the receiver sees only a PSN gap */
	int counted = every != 1;
	struct pv_sroce_fault none = { 0 }, f = { .drop_tx_every = every };
	int imm = op == PV_WR_RDMA_WRITE_WITH_IMM;
	struct pv_sroce_stats s0, s1;
	struct pv_wc wc;
	uint8_t *wdst = rbuf + SLOT;

	pv_sroce_stats_get(ctx[1], &s0);
	memset(rbuf, 0xee, 2 * SLOT);
	CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p->qb, seed, rbuf, SLOT, rmr->lkey), 0);
	/* damaged: 3 packets, one lost */
	ut_fill(sbuf, 3000, seed);
	pv_sroce_fault_set(ctx[0], &f);
	CU_ASSERT_EQUAL_FATAL(post_send(p->qa, op, 1, sbuf, 3000, wdst, 1), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);	/* UC: the sender cannot know */
	pv_sroce_fault_set(ctx[0], &none);
	/* intact: 2 packets, other bytes */
	ut_fill(sbuf + SLOT, 2000, seed + 1);
	CU_ASSERT_EQUAL_FATAL(post_send(p->qa, op, 2, sbuf + SLOT, 2000, wdst, 2), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, seed);	/* the WQE the damaged message had */
	CU_ASSERT_EQUAL(wc.byte_len, 2000);
	CU_ASSERT_EQUAL(!!(wc.wc_flags & PV_WC_WITH_IMM), imm);
	if (imm)
		CU_ASSERT_EQUAL(wc.imm_data, htonl(2));
	CU_ASSERT_EQUAL(memcmp(imm ? wdst : rbuf, sbuf + SLOT, 2000), 0);
	ut_spin(2);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[1], 1, &wc), 0);	/* nothing for the damaged one */
	pv_sroce_stats_get(ctx[1], &s1);
	if (counted) {
		CU_ASSERT(s1.uc_drops > s0.uc_drops);
	} else {
		CU_ASSERT_EQUAL(s1.uc_drops, s0.uc_drops);
	}
	CU_ASSERT_EQUAL(s1.acks_tx, s0.acks_tx);
}

static void
test_uc_loss_resync(void)
{
	struct pv_sroce_stats s0, s1, a0, a1;
	struct pair p;
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_UC, NULL, 0xfffffe, 0), 0);
	pv_sroce_stats_get(ctx[0], &a0);
	uc_loss_one(&p, PV_WR_SEND, 2, 11);		/* MIDDLE lost */
	uc_loss_one(&p, PV_WR_SEND, 3, 12);		/* LAST lost */
	uc_loss_one(&p, PV_WR_SEND, 1, 13);		/* all three lost */
	uc_loss_one(&p, PV_WR_RDMA_WRITE_WITH_IMM, 2, 14);
	uc_loss_one(&p, PV_WR_RDMA_WRITE_WITH_IMM, 3, 15);

	/* no receive WQE: the SEND is dropped (no RNR on UC), the next one lands */
	pv_sroce_stats_get(ctx[1], &s0);
	ut_fill(sbuf, 100, 21);
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 3, sbuf, 100, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	ut_spin(2);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.uc_drops, s0.uc_drops + 1);
	memset(rbuf, 0xee, 256);
	CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p.qb, 4, rbuf, 256, rmr->lkey), 0);
	ut_fill(sbuf, 100, 22);
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 4, sbuf, 100, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 4);
	CU_ASSERT_EQUAL(wc.byte_len, 100);
	CU_ASSERT_EQUAL(memcmp(rbuf, sbuf, 100), 0);
	/* a receive buffer too small drops the message too (rxe: class D) */
	pv_sroce_stats_get(ctx[1], &s0);
	CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p.qb, 5, rbuf, 50, rmr->lkey), 0);
	CU_ASSERT_EQUAL_FATAL(post_send(p.qa, PV_WR_SEND, 5, sbuf, 100, NULL, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	ut_spin(3);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[1], 1, &wc), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.uc_drops, s0.uc_drops + 1);
	pv_sroce_stats_get(ctx[0], &a1);
	CU_ASSERT_EQUAL(a1.retransmits, a0.retransmits);	/* UC never retransmits */
	CU_ASSERT_EQUAL(a1.timeouts, a0.timeouts);
	pair_destroy(&p);
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	/* async events are read without blocking */
	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	chk = aligned_alloc(64, BUFSZ);
	if (chk == NULL)
		return -1;
	sb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	if (sb == NULL)
		return -1;
	sbuf = sb->addr;
	smr = sb->mr;
	rb = ut_buf_alloc(pd[1], BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE, UT_CANARY);
	if (rb == NULL)
		return -1;
	rbuf = rb->addr;
	rmr = rb->mr;
	return 0;
}

static int
suite_clean(void)
{
	size_t bad;

	/* nonzero: a canary changed, the suite fails */
	bad = ut_buf_free(sb) + ut_buf_free(rb);
	ut_devs_close(ctx, pd, cq);
	free(chk);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_srq_uc_cases[] = {
	{ "device_limits", test_srq_device_limits },
	{ "shared_two_qps", test_srq_shared_two_qps },
	{ "rnr_empty", test_srq_rnr_empty },
	{ "limit_event", test_srq_limit_event },
	{ "err_keeps_wqes", test_srq_err_keeps_wqes },
	{ "len_err", test_srq_len_err },
	{ "errnos", test_srq_errnos },
	{ "opcodes_sizes", test_uc_opcodes_sizes },
	{ "errnos", test_uc_errnos },
	{ "loss_resync", test_uc_loss_resync },
	{ NULL, NULL },
};

static const struct ut_suite sroce_srq_uc_suite = {
	.name = "sroce_srq",
	.cases = sroce_srq_uc_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_srq_uc", 256, "srq_uc", 4096, "ip=10.0.1.1",
				"ip=10.0.1.2");
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_srq_uc_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed */
	pv_cleanup();
	return fails != 0;
}

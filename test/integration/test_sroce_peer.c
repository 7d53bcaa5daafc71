/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce against a hostile or racing peer, in one process: two devices on
 * crossed net_ring ports, a QP pair connected as usual, then the test plays
 * device A's QP. It builds A's frames with the engine's own frame builder
 * (sroce_frame_start() on A's QP: the same headers A would send), injects
 * them into B's RX ring, and reads B's answers off B's TX ring before A can
 * (A is never progressed while the test plays it: both devices run in
 * PV_PROGRESS_APP mode, no background progress). Buffers have canaries
 * around them; the ASan build turns a stray access into a failure.
 *
 * Covers the memory-safety rules of ARCHITECTURE decision 6 (no pointer
 * into an MR outlives its registration): a WRITE continued after
 * pv_dereg_mr() (RC and UC), a READ response stream and a duplicate READ
 * replayed after pv_dereg_mr(); and the requester's rule that a completed
 * WR is never sent again (an ACK after an RNR rewind, loss).
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pv_sroce.h"
#include "pv_verbs.h"
#include "sroce_fp.h"
#include "ut_sroce.h"

#define DEPTH	64
#define PG	4096
#define CANARY	0xa5
#define SECRET	0x5e		/* what a deregistered buffer holds afterwards */
#define PSN_A	0x100		/* A's first PSN: B's expected PSN */

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static struct rte_ring *b_rx, *b_tx;	/* B's RX ring (we inject), B's TX ring (we read) */
static enum pv_mtu port_mtu;
static uint32_t mtu;

/* a buffer of @p len bytes with one page of canaries on each side */
struct guarded {
	uint8_t *mem;
	uint8_t *buf;
	size_t len;
};

static int
guarded_alloc(struct guarded *g, size_t len)
{
	g->len = len;
	g->mem = malloc(len + 2 * PG);
	if (g->mem == NULL)
		return -1;
	memset(g->mem, CANARY, len + 2 * PG);
	g->buf = g->mem + PG;
	return 0;
}

static int
guarded_canaries_ok(const struct guarded *g)
{
	size_t i;

	for (i = 0; i < PG; i++)
		if (g->mem[i] != CANARY || g->buf[g->len + i] != CANARY)
			return 0;
	return 1;
}

/* bytes of [off, off + len) of @p g still CANARY */
static int
guarded_untouched(const struct guarded *g, size_t off, size_t len)
{
	size_t i;

	for (i = off; i < off + len; i++)
		if (g->buf[i] != CANARY)
			return 0;
	return 1;
}

/* A's frame as A's QP @p qa would send it; RETH when @p reth; payload byte @p fill */
static void
peer_send(struct pv_qp *qa, uint8_t opcode, uint32_t psn, int ackreq, int reth, uint64_t va,
	  uint32_t rkey, uint32_t dma_len, uint32_t paylen, uint8_t fill)
{
	struct sroce_qp *q = sroce_qp(qa);
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	m = sroce_frame_start(q, opcode, psn & SROCE_PSN_MASK, ackreq, 0,
			      reth ? SROCE_RETH_LEN : 0, paylen, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	if (reth) {
		sroce_put_be64(p, va);
		sroce_put_be32(p + 8, rkey);
		sroce_put_be32(p + 12, dma_len);
		p += SROCE_RETH_LEN;
	}
	memset(p, fill, paylen);
	pv_sroce_icrc_set(rte_pktmbuf_mtod(m, uint8_t *), m->data_len);
	CU_ASSERT_EQUAL_FATAL(rte_ring_enqueue(b_rx, m), 0);
}

/*
 * Progress B @p passes times and parse what it sent into @p pkts (at most
 * @p max, frames kept in @p data at PG bytes each when not NULL).
 * @return the RoCE frames B sent
 */
static int
peer_recv(int passes, struct sroce_pkt *pkts, int max, uint8_t *data)
{
	struct rte_mbuf *m;
	int i, n = 0;

	for (i = 0; i < passes; i++)
		pv_progress(ctx[1]);
	while (rte_ring_dequeue(b_tx, (void **)&m) == 0) {
		struct sroce_pkt p;
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

		if (pv_sroce_pkt_parse(f, m->data_len, 1, &p) == 0) {
			if (n < max) {
				if (data != NULL) {
					memcpy(data + (size_t)n * 8192, f, m->data_len);
					p.frame = data + (size_t)n * 8192;
				}
				pkts[n] = p;
			}
			n++;
		}
		rte_pktmbuf_free(m);
	}
	return n;
}

static enum pv_qp_state
qp_state(struct pv_qp *qp)
{
	struct pv_qp_attr a;
	struct pv_qp_init_attr ia;

	pv_query_qp(qp, &a, PV_QP_STATE, &ia);
	return a.qp_state;
}

/* an RC (ut_pair_rtr) or UC pair, both RTS; A starts at PSN_A */
static int
pair_connect(struct ut_pair *p, enum pv_qp_type type)
{
	const struct ut_qp_opts *o = &ut_qp_defaults;
	struct pv_qp_init_attr ia;
	int ret;

	if (type == PV_QPT_RC) {
		ret = ut_pair_rtr(p, pd, cq, DEPTH, o, o, PSN_A, 0x200, port_mtu);
		return ret ? ret : ut_pair_rts(p, o, o);
	}
	memset(p, 0, sizeof(*p));
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.send_cq = ia.recv_cq = cq[0];
	p->qa = pv_create_qp(pd[0], &ia);
	ia.send_cq = ia.recv_cq = cq[1];
	p->qb = pv_create_qp(pd[1], &ia);
	if (p->qa == NULL || p->qb == NULL)
		return ENOMEM;
	p->pa.qpn = p->qa->qp_num;
	p->pa.psn = PSN_A;
	p->pb.qpn = p->qb->qp_num;
	p->pb.psn = 0x200;
	pv_query_gid(ctx[0], 1, 1, &p->pa.gid);
	pv_query_gid(ctx[1], 1, 1, &p->pb.gid);
	/* UC: the helper leaves out READ/atomic and RNR attributes (ibv_modify_qp(3)) */
	ret = ut_qp_init(p->qa, o);
	ret = ret ? ret : ut_qp_init(p->qb, o);
	ret = ret ? ret : ut_qp_rtr_progress(p->qa, o, &p->pb, port_mtu, ctx[1]);
	ret = ret ? ret : ut_qp_rtr_progress(p->qb, o, &p->pa, port_mtu, ctx[0]);
	ret = ret ? ret : ut_qp_rts(p->qa, o, PSN_A);
	return ret ? ret : ut_qp_rts(p->qb, o, 0x200);
}

static void
pair_destroy(struct ut_pair *p)
{
	struct sroce_pkt dummy;

	peer_recv(1, &dummy, 0, NULL);
	ut_cq_drain(cq, 2, 5);
	pv_destroy_qp(p->qa);
	pv_destroy_qp(p->qb);
}

/* ---------------------------------------------------------------------- */

/*
 * WRITE FIRST into a valid MR, pv_dereg_mr(), then MIDDLE and LAST: the rest
 * of the message must not land in the buffer (issue 11 bug 1). RC: a remote
 * access NAK and ERR; UC: dropped and counted.
 */
static void
write_after_dereg(enum pv_qp_type type)
{
	uint8_t fo = type == PV_QPT_RC ? SROCE_OP_RC_WRITE_FIRST : SROCE_OP_UC_WRITE_FIRST;
	uint8_t mo = type == PV_QPT_RC ? SROCE_OP_RC_WRITE_MIDDLE : SROCE_OP_UC_WRITE_MIDDLE;
	uint8_t lo = type == PV_QPT_RC ? SROCE_OP_RC_WRITE_LAST : SROCE_OP_UC_WRITE_LAST;
	struct pv_sroce_stats s0, s1;
	struct sroce_pkt pk[8];
	struct guarded g = { 0 };
	struct ut_pair p;
	struct pv_mr *mr;
	uint32_t len = 4 * mtu, i;
	int n;

	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&g, len), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, type), 0);
	mr = pv_reg_mr(pd[1], g.buf, len, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	pv_sroce_stats_get(ctx[1], &s0);
	peer_send(p.qa, fo, PSN_A, 0, 1, (uintptr_t)g.buf, mr->rkey, len, mtu, 0x11);
	CU_ASSERT_EQUAL(peer_recv(2, pk, 8, NULL), 0);
	CU_ASSERT_EQUAL(g.buf[0], 0x11);
	CU_ASSERT_EQUAL(g.buf[mtu - 1], 0x11);
	CU_ASSERT(guarded_untouched(&g, mtu, len - mtu));

	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	for (i = 1; i < 3; i++)
		peer_send(p.qa, mo, PSN_A + i, 0, 0, 0, 0, 0, mtu, 0x22);
	peer_send(p.qa, lo, PSN_A + 3, 1, 0, 0, 0, 0, mtu, 0x33);
	n = peer_recv(4, pk, 8, NULL);
	pv_sroce_stats_get(ctx[1], &s1);
	/* nothing of MIDDLE/LAST in a buffer no MR covers any more */
	CU_ASSERT(guarded_untouched(&g, mtu, len - mtu));
	CU_ASSERT(guarded_canaries_ok(&g));
	if (type == PV_QPT_RC) {
		CU_ASSERT_EQUAL_FATAL(n, 1);
		CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_ACK);
		CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS);
		CU_ASSERT_EQUAL(pk[0].psn, PSN_A + 1);
		CU_ASSERT_EQUAL(qp_state(p.qb), PV_QPS_ERR);
		CU_ASSERT_EQUAL(s1.err_naks_tx, s0.err_naks_tx + 1);
	} else {
		CU_ASSERT_EQUAL(n, 0);
		CU_ASSERT(s1.uc_drops > s0.uc_drops);
		CU_ASSERT_EQUAL(qp_state(p.qb), PV_QPS_RTS);
	}
	pair_destroy(&p);
	free(g.mem);
}

static void
test_rc_write_after_dereg(void)
{
	write_after_dereg(PV_QPT_RC);
}

static void
test_uc_write_after_dereg(void)
{
	write_after_dereg(PV_QPT_UC);
}

/* does any READ response of @p pk[0..n) carry a SECRET byte? */
static int
responses_leak(const struct sroce_pkt *pk, int n, int *resp_p)
{
	int i, leak = 0;
	uint32_t j;

	*resp_p = 0;
	for (i = 0; i < n; i++) {
		if (!(pv_sroce_opcode_info[pk[i].opcode].flags & SROCE_OPF_READ))
			continue;
		(*resp_p)++;
		for (j = 0; j < pk[i].payload_len; j++)
			leak |= pk[i].frame[pk[i].payload_off + j] == SECRET;
	}
	return leak;
}

/*
 * A 400 KiB READ spans several progress passes (SROCE_TX_BUDGET responses
 * each); the MR is deregistered and the buffer reused in between: no later
 * response may carry the new bytes (issue 11 bug 2), the stream stops with
 * a remote access NAK.
 */
static void
test_read_stream_after_dereg(void)
{
	static uint8_t frames[1024 * 8192];
	static struct sroce_pkt pk[1024];
	uint32_t len = 400 * 1024;
	struct guarded g = { 0 };
	struct ut_pair p;
	struct pv_mr *mr;
	int n, resp, i, nak = 0;

	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&g, len), 0);
	memset(g.buf, 0x77, len);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC), 0);
	mr = pv_reg_mr(pd[1], g.buf, len, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	peer_send(p.qa, SROCE_OP_RC_READ_REQ, PSN_A, 1, 1, (uintptr_t)g.buf, mr->rkey, len, 0, 0);
	n = peer_recv(1, pk, 1024, frames);
	CU_ASSERT(n > 0 && (uint32_t)n < len / mtu);	/* the stream is not over yet */
	CU_ASSERT_FALSE(responses_leak(pk, n, &resp));

	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	memset(g.buf, SECRET, len);
	n = peer_recv(8, pk, 1024, frames);
	CU_ASSERT_FALSE(responses_leak(pk, n, &resp));
	CU_ASSERT_EQUAL(resp, 0);
	for (i = 0; i < n; i++)
		nak |= pk[i].opcode == SROCE_OP_RC_ACK &&
		       pk[i].aeth_syndrome == (SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS);
	CU_ASSERT(nak);
	CU_ASSERT_EQUAL(qp_state(p.qb), PV_QPS_ERR);
	CU_ASSERT(guarded_canaries_ok(&g));
	pair_destroy(&p);
	free(g.mem);
}

/*
 * A READ answered in full, the MR deregistered and the buffer reused, then
 * the same READ again (a duplicate, with any rkey): it must not be replayed
 * from the old buffer (issue 11 bug 2).
 */
static void
test_read_duplicate_after_dereg(void)
{
	static uint8_t frames[16 * 8192];
	struct sroce_pkt pk[16];
	struct guarded g = { 0 };
	struct ut_pair p;
	struct pv_mr *mr;
	int n, resp;

	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&g, PG), 0);
	memset(g.buf, 0x77, PG);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC), 0);
	mr = pv_reg_mr(pd[1], g.buf, PG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	peer_send(p.qa, SROCE_OP_RC_READ_REQ, PSN_A, 1, 1, (uintptr_t)g.buf, mr->rkey, 64, 0, 0);
	n = peer_recv(2, pk, 16, frames);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_FALSE(responses_leak(pk, n, &resp));
	CU_ASSERT_EQUAL(resp, 1);

	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	memset(g.buf, SECRET, PG);
	peer_send(p.qa, SROCE_OP_RC_READ_REQ, PSN_A, 1, 1, (uintptr_t)g.buf, 0, 64, 0, 0);
	n = peer_recv(2, pk, 16, frames);
	CU_ASSERT_FALSE(responses_leak(pk, n, &resp));
	CU_ASSERT_EQUAL(resp, 0);
	CU_ASSERT(guarded_canaries_ok(&g));
	pair_destroy(&p);
	free(g.mem);
}

/* a frame to a QP in INIT is refused for its state, not as an unknown QPN */
static void
test_init_qp_drop_reason(void)
{
	struct pv_sroce_stats s0, s1;
	struct sroce_pkt pk[4];
	struct pv_qp_attr a;
	struct ut_pair p;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RESET;
	CU_ASSERT_EQUAL(pv_modify_qp(p.qb, &a, PV_QP_STATE), 0);
	CU_ASSERT_EQUAL(ut_qp_init(p.qb, &ut_qp_defaults), 0);
	pv_sroce_stats_get(ctx[1], &s0);
	peer_send(p.qa, SROCE_OP_RC_SEND_ONLY, PSN_A, 1, 0, 0, 0, 0, 16, 0x11);
	CU_ASSERT_EQUAL(peer_recv(2, pk, 4, NULL), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.rx_drop_qpn, s0.rx_drop_qpn);
	CU_ASSERT_EQUAL(s1.rx_drop_state, s0.rx_drop_state + 1);
	pair_destroy(&p);
}

/*
 * B's QP destroyed (and its MR deregistered, its buffer freed) in the
 * middle of a WRITE: the rest of the message finds no QP, nothing reaches
 * the freed memory (ASan build) and the frames count as unknown QPN.
 */
static void
test_destroy_mid_write(void)
{
	struct pv_sroce_stats s0, s1;
	struct sroce_pkt pk[4];
	struct guarded g = { 0 };
	struct ut_pair p;
	struct pv_mr *mr;

	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&g, 4 * mtu), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC), 0);
	mr = pv_reg_mr(pd[1], g.buf, 4 * mtu, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	peer_send(p.qa, SROCE_OP_RC_WRITE_FIRST, PSN_A, 0, 1, (uintptr_t)g.buf, mr->rkey,
		  4 * mtu, mtu, 0x11);
	CU_ASSERT_EQUAL(peer_recv(2, pk, 4, NULL), 0);
	pv_destroy_qp(p.qb);
	p.qb = NULL;
	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	free(g.mem);
	pv_sroce_stats_get(ctx[1], &s0);
	peer_send(p.qa, SROCE_OP_RC_WRITE_MIDDLE, PSN_A + 1, 0, 0, 0, 0, 0, mtu, 0x22);
	peer_send(p.qa, SROCE_OP_RC_WRITE_LAST, PSN_A + 2, 1, 0, 0, 0, 0, mtu, 0x33);
	CU_ASSERT_EQUAL(peer_recv(4, pk, 4, NULL), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.rx_drop_qpn, s0.rx_drop_qpn + 2);
	ut_cq_drain(cq, 2, 5);
	pv_destroy_qp(p.qa);
}

/* B's ACK or NAK (AETH @p syn) for PSN @p psn, as B's QP @p qb would send it, into A's RX */
static void
peer_ack(struct pv_qp *qb, uint32_t psn, uint8_t syn)
{
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	m = sroce_frame_start(sroce_qp(qb), SROCE_OP_RC_ACK, psn & SROCE_PSN_MASK, 0, 0,
			      SROCE_AETH_LEN, 0, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	sroce_put_be32(p, (uint32_t)syn << 24);
	pv_sroce_icrc_set(rte_pktmbuf_mtod(m, uint8_t *), m->data_len);
	CU_ASSERT_EQUAL_FATAL(rte_ring_enqueue(b_tx, m), 0);
}

/* frames A sent (taken off B's RX ring before B sees them) */
static int
a_sent(void)
{
	struct rte_mbuf *m;
	int n = 0;

	while (rte_ring_dequeue(b_rx, (void **)&m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/*
 * Issue 11 bug 3, the exact sequence, the test playing B: two WRITEs (PSN
 * P, P+1), an RNR NAK for P, then an ACK for P+1. Both complete; the
 * application reuses the buffers; when the RNR timer ends A must not send
 * either again.
 */
static void
test_rnr_then_ack_no_resend(void)
{
	struct guarded g = { 0 }, d = { 0 };
	struct pv_mr *smr, *rmr;
	struct ut_pair p;
	struct pv_wc wc;
	uint64_t end;
	int i;

	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&g, PG), 0);
	CU_ASSERT_EQUAL_FATAL(guarded_alloc(&d, PG), 0);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC), 0);
	smr = pv_reg_mr(pd[0], g.buf, PG, PV_ACCESS_LOCAL_WRITE);
	rmr = pv_reg_mr(pd[1], d.buf, PG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_FATAL(smr != NULL && rmr != NULL);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, PV_WR_RDMA_WRITE, 10 + i, g.buf, 64,
						    smr->lkey, (uintptr_t)d.buf, rmr->rkey, 0),
				      0);
	CU_ASSERT_EQUAL(a_sent(), 2);
	peer_ack(p.qb, PSN_A, SROCE_AETH_RNR_NAK | 1);		/* 10 us */
	peer_ack(p.qb, PSN_A + 1, SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 1000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 10 + (uint64_t)i);
	}
	/* the buffers are the application's again: RNR wait over, nothing resent */
	memset(g.buf, 0x99, PG);
	end = ut_now_ms() + 20;
	while (ut_now_ms() < end)
		pv_progress(ctx[0]);
	CU_ASSERT_EQUAL(a_sent(), 0);
	/* a new WR goes out once */
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_RDMA_WRITE, 12, g.buf, 64, smr->lkey,
				      (uintptr_t)d.buf, rmr->rkey, 0), 0);
	CU_ASSERT_EQUAL(a_sent(), 1);
	pv_dereg_mr(smr);
	pv_dereg_mr(rmr);
	pair_destroy(&p);
	free(g.mem);
	free(d.mem);
}

/*
 * 64 KiB WRITE_WITH_IMM, 16 in flight, 1 % of the frames lost each way: B
 * receives each message once, in order (the debug build also checks
 * req.idx >= sq_ci at every completion and transmission).
 */
static void
test_loss_no_double_delivery(void)
{
	const uint32_t n = 256, sz = 64 * 1024, depth = 16;
	struct pv_sroce_fault f = { .drop_tx_one_in = 100 }, none = { 0 };
	struct ut_qp_opts o = ut_qp_defaults;
	uint8_t *src, *dst;
	struct pv_mr *smr, *rmr;
	struct ut_pair p;
	struct pv_wc wc;
	uint32_t posted = 0, sent = 0, recvd = 0, bad = 0;
	uint64_t end = ut_now_ms() + 20000;

	src = malloc(sz);
	dst = malloc(sz);
	CU_ASSERT_FATAL(src != NULL && dst != NULL);
	o.timeout = 10;		/* ~4 ms */
	CU_ASSERT_EQUAL_FATAL(ut_pair_rtr(&p, pd, cq, 4 * DEPTH, &o, &o, PSN_A, 0x200, port_mtu),
			      0);
	CU_ASSERT_EQUAL_FATAL(ut_pair_rts(&p, &o, &o), 0);
	smr = pv_reg_mr(pd[0], src, sz, PV_ACCESS_LOCAL_WRITE);
	rmr = pv_reg_mr(pd[1], dst, sz, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_FATAL(smr != NULL && rmr != NULL);
	ut_fill(src, sz, 5);
	for (posted = 0; posted < 2 * depth; posted++)
		CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p.qb, posted, dst, 0, rmr->lkey), 0);
	pv_sroce_fault_set(ctx[0], &f);
	pv_sroce_fault_set(ctx[1], &f);
	posted = 0;
	while ((sent < n || recvd < n) && ut_now_ms() < end) {
		while (posted < n && posted - sent < depth) {
			struct pv_sge sge = { (uintptr_t)src, sz, smr->lkey };
			struct pv_send_wr wr, *bw;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = PV_WR_RDMA_WRITE_WITH_IMM;
			wr.send_flags = PV_SEND_SIGNALED;
			wr.imm_data = htonl(posted);
			wr.wr.rdma.remote_addr = (uintptr_t)dst;
			wr.wr.rdma.rkey = rmr->rkey;
			CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, &wr, &bw), 0);
			posted++;
		}
		while (pv_poll_cq(cq[0], 1, &wc) == 1) {
			bad += wc.status != PV_WC_SUCCESS || wc.wr_id != sent;
			sent++;
		}
		while (pv_poll_cq(cq[1], 1, &wc) == 1) {
			/* each message once, in order */
			bad += wc.status != PV_WC_SUCCESS || ntohl(wc.imm_data) != recvd ||
			       wc.byte_len != sz;
			recvd++;
			CU_ASSERT_EQUAL(ut_post_recv1(p.qb, recvd, dst, 0, rmr->lkey), 0);
		}
	}
	pv_sroce_fault_set(ctx[0], &none);
	pv_sroce_fault_set(ctx[1], &none);
	CU_ASSERT_EQUAL(sent, n);
	CU_ASSERT_EQUAL(recvd, n);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(memcmp(src, dst, sz), 0);
	ut_cq_drain(cq, 2, 5);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[1], 1, &wc), 0);	/* nothing delivered twice */
	pv_destroy_qp(p.qa);
	pv_destroy_qp(p.qb);
	pv_dereg_mr(smr);
	pv_dereg_mr(rmr);
	free(src);
	free(dst);
}

static const struct ut_case sroce_peer_cases[] = {
	{ "rc_write_after_dereg", test_rc_write_after_dereg },
	{ "uc_write_after_dereg", test_uc_write_after_dereg },
	{ "read_stream_after_dereg", test_read_stream_after_dereg },
	{ "read_duplicate_after_dereg", test_read_duplicate_after_dereg },
	{ "rnr_then_ack_no_resend", test_rnr_then_ack_no_resend },
	{ "loss_no_double_delivery", test_loss_no_double_delivery },
	{ "init_qp_drop_reason", test_init_qp_drop_reason },
	{ "destroy_mid_write", test_destroy_mid_write },
	{ NULL, NULL },
};

static const struct ut_suite sroce_peer_suite = { "sroce_peer", NULL, NULL, sroce_peer_cases };

int
main(void)
{
	struct pv_port_attr pa;
	int ret, fails;

	/* run to completion: the test decides when each device makes progress */
	ret = ut_ring_pair_init("test_sroce_peer", 256, "peer", 4096, "ip=10.0.7.1,progress=app",
				"ip=10.0.7.2,progress=app");
	if (ret != 0)
		return ret;
	b_rx = rte_ring_lookup("peer_ab");
	b_tx = rte_ring_lookup("peer_ba");
	if (b_rx == NULL || b_tx == NULL || ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0 ||
	    pv_query_port(ctx[0], 1, &pa) != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	port_mtu = pa.active_mtu;
	mtu = (uint32_t)pv_mtu_to_bytes(port_mtu);
	fails = ut_cunit_run_one(&sroce_peer_suite);
	ut_devs_close(ctx, pd, cq);
	pv_cleanup();
	return fails != 0;
}

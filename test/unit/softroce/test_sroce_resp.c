/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of the softroce responder (sroce_resp.c) on a QP built by hand,
 * without a port: requests are fed as parsed packets whose payload sits in
 * a test frame, answers (ACK, NAK, READ responses, atomic ACKs) are parsed
 * back from the TX ring, and placed bytes are checked between canaries.
 */

#include "sroce_resp.c"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "ut_common.h"
#include "ut_sroce_unit.h"

#define MTU	1024
#define EPSN	0x100
#define CANARY	0xa5
#define PAYOFF	64		/* payload offset in the test frame */

static struct sroce_dev *dev;
static struct sroce_ctx ctx;
static struct pv_pd *ibpd;
static struct sroce_cq cq;
static uint8_t frame[PAYOFF + 4 * MTU];
static uint8_t mem[3 * 4096];		/* canary | MR (4096) | canary */
static struct pv_mr *mr;
static struct sroce_pkt pk[64];

#define MRBUF (mem + 4096)

static struct sroce_qp *
mkqp(uint8_t transport)
{
	struct sroce_qp *qp = calloc(1, sizeof(*qp));

	qp->dev = dev;
	qp->eng = &dev->eng[0];
	qp->pd = sroce_pd(ibpd);
	qp->scq = &cq;
	qp->rcq = &cq;
	qp->state = PV_QPS_RTS;
	qp->transport = transport;
	qp->rq_stride = RTE_ALIGN_CEIL(sizeof(struct sroce_rwqe) + sizeof(struct sroce_sge), 16);
	qp->rq_mask = 15;
	qp->rq = calloc(16, qp->rq_stride);
	qp->mtu = MTU;
	qp->ibqp.qp_num = 0x11;
	qp->dqpn = 0x22;
	qp->resp.epsn = EPSN;
	qp->attr.max_dest_rd_atomic = 4;
	qp->attr.min_rnr_timer = 3;
	qp->attr.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
				   PV_ACCESS_REMOTE_ATOMIC;
	ut_qp_hdr_build(qp);
	memset(mem, CANARY, sizeof(mem));
	memset(&dev->eng[0].stats, 0, sizeof(dev->eng[0].stats));
	return qp;
}

static void
freeqp(struct sroce_qp *qp)
{
	ut_tx_drain(dev, pk, 0);
	free(qp->rq);
	free(qp);
	cq.prod = cq.cons = 0;
}

/* a receive WQE of @p len bytes at MRBUF */
static void
post_recv(struct sroce_qp *qp, uint64_t id, uint32_t len)
{
	struct sroce_rwqe *r = sroce_rwqe_at(qp, qp->rq_pi++);

	r->wr_id = id;
	r->num_sge = 1;
	r->length = len;
	r->sge[0].addr = MRBUF;
	r->sge[0].length = len;
}

/* a request packet; its payload bytes are @p seed + i */
static struct sroce_pkt
req(uint8_t op, uint32_t psn, uint32_t len, uint8_t seed)
{
	struct sroce_pkt p;
	uint32_t i;

	memset(&p, 0, sizeof(p));
	p.frame = frame;
	p.opcode = op;
	p.psn = psn & SROCE_PSN_MASK;
	p.ackreq = 1;
	p.l3_off = 14;
	p.payload_off = PAYOFF;
	p.payload_len = len;
	for (i = 0; i < len; i++)
		frame[PAYOFF + i] = (uint8_t)(seed + i);
	return p;
}

static struct sroce_pkt
write_req(uint8_t op, uint32_t psn, uint32_t len, uint64_t va, uint32_t rkey, uint32_t dma_len)
{
	struct sroce_pkt p = req(op, psn, len, 7);

	p.va = va;
	p.rkey = rkey;
	p.dma_len = dma_len;
	return p;
}

static int
canaries_intact(void)
{
	uint32_t i;

	for (i = 0; i < 4096; i++)
		if (mem[i] != CANARY || mem[2 * 4096 + i] != CANARY)
			return 0;
	return 1;
}

static int
untouched(const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != CANARY)
			return 0;
	return 1;
}

/* the single answer queued now (after resp_tx); its AETH syndrome and PSN */
static int
answer(struct sroce_qp *qp, uint8_t *syn, uint32_t *psn)
{
	int n;

	(void)pv_sroce_resp_tx(qp);
	n = ut_tx_drain(dev, pk, 64);
	if (n >= 1) {
		*syn = pk[n - 1].aeth_syndrome;
		*psn = pk[n - 1].psn;
	}
	return n;
}

/* ---------------------------------------------------------------------- */

static void
test_send_in_order(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	struct sroce_pkt p;
	uint8_t syn = 0;
	uint32_t psn = 0, i;

	post_recv(qp, 5, 4096);
	p = req(SROCE_OP_RC_SEND_FIRST, EPSN, MTU, 1);
	p.ackreq = 0;
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->resp.in_send, 1);
	CU_ASSERT_EQUAL(cq.prod, 0);
	p = req(SROCE_OP_RC_SEND_LAST, EPSN + 1, 500, (uint8_t)(1 + MTU));
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL_FATAL(cq.prod, 1);
	CU_ASSERT_EQUAL(cq.ring[0].wr_id, 5);
	CU_ASSERT_EQUAL(cq.ring[0].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(cq.ring[0].opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(cq.ring[0].byte_len, MTU + 500);
	CU_ASSERT_EQUAL(cq.ring[0].src_qp, 0x22);
	for (i = 0; i < MTU + 500; i++)
		CU_ASSERT_EQUAL_FATAL(MRBUF[i], (uint8_t)(1 + i));
	CU_ASSERT(untouched(MRBUF + MTU + 500, 4096 - MTU - 500));
	CU_ASSERT(canaries_intact());
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN + 2);
	CU_ASSERT_EQUAL(qp->resp.msn, 1);
	CU_ASSERT_EQUAL(qp->rq_ci, 1);
	/* one coalesced ACK of the last PSN */
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_ACK);
	CU_ASSERT_EQUAL(syn & SROCE_AETH_TYPE_MASK, SROCE_AETH_ACK);
	CU_ASSERT_EQUAL(psn, EPSN + 1);
	CU_ASSERT_EQUAL(pk[0].msn, 1);
	freeqp(qp);
}

static void
test_write_read_atomic(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	uint64_t va = (uintptr_t)MRBUF;
	struct sroce_pkt p;
	uint64_t v = 40;
	int n;

	/* WRITE FIRST + LAST: 1500 bytes at va + 100 */
	p = write_req(SROCE_OP_RC_WRITE_FIRST, EPSN, MTU, va + 100, mr->rkey, 1500);
	p.ackreq = 0;
	pv_sroce_resp_rx(qp, &p);
	p = write_req(SROCE_OP_RC_WRITE_LAST, EPSN + 1, 1500 - MTU, 0, 0, 0);
	p.ackreq = 0;
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN + 2);
	CU_ASSERT(untouched(MRBUF, 100));
	CU_ASSERT_EQUAL(MRBUF[100], 7);
	CU_ASSERT_EQUAL(MRBUF[100 + MTU], 7);	/* LAST's first byte */
	CU_ASSERT(untouched(MRBUF + 1600, 4096 - 1600));
	CU_ASSERT_EQUAL(cq.prod, 0);		/* no immediate: no receive completion */
	CU_ASSERT_EQUAL(ut_tx_drain(dev, pk, 0), 0);

	/* READ of 2500 bytes: FIRST, MIDDLE, LAST responses from its PSN */
	p = write_req(SROCE_OP_RC_READ_REQ, EPSN + 2, 0, va + 100, mr->rkey, 2500);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN + 2 + 3);
	(void)pv_sroce_resp_tx(qp);
	n = ut_tx_drain(dev, pk, 64);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_READ_RESP_FIRST);
	CU_ASSERT_EQUAL(pk[0].psn, EPSN + 2);
	CU_ASSERT_EQUAL(pk[1].opcode, SROCE_OP_RC_READ_RESP_MIDDLE);
	CU_ASSERT_EQUAL(pk[2].opcode, SROCE_OP_RC_READ_RESP_LAST);
	CU_ASSERT_EQUAL(pk[2].payload_len, 2500 - 2 * MTU);
	CU_ASSERT_EQUAL(pk[2].psn, EPSN + 4);

	/* FETCH_ADD on an aligned word: the old value comes back */
	memcpy(MRBUF + 2048, &v, 8);
	p = write_req(SROCE_OP_RC_FETCH_ADD, EPSN + 5, 0, va + 2048, mr->rkey, 0);
	p.swap_add = 2;
	pv_sroce_resp_rx(qp, &p);
	memcpy(&v, MRBUF + 2048, 8);
	CU_ASSERT_EQUAL(v, 42);
	(void)pv_sroce_resp_tx(qp);
	CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
	CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_ATOMIC_ACK);
	CU_ASSERT_EQUAL(pk[0].atomic_orig, 40);
	CU_ASSERT_EQUAL(qp->resp.msn, 3);	/* WRITE, READ, atomic */
	CU_ASSERT(canaries_intact());
	freeqp(qp);
}

static void
test_psn_sequence_nak_once(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	struct sroce_pkt p;
	uint8_t syn = 0;
	uint32_t psn = 0;

	post_recv(qp, 1, 4096);
	p = req(SROCE_OP_RC_SEND_ONLY, EPSN + 2, 8, 0);
	pv_sroce_resp_rx(qp, &p);
	p = req(SROCE_OP_RC_SEND_ONLY, EPSN + 3, 8, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.seq_naks_tx, 1);	/* one NAK per gap */
	CU_ASSERT_EQUAL(cq.prod, 0);
	CU_ASSERT(untouched(MRBUF, 4096));
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(syn, SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR);
	CU_ASSERT_EQUAL(psn, EPSN);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	CU_ASSERT_EQUAL(dev->eng[0].stats.acks_tx, 0);		/* a NAK is not an ACK */
	/* the expected PSN is accepted and re-arms the NAK */
	p = req(SROCE_OP_RC_SEND_ONLY, EPSN, 8, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(cq.prod, 1);
	CU_ASSERT_EQUAL(qp->resp.nak_sent, 0);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.acks_tx, 1);
	freeqp(qp);
}

static void
test_duplicates(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	uint64_t va = (uintptr_t)MRBUF;
	struct sroce_pkt p;
	uint8_t syn = 0;
	uint32_t psn = 0;

	post_recv(qp, 1, 4096);
	p = req(SROCE_OP_RC_SEND_ONLY, EPSN, 8, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	/* the SEND again: re-acknowledged, not placed again */
	post_recv(qp, 2, 4096);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.dup_reqs, 1);
	CU_ASSERT_EQUAL(cq.prod, 1);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(syn & SROCE_AETH_TYPE_MASK, SROCE_AETH_ACK);
	CU_ASSERT_EQUAL(psn, EPSN);
	/* a READ answered, then asked again: answered again from its resource */
	p = write_req(SROCE_OP_RC_READ_REQ, EPSN + 1, 0, va, mr->rkey, 16);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_READ_RESP_ONLY);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.dup_reqs, 2);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_READ_RESP_ONLY);
	CU_ASSERT_EQUAL(pk[0].psn, EPSN + 1);
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN + 2);
	freeqp(qp);
}

enum viol {
	VIOL_RKEY,
	VIOL_BOUNDS,
	VIOL_QP_ACCESS,
	VIOL_READ_RKEY,
	VIOL_ATOMIC_ALIGN,
};

/* every violation: one NAK, the QP in ERR, no byte of the MR or around it touched */
static void
test_access_violations(void)
{
	static const struct {
		enum viol v;
		uint8_t nak;
	} cases[] = {
		{ VIOL_RKEY, SROCE_NAK_REM_ACCESS },
		{ VIOL_BOUNDS, SROCE_NAK_REM_ACCESS },
		{ VIOL_QP_ACCESS, SROCE_NAK_REM_ACCESS },
		{ VIOL_READ_RKEY, SROCE_NAK_REM_ACCESS },
		{ VIOL_ATOMIC_ALIGN, SROCE_NAK_INV_REQ },
	};
	uint64_t va = (uintptr_t)MRBUF;
	uint32_t i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct sroce_qp *qp = mkqp(SROCE_OP_RC);
		struct sroce_pkt p;

		switch (cases[i].v) {
		case VIOL_RKEY:
			p = write_req(SROCE_OP_RC_WRITE_ONLY, EPSN, 64, va, mr->rkey ^ 0x100, 64);
			break;
		case VIOL_BOUNDS:
			p = write_req(SROCE_OP_RC_WRITE_ONLY, EPSN, 64, va + 4096 - 32, mr->rkey,
				      64);
			break;
		case VIOL_QP_ACCESS:
			qp->attr.qp_access_flags = PV_ACCESS_REMOTE_READ;
			p = write_req(SROCE_OP_RC_WRITE_ONLY, EPSN, 64, va, mr->rkey, 64);
			break;
		case VIOL_READ_RKEY:
			p = write_req(SROCE_OP_RC_READ_REQ, EPSN, 0, va, 0, 64);
			break;
		default:
			p = write_req(SROCE_OP_RC_FETCH_ADD, EPSN, 0, va + 4, mr->rkey, 0);
			break;
		}
		pv_sroce_resp_rx(qp, &p);
		CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
		CU_ASSERT_EQUAL(dev->eng[0].stats.err_naks_tx, 1);
		CU_ASSERT_EQUAL(dev->eng[0].stats.acks_tx, 0);
		CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
		CU_ASSERT_EQUAL(pk[0].opcode, SROCE_OP_RC_ACK);
		CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | cases[i].nak);
		CU_ASSERT_EQUAL(pk[0].psn, EPSN);
		CU_ASSERT(untouched(mem, sizeof(mem)));
		CU_ASSERT_EQUAL(qp->resp.res_active, 0);
		freeqp(qp);
	}
}

static void
test_opcode_sequence(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	struct sroce_pkt p;

	/* a MIDDLE with no message in progress */
	p = write_req(SROCE_OP_RC_WRITE_MIDDLE, EPSN, MTU, 0, 0, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
	CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | SROCE_NAK_INV_REQ);
	CU_ASSERT(untouched(mem, sizeof(mem)));
	freeqp(qp);

	/* a SEND FIRST inside a WRITE */
	qp = mkqp(SROCE_OP_RC);
	post_recv(qp, 1, 4096);
	p = write_req(SROCE_OP_RC_WRITE_FIRST, EPSN, MTU, (uintptr_t)MRBUF, mr->rkey, 2 * MTU);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->resp.in_write, 1);
	p = req(SROCE_OP_RC_SEND_FIRST, EPSN + 1, MTU, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
	CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | SROCE_NAK_INV_REQ);
	CU_ASSERT_EQUAL(pk[0].psn, EPSN + 1);
	CU_ASSERT_EQUAL(cq.prod, 0);
	freeqp(qp);
}

static void
test_rnr(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_RC);
	struct sroce_pkt p;
	uint8_t syn = 0;
	uint32_t psn = 0;

	p = req(SROCE_OP_RC_SEND_ONLY, EPSN, 8, 0);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rnr_naks_tx, 1);
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN);
	CU_ASSERT_EQUAL(answer(qp, &syn, &psn), 1);
	CU_ASSERT_EQUAL(syn, SROCE_AETH_RNR_NAK | 3);
	CU_ASSERT_EQUAL(dev->eng[0].stats.acks_tx, 0);
	CU_ASSERT_EQUAL(psn, EPSN);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	/* the retry after a receive was posted */
	post_recv(qp, 9, 64);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(cq.prod, 1);
	CU_ASSERT_EQUAL(cq.ring[0].wr_id, 9);
	freeqp(qp);
}

static void
test_uc_drop_and_count(void)
{
	struct sroce_qp *qp = mkqp(SROCE_OP_UC);
	struct sroce_pkt p;

	post_recv(qp, 1, 4096);
	/* FIRST, then a gap: the message is dropped, no answer */
	p = req(SROCE_OP_UC_SEND_FIRST, 0x10, MTU, 0);
	pv_sroce_resp_rx_uc(qp, &p);
	p = req(SROCE_OP_UC_SEND_LAST, 0x12, 8, 0);
	pv_sroce_resp_rx_uc(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.uc_drops, 1);
	CU_ASSERT_EQUAL(qp->resp.drop_msg, 1);
	CU_ASSERT_EQUAL(cq.prod, 0);
	/* the rest of the dropped message is dropped too */
	p = req(SROCE_OP_UC_SEND_LAST, 0x11, 8, 0);
	pv_sroce_resp_rx_uc(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.uc_drops, 2);
	CU_ASSERT_EQUAL(cq.prod, 0);
	/* a bad rkey drops a WRITE, nothing placed */
	memset(mem, CANARY, sizeof(mem));
	p = write_req(SROCE_OP_UC_WRITE_ONLY, 0x20, 64, (uintptr_t)MRBUF, mr->rkey ^ 0x100, 64);
	pv_sroce_resp_rx_uc(qp, &p);
	CU_ASSERT_EQUAL(dev->eng[0].stats.uc_drops, 3);
	CU_ASSERT(untouched(mem, sizeof(mem)));
	/* a new message resynchronises at its PSN and takes the same WQE */
	p = req(SROCE_OP_UC_SEND_ONLY, 0x30, 16, 3);
	pv_sroce_resp_rx_uc(qp, &p);
	CU_ASSERT_EQUAL_FATAL(cq.prod, 1);
	CU_ASSERT_EQUAL(cq.ring[0].wr_id, 1);
	CU_ASSERT_EQUAL(cq.ring[0].byte_len, 16);
	CU_ASSERT_EQUAL(MRBUF[0], 3);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	CU_ASSERT_EQUAL(ut_tx_drain(dev, pk, 0), 0);	/* UC never answers */
	CU_ASSERT_EQUAL(dev->eng[0].stats.err_naks_tx, 0);
	freeqp(qp);
}

/*
 * A READ of 0xffffffff bytes wrapped its packet count to 0 in 32 bits (the
 * expected PSN did not move, the READ ran again as new): above max_msg_sz
 * (2^31) it is an invalid request (as rxe's check_length), and a
 * READ of 2^31 bytes counts its packets in 64 bits (issue 11 bug 4).
 */
static void
test_read_length_limits(void)
{
	/* an address range nothing reads: only the checks run, no response is sent */
	void *fake = (void *)(uintptr_t)0x100000000ull;
	struct pv_mr *big = pv_sroce_mr_reg(ibpd, fake, 0xffffffffu, PV_ACCESS_REMOTE_READ);
	struct sroce_qp *qp;
	struct sroce_pkt p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	qp = mkqp(SROCE_OP_RC);
	p = write_req(SROCE_OP_RC_READ_REQ, EPSN, 0, (uintptr_t)fake, big->rkey, 0xffffffffu);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->resp.epsn, EPSN);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
	CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | SROCE_NAK_INV_REQ);
	freeqp(qp);

	qp = mkqp(SROCE_OP_RC);
	p = write_req(SROCE_OP_RC_READ_REQ, EPSN, 0, (uintptr_t)fake, big->rkey, 0x80000000u);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	CU_ASSERT_EQUAL(qp->resp.epsn, (EPSN + 0x80000000u / MTU) & SROCE_PSN_MASK);
	CU_ASSERT_EQUAL(qp->resp.res[0].last_psn, (EPSN + 0x80000000u / MTU - 1) & SROCE_PSN_MASK);
	qp->resp.res_active = 0;	/* nothing to send from the fake range */
	freeqp(qp);

	/* a WRITE above max_msg_sz too */
	qp = mkqp(SROCE_OP_RC);
	p = write_req(SROCE_OP_RC_WRITE_FIRST, EPSN, MTU, (uintptr_t)MRBUF, mr->rkey, 0x80000001u);
	pv_sroce_resp_rx(qp, &p);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
	CU_ASSERT(untouched(mem, sizeof(mem)));
	freeqp(qp);
	pv_sroce_mr_dereg(big);
}

/* ONLY and LAST packets above the path MTU: invalid request (C9-92, as rxe) */
static void
test_payload_above_mtu(void)
{
	static const uint8_t ops[] = {
		SROCE_OP_RC_SEND_ONLY, SROCE_OP_RC_WRITE_ONLY, SROCE_OP_RC_SEND_LAST,
		SROCE_OP_UC_SEND_ONLY, SROCE_OP_UC_WRITE_ONLY,
	};
	uint32_t i;

	for (i = 0; i < RTE_DIM(ops); i++) {
		int uc = SROCE_OP_TRANSPORT(ops[i]) == SROCE_OP_UC;
		struct sroce_qp *qp = mkqp(uc ? SROCE_OP_UC : SROCE_OP_RC);
		struct sroce_pkt p;

		post_recv(qp, 1, 4096);
		if (ops[i] == SROCE_OP_RC_SEND_LAST) {
			p = req(SROCE_OP_RC_SEND_FIRST, EPSN, MTU, 0);
			pv_sroce_resp_rx(qp, &p);
			memset(mem, CANARY, sizeof(mem));
			p = req(ops[i], EPSN + 1, MTU + 4, 0);
		} else {
			p = write_req(ops[i], EPSN, MTU + 4, (uintptr_t)MRBUF, mr->rkey, MTU + 4);
		}
		if (uc)
			pv_sroce_resp_rx_uc(qp, &p);
		else
			pv_sroce_resp_rx(qp, &p);
		CU_ASSERT(untouched(mem, sizeof(mem)));
		CU_ASSERT_EQUAL(cq.prod, 0);
		if (uc) {
			CU_ASSERT_EQUAL(dev->eng[0].stats.uc_drops, 1);
			CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
		} else {
			CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
			CU_ASSERT_EQUAL_FATAL(ut_tx_drain(dev, pk, 64), 1);
			CU_ASSERT_EQUAL(pk[0].aeth_syndrome, SROCE_AETH_NAK | SROCE_NAK_INV_REQ);
		}
		freeqp(qp);
	}
}

static void *
owner_check_thread(void *arg)
{
	sroce_owner_check(arg);
	return NULL;
}

/* debug builds: a data-path call from a second thread aborts; optimized: no check */
static void
test_owner_thread_check(void)
{
	struct sroce_dev d;
	struct sroce_eng e;
	pid_t pid;
	int st = 0;

	memset(&d, 0, sizeof(d));
	memset(&e, 0, sizeof(e));
	e.dev = &d;
	sroce_owner_check(&e);		/* this thread owns engine @p e */
	sroce_owner_check(&e);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		pthread_t t;

		/* the child's thread is not the owner recorded before the fork */
		if (pthread_create(&t, NULL, owner_check_thread, &e) != 0)
			_exit(2);
		pthread_join(t, NULL);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
#ifdef SROCE_DEBUG
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
#else
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
#endif
}

static const struct ut_case ut_sroce_resp_cases[] = {
	{ "send_in_order", test_send_in_order },
	{ "write_read_atomic", test_write_read_atomic },
	{ "psn_sequence_nak_once", test_psn_sequence_nak_once },
	{ "duplicates", test_duplicates },
	{ "access_violations", test_access_violations },
	{ "opcode_sequence", test_opcode_sequence },
	{ "rnr", test_rnr },
	{ "uc_drop_and_count", test_uc_drop_and_count },
	{ "read_length_limits", test_read_length_limits },
	{ "payload_above_mtu", test_payload_above_mtu },
	{ "owner_thread_check", test_owner_thread_check },
	{ NULL, NULL },
};

static const struct ut_suite ut_sroce_resp_suite = { "sroce_resp", NULL, NULL, ut_sroce_resp_cases };

int
main(void)
{
	static struct pv_wc ring[64];
	int fails, rc;

	dev = ut_eal_dev_init("ut_sroce_resp", &rc);
	if (dev == NULL)
		return rc;
	ctx.dev = dev;
	ibpd = pv_sroce_pd_alloc(&ctx.ibctx);
	mr = pv_sroce_mr_reg(ibpd, MRBUF, 4096, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			     PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC);
	if (ibpd == NULL || mr == NULL)
		return 1;
	cq.ring = ring;
	cq.mask = 63;
	cq.dev = dev;
	fails = ut_cunit_run_one(&ut_sroce_resp_suite);
	rte_eal_cleanup();
	return fails;
}

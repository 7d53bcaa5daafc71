/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * libFuzzer targets: one softroce device on a net_ring port whose rings the
 * harness holds (it enqueues the peer's frames, drops what the device
 * sends), with an RC, a UC and a UD QP and an XRC TGT QP (its XRC SRQ in
 * the same PD) connected to a peer 10.0.0.2 that the input plays, and two
 * memory windows: type 1 over MR 1, type 2 over MR 2 bound to the RC QP.
 * Built twice:
 *   fuzz_sroce_resp  the QPs start idle: frames exercise the responders;
 *   fuzz_sroce_req   (PV_FUZZ_REQ) the RC and UC QPs start with WRITE,
 *                    READ, atomic and SEND WRs outstanding: frames exercise
 *                    the requester's ACK/NAK/READ-response handling.
 * The input is a list of actions, each one byte and its operands:
 *   0-2  a frame: u16 length, a flags byte, then the bytes from the BTH on
 *        (length of them). The harness adds Ethernet/IPv4/UDP from the
 *        peer and the ICRC, and per flag: bit 3 the BTH's QPN := the QP
 *        (flags % 3: RC, UC, UD); bit 4 a RETH/AtomicETH rkey and va :=
 *        MR (flags >> 5) % 4 and an offset in it; bit 5 the PSN := the QP's
 *        next expected (responder) or oldest unacknowledged (requester) plus
 *        the low 4 bits given; bit 6: leave the ICRC as given (4 more bytes);
 *        bit 2: to the XRC TGT QP instead (its XRCETH := the XRC SRQ, the
 *        RETH after it); bit 7 (with bit 4): the rkey of window (flags >> 5)
 *        % 2 and a va in it instead of an MR's
 *   3    re-register MR (next byte % 4): dereg, reg again (a new key)
 *   4    free and replace MR (next byte % 4)'s buffer: dereg, free, malloc,
 *        reg (ASan sees any later use of the old buffer); the buffer is only
 *        freed when every WR that names it has completed (else: re-register)
 *   5    post a receive on QP (next byte % 3) into MR 3
 *   6    post a send WR on QP (next byte % 3): opcode and MR from the byte
 *   7    progress the device 4 times
 *   8    window (next byte % 2): LOCAL_INV (type 2) then bind it again
 *   9    window (next byte % 2): free it and allocate and bind a new one
 * Each input starts from fresh QPs, MRs and windows and ends by destroying
 * them. An MR with a window bound is re-registered (3, 4) after its window
 * is freed, as an application must (dereg is EBUSY otherwise).
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pv_rtc.h"
#include "pv_verbs.h"

#include "pv_app.h"
#include "sroce_priv.h"
#include "ut_sroce.h"
#include "fuzz_sroce.h"

#define FZ_NQP		3	/* RC, UC, UD; then qp[FZ_TGT], XRC TGT */
#define FZ_TGT		3
#define FZ_NMR		4
#define FZ_NMW		2	/* mw[0] type 1 over MR 1, mw[1] type 2 over MR 2 */
#define FZ_MW_OFF	1024	/* windows: [buf + 1024, + 4096) */
#define FZ_MW_LEN	4096
#define FZ_BUF		8192
#define FZ_PEER_QPN	0x100
#define FZ_PEER_IP	"10.0.0.2"	/* the harness plays this peer */
#define FZ_QKEY		0x1111u
#define FZ_FRAME_MAX	(SROCE_MBUF_DATA - RTE_PKTMBUF_HEADROOM)

static struct pv_context *fz_ctx;
static struct sroce_dev *fz_dev;
static struct rte_ring *fz_rx, *fz_tx;
static struct rte_mempool *fz_mp;
static struct rte_ether_addr fz_peer_mac = { { 0x02, 0x50, 10, 0, 0, 2 } };

struct fz_state {
	struct pv_pd *pd;
	struct pv_cq *cq;
	struct pv_qp *qp[FZ_NQP + 1];
	struct pv_xrcd *xrcd;
	struct pv_srq *xsrq;
	uint32_t srqn;
	struct pv_mw *mw[FZ_NMW];
	struct pv_ah *ah;
	uint8_t *buf[FZ_NMR];
	struct pv_mr *mr[FZ_NMR];
	uint32_t busy[FZ_NMR];		/* WRs not completed yet that use buf[k] */
	uint64_t wr_id;
};

static void
fz_cleanup(void)
{
	pv_close_device(fz_ctx);
	pv_cleanup();
}

static int
fz_setup(void)
{
	static char prefix[64];
	struct rte_ring *rx[1], *tx[1];
	struct pv_device **list;
	ut_from_rings_fn from_rings;
	int n, ret;

	snprintf(prefix, sizeof(prefix), "fuzz_sroce_%d", (int)getpid());
	ret = ut_pv_init("fuzz_sroce", 256, prefix, "0",
			 "--pv-dev=softroce:port=net_ring_fz,ip=10.0.0.1,max_qp=16,max_mr=64",
			 NULL);
	from_rings = ut_from_rings();
	if (ret < 0 || from_rings == NULL)
		return -1;
	fz_rx = rte_ring_create("fz_rx", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	fz_tx = rte_ring_create("fz_tx", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	fz_mp = rte_pktmbuf_pool_create("fz_mp", 1023, 0, 0, SROCE_MBUF_DATA, 0);
	if (fz_rx == NULL || fz_tx == NULL || fz_mp == NULL)
		return -1;
	rx[0] = fz_rx;
	tx[0] = fz_tx;
	if (from_rings("fz", rx, 1, tx, 1, 0) < 0)
		return -1;
	list = pv_get_device_list(&n);
	if (list == NULL || n < 1)
		return -1;
	fz_ctx = pv_open_device(list[0]);
	pv_free_device_list(list);
	if (fz_ctx == NULL)
		return -1;
	fz_dev = sroce_dev_of(fz_ctx);
	/* before LeakSanitizer's exit check: the device's tables are libc memory
	 * that only EAL memory (not scanned) points to */
	atexit(fz_cleanup);
	pv_sroce_neigh_learn(&fz_dev->eng[0],
			     (const uint8_t[16]){ [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
			     &fz_peer_mac);
	return 0;
}

/* drop what the device sent, and the completions */
static void
fz_drain(struct fz_state *s)
{
	struct rte_mbuf *m[64];
	struct pv_wc wc[16];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(fz_tx, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	while ((n = (unsigned int)pv_poll_cq(s->cq, RTE_DIM(wc), wc)) > 0 && n <= RTE_DIM(wc))
		while (n-- > 0)
			s->busy[wc[n].wr_id % FZ_NMR]--;
}

static void
fz_progress(struct fz_state *s, int times)
{
	while (times-- > 0) {
		pv_progress(fz_ctx);
		fz_drain(s);
	}
}

/* QP @p i (0 RC, 1 UC, 2 UD) to RTS towards the harness's peer 10.0.0.2 */
static int
fz_qp_up(struct pv_qp *qp, int i)
{
	struct pv_app_qp_peer peer = { .qpn = FZ_PEER_QPN + i };
	struct pv_app_qp_opts o;

	pv_app_qp_opts_init(&o);
	o.name = "fuzz_sroce";
	o.sgid_index = 1;
	o.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC;
	o.qkey = FZ_QKEY;
	/* short timers: a fuzzed requester gives up fast */
	o.timeout = 1;
	o.retry_cnt = 2;
	o.rnr_retry = 2;
	o.min_rnr_timer = 1;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	if (ut_gid_ipv4(FZ_PEER_IP, &peer.gid) != 0)
		return -1;
	return pv_app_qp_connect(qp, &o, &peer) == 0 ? 0 : -1;
}

static struct pv_mr *
fz_reg(struct fz_state *s, int k)
{
	return pv_reg_mr(s->pd, s->buf[k], FZ_BUF, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_MW_BIND |
			 PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			 PV_ACCESS_REMOTE_ATOMIC);
}

static void
fz_post_recv(struct fz_state *s, int q)
{
	struct pv_sge sge = { (uintptr_t)s->buf[3], 4096, s->mr[3]->lkey };
	struct pv_recv_wr wr = { .wr_id = s->wr_id++ * FZ_NMR + 3, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad;

	if (pv_post_recv(s->qp[q], &wr, &bad) == 0)
		s->busy[3]++;
}

static void
fz_post_send(struct fz_state *s, int q, uint8_t how)
{
	static const enum pv_wr_opcode ops[] = {
		PV_WR_RDMA_WRITE, PV_WR_RDMA_READ, PV_WR_SEND, PV_WR_ATOMIC_FETCH_AND_ADD,
		PV_WR_ATOMIC_CMP_AND_SWP, PV_WR_RDMA_WRITE_WITH_IMM, PV_WR_SEND_WITH_IMM,
		PV_WR_RDMA_READ,
	};
	int k = (how >> 3) % FZ_NMR;
	uint32_t len = (how & 0x40) ? 3000 : 64;
	struct pv_sge sge = { (uintptr_t)s->buf[k], len, s->mr[k]->lkey };
	struct pv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = s->wr_id++ * FZ_NMR + k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ops[how % RTE_DIM(ops)];
	wr.send_flags = PV_SEND_SIGNALED;
	if (wr.opcode == PV_WR_ATOMIC_FETCH_AND_ADD || wr.opcode == PV_WR_ATOMIC_CMP_AND_SWP) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = 0x10000;
		wr.wr.atomic.rkey = 0x1234;
	} else {
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x1234;
	}
	if (q == 2) {
		wr.opcode = PV_WR_SEND;
		sge.length = 64;
		wr.wr.ud.ah = s->ah;
		wr.wr.ud.remote_qpn = FZ_PEER_QPN + 2;
		wr.wr.ud.remote_qkey = FZ_QKEY;
	}
	if (pv_post_send(s->qp[q], &wr, &bad) == 0)
		s->busy[k]++;
}

/* the XRC TGT QP to RTS towards the peer's INI QP FZ_PEER_QPN + FZ_TGT */
static int
fz_tgt_up(struct fz_state *s)
{
	struct pv_xrcd_init_attr xa = { PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS, -1, 0 };
	struct pv_srq_init_attr_ex sa;
	struct pv_qp_init_attr_ex ia;
	struct pv_qp_attr a;
	int i;

	s->xrcd = pv_open_xrcd(fz_ctx, &xa);
	if (s->xrcd == NULL)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 2;
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ |
		       PV_SRQ_INIT_ATTR_PD;
	sa.srq_type = PV_SRQT_XRC;
	sa.xrcd = s->xrcd;
	sa.cq = s->cq;
	sa.pd = s->pd;
	s->xsrq = pv_create_srq_ex(fz_ctx, &sa);
	if (s->xsrq == NULL || pv_get_srq_num(s->xsrq, &s->srqn) != 0)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PV_QPT_XRC_RECV;
	ia.comp_mask = PV_QP_INIT_ATTR_XRCD;
	ia.xrcd = s->xrcd;
	s->qp[FZ_TGT] = pv_create_qp_ex(fz_ctx, &ia);
	if (s->qp[FZ_TGT] == NULL)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			    PV_ACCESS_REMOTE_ATOMIC;
	if (pv_modify_qp(s->qp[FZ_TGT], &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
			 PV_QP_ACCESS_FLAGS) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTR;
	a.path_mtu = PV_MTU_1024;
	a.dest_qp_num = FZ_PEER_QPN + FZ_TGT;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	if (ut_ah_attr_ipv4(FZ_PEER_IP, &a.ah_attr) != 0 ||
	    pv_modify_qp(s->qp[FZ_TGT], &a, PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU |
			 PV_QP_DEST_QPN | PV_QP_RQ_PSN | PV_QP_MAX_DEST_RD_ATOMIC |
			 PV_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTS;
	a.timeout = 1;
	if (pv_modify_qp(s->qp[FZ_TGT], &a, PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_SQ_PSN) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		struct pv_sge sge = { (uintptr_t)s->buf[3], 4096, s->mr[3]->lkey };
		struct pv_recv_wr wr = { .wr_id = s->wr_id++ * FZ_NMR + 3, .sg_list = &sge,
					 .num_sge = 1 };
		struct pv_recv_wr *bad;

		if (pv_post_srq_recv(s->xsrq, &wr, &bad) == 0)
			s->busy[3]++;
	}
	return 0;
}

/* window @p w: allocated if needed, bound over its MR (type 2: to the RC QP) */
static void
fz_mw_bind(struct fz_state *s, int w)
{
	int k = w + 1;

	if (s->mw[w] == NULL)
		s->mw[w] = pv_alloc_mw(s->pd, w == 0 ? PV_MW_TYPE_1 : PV_MW_TYPE_2);
	if (s->mw[w] == NULL)
		return;
	if (w == 0) {
		struct pv_mw_bind b = {
			.wr_id = s->wr_id++ * FZ_NMR + k,
			.bind_info = { s->mr[k], (uintptr_t)s->buf[k] + FZ_MW_OFF, FZ_MW_LEN,
				       PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
				       PV_ACCESS_REMOTE_ATOMIC },
		};

		if (pv_bind_mw(s->qp[0], s->mw[0], &b) == 0)
			s->busy[k]++;
	} else {
		struct pv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = s->wr_id++ * FZ_NMR + k;
		wr.opcode = PV_WR_BIND_MW;
		wr.send_flags = PV_SEND_SIGNALED;
		wr.bind_mw.mw = s->mw[1];
		wr.bind_mw.rkey = pv_inc_rkey(s->mw[1]->rkey);
		wr.bind_mw.bind_info.mr = s->mr[k];
		wr.bind_mw.bind_info.addr = (uintptr_t)s->buf[k] + FZ_MW_OFF;
		wr.bind_mw.bind_info.length = FZ_MW_LEN;
		wr.bind_mw.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE |
						       PV_ACCESS_REMOTE_READ | PV_ACCESS_ZERO_BASED;
		if (pv_post_send(s->qp[0], &wr, &bad) == 0) {
			s->busy[k]++;
			s->mw[1]->rkey = wr.bind_mw.rkey;	/* the application keeps it */
		}
	}
}

/* LOCAL_INV of window @p w (type 2; type 1 windows cannot be invalidated) */
static void
fz_mw_inv(struct fz_state *s, int w)
{
	struct pv_send_wr wr, *bad;

	if (s->mw[w] == NULL)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = s->wr_id++ * FZ_NMR + w + 1;
	wr.opcode = PV_WR_LOCAL_INV;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.invalidate_rkey = s->mw[w]->rkey;
	if (pv_post_send(s->qp[0], &wr, &bad) == 0)
		s->busy[w + 1]++;
}

/* free the window over MR @p k, if any: the MR can be deregistered then */
static void
fz_mw_free(struct fz_state *s, int k)
{
	int w = k - 1;

	if (w < 0 || w >= FZ_NMW || s->mw[w] == NULL)
		return;
	pv_dealloc_mw(s->mw[w]);
	s->mw[w] = NULL;
}

static int
fz_state_up(struct fz_state *s)
{
	struct pv_ah_attr aa;
	int i;

	memset(s, 0, sizeof(*s));
	s->pd = pv_alloc_pd(fz_ctx);
	s->cq = pv_create_cq(fz_ctx, 256, NULL, NULL, 0);
	if (s->pd == NULL || s->cq == NULL)
		return -1;
	for (i = 0; i < FZ_NMR; i++) {
		s->buf[i] = calloc(1, FZ_BUF);
		s->mr[i] = s->buf[i] != NULL ? fz_reg(s, i) : NULL;
		if (s->mr[i] == NULL)
			return -1;
	}
	for (i = 0; i < FZ_NQP; i++) {
		struct pv_qp_init_attr ia = {
			.send_cq = s->cq, .recv_cq = s->cq,
			.qp_type = i == 0 ? PV_QPT_RC : i == 1 ? PV_QPT_UC : PV_QPT_UD,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
				 .max_recv_sge = 2, .max_inline_data = 64 },
		};

		s->qp[i] = pv_create_qp(s->pd, &ia);
		if (s->qp[i] == NULL || fz_qp_up(s->qp[i], i) != 0)
			return -1;
		fz_post_recv(s, i);
		fz_post_recv(s, i);
	}
	if (ut_ah_attr_ipv4(FZ_PEER_IP, &aa) != 0)
		return -1;
	s->ah = pv_create_ah(s->pd, &aa);
	if (s->ah == NULL || fz_tgt_up(s) != 0)
		return -1;
	fz_mw_bind(s, 0);
	fz_mw_bind(s, 1);
#ifdef PV_FUZZ_REQ
	/* WRITE 3000 (3 packets), READ 3000, FETCH_ADD, SEND on RC; WRITE on UC */
	fz_post_send(s, 0, 0x40);
	fz_post_send(s, 0, 0x41);
	fz_post_send(s, 0, 0x03);
	fz_post_send(s, 0, 0x02);
	fz_post_send(s, 1, 0x40);
#endif
	fz_progress(s, 1);
	return 0;
}

static void
fz_state_down(struct fz_state *s)
{
	int i;

	fz_drain(s);
	if (s->ah != NULL)
		pv_destroy_ah(s->ah);
	for (i = 0; i < FZ_NMW; i++)
		if (s->mw[i] != NULL)
			pv_dealloc_mw(s->mw[i]);
	for (i = 0; i <= FZ_TGT; i++)
		if (s->qp[i] != NULL)
			pv_destroy_qp(s->qp[i]);
	if (s->xsrq != NULL)
		pv_destroy_srq(s->xsrq);
	if (s->xrcd != NULL)
		pv_close_xrcd(s->xrcd);
	for (i = 0; i < FZ_NMR; i++) {
		if (s->mr[i] != NULL)
			pv_dereg_mr(s->mr[i]);
		free(s->buf[i]);
	}
	if (s->cq != NULL) {
		fz_drain(s);
		pv_destroy_cq(s->cq);
	}
	if (s->pd != NULL)
		pv_dealloc_pd(s->pd);
}

/* the PSN the flags' bit 5 refers to */
static uint32_t
fz_psn_base(const struct fz_state *s, int q)
{
	const struct sroce_qp *qp = sroce_qp(s->qp[q]);

#ifdef PV_FUZZ_REQ
	return qp->comp.psn;
#else
	return qp->resp.epsn;
#endif
}

/* one frame from the peer: @p body (BTH on) of @p len bytes, patched by @p flags */
static void
fz_frame(struct fz_state *s, uint8_t flags, const uint8_t *body, uint32_t len,
	 const uint8_t *icrc)
{
	int q = (flags & 0x04) ? FZ_TGT : flags % FZ_NQP;
	uint32_t x = q == FZ_TGT ? SROCE_XRCETH_LEN : 0;	/* RETH after the XRCETH */
	struct rte_mbuf *m;
	uint8_t *f, *ip, *udp, *bth;
	uint32_t flen = SROCE_L2L4_HLEN + len + SROCE_ICRC_LEN, i;

	if (flen > FZ_FRAME_MAX)
		return;
	m = rte_pktmbuf_alloc(fz_mp);
	if (m == NULL)
		return;
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen);
	memcpy(f, &fz_dev->mac, 6);
	memcpy(f + 6, &fz_peer_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	ip = f + SROCE_ETH_HLEN;
	memset(ip, 0, SROCE_IPV4_HLEN);
	ip[0] = 0x45;
	ip[6] = 0x40;	/* DF */
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = 2;
	ip[16] = 10;
	ip[19] = 1;
	udp = ip + SROCE_IPV4_HLEN;
	udp[0] = 0xc0;
	udp[1] = 0x00;
	udp[2] = SROCE_UDP_PORT >> 8;
	udp[3] = SROCE_UDP_PORT & 0xff;
	udp[6] = 0;
	udp[7] = 0;
	bth = udp + SROCE_UDP_HLEN;
	memcpy(bth, body, len);
	if (len >= SROCE_BTH_LEN) {
		if (flags & 0x08) {
			uint32_t qpn = s->qp[q]->qp_num;

			bth[5] = (uint8_t)(qpn >> 16);
			bth[6] = (uint8_t)(qpn >> 8);
			bth[7] = (uint8_t)qpn;
		}
		if (flags & 0x20) {
			uint32_t psn = (fz_psn_base(s, q) + (bth[11] & 0xf)) & SROCE_PSN_MASK;

			bth[9] = (uint8_t)(psn >> 16);
			bth[10] = (uint8_t)(psn >> 8);
			bth[11] = (uint8_t)psn;
		}
	}
	if (x != 0 && len >= SROCE_BTH_LEN + x) {
		bth[SROCE_BTH_LEN + 1] = (uint8_t)(s->srqn >> 16);
		bth[SROCE_BTH_LEN + 2] = (uint8_t)(s->srqn >> 8);
		bth[SROCE_BTH_LEN + 3] = (uint8_t)s->srqn;
	}
	/* RETH (WRITE/READ) or AtomicETH after the BTH (and XRCETH): va, rkey
	 * of an MR, or (bit 7) of a window: type 1 by address, type 2 zero based */
	if ((flags & 0x10) && len >= SROCE_BTH_LEN + x + 16) {
		uint8_t *h = bth + SROCE_BTH_LEN + x;
		int k = (flags >> 5) % FZ_NMR, w = (flags >> 5) % FZ_NMW;
		uint64_t off = (h[7] & 0x3f) * 64;
		uint64_t va = (uintptr_t)s->buf[k] + off;
		uint32_t rkey = s->mr[k]->rkey;

		if ((flags & 0x80) && s->mw[w] != NULL) {
			rkey = s->mw[w]->rkey;
			va = w == 0 ? (uintptr_t)s->buf[1] + FZ_MW_OFF + off : off;
		}
		for (i = 0; i < 8; i++)
			h[i] = (uint8_t)(va >> (56 - 8 * i));
		for (i = 0; i < 4; i++)
			h[8 + i] = (uint8_t)(rkey >> (24 - 8 * i));
	}
	pv_fuzz_frame_fix(f, flen);	/* lengths, IPv4 checksum, ICRC */
	if (icrc != NULL)
		memcpy(f + flen - SROCE_ICRC_LEN, icrc, SROCE_ICRC_LEN);
	if (rte_ring_enqueue(fz_rx, m) != 0)
		rte_pktmbuf_free(m);
	fz_progress(s, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct fz_state s;
	size_t i = 0;

	if (!ready) {
		if (fz_setup() != 0) {
			fprintf(stderr, "fuzz_sroce: set-up failed\n");
			abort();
		}
		ready = 1;
	}
	if (fz_state_up(&s) != 0) {
		fprintf(stderr, "fuzz_sroce: QP set-up failed\n");
		abort();
	}
	while (i < size) {
		uint8_t op = data[i++] % 10, arg;
		uint32_t len;

		if (op <= 2) {
			const uint8_t *icrc = NULL;
			uint8_t flags;

			if (size - i < 3)
				break;
			len = (uint32_t)data[i] << 8 | data[i + 1];
			flags = data[i + 2];
			i += 3;
			len = RTE_MIN(len, (uint32_t)(size - i));
			if ((flags & 0x40) && size - i - len >= SROCE_ICRC_LEN)
				icrc = data + i + len;
			fz_frame(&s, flags, data + i, len, icrc);
			i += len + (icrc != NULL ? SROCE_ICRC_LEN : 0);
			continue;
		}
		if (i >= size)
			break;
		arg = data[i++];
		switch (op) {
		case 3:
			fz_mw_free(&s, arg % FZ_NMR);
			pv_dereg_mr(s.mr[arg % FZ_NMR]);
			s.mr[arg % FZ_NMR] = fz_reg(&s, arg % FZ_NMR);
			break;
		case 4:
			/* the application may free a buffer once its WRs completed */
			fz_mw_free(&s, arg % FZ_NMR);
			pv_dereg_mr(s.mr[arg % FZ_NMR]);
			if (s.busy[arg % FZ_NMR] == 0) {
				free(s.buf[arg % FZ_NMR]);
				s.buf[arg % FZ_NMR] = calloc(1, FZ_BUF);
			}
			s.mr[arg % FZ_NMR] = fz_reg(&s, arg % FZ_NMR);
			break;
		case 8:
			fz_mw_inv(&s, arg % FZ_NMW);
			fz_mw_bind(&s, arg % FZ_NMW);
			break;
		case 9:
			fz_mw_free(&s, arg % FZ_NMW + 1);
			fz_mw_bind(&s, arg % FZ_NMW);
			break;
		case 5:
			fz_post_recv(&s, arg % FZ_NQP);
			break;
		case 6:
			fz_post_send(&s, arg % FZ_NQP, arg);
			break;
		default:
			fz_progress(&s, 4);
			break;
		}
		if (s.mr[arg % FZ_NMR] == NULL)
			abort();	/* re-registration failed: harness bug */
	}
	fz_progress(&s, 2);
	fz_state_down(&s);
	return 0;
}

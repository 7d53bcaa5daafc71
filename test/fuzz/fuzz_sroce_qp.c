/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * libFuzzer targets: one softroce device on a net_ring port whose rings the
 * harness holds (it enqueues the peer's frames, drops what the device
 * sends), with an RC, a UC and a UD QP connected to a peer 10.0.0.2 that
 * the input plays. Built twice:
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
 *        the low 4 bits given; bit 6: leave the ICRC as given (4 more bytes)
 *   3    re-register MR (next byte % 4): dereg, reg again (a new key)
 *   4    free and replace MR (next byte % 4)'s buffer: dereg, free, malloc,
 *        reg (ASan sees any later use of the old buffer); the buffer is only
 *        freed when every WR that names it has completed (else: re-register)
 *   5    post a receive on QP (next byte % 3) into MR 3
 *   6    post a send WR on QP (next byte % 3): opcode and MR from the byte
 *   7    progress the device 4 times
 * Each input starts from fresh QPs and MRs and ends by destroying them.
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

#define FZ_NQP		3
#define FZ_NMR		4
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
	struct pv_qp *qp[FZ_NQP];
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
	pv_sroce_neigh_learn(fz_dev, (const uint8_t[16]){ [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
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
	return pv_reg_mr(s->pd, s->buf[k], FZ_BUF, PV_ACCESS_LOCAL_WRITE |
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
	if (s->ah == NULL)
		return -1;
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
	for (i = 0; i < FZ_NQP; i++)
		if (s->qp[i] != NULL)
			pv_destroy_qp(s->qp[i]);
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
	int q = flags % FZ_NQP;
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
	/* RETH (RC/UC WRITE/READ) or AtomicETH right after the BTH: va, rkey */
	if ((flags & 0x10) && len >= SROCE_BTH_LEN + 16) {
		int k = (flags >> 5) % FZ_NMR;
		uint64_t va = (uintptr_t)s->buf[k] + (bth[SROCE_BTH_LEN + 7] & 0x3f) * 64;
		uint32_t rkey = s->mr[k]->rkey;

		for (i = 0; i < 8; i++)
			bth[SROCE_BTH_LEN + i] = (uint8_t)(va >> (56 - 8 * i));
		for (i = 0; i < 4; i++)
			bth[SROCE_BTH_LEN + 8 + i] = (uint8_t)(rkey >> (24 - 8 * i));
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
		uint8_t op = data[i++] % 8, arg;
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
			pv_dereg_mr(s.mr[arg % FZ_NMR]);
			s.mr[arg % FZ_NMR] = fz_reg(&s, arg % FZ_NMR);
			break;
		case 4:
			/* the application may free a buffer once its WRs completed */
			pv_dereg_mr(s.mr[arg % FZ_NMR]);
			if (s.busy[arg % FZ_NMR] == 0) {
				free(s.buf[arg % FZ_NMR]);
				s.buf[arg % FZ_NMR] = calloc(1, FZ_BUF);
			}
			s.mr[arg % FZ_NMR] = fz_reg(&s, arg % FZ_NMR);
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

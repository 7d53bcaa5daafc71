/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The GSI QP (QP1) of softroce (pv_verbs_create_gsi_qp(), the connection
 * manager's transport), in one process: two devices on crossed net_ring
 * ports, A (10.0.9.1, 2001:db8:9::1) and B (10.0.9.2, 2001:db8:9::2), in
 * app progress mode so that the test can read each frame off the ring
 * between the sender's post and the receiver's progress.
 *
 * Each device creates its GSI QP (qp_num 1, UD, RESET; a second one is
 * EBUSY) and takes it INIT (pkey_index 0, port 1, Q_Key 0x80010000), RTR,
 * RTS. 256-byte MADs go both ways over the IPv4, the IPv6 and the
 * link-local GIDs and to the device's own addresses (loopback), compared
 * byte for byte behind the 40-byte GRH area, with wc.src_qp 1 and the
 * sender's GID read back from the GRH. On the wire: UDP source port 55410
 * (rxe's for QP1), BTH P_Key 0xffff, destination QP 1, AckReq, PSNs from
 * sq_psn, DETH Q_Key 0x80010000 and source QP 1, a valid ICRC. A wrong
 * Q_Key and a foreign P_Key are dropped and counted; a UD QP with the GSI
 * Q_Key reaches QP1 with its own QPN in src_qp; frames to QP 1 of a device
 * without a GSI QP are counted in rx_drop_gsi, and destroying the GSI QP
 * frees the slot for a new one.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_verbs_driver.h"
#include "sroce_wire.h"
#include "ut_sroce.h"

#define DEPTH		16
#define MAD_LEN		256
#define GRH_LEN		40
#define RECV_LEN	(GRH_LEN + MAD_LEN)
#define SLOT		512u
#define NSLOT		16
#define BUFSZ		(2 * SLOT * NSLOT)	/* send slots, then receive slots */
#define GSI_QKEY	0x80010000u
#define GSI_SPORT	55410		/* rxe: 0xc000 + hash_32(1, 14) */
#define UD_QKEY		0x11223344u
#define WAIT_MS		2000
#define GID_LL		0
#define GID_V4		1
#define GID_V6		2

static const char *const ip4[2] = { "10.0.9.1", "10.0.9.2" };

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static struct ut_buf *buf[2];
static struct pv_qp *gsi[2];
static uint32_t psn_next[2];		/* PSN of the next frame of each GSI QP */
static struct rte_ring *wire[2];	/* wire[i]: the frames device i sends */

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */

static uint8_t *
send_slot(int i, unsigned int k)
{
	return buf[i]->addr + (size_t)k * SLOT;
}

static uint8_t *
recv_slot(int i, unsigned int k)
{
	return buf[i]->addr + (size_t)(NSLOT + k) * SLOT;
}

/* a UD QP of device @p i: DEPTH WRs, one SGE each way, on its one CQ */
static void
ud_init_attr(int i, struct pv_qp_init_attr *ia)
{
	memset(ia, 0, sizeof(*ia));
	ia->send_cq = cq[i];
	ia->recv_cq = cq[i];
	ia->qp_type = PV_QPT_UD;
	ia->cap.max_send_wr = DEPTH;
	ia->cap.max_recv_wr = DEPTH;
	ia->cap.max_send_sge = 1;
	ia->cap.max_recv_sge = 1;
}

static struct pv_qp *
gsi_create(int i)
{
	struct pv_qp_init_attr ia;

	ud_init_attr(i, &ia);
	return pv_verbs_create_gsi_qp(pd[i], &ia);
}

/* INIT (pkey_index 0, port 1, @p qkey), RTR, RTS from @p psn; 0 or an errno */
static int
ud_up(struct pv_qp *qp, uint32_t qkey, uint32_t psn)
{
	struct pv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = qkey;
	ret = pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTR;
	ret = pv_modify_qp(qp, &a, PV_QP_STATE);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTS;
	a.sq_psn = psn;
	return pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_SQ_PSN);
}

/* device @p i's GSI QP created and up, sending from PSN 0x100 * (i + 1) */
static int
gsi_bring_up(int i)
{
	gsi[i] = gsi_create(i);
	if (gsi[i] == NULL)
		return errno;
	psn_next[i] = 0x100 * (i + 1);
	return ud_up(gsi[i], GSI_QKEY, psn_next[i]);
}

/* an AH on device @p i to GID @p gidx of device @p j, the neighbour resolved */
static struct pv_ah *
ah_to(int i, int j, uint8_t gidx)
{
	struct pv_ah_attr a;
	struct pv_ah *ah;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.sgid_index = gidx;
	a.grh.hop_limit = 64;
	if (pv_query_gid(ctx[j], 1, gidx, &a.grh.dgid) != 0)
		return NULL;
	ah = pv_create_ah(pd[i], &a);
	/* create_ah does not wait for ARP / NDP: let both devices answer it */
	ut_spin(30);
	return ah;
}

static void
mad_fill(uint8_t *p, uint32_t seed)
{
	uint32_t k;

	ut_fill(p, MAD_LEN, seed);
	/* the common MAD header of a CM MAD (base version 1, class 7, v2) */
	p[0] = 1;
	p[1] = 7;
	p[2] = 2;
	for (k = 0; k < 4; k++)
		p[8 + k] = (uint8_t)(seed >> (8 * k));
}

static int
post_recv_slot(struct pv_qp *qp, int i, unsigned int k, uint64_t id)
{
	memset(recv_slot(i, k), 0xee, SLOT);
	return ut_post_recv1(qp, id, recv_slot(i, k), RECV_LEN, buf[i]->mr->lkey);
}

static int
post_mad(struct pv_qp *qp, int i, unsigned int k, struct pv_ah *ah, uint32_t rqpn,
	 uint32_t qkey, uint64_t id)
{
	struct pv_sge sge = {
		.addr = (uintptr_t)send_slot(i, k),
		.length = MAD_LEN,
		.lkey = buf[i]->mr->lkey,
	};
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = qkey;
	return pv_post_send(qp, &wr, &bad);
}

/*
 * The frame device @p i just sent, still on the ring to its peer: dequeued,
 * copied into @p f, and put back (app mode: nobody else reads the ring).
 * @return its length, 0 when the ring was empty
 */
static uint32_t
wire_peek(int i, uint8_t *f, uint32_t max)
{
	struct rte_mbuf *m;
	uint32_t len;

	if (rte_ring_dequeue(wire[i], (void **)&m) != 0)
		return 0;
	len = RTE_MIN(rte_pktmbuf_data_len(m), max);
	memcpy(f, rte_pktmbuf_mtod(m, const uint8_t *), len);
	CU_ASSERT_EQUAL(rte_ring_enqueue(wire[i], m), 0);
	return len;
}

/* the same, with the frame's BTH P_Key changed (and the ICRC recomputed) */
static int
wire_pkey_set(int i, uint16_t pkey)
{
	struct sroce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t *f;

	if (rte_ring_dequeue(wire[i], (void **)&m) != 0)
		return -1;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	if (pv_sroce_pkt_parse(f, rte_pktmbuf_data_len(m), 1, &pkt) != 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	f[pkt.bth_off + 2] = pkey >> 8;
	f[pkt.bth_off + 3] = pkey & 0xff;
	pv_sroce_icrc_set(f, pkt.frame_len);
	return rte_ring_enqueue(wire[i], m) == 0 ? 0 : -1;
}

/* what a MAD from QP1 looks like on the wire (IPv4 or IPv6) */
static void
check_gsi_frame(const uint8_t *f, uint32_t len, int ip6, uint32_t psn)
{
	struct sroce_pkt pkt;
	uint8_t copy[2048];

	CU_ASSERT_FATAL(len > 0 && len <= sizeof(copy));
	memcpy(copy, f, len);
	/* softroce's ICRC and IPv4 checksum must be valid */
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(copy, len, 1, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.ip_ver, ip6 ? 6 : 4);
	CU_ASSERT_EQUAL(pkt.ttl, 64);
	CU_ASSERT_EQUAL(pkt.sport, GSI_SPORT);
	CU_ASSERT_EQUAL(pkt.dport, 4791);
	CU_ASSERT_EQUAL(pkt.opcode, SROCE_OP_UD_SEND_ONLY);
	CU_ASSERT_EQUAL(pkt.se, 0);
	CU_ASSERT_EQUAL(pkt.pad, 0);
	CU_ASSERT_EQUAL(pkt.pkey, 0xffff);
	CU_ASSERT_EQUAL(pkt.dqpn, 1);
	CU_ASSERT_EQUAL(pkt.ackreq, 1);		/* as rxe sends QP1's packets */
	CU_ASSERT_EQUAL(pkt.psn, psn);
	CU_ASSERT_EQUAL(pkt.qkey, GSI_QKEY);
	CU_ASSERT_EQUAL(pkt.sqpn, 1);
	CU_ASSERT_EQUAL(pkt.payload_len, MAD_LEN);
}

/*
 * A receive completion of a MAD from device @p from's @p src_qp, through
 * its GID @p gidx, into slot @p k of device @p to, equal to send slot
 * @p sk of @p from.
 */
static void
check_mad_recv(struct pv_wc *wc, int to, unsigned int k, int from, unsigned int sk,
	       uint32_t src_qp, uint8_t gidx)
{
	const uint8_t *r = recv_slot(to, k);
	union pv_gid sgid;
	struct pv_ah_attr aa;

	CU_ASSERT_EQUAL(wc->status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc->opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(wc->byte_len, RECV_LEN);
	CU_ASSERT_EQUAL(wc->qp_num, 1);
	CU_ASSERT_EQUAL(wc->src_qp, src_qp);
	CU_ASSERT_EQUAL(wc->wc_flags, PV_WC_GRH);
	CU_ASSERT_EQUAL(wc->pkey_index, 0);
	CU_ASSERT_EQUAL(memcmp(r + GRH_LEN, send_slot(from, sk), MAD_LEN), 0);
	CU_ASSERT_EQUAL(r[RECV_LEN], 0xee);	/* nothing past the MAD */
	/* the sender's GID, as a reply path reads it from the GRH area */
	CU_ASSERT_EQUAL_FATAL(pv_query_gid(ctx[from], 1, gidx, &sgid), 0);
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ctx[to], 1, wc, (struct pv_grh *)(uintptr_t)r, &aa), 0);
	CU_ASSERT_EQUAL(aa.is_global, 1);
	CU_ASSERT_EQUAL(memcmp(aa.grh.dgid.raw, sgid.raw, 16), 0);
	if (gidx == GID_V4) {
		/* 20 zero bytes, then the IPv4 header: its source address */
		CU_ASSERT_EQUAL(r[20], 0x45);
		CU_ASSERT_EQUAL(memcmp(r + 32, &(uint32_t){ inet_addr(ip4[from]) }, 4), 0);
	} else {
		/* the IPv6 header is the GRH: its source GID */
		CU_ASSERT_EQUAL(r[0] >> 4, 6);
		CU_ASSERT_EQUAL(memcmp(r + 8, sgid.raw, 16), 0);
	}
}

/* the next completion of @p c with opcode @p op (others of the CQ fail the test) */
static int
wait_op(struct pv_cq *c, enum pv_wc_opcode op, struct pv_wc *wc)
{
	if (ut_wait_wc(c, wc, WAIT_MS) != 1)
		return 0;
	CU_ASSERT_EQUAL(wc->opcode, op);
	CU_ASSERT_EQUAL(wc->status, PV_WC_SUCCESS);
	return wc->opcode == op;
}

/* one MAD from device @p from's GSI QP to @p to's through GID @p gidx */
static void
mad_one_way(int from, int to, struct pv_ah *ah, uint8_t gidx, unsigned int k)
{
	uint8_t f[2048];
	struct pv_wc wc;
	uint32_t len;

	mad_fill(send_slot(from, k), 0x1000 * (from + 1) + k);
	CU_ASSERT_EQUAL(post_recv_slot(gsi[to], to, k, 100 + k), 0);
	CU_ASSERT_EQUAL(post_mad(gsi[from], from, k, ah, 1, GSI_QKEY, k), 0);
	/* app mode: post_send put the frame on the wire, nobody progressed since */
	len = wire_peek(from, f, sizeof(f));
	check_gsi_frame(f, len, gidx != GID_V4, psn_next[from]);
	psn_next[from] = (psn_next[from] + 1) & 0xffffff;
	CU_ASSERT_FATAL(wait_op(cq[from], PV_WC_SEND, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, k);
	CU_ASSERT_EQUAL(wc.qp_num, 1);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[to], &wc, WAIT_MS), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 100 + k);
	check_mad_recv(&wc, to, k, from, k, 1, gidx);
}

/* MADs both ways between the GSI QPs through GID @p gidx, three each */
static void
exchange(uint8_t gidx)
{
	struct pv_ah *ah_ab = ah_to(0, 1, gidx), *ah_ba = ah_to(1, 0, gidx);
	unsigned int k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ah_ab);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah_ba);
	for (k = 0; k < 3; k++) {
		mad_one_way(0, 1, ah_ab, gidx, k);
		mad_one_way(1, 0, ah_ba, gidx, k);
	}
	CU_ASSERT_EQUAL(pv_destroy_ah(ah_ab), 0);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah_ba), 0);
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                  */
/* ---------------------------------------------------------------------- */

static void
test_gsi_create(void)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	int i;

	for (i = 0; i < 2; i++) {
		gsi[i] = gsi_create(i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(gsi[i]);
		CU_ASSERT_EQUAL(gsi[i]->qp_num, 1);
		CU_ASSERT_EQUAL(gsi[i]->qp_type, PV_QPT_UD);
		CU_ASSERT_EQUAL(gsi[i]->state, PV_QPS_RESET);
		CU_ASSERT_PTR_EQUAL(gsi[i]->pd, pd[i]);
		CU_ASSERT(gsi[i]->cap.max_send_wr >= DEPTH);
		/* one per device */
		errno = 0;
		CU_ASSERT_PTR_NULL(gsi_create(i));
		CU_ASSERT_EQUAL(errno, EBUSY);
		psn_next[i] = 0x100 * (i + 1);
		CU_ASSERT_EQUAL(ud_up(gsi[i], GSI_QKEY, psn_next[i]), 0);
		CU_ASSERT_EQUAL(pv_query_qp(gsi[i], &a, PV_QP_STATE | PV_QP_QKEY, &ia), 0);
		CU_ASSERT_EQUAL(a.qp_state, PV_QPS_RTS);
		CU_ASSERT_EQUAL(a.qkey, GSI_QKEY);
		CU_ASSERT_EQUAL(ia.qp_type, PV_QPT_UD);
	}
	/* QP1's Q_Key is not the application's to change */
	memset(&a, 0, sizeof(a));
	a.qkey = UD_QKEY;
	CU_ASSERT_EQUAL(pv_modify_qp(gsi[0], &a, PV_QP_QKEY), 0);
	CU_ASSERT_EQUAL(pv_query_qp(gsi[0], &a, PV_QP_QKEY, &ia), 0);
	CU_ASSERT_EQUAL(a.qkey, GSI_QKEY);
}

static void
test_gsi_ipv4(void)
{
	exchange(GID_V4);
}

static void
test_gsi_ipv6(void)
{
	exchange(GID_V6);
	exchange(GID_LL);
}

/* to the device's own GIDs: through the loopback ring, never on the port */
static void
test_gsi_loopback(void)
{
	static const uint8_t gids[] = { GID_V4, GID_V6 };
	struct pv_sroce_stats s0, s1;
	unsigned int g;

	for (g = 0; g < RTE_DIM(gids); g++) {
		struct pv_ah *ah = ah_to(0, 0, gids[g]);
		struct pv_wc wc;
		unsigned int k = 5 + g;

		CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
		pv_sroce_stats_get(ctx[0], &s0);
		mad_fill(send_slot(0, k), 0x5000 + g);
		CU_ASSERT_EQUAL(post_recv_slot(gsi[0], 0, k, 200 + k), 0);
		CU_ASSERT_EQUAL(post_mad(gsi[0], 0, k, ah, 1, GSI_QKEY, k), 0);
		CU_ASSERT_FATAL(wait_op(cq[0], PV_WC_SEND, &wc));
		CU_ASSERT_FATAL(wait_op(cq[0], PV_WC_RECV, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 200 + k);
		check_mad_recv(&wc, 0, k, 0, k, 1, gids[g]);
		psn_next[0] = (psn_next[0] + 1) & 0xffffff;
		pv_sroce_stats_get(ctx[0], &s1);
		CU_ASSERT_EQUAL(s1.tx_pkts, s0.tx_pkts);
		CU_ASSERT_EQUAL(s1.lo_pkts, s0.lo_pkts + 1);
		CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
	}
}

/* B's counters: softroce's and the port's */
static void
b_counters(struct pv_sroce_stats *s, struct pv_port_attr *p)
{
	pv_sroce_stats_get(ctx[1], s);
	CU_ASSERT_EQUAL(pv_query_port(ctx[1], 1, p), 0);
}

/* @p n sends of A complete; B receives nothing */
static void
sends_dropped(int n)
{
	struct pv_wc wc;

	while (n-- > 0)
		CU_ASSERT(wait_op(cq[0], PV_WC_SEND, &wc));
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 100), 0);
}

/* B's QP1 takes the GSI Q_Key and the default partition only */
static void
test_gsi_keys(void)
{
	struct pv_qp_init_attr ia;
	struct pv_sroce_stats s0, s1;
	struct pv_port_attr p0, p1;
	struct pv_qp *ud, *ud_gsi_key;
	struct pv_ah *ah = ah_to(0, 1, GID_V4);
	struct pv_wc wc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	ud_init_attr(0, &ia);
	ud = pv_create_qp(pd[0], &ia);
	ud_gsi_key = pv_create_qp(pd[0], &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ud);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ud_gsi_key);
	CU_ASSERT_NOT_EQUAL(ud->qp_num, 1);
	CU_ASSERT_EQUAL(ud_up(ud, UD_QKEY, 0), 0);
	CU_ASSERT_EQUAL(ud_up(ud_gsi_key, GSI_QKEY, 0), 0);

	b_counters(&s0, &p0);
	CU_ASSERT_EQUAL(post_recv_slot(gsi[1], 1, 8, 300), 0);
	mad_fill(send_slot(0, 8), 0x8000);
	/* another Q_Key, given or the sender's own (high bit): dropped */
	CU_ASSERT_EQUAL(post_mad(ud, 0, 8, ah, 1, 0x12345678u, 1), 0);
	CU_ASSERT_EQUAL(post_mad(ud, 0, 8, ah, 1, GSI_QKEY, 2), 0);
	sends_dropped(2);
	b_counters(&s1, &p1);
	CU_ASSERT_EQUAL(s1.ud_qkey_drops, s0.ud_qkey_drops + 2);
	CU_ASSERT_EQUAL(p1.qkey_viol_cntr, p0.qkey_viol_cntr + 2);
	/* a P_Key of another partition: dropped (bad_pkey_cntr) */
	CU_ASSERT_EQUAL(post_mad(ud_gsi_key, 0, 8, ah, 1, GSI_QKEY, 3), 0);
	CU_ASSERT_EQUAL(wire_pkey_set(0, 0x8001), 0);
	sends_dropped(1);
	b_counters(&s1, &p1);
	CU_ASSERT_EQUAL(s1.rx_drop_pkey, s0.rx_drop_pkey + 1);
	CU_ASSERT_EQUAL(p1.bad_pkey_cntr, p0.bad_pkey_cntr + 1);

	/* the GSI Q_Key from any UD QP: received, src_qp from the DETH */
	CU_ASSERT_EQUAL(post_mad(ud_gsi_key, 0, 8, ah, 1, GSI_QKEY, 4), 0);
	CU_ASSERT(wait_op(cq[0], PV_WC_SEND, &wc));
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, WAIT_MS), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 300);
	check_mad_recv(&wc, 1, 8, 0, 8, ud_gsi_key->qp_num, GID_V4);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.ud_qkey_drops, s0.ud_qkey_drops + 2);

	CU_ASSERT_EQUAL(pv_destroy_qp(ud), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(ud_gsi_key), 0);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
}

/* no GSI QP on B: counted in rx_drop_gsi; a new GSI QP takes the freed slot */
static void
test_gsi_absent(void)
{
	struct pv_sroce_stats s0, s1;
	struct pv_ah *ah = ah_to(0, 1, GID_V4);
	struct pv_wc wc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	CU_ASSERT_EQUAL(pv_destroy_qp(gsi[1]), 0);
	gsi[1] = NULL;
	pv_sroce_stats_get(ctx[1], &s0);
	mad_fill(send_slot(0, 9), 0x9000);
	CU_ASSERT_EQUAL(post_mad(gsi[0], 0, 9, ah, 1, GSI_QKEY, 9), 0);
	psn_next[0] = (psn_next[0] + 1) & 0xffffff;
	CU_ASSERT(wait_op(cq[0], PV_WC_SEND, &wc));
	ut_spin(20);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.rx_drop_gsi, s0.rx_drop_gsi + 1);
	CU_ASSERT_EQUAL(s1.rx_drop_qpn, s0.rx_drop_qpn);
	CU_ASSERT_EQUAL(s1.rx_pkts, s0.rx_pkts);

	/* the slot is free again: QP 1 once more, and MADs flow */
	CU_ASSERT_EQUAL_FATAL(gsi_bring_up(1), 0);
	CU_ASSERT_EQUAL(gsi[1]->qp_num, 1);
	mad_one_way(0, 1, ah, GID_V4, 10);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
	ut_spin(5);
	CU_ASSERT_EQUAL(ut_wait_wc(cq[0], &wc, 1), 0);
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 1), 0);
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	union pv_gid gid;
	struct pv_context *t;
	struct pv_pd *tp;
	struct pv_cq *tc;
	int i;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	/* ctx[0] is A (10.0.9.1): the probe keeps the order of --pv-dev */
	if (pv_query_gid(ctx[0], 1, GID_V4, &gid) != 0)
		return -1;
	if (memcmp(&gid.raw[12], &(uint32_t){ inet_addr(ip4[0]) }, 4) != 0) {
		t = ctx[0], ctx[0] = ctx[1], ctx[1] = t;
		tp = pd[0], pd[0] = pd[1], pd[1] = tp;
		tc = cq[0], cq[0] = cq[1], cq[1] = tc;
	}
	for (i = 0; i < 2; i++) {
		buf[i] = ut_buf_alloc(pd[i], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
		if (buf[i] == NULL)
			return -1;
	}
	/* ut_ring_ports_crossed(): A sends on "gsi_ab", B on "gsi_ba" */
	wire[0] = rte_ring_lookup("gsi_ab");
	wire[1] = rte_ring_lookup("gsi_ba");
	return wire[0] != NULL && wire[1] != NULL ? 0 : -1;
}

static int
suite_clean(void)
{
	size_t bad = 0;
	int i;

	for (i = 0; i < 2; i++) {
		if (gsi[i] != NULL && pv_destroy_qp(gsi[i]) != 0)
			bad++;
		bad += ut_buf_free(buf[i]);
	}
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_gsi_cases[] = {
	{ "create", test_gsi_create },
	{ "mads_ipv4", test_gsi_ipv4 },
	{ "mads_ipv6_and_link_local", test_gsi_ipv6 },
	{ "loopback", test_gsi_loopback },
	{ "qkey_pkey", test_gsi_keys },
	{ "absent_and_slot_freed", test_gsi_absent },
	{ NULL, NULL },
};

static const struct ut_suite sroce_gsi_suite = {
	.name = "sroce_gsi",
	.cases = sroce_gsi_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_gsi", 256, "gsi", 4096,
				"ip=10.0.9.1,ip6=2001:db8:9::1,progress=app",
				"ip=10.0.9.2,ip6=2001:db8:9::2,progress=app");
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_gsi_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed, or a QP did not go */
	pv_cleanup();
	return fails != 0;
}

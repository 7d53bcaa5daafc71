/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Loopback: QPs connected to QPs of the same softroce device (dgid = one of
 * its own GIDs: IPv4-mapped, IPv6 link-local, an ip6= address), as rxe
 * allows. RC SEND, RDMA WRITE and READ, UC SEND and WRITE, UD SEND with its
 * GRH; data compared byte for byte; a bad rkey gets its NAK; no frame
 * reaches the port (tx_pkts unchanged) and every one goes through the
 * loopback ring (lo_pkts).
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "pv_app.h"
#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_common.h"
#include "ut_sroce.h"

#define DEPTH	64
#define BUFSZ	(256 * 1024)
#define WAIT_MS	5000

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static struct ut_buf *sb, *rb;

struct lo_pair {
	struct pv_qp *qa, *qb;
};

static struct pv_qp *
qp_create(enum pv_qp_type type)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq[0];
	ia.recv_cq = cq[0];
	ia.qp_type = type;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return pv_create_qp(pd[0], &ia);
}

/* two QPs of device 0 connected to each other through GID @p gidx */
static int
pair_connect(struct lo_pair *p, enum pv_qp_type type, uint8_t gidx)
{
	struct pv_app_qp_peer pa = { 0 }, pb = { 0 };
	struct pv_app_qp_opts o;
	int ret;

	p->qa = qp_create(type);
	p->qb = qp_create(type);
	if (p->qa == NULL || p->qb == NULL)
		return ENOMEM;
	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_loopback";
	o.sgid_index = gidx;
	o.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	o.timeout = 10;
	o.retry_cnt = 2;
	pa.qpn = p->qa->qp_num;
	pb.qpn = p->qb->qp_num;
	if (pv_query_gid(ctx[0], 1, gidx, &pa.gid) != 0)
		return EINVAL;
	pb.gid = pa.gid;
	if (type == PV_QPT_UD) {
		/* UD: no peer in the QP; the AH carries it */
		pa.gid = (union pv_gid){ { 0 } };
		pb.gid = pa.gid;
	}
	ret = pv_app_qp_connect(p->qa, &o, &pb);
	ret = ret ?: pv_app_qp_connect(p->qb, &o, &pa);
	return -ret;
}

static void
pair_destroy(struct lo_pair *p)
{
	ut_cq_drain(cq, 1, 3);
	if (p->qa != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qa), 0);
	if (p->qb != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qb), 0);
}

static void
post_recv(struct pv_qp *qp, uint64_t id, uint8_t *buf, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)buf, len, rb->mr->lkey };
	struct pv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(pv_post_recv(qp, &wr, &bad), 0);
}

static int
post(struct pv_qp *qp, enum pv_wr_opcode op, uint64_t id, uint8_t *local, uint32_t lkey,
     uint32_t len, uint8_t *remote, uint32_t rkey, struct pv_ah *ah, uint32_t dqpn)
{
	struct pv_sge sge = { (uintptr_t)local, len, lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)remote;
	wr.wr.rdma.rkey = rkey;
	if (ah != NULL) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = dqpn;
		wr.wr.ud.remote_qkey = 0x11111111;
	}
	return pv_post_send(qp, &wr, &bad);
}

/* the completion of @p id (others are skipped, at most 4); its status */
static int
wait_id(uint64_t id, struct pv_wc *wc_p)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (!ut_wait_wc(cq[0], wc_p, WAIT_MS))
			return -1;
		if (wc_p->wr_id == id)
			return wc_p->status;
	}
	return -1;
}

/*
 * A send (@p sid) and its receive (@p rid) on the one CQ, in either order
 * (the receive side may complete first): both statuses must be SUCCESS;
 * the receive's completion in @p wc_p. @return 0 or -1
 */
static int
wait_send_recv(uint64_t sid, uint64_t rid, struct pv_wc *wc_p)
{
	struct pv_wc wc;
	int seen = 0, i;

	for (i = 0; i < 6 && seen != 3; i++) {
		if (!ut_wait_wc(cq[0], &wc, WAIT_MS) || wc.status != PV_WC_SUCCESS)
			return -1;
		if (wc.wr_id == sid)
			seen |= 1;
		if (wc.wr_id == rid) {
			seen |= 2;
			*wc_p = wc;
		}
	}
	return seen == 3 ? 0 : -1;
}

static void
fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void
stats(struct pv_sroce_stats *s)
{
	CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[0], s), 0);
}

/* RC SEND, WRITE, READ through GID @p gidx; nothing on the port */
static void
rc_one(uint8_t gidx)
{
	struct pv_sroce_stats s0, s1;
	struct lo_pair p = { 0 };
	struct pv_wc wc;
	const uint32_t n_send = 5000, n_write = 70000, n_read = 9000;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC, gidx), 0);
	stats(&s0);
	memset(rb->addr, 0, BUFSZ);
	fill(sb->addr, BUFSZ, gidx + 1);
	post_recv(p.qb, 1, rb->addr, n_send);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_SEND, 2, sb->addr, sb->mr->lkey, n_send, NULL, 0,
			     NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_send_recv(2, 1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, n_send);
	CU_ASSERT_EQUAL(memcmp(rb->addr, sb->addr, n_send), 0);
	/* WRITE from A into B's buffer */
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_RDMA_WRITE, 3, sb->addr + 7, sb->mr->lkey, n_write,
			     rb->addr + 100, rb->mr->rkey, NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_id(3, &wc), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rb->addr + 100, sb->addr + 7, n_write), 0);
	/* READ by B of A's source buffer */
	CU_ASSERT_EQUAL(post(p.qb, PV_WR_RDMA_READ, 4, rb->addr + 100000, rb->mr->lkey, n_read,
			     sb->addr + 3, sb->mr->rkey, NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_id(4, &wc), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rb->addr + 100000, sb->addr + 3, n_read), 0);
	stats(&s1);
	CU_ASSERT_EQUAL(s1.tx_pkts, s0.tx_pkts);
	CU_ASSERT(s1.lo_pkts - s0.lo_pkts >= (n_send + n_write + n_read) / 1024);
	CU_ASSERT_EQUAL(s1.rx_drop_icrc + s1.rx_drop_hdr + s1.rx_drop_other,
			s0.rx_drop_icrc + s0.rx_drop_hdr + s0.rx_drop_other);
	pair_destroy(&p);
}

static void
test_rc_ipv4(void)
{
	rc_one(1);
}

static void
test_rc_ipv6_link_local(void)
{
	rc_one(0);
}

static void
test_rc_ipv6_global(void)
{
	rc_one(2);
}

/* a WRITE with a bad rkey: NAK (remote access error) to the requester */
static void
test_rc_access_error(void)
{
	struct lo_pair p = { 0 };
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC, 0), 0);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_RDMA_WRITE, 9, sb->addr, sb->mr->lkey, 64, rb->addr,
			     rb->mr->rkey ^ 0x80, NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_id(9, &wc), PV_WC_REM_ACCESS_ERR);
	/* a READ beyond the MR */
	pair_destroy(&p);
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_RC, 1), 0);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_RDMA_READ, 10, sb->addr, sb->mr->lkey, 64,
			     rb->addr + BUFSZ - 32, rb->mr->rkey, NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_id(10, &wc), PV_WC_REM_ACCESS_ERR);
	pair_destroy(&p);
}

static void
test_uc_ipv6(void)
{
	struct lo_pair p = { 0 };
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_UC, 0), 0);
	memset(rb->addr, 0, BUFSZ);
	fill(sb->addr, BUFSZ, 11);
	post_recv(p.qb, 1, rb->addr, 3000);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_SEND, 2, sb->addr, sb->mr->lkey, 3000, NULL, 0, NULL,
			     0), 0);
	CU_ASSERT_EQUAL(wait_send_recv(2, 1, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(rb->addr, sb->addr, 3000), 0);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_RDMA_WRITE, 3, sb->addr + 5, sb->mr->lkey, 20000,
			     rb->addr + 4096, rb->mr->rkey, NULL, 0), 0);
	CU_ASSERT_EQUAL(wait_id(3, &wc), PV_WC_SUCCESS);
	ut_spin(20);
	CU_ASSERT_EQUAL(memcmp(rb->addr + 4096, sb->addr + 5, 20000), 0);
	pair_destroy(&p);
}

/* UD to our own GID @p gidx: the GRH holds the IP header as received */
static void
ud_one(uint8_t gidx)
{
	struct lo_pair p = { 0 };
	struct pv_ah_attr aa, back;
	union pv_gid me;
	struct pv_ah *ah;
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, PV_QPT_UD, gidx), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, gidx, &me), 0);
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.dgid = me;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 1;
	ah = pv_create_ah(pd[0], &aa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	memset(rb->addr, 0xee, 1100);
	fill(sb->addr, 1024, 5);
	post_recv(p.qb, 1, rb->addr, 40 + 1024);
	CU_ASSERT_EQUAL(post(p.qa, PV_WR_SEND, 2, sb->addr, sb->mr->lkey, 1024, NULL, 0, ah,
			     p.qb->qp_num), 0);
	CU_ASSERT_EQUAL(wait_send_recv(2, 1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, 40 + 1024);
	CU_ASSERT(wc.wc_flags & PV_WC_GRH);
	CU_ASSERT_EQUAL(wc.src_qp, p.qa->qp_num);
	CU_ASSERT_EQUAL(memcmp(rb->addr + 40, sb->addr, 1024), 0);
	if (gidx != 1) {
		/* IPv6: the real IPv6 header, source and destination our GID */
		CU_ASSERT_EQUAL(rb->addr[0] >> 4, 6);
		CU_ASSERT_EQUAL(memcmp(rb->addr + 8, me.raw, 16), 0);
		CU_ASSERT_EQUAL(memcmp(rb->addr + 24, me.raw, 16), 0);
	} else {
		CU_ASSERT_EQUAL(rb->addr[20], 0x45);
	}
	/* an AH back to the sender, from the completion and its GRH */
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ctx[0], 1, &wc, (struct pv_grh *)rb->addr, &back), 0);
	CU_ASSERT_EQUAL(memcmp(back.grh.dgid.raw, me.raw, 16), 0);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
	pair_destroy(&p);
}

static void
test_ud_ipv4(void)
{
	ud_one(1);
}

static void
test_ud_ipv6(void)
{
	ud_one(0);
}

/* the dgid family must match the sgid's: EINVAL */
static void
test_family_mismatch(void)
{
	struct pv_qp *qp = qp_create(PV_QPT_RC);
	struct pv_app_qp_opts o;
	struct pv_app_qp_peer peer = { 0 };
	struct pv_ah_attr aa;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	pv_app_qp_opts_init(&o);
	o.sgid_index = 0;
	peer.qpn = qp->qp_num;
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 1, &peer.gid), 0);
	CU_ASSERT_EQUAL(pv_app_qp_modify(qp, PV_QPS_INIT, &o, NULL), 0);
	CU_ASSERT_EQUAL(pv_app_qp_modify(qp, PV_QPS_RTR, &o, &peer), -EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.sgid_index = 1;
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 0, &aa.grh.dgid), 0);
	CU_ASSERT_PTR_NULL(pv_create_ah(pd[0], &aa));
}

static const struct ut_case loopback_cases[] = {
	{ "rc_ipv4", test_rc_ipv4, NULL },
	{ "rc_ipv6_link_local", test_rc_ipv6_link_local, NULL },
	{ "rc_ipv6_global", test_rc_ipv6_global, NULL },
	{ "rc_access_error", test_rc_access_error, NULL },
	{ "uc_ipv6", test_uc_ipv6, NULL },
	{ "ud_ipv4", test_ud_ipv4, NULL },
	{ "ud_ipv6", test_ud_ipv6, NULL },
	{ "family_mismatch", test_family_mismatch, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite loopback_suite = {
	.name = "sroce_loopback",
	.cases = loopback_cases,
};

int
main(void)
{
	size_t bad;
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_loopback", 256, "lo", 4096,
				"ip=10.0.7.1,ip6=2001:db8:7::1", "ip=10.0.7.2");
	if (ret != 0)
		return ret;
	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return 1;
	sb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ, UT_CANARY);
	rb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			  PV_ACCESS_REMOTE_READ, UT_CANARY);
	if (sb == NULL || rb == NULL)
		return 1;
	fails = ut_cunit_run_one(&loopback_suite);
	bad = ut_buf_free(sb) + ut_buf_free(rb);
	ut_devs_close(ctx, pd, cq);
	pv_cleanup();
	return fails != 0 || bad != 0;
}

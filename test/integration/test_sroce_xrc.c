/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce XRC (issue 10), in one process: two devices on crossed net_ring
 * ports driven from one thread. Device A (10.0.4.1) has the XRC INI QP,
 * device B (10.0.4.2) the XRC domain, two XRC SRQs on one CQ and the TGT QP
 * (rdma-core's xsrq_pingpong shape: one TGT QP serves every SRQ of its
 * domain, the sender picks the SRQ per work request).
 *
 * send_two_srqs: SENDs alternating between the SRQs arrive in each SRQ's
 *   own WQEs, in order, bytes compared, completions on the SRQs' CQ.
 * rdma: WRITE, READ and FETCH_ADD through the TGT QP, checked against the
 *   PD of the SRQ the XRCETH names (an MR of another PD is refused).
 * bad_srqn: a request naming no SRQ, or an SRQ of another domain, is NAKed
 *   (REM_INV_REQ_ERR at A), counted in xrc_srq_drops.
 * errors: every errno of pv_open_xrcd, pv_close_xrcd, pv_create_srq_ex,
 *   pv_get_srq_num, pv_create_qp_ex for XRC, posting on the wrong side.
 * Then B's capture (pcap=) decoded by pv-roce-decode and tshark.
 *
 * usage: test_sroce_xrc [PV_ROCE_DECODE]
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_sroce.h"

#define DEPTH	32
#define BUFSZ	(64u * 1024)
#define MSG	3000u		/* three packets at MTU 1024 */
#define TMO	3000

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static struct ut_buf *sb, *rb;
static struct pv_xrcd *xrcd;
static struct pv_srq *srq[2];
static uint32_t srqn[2];

static struct pv_srq *
xsrq_create(struct pv_xrcd *x, struct pv_cq *c)
{
	struct pv_srq_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = DEPTH;
	a.attr.max_sge = 1;
	a.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ |
		      PV_SRQ_INIT_ATTR_PD;
	a.srq_type = PV_SRQT_XRC;
	a.xrcd = x;
	a.cq = c;
	a.pd = pd[1];
	return pv_create_srq_ex(ctx[1], &a);
}

static struct pv_qp *
ini_create(void)
{
	struct pv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = PV_QPT_XRC_SEND;
	a.send_cq = cq[0];
	a.cap.max_send_wr = DEPTH;
	a.cap.max_send_sge = 1;
	a.comp_mask = PV_QP_INIT_ATTR_PD;
	a.pd = pd[0];
	return pv_create_qp_ex(ctx[0], &a);
}

static struct pv_qp *
tgt_create(struct pv_xrcd *x)
{
	struct pv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = PV_QPT_XRC_RECV;
	a.comp_mask = PV_QP_INIT_ATTR_XRCD;
	a.xrcd = x;
	return pv_create_qp_ex(ctx[1], &a);
}

/* INIT, RTR, RTS of @p qp towards @p dqpn on device @p peer (as xsrq_pingpong) */
static int
xrc_up(struct pv_qp *qp, int self, uint32_t dqpn)
{
	struct pv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			    PV_ACCESS_REMOTE_ATOMIC;
	ret = pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
			   PV_QP_ACCESS_FLAGS);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTR;
	a.path_mtu = PV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	pv_query_gid(ctx[1 - self], 1, 1, &a.ah_attr.grh.dgid);
	ret = ut_modify_qp_progress(qp, &a, PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU |
				    PV_QP_DEST_QPN | PV_QP_RQ_PSN |
				    (qp->qp_type == PV_QPT_XRC_RECV ?
				     PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER : 0),
				    ctx[1 - self]);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 10;
	a.retry_cnt = 1;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_SQ_PSN | PV_QP_TIMEOUT |
			    (qp->qp_type == PV_QPT_XRC_SEND ?
			     PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC : 0));
}

struct xpair {
	struct pv_qp *ini, *tgt;
};

static int
xpair_connect(struct xpair *p, struct pv_xrcd *x)
{
	p->ini = ini_create();
	p->tgt = tgt_create(x);
	if (p->ini == NULL || p->tgt == NULL)
		return ENOMEM;
	return xrc_up(p->ini, 0, p->tgt->qp_num) ?: xrc_up(p->tgt, 1, p->ini->qp_num);
}

static void
xpair_destroy(struct xpair *p)
{
	ut_cq_drain(cq, 2, 3);
	if (p->ini != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->ini), 0);
	if (p->tgt != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->tgt), 0);
	p->ini = p->tgt = NULL;
}

static int
post_ini(struct pv_qp *ini, enum pv_wr_opcode op, uint32_t remote_srqn, uint64_t wr_id,
	 uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct pv_sge sge = { (uintptr_t)sb->addr + off, len, sb->mr->lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.qp_type.xrc.remote_srqn = remote_srqn;
	if (op == PV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return pv_post_send(ini, &wr, &bad);
}

static int
srq_post(struct pv_srq *s, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)rb->addr + off, len, rb->mr->lkey };
	struct pv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return pv_post_srq_recv(s, &wr, &bad);
}

static void
expect_wc(struct pv_cq *c, enum pv_wc_status st, struct pv_wc *out)
{
	struct pv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_FATAL(ut_wait_wc(c, &wc, TMO) == 1);
	if (wc.status != st)
		fprintf(stderr, "wc: status %s, want %s\n", pv_wc_status_str(wc.status),
			pv_wc_status_str(st));
	CU_ASSERT_EQUAL(wc.status, st);
	if (out != NULL)
		*out = wc;
}

static void
test_xrc_send_two_srqs(void)
{
	struct xpair p = { 0 };
	struct pv_wc wc;
	unsigned int i;

	CU_ASSERT_FATAL(xpair_connect(&p, xrcd) == 0);
	/* SRQ 0 receives into the first half of rb, SRQ 1 into the second */
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(srq_post(srq[0], 100 + i, i * 4096, 4096), 0);
		CU_ASSERT_EQUAL(srq_post(srq[1], 200 + i, BUFSZ / 2 + i * 4096, 4096), 0);
	}
	for (i = 0; i < MSG * 8; i++)
		sb->addr[i] = (uint8_t)(i * 13 + 1);
	memset(rb->addr, 0, BUFSZ);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(post_ini(p.ini, i == 7 ? PV_WR_SEND_WITH_IMM : PV_WR_SEND,
					 srqn[i & 1], i, i * MSG, MSG, 0, 0), 0);
	for (i = 0; i < 8; i++) {
		expect_wc(cq[0], PV_WC_SUCCESS, &wc);
		CU_ASSERT_EQUAL(wc.wr_id, i);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_SEND);
	}
	for (i = 0; i < 8; i++) {
		unsigned int n = i / 2, s = i & 1;
		uint32_t off = s ? BUFSZ / 2 + n * 4096 : n * 4096;

		expect_wc(cq[1], PV_WC_SUCCESS, &wc);
		CU_ASSERT_EQUAL(wc.wr_id, (s ? 200u : 100u) + n);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
		CU_ASSERT_EQUAL(wc.byte_len, MSG);
		CU_ASSERT_EQUAL(wc.qp_num, p.tgt->qp_num);
		CU_ASSERT_EQUAL(!!(wc.wc_flags & PV_WC_WITH_IMM), i == 7);
		CU_ASSERT_EQUAL(memcmp(rb->addr + off, sb->addr + i * MSG, MSG), 0);
	}
	xpair_destroy(&p);
}

static void
test_xrc_rdma(void)
{
	struct xpair p = { 0 };
	struct pv_mr *other_mr;
	struct pv_pd *other;
	uint64_t v = 37;

	CU_ASSERT_FATAL(xpair_connect(&p, xrcd) == 0);
	memset(rb->addr, 0, BUFSZ);
	memset(sb->addr, 0x5a, 8192);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_RDMA_WRITE, srqn[0], 1, 0, 5000,
				 (uintptr_t)rb->addr + 100, rb->mr->rkey), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, NULL);
	CU_ASSERT_EQUAL(memcmp(rb->addr + 100, sb->addr, 5000), 0);
	CU_ASSERT_EQUAL(rb->addr[99], 0);
	CU_ASSERT_EQUAL(rb->addr[5100], 0);
	memset(sb->addr, 0, 8192);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_RDMA_READ, srqn[1], 2, 0, 5000,
				 (uintptr_t)rb->addr + 100, rb->mr->rkey), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, NULL);
	CU_ASSERT_EQUAL(sb->addr[0], 0x5a);
	CU_ASSERT_EQUAL(sb->addr[4999], 0x5a);
	memcpy(rb->addr + 64, &v, 8);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_ATOMIC_FETCH_AND_ADD, srqn[0], 3, 0, 8,
				 (uintptr_t)rb->addr + 64, rb->mr->rkey), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, NULL);
	memcpy(&v, sb->addr, 8);
	CU_ASSERT_EQUAL(v, 37);
	memcpy(&v, rb->addr + 64, 8);
	CU_ASSERT_EQUAL(v, 42);

	/* an MR of another PD than the SRQ's: remote access error */
	other = pv_alloc_pd(ctx[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	other_mr = pv_reg_mr(other, rb->addr, 4096, PV_ACCESS_LOCAL_WRITE |
			     PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other_mr);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_RDMA_WRITE, srqn[0], 4, 0, 8,
				 (uintptr_t)rb->addr, other_mr->rkey), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, NULL);
	xpair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dereg_mr(other_mr), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(other), 0);
}

static void
test_xrc_bad_srqn(void)
{
	struct pv_xrcd_init_attr xa = { PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS, -1,
					O_CREAT };
	struct pv_sroce_stats st0, st1;
	struct xpair p = { 0 };
	struct pv_xrcd *x2;
	struct pv_srq *s2;
	uint32_t n2;

	pv_sroce_stats_get(ctx[1], &st0);
	CU_ASSERT_FATAL(xpair_connect(&p, xrcd) == 0);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_SEND, 0xfffff, 1, 0, 16, 0, 0), 0);
	expect_wc(cq[0], PV_WC_REM_INV_REQ_ERR, NULL);
	xpair_destroy(&p);

	/* an SRQ of another domain of the same device */
	x2 = pv_open_xrcd(ctx[1], &xa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x2);
	s2 = xsrq_create(x2, cq[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	CU_ASSERT_EQUAL(pv_get_srq_num(s2, &n2), 0);
	CU_ASSERT_NOT_EQUAL(n2, srqn[0]);
	CU_ASSERT_EQUAL(srq_post(s2, 9, 0, 64), 0);
	CU_ASSERT_FATAL(xpair_connect(&p, xrcd) == 0);
	CU_ASSERT_EQUAL(post_ini(p.ini, PV_WR_SEND, n2, 1, 0, 16, 0, 0), 0);
	expect_wc(cq[0], PV_WC_REM_INV_REQ_ERR, NULL);
	xpair_destroy(&p);
	pv_sroce_stats_get(ctx[1], &st1);
	CU_ASSERT(st1.xrc_srq_drops >= st0.xrc_srq_drops + 2);
	/* the SRQ of the other domain kept its WQE: destroy flushes nothing */
	CU_ASSERT_EQUAL(pv_close_xrcd(x2), EBUSY);
	CU_ASSERT_EQUAL(pv_destroy_srq(s2), 0);
	CU_ASSERT_EQUAL(pv_close_xrcd(x2), 0);
}

static void
test_xrc_errors(void)
{
	struct pv_xrcd_init_attr xa = { PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS, -1,
					O_CREAT };
	struct pv_srq_init_attr_ex sa;
	struct pv_qp_init_attr_ex qa;
	struct pv_srq_init_attr ba;
	struct pv_send_wr swr, *sbad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_srq *basic;
	struct xpair p = { 0 };
	uint32_t n;

	errno = 0;
	CU_ASSERT_PTR_NULL(pv_open_xrcd(NULL, &xa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	xa.comp_mask = PV_XRCD_INIT_ATTR_FD;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_open_xrcd(ctx[1], &xa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	xa.comp_mask = PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = 0;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_open_xrcd(ctx[1], &xa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_close_xrcd(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_close_xrcd(xrcd), EBUSY);	/* its SRQs */

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_PD;
	sa.srq_type = PV_SRQT_XRC;
	sa.xrcd = xrcd;
	sa.pd = pd[1];
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq_ex(ctx[1], &sa));	/* no CQ */
	CU_ASSERT_EQUAL(errno, EINVAL);
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_PD;
	sa.srq_type = PV_SRQT_TM;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq_ex(ctx[1], &sa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE;			/* no PD */
	sa.srq_type = PV_SRQT_BASIC;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq_ex(ctx[1], &sa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a basic SRQ through create_srq_ex has no number */
	sa.comp_mask = PV_SRQ_INIT_ATTR_PD;
	basic = pv_create_srq_ex(ctx[1], &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(basic);
	CU_ASSERT_EQUAL(pv_get_srq_num(basic, &n), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_srq(basic), 0);
	memset(&ba, 0, sizeof(ba));
	ba.attr.max_wr = 4;
	basic = pv_create_srq(pd[1], &ba);
	CU_ASSERT_PTR_NOT_NULL_FATAL(basic);
	CU_ASSERT_EQUAL(pv_get_srq_num(basic, &n), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_srq(basic), 0);
	CU_ASSERT_EQUAL(pv_get_srq_num(srq[0], NULL), EINVAL);
	/* the CQ of an XRC SRQ is in use */
	CU_ASSERT_EQUAL(pv_destroy_cq(cq[1]), EBUSY);

	/* a TGT QP without a domain; the classic verb refuses XRC types */
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PV_QPT_XRC_RECV;
	qa.comp_mask = PV_QP_INIT_ATTR_PD;
	qa.pd = pd[1];
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_qp_ex(ctx[1], &qa));
	CU_ASSERT_NOT_EQUAL(errno, 0);

	/* nothing to post on the wrong side */
	CU_ASSERT_FATAL(xpair_connect(&p, xrcd) == 0);
	memset(&swr, 0, sizeof(swr));
	swr.opcode = PV_WR_SEND;
	CU_ASSERT_EQUAL(pv_post_send(p.tgt, &swr, &sbad), EINVAL);
	memset(&rwr, 0, sizeof(rwr));
	CU_ASSERT_EQUAL(pv_post_recv(p.tgt, &rwr, &rbad), EINVAL);
	CU_ASSERT_EQUAL(pv_post_recv(p.ini, &rwr, &rbad), EINVAL);
	CU_ASSERT_EQUAL(pv_close_xrcd(xrcd), EBUSY);	/* its TGT QP too */
	xpair_destroy(&p);
}

static int
suite_init(void)
{
	struct pv_xrcd_init_attr xa = { PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS, -1,
					O_CREAT };
	struct pv_device_attr attr;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	if (pv_query_device(ctx[1], &attr) != 0 || !(attr.device_cap_flags & PV_DEVICE_XRC))
		return -1;
	sb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	rb = ut_buf_alloc(pd[1], BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			  PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC, UT_CANARY);
	xrcd = pv_open_xrcd(ctx[1], &xa);
	if (sb == NULL || rb == NULL || xrcd == NULL)
		return -1;
	srq[0] = xsrq_create(xrcd, cq[1]);
	srq[1] = xsrq_create(xrcd, cq[1]);
	if (srq[0] == NULL || srq[1] == NULL || pv_get_srq_num(srq[0], &srqn[0]) != 0 ||
	    pv_get_srq_num(srq[1], &srqn[1]) != 0 || srqn[0] == srqn[1])
		return -1;
	return 0;
}

static int
suite_clean(void)
{
	size_t bad = ut_buf_free(sb) + ut_buf_free(rb);

	if (pv_destroy_srq(srq[0]) != 0 || pv_destroy_srq(srq[1]) != 0 ||
	    pv_close_xrcd(xrcd) != 0)
		bad++;
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_xrc_cases[] = {
	{ "send_two_srqs", test_xrc_send_two_srqs },
	{ "rdma", test_xrc_rdma },
	{ "bad_srqn", test_xrc_bad_srqn },
	{ "errors", test_xrc_errors },
	{ NULL, NULL },
};

static const struct ut_suite sroce_xrc_suite = {
	.name = "sroce_xrc",
	.cases = sroce_xrc_cases,
};

/* the number of lines of @p cmd's output that contain @p needle; -1 on error */
static int
count_lines(const char *cmd, const char *needle)
{
	char line[1024];
	int n = 0;
	FILE *f = popen(cmd, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	return pclose(f) == 0 ? n : -1;
}

/*
 * The XRC frames B captured, decoded by something else than the engine:
 * pv-roce-decode (the same parser, but every frame's ICRC recomputed and
 * the XRCETH printed) and tshark, whose InfiniBand dissector (Wireshark
 * 4.0) knows the XRC opcodes' BTH but has no XRCETH field: it must see
 * XRC opcodes (0xa0..0xb7) and find nothing malformed. @return failures.
 */
static int
capture_check(const char *decoder, const char *file)
{
	char cmd[512];
	int fails = 0, n;

	snprintf(cmd, sizeof(cmd), "'%s' '%s'", decoder, file);
	n = count_lines(cmd, "XRC ");
	printf("pv-roce-decode: %d XRC frames\n", n);
	fails += n <= 0;
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", decoder, file);
	n = count_lines(cmd, "xrceth srq 0x000");
	printf("pv-roce-decode: %d frames with an XRCETH\n", n);
	fails += n <= 0;
	if (system("command -v tshark >/dev/null 2>&1") != 0) {
		printf("tshark not installed: not checked\n");
		return fails;
	}
	snprintf(cmd, sizeof(cmd), "tshark -r '%s' --disable-protocol rpcordma -T fields "
		 "-e infiniband.bth.opcode -Y 'infiniband.bth.opcode >= 160 && "
		 "infiniband.bth.opcode <= 183' 2>/dev/null", file);
	n = count_lines(cmd, "1");
	printf("tshark: %d frames with XRC opcodes\n", n);
	fails += n <= 0;
	snprintf(cmd, sizeof(cmd), "tshark -r '%s' --disable-protocol rpcordma "
		 "-Y _ws.malformed 2>/dev/null", file);
	n = count_lines(cmd, "");
	printf("tshark: %d malformed\n", n);
	fails += n != 0;
	return fails;
}

int
main(int argc, char **argv)
{
	char args_b[256], file[160];
	int ret, fails;

	/* B captures what it sends and receives when a decoder is given */
	snprintf(file, sizeof(file), "/tmp/test_sroce_xrc-%d.pcapng", (int)getpid());
	snprintf(args_b, sizeof(args_b), "ip=10.0.4.2%s%s", argc > 1 ? ",pcap=" : "",
		 argc > 1 ? file : "");
	ret = ut_ring_pair_init("test_sroce_xrc", 256, "xrc", 4096, "ip=10.0.4.1", args_b);
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_xrc_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed */
	pv_cleanup();
	if (argc > 1) {
		fails += capture_check(argv[1], file);
		unlink(file);
	}
	return fails != 0;
}

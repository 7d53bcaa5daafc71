/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_xrc: XRC on the mlx5 data path, executed by the device model.
 * An INI QP's WQEs carry the XRC segment naming a remote XRC SRQ; the TGT
 * QP serves each request with that SRQ (of its domain only), whose CQ gets
 * the receive completion, found by the poller through the CQE's SRQN. Also
 * the extended device attributes that announce XRC and memory windows.
 */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>

#include "mlx5_priv.h"
#include "pv_verbs_ex.h"
#include "ut_mlx5.h"

struct ut_xrc {
	struct pv_xrcd *xrcd;
	struct pv_cq *srq_cq;	/* the XRC SRQ's completions */
	struct pv_cq *ini_cq;	/* the INI QP's send completions */
	struct pv_srq *srq;
	struct pv_qp *ini;
	struct pv_qp *tgt;
	uint32_t srqn;
};

static struct pv_xrcd *
ut_xrcd_open(void)
{
	struct pv_xrcd_init_attr xa = {
		.comp_mask = PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};

	return pv_open_xrcd(ut_ctx, &xa);
}

static struct pv_srq *
ut_xrc_srq(struct pv_xrcd *xrcd, struct pv_cq *cq)
{
	struct pv_srq_init_attr_ex sa;

	memset(&sa, 0, sizeof(sa));
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_PD | PV_SRQ_INIT_ATTR_XRCD |
		       PV_SRQ_INIT_ATTR_CQ;
	sa.srq_type = PV_SRQT_XRC;
	sa.pd = ut_pd;
	sa.xrcd = xrcd;
	sa.cq = cq;
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	return pv_create_srq_ex(ut_ctx, &sa);
}

/*
 * RESET -> INIT -> RTR -> RTS of an XRC QP towards @p dest (pv_app_qp
 * does RC, UC and UD): an INI QP's RTR takes UC's attributes, its RTS
 * RC's; a TGT QP's RTR takes RC's, its RTS a timeout and SQ PSN.
 */
static int
ut_xrc_connect(struct pv_qp *qp, uint32_t dest)
{
	int tgt = qp->qp_type == PV_QPT_XRC_RECV;
	struct pv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RESET;
	if (pv_modify_qp(qp, &a, PV_QP_STATE) != 0)
		return -1;
	a.qp_state = PV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	if (pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
			 PV_QP_ACCESS_FLAGS) != 0)
		return -1;
	a.qp_state = PV_QPS_RTR;
	a.path_mtu = PV_MTU_4096;
	a.dest_qp_num = dest;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.hop_limit = 64;
	if (pv_query_gid(ut_ctx, 1, 0, &a.ah_attr.grh.dgid) != 0)
		return -1;
	mask = PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN;
	if (tgt) {
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		mask |= PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER;
	}
	if (pv_modify_qp(qp, &a, mask) != 0)
		return -1;
	a.qp_state = PV_QPS_RTS;
	a.timeout = 14;
	mask = PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_SQ_PSN;
	if (!tgt) {
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		mask |= PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC;
	}
	return pv_modify_qp(qp, &a, mask) == 0 ? 0 : -1;
}

static int
ut_xrc_create(struct ut_xrc *x)
{
	struct pv_qp_init_attr_ex qa;

	memset(x, 0, sizeof(*x));
	x->xrcd = ut_xrcd_open();
	x->srq_cq = pv_create_cq(ut_ctx, 64, NULL, NULL, 0);
	x->ini_cq = pv_create_cq(ut_ctx, 64, NULL, NULL, 0);
	if (x->xrcd == NULL || x->srq_cq == NULL || x->ini_cq == NULL)
		return -1;
	x->srq = ut_xrc_srq(x->xrcd, x->srq_cq);
	if (x->srq == NULL || pv_get_srq_num(x->srq, &x->srqn) != 0)
		return -1;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PV_QPT_XRC_RECV;
	qa.comp_mask = PV_QP_INIT_ATTR_XRCD;
	qa.xrcd = x->xrcd;
	x->tgt = pv_create_qp_ex(ut_ctx, &qa);

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PV_QPT_XRC_SEND;
	qa.comp_mask = PV_QP_INIT_ATTR_PD;
	qa.pd = ut_pd;
	qa.send_cq = x->ini_cq;
	qa.cap.max_send_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_inline_data = 64;
	x->ini = pv_create_qp_ex(ut_ctx, &qa);
	if (x->tgt == NULL || x->ini == NULL)
		return -1;
	if (ut_xrc_connect(x->tgt, x->ini->qp_num) != 0 ||
	    ut_xrc_connect(x->ini, x->tgt->qp_num) != 0)
		return -1;
	return 0;
}

static void
ut_xrc_destroy(struct ut_xrc *x)
{
	if (x->ini != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(x->ini), 0);
	if (x->tgt != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(x->tgt), 0);
	if (x->srq != NULL)
		CU_ASSERT_EQUAL(pv_destroy_srq(x->srq), 0);
	if (x->srq_cq != NULL)
		pv_destroy_cq(x->srq_cq);
	if (x->ini_cq != NULL)
		pv_destroy_cq(x->ini_cq);
	if (x->xrcd != NULL)
		CU_ASSERT_EQUAL(pv_close_xrcd(x->xrcd), 0);
}

/* Post one WR on the INI QP towards @p srqn; its completion's status or -1. */
static int
ut_xrc_post(struct ut_xrc *x, struct pv_send_wr *wr, uint32_t srqn)
{
	struct pv_send_wr *bad;
	struct pv_wc wc;

	wr->send_flags |= PV_SEND_SIGNALED;
	wr->qp_type.xrc.remote_srqn = srqn;
	if (pv_post_send(x->ini, wr, &bad) != 0 || ut_poll(x->ini_cq, 1, &wc) != 1)
		return -1;
	return wc.status;
}

static int
ut_xrc_reconnect(struct ut_xrc *x)
{
	return ut_xrc_connect(x->tgt, x->ini->qp_num) == 0 &&
	       ut_xrc_connect(x->ini, x->tgt->qp_num) == 0 ? 0 : -1;
}

static void
test_xrc_send_write(void)
{
	struct pv_mr *l = ut_mr(256), *r = ut_mr(256);
	struct pv_sge sge, rsge;
	struct pv_send_wr wr, *sbad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;
	struct ut_xrc x;

	CU_ASSERT_FATAL(l != NULL && r != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_xrc_create(&x), 0);
	CU_ASSERT_EQUAL(x.tgt->qp_type, PV_QPT_XRC_RECV);
	CU_ASSERT_EQUAL(x.ini->qp_type, PV_QPT_XRC_SEND);
	ut_fill(l->addr, 256, 21);

	/* SEND with immediate: the XRC SRQ's WQE, its CQ, the TGT QP's number */
	rsge = (struct pv_sge){ (uintptr_t)r->addr, 128, r->lkey };
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0x77;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_srq_recv(x.srq, &rwr, &rbad), 0);
	sge = (struct pv_sge){ (uintptr_t)l->addr, 40, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x10;
	wr.opcode = PV_WR_SEND_WITH_IMM;
	wr.imm_data = rte_cpu_to_be_32(0xabcd);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, x.srqn), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ut_poll(x.srq_cq, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(wc.wr_id, 0x77);
	CU_ASSERT_EQUAL(wc.byte_len, 40);
	CU_ASSERT_EQUAL(wc.qp_num, x.tgt->qp_num);
	CU_ASSERT_EQUAL(wc.src_qp, x.ini->qp_num);
	CU_ASSERT(wc.wc_flags & PV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wc.imm_data, rte_cpu_to_be_32(0xabcd));
	CU_ASSERT_EQUAL(memcmp(r->addr, l->addr, 40), 0);

	/* inline SEND and RDMA WRITE through the fast path's XRC variant */
	CU_ASSERT_EQUAL_FATAL(pv_post_srq_recv(x.srq, &rwr, &rbad), 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_INLINE;
	sge.length = 12;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, x.srqn), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(ut_poll(x.srq_cq, 1, &wc), 1);
	CU_ASSERT(wc.status == PV_WC_SUCCESS && wc.byte_len == 12 && wc.wr_id == 0x77);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	sge.length = 200;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)r->addr + 32;
	wr.wr.rdma.rkey = r->rkey;
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, x.srqn), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp((uint8_t *)r->addr + 32, l->addr, 200), 0);

	/* the TGT QP posts nothing, the INI QP receives nothing */
	CU_ASSERT_EQUAL(pv_post_send(x.tgt, &wr, &sbad), EINVAL);
	CU_ASSERT_PTR_EQUAL(sbad, &wr);
	CU_ASSERT_NOT_EQUAL(pv_post_recv(x.ini, &rwr, &rbad), 0);

	ut_xrc_destroy(&x);
	ut_mr_free(l);
	ut_mr_free(r);
}

static void
test_xrc_domain(void)
{
	struct pv_mr *l = ut_mr(64);
	struct pv_xrcd *other = ut_xrcd_open();
	struct pv_cq *ocq = pv_create_cq(ut_ctx, 16, NULL, NULL, 0);
	struct pv_srq_init_attr basic = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct pv_srq *osrq, *bsrq;
	struct pv_sge sge;
	struct pv_send_wr wr;
	uint32_t osrqn, n;
	struct ut_xrc x;

	CU_ASSERT_FATAL(l != NULL && other != NULL && ocq != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_xrc_create(&x), 0);
	osrq = ut_xrc_srq(other, ocq);
	bsrq = pv_create_srq(ut_pd, &basic);
	CU_ASSERT_FATAL(osrq != NULL && bsrq != NULL);
	CU_ASSERT_EQUAL(pv_get_srq_num(osrq, &osrqn), 0);
	CU_ASSERT_NOT_EQUAL(osrqn, x.srqn);
	/* a basic SRQ has no number to give */
	CU_ASSERT_EQUAL(pv_get_srq_num(bsrq, &n), EINVAL);
	/* a domain in use does not close */
	CU_ASSERT_EQUAL(pv_close_xrcd(x.xrcd), EBUSY);

	sge = (struct pv_sge){ (uintptr_t)l->addr, 8, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)l->addr;
	wr.wr.rdma.rkey = l->rkey;
	/* an XRC SRQ of another domain, a basic SRQ's number, no SRQ at all */
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, osrqn), PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_xrc_reconnect(&x), 0);
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, pv_mlx5_srq(bsrq)->srqn),
			PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_xrc_reconnect(&x), 0);
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, 0xfffff), PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_xrc_reconnect(&x), 0);
	/* and its own domain's SRQ works */
	CU_ASSERT_EQUAL(ut_xrc_post(&x, &wr, x.srqn), PV_WC_SUCCESS);

	CU_ASSERT_EQUAL(pv_destroy_srq(osrq), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(bsrq), 0);
	pv_destroy_cq(ocq);
	CU_ASSERT_EQUAL(pv_close_xrcd(other), 0);
	ut_xrc_destroy(&x);
	ut_mr_free(l);
}

static void
test_xrc_device_ex(void)
{
	struct pv_device_attr_ex ax;

	CU_ASSERT_EQUAL_FATAL(pv_query_device_ex(ut_ctx, NULL, &ax), 0);
	CU_ASSERT(ax.orig_attr.device_cap_flags & PV_DEVICE_XRC);
	CU_ASSERT(ax.orig_attr.device_cap_flags & PV_DEVICE_MEM_WINDOW);
	CU_ASSERT(ax.orig_attr.device_cap_flags & PV_DEVICE_MEM_WINDOW_TYPE_2B);
	CU_ASSERT(ax.orig_attr.max_mw > 0);
	CU_ASSERT_EQUAL(ax.device_cap_flags_ex & 0xffffffffull,
			(uint64_t)ax.orig_attr.device_cap_flags);
	CU_ASSERT_EQUAL(ax.phys_port_cnt_ex, 1);
	/* the model has no timestamps, TSO or RSS to announce */
	CU_ASSERT_EQUAL(ax.completion_timestamp_mask, 0);
	CU_ASSERT_EQUAL(ax.tso_caps.max_tso, 0);
	CU_ASSERT_EQUAL(ax.rss_caps.supported_qpts, 0);
}

static const struct ut_case ut_mlx5_xrc_cases[] = {
	{ "xrc send, send with imm, write", test_xrc_send_write, ut_on_model },
	{ "xrc srq of the tgt qp's domain only", test_xrc_domain, ut_on_model },
	{ "query_device_ex: xrc, windows", test_xrc_device_ex, ut_on_model },
	{ NULL, NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_xrc = {
	.name = "mlx5_xrc",
	.cases = ut_mlx5_xrc_cases,
};

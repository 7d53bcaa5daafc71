/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Fixtures of the mlx5 unit tests. */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "ut_mlx5.h"

struct pv_context *ut_ctx;
struct pv_pd *ut_pd;

struct pv_mr *
ut_mr(size_t len)
{
	void *buf = aligned_alloc(64, RTE_ALIGN_CEIL(len, 64));

	if (buf == NULL)
		return NULL;
	memset(buf, 0, len);
	return pv_reg_mr(ut_pd, buf, len, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			 PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC);
}

void
ut_mr_free(struct pv_mr *mr)
{
	void *buf;

	if (mr == NULL)
		return;
	buf = mr->addr;
	pv_dereg_mr(mr);
	free(buf);
}

void
ut_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

int
ut_qp_connect(struct pv_qp *qp, uint32_t dest_qpn, uint8_t rnr_retry)
{
	struct pv_qp_attr attr;
	union pv_gid gid;

	if (pv_query_gid(qp->context, 1, 0, &gid) != 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = PV_QPS_RESET;
	if (pv_modify_qp(qp, &attr, PV_QP_STATE) != 0)
		return -1;
	attr.qp_state = PV_QPS_INIT;
	attr.port_num = 1;
	attr.pkey_index = 0;
	attr.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			       PV_ACCESS_REMOTE_ATOMIC;
	if (pv_modify_qp(qp, &attr, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
			 PV_QP_ACCESS_FLAGS) != 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = PV_QPS_RTR;
	attr.path_mtu = PV_MTU_1024;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 16;
	attr.min_rnr_timer = 1;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.grh.dgid = gid;
	attr.ah_attr.grh.hop_limit = 64;
	attr.ah_attr.port_num = 1;
	if (pv_modify_qp(qp, &attr, PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN |
			 PV_QP_RQ_PSN | PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = PV_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = rnr_retry;
	attr.max_rd_atomic = 16;
	if (pv_modify_qp(qp, &attr, PV_QP_STATE | PV_QP_SQ_PSN | PV_QP_TIMEOUT |
			 PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC) != 0)
		return -1;
	return 0;
}

int
ut_pair_reconnect(struct ut_pair *p)
{
	struct pv_wc wc[64];

	/* drop what the error left behind */
	pv_mlx5_model_drain();
	while (pv_poll_cq(p->cq_a, 64, wc) > 0)
		;
	while (pv_poll_cq(p->cq_b, 64, wc) > 0)
		;
	if (ut_qp_connect(p->a, p->b->qp_num, 7) != 0 ||
	    ut_qp_connect(p->b, p->a->qp_num, 7) != 0)
		return -1;
	return 0;
}

int
ut_pair_create(struct ut_pair *p, const struct pv_qp_cap *cap, int cqe, int sig_all,
	       int with_channel)
{
	struct pv_qp_init_attr ia;

	memset(p, 0, sizeof(*p));
	if (with_channel) {
		p->ch = pv_create_comp_channel(ut_ctx);
		if (p->ch == NULL)
			return -1;
	}
	p->cq_a = pv_create_cq(ut_ctx, cqe, NULL, p->ch, 0);
	p->cq_b = pv_create_cq(ut_ctx, cqe, NULL, p->ch, 0);
	if (p->cq_a == NULL || p->cq_b == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PV_QPT_RC;
	ia.cap = *cap;
	ia.sq_sig_all = sig_all;
	ia.send_cq = p->cq_a;
	ia.recv_cq = p->cq_a;
	p->a = pv_create_qp(ut_pd, &ia);
	ia.cap = *cap;
	ia.send_cq = p->cq_b;
	ia.recv_cq = p->cq_b;
	p->b = pv_create_qp(ut_pd, &ia);
	if (p->a == NULL || p->b == NULL)
		return -1;
	if (ut_qp_connect(p->a, p->b->qp_num, 7) != 0 ||
	    ut_qp_connect(p->b, p->a->qp_num, 7) != 0)
		return -1;
	return 0;
}

void
ut_pair_destroy(struct ut_pair *p)
{
	struct pv_wc wc[64];

	pv_mlx5_model_drain();
	if (p->a != NULL)
		pv_destroy_qp(p->a);
	if (p->b != NULL)
		pv_destroy_qp(p->b);
	if (p->cq_a != NULL) {
		while (pv_poll_cq(p->cq_a, 64, wc) > 0)
			;
		pv_destroy_cq(p->cq_a);
	}
	if (p->cq_b != NULL) {
		while (pv_poll_cq(p->cq_b, 64, wc) > 0)
			;
		pv_destroy_cq(p->cq_b);
	}
	if (p->ch != NULL)
		pv_destroy_comp_channel(p->ch);
	memset(p, 0, sizeof(*p));
}

int
ut_poll(struct pv_cq *cq, int n, struct pv_wc *wc)
{
	uint64_t deadline = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	int got = 0, idle = 0;

	/* the model: step until it has nothing left to do; a ConnectX (or
	 * the model on its own lcore): poll until a deadline */
	while (got < n && (ut_hw ? rte_get_tsc_cycles() < deadline : idle < 4)) {
		int w = ut_hw ? 0 : pv_mlx5_model_step();
		int r = pv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		idle = (w == 0 && r == 0) ? idle + 1 : 0;
	}
	return got;
}

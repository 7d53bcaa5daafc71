/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Fixtures of the mlx5 unit tests. */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "pv_app.h"
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
ut_on_model(void)
{
	return !ut_hw;
}

int
ut_qp_connect(struct pv_qp *qp, uint32_t dest_qpn, uint8_t rnr_retry)
{
	struct pv_app_qp_peer peer = { .qpn = dest_qpn };
	struct pv_qp_attr attr = { .qp_state = PV_QPS_RESET };
	struct pv_app_qp_opts o;

	/* both QPs are on this context: the peer's GID is ours */
	if (pv_query_gid(qp->context, 1, 0, &peer.gid) != 0)
		return -1;
	if (pv_modify_qp(qp, &attr, PV_QP_STATE) != 0)
		return -1;
	pv_app_qp_opts_init(&o);
	o.name = "ut_mlx5";
	o.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC;
	o.min_rnr_timer = 1;
	o.rnr_retry = rnr_retry;
	o.max_rd_atomic = 16;
	o.max_dest_rd_atomic = 16;
	return pv_app_qp_connect(qp, &o, &peer) == 0 ? 0 : -1;
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

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Shared receive queue data path. An mlx5 SRQ is not a ring: its WQEs
 * (struct mlx5_wqe_srq_next_seg, then data segments) are linked through
 * next_wqe_index, and the HCA consumes posted WQEs by following those links
 * from the one it took last. Software keeps the free WQEs as a list from
 * head (the next to post into) to tail (the last freed): posting takes the
 * head and follows its link; a receive completion names the WQE it used
 * (the CQE's wqe_counter), which goes back behind the tail. The tail is
 * never posted, so the list never runs empty and the only link software
 * rewrites (the tail's) is one the HCA is not following. The doorbell record
 * counts posted WQEs; it is written once per post list.
 */

#include <errno.h>

#include <rte_byteorder.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_io.h>
#include <rte_malloc.h>

#include "mlx5_priv.h"

static inline struct mlx5_wqe_srq_next_seg *
mlx5_srq_wqe(const struct pv_mlx5_srq *srq, uint32_t idx)
{
	return (struct mlx5_wqe_srq_next_seg *)(srq->buf + ((size_t)idx << srq->stride_shift));
}

/*
 * Post a list: per WR one SGE-count test, one test for a free WQE (head ==
 * tail: only the spare left), the data segments, and the head follows the
 * link of the WQE just filled. One barrier and one doorbell record store at
 * the end.
 */
static int
mlx5_post_srq_recv(struct pv_srq *ibsrq, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	const uint32_t tail = srq->tail;
	const uint32_t max_sge = srq->max_sge;
	uint64_t *const wrid = srq->wrid;
	uint32_t head = srq->head;
	uint16_t posted = 0;
	int ret = 0;

	for (; wr != NULL; wr = wr->next) {
		struct mlx5_wqe_srq_next_seg *next;
		struct mlx5_wqe_data_seg *dseg;
		uint32_t n = 0;
		int i;

		if (unlikely((uint32_t)wr->num_sge > max_sge)) {
			ret = EINVAL;
			break;
		}
		if (unlikely(head == tail)) {
			ret = ENOMEM;
			break;
		}
		next = mlx5_srq_wqe(srq, head);
		dseg = (struct mlx5_wqe_data_seg *)(next + 1);
		for (i = 0; i < wr->num_sge; i++) {
			const struct pv_sge *sge = &wr->sg_list[i];

			/* byte_count 0 would mean 2 GiB to the HCA */
			if (unlikely(sge->length == 0))
				continue;
			dseg[n].byte_count = rte_cpu_to_be_32(sge->length);
			dseg[n].lkey = rte_cpu_to_be_32(sge->lkey);
			dseg[n].addr = rte_cpu_to_be_64(sge->addr);
			n++;
		}
		if (n < max_sge) {
			/* an invalid lkey ends a scatter list shorter than the WQE */
			dseg[n].byte_count = 0;
			dseg[n].lkey = rte_cpu_to_be_32(MLX5_INVALID_LKEY);
			dseg[n].addr = 0;
		}
		wrid[head] = wr->wr_id;
		/* head != tail: this link was set when the WQE after it was
		 * freed (or at creation), and nothing rewrites it while posted */
		head = rte_be_to_cpu_16(next->next_wqe_index);
		posted++;
	}
	if (likely(posted != 0)) {
		srq->head = head;
		srq->counter += posted;
		/* the WQEs, and the tail links pv_mlx5_srq_recv_retire() wrote,
		 * must be in memory before the doorbell record that lets the HCA
		 * consume them */
		rte_io_wmb();
		*srq->dbrec = rte_cpu_to_be_32(srq->counter);
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	return ret;
}

uint64_t
pv_mlx5_srq_recv_retire(struct pv_mlx5_qp *qp, uint16_t wqe_counter)
{
	struct pv_mlx5_srq *srq = qp->srq;
	uint32_t idx = wqe_counter & (srq->wqe_cnt - 1);

	/* free the WQE behind the tail; the tail is not posted, so the HCA
	 * is not following this link (the next post's barrier publishes it) */
	mlx5_srq_wqe(srq, srq->tail)->next_wqe_index = rte_cpu_to_be_16((uint16_t)idx);
	srq->tail = idx;
	return srq->wrid[idx];
}


/* thread-safe mode (rdma-core's mlx5 locking): the SRQ's lock around posting */
static int
mlx5_post_srq_recv_mt(struct pv_srq *ibsrq, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	int ret;

	pv_rtc_spin_lock(&srq->lock);
	ret = mlx5_post_srq_recv(ibsrq, wr, bad_wr);
	pv_rtc_spin_unlock(&srq->lock);
	return ret;
}
int
pv_mlx5_srq_dp_init(struct pv_mlx5_srq *srq, const struct mlx5dv_srq *dv)
{
	uint32_t cnt = dv->tail + 1;

	if (dv->head != 0 || dv->tail == 0 || !rte_is_power_of_2(cnt) || cnt > 65536 ||
	    !rte_is_power_of_2(dv->stride) || dv->stride < 2 * sizeof(struct mlx5_wqe_data_seg)) {
		MLX5_LOG(ERR, "srq 0x%x: unsupported geometry: head %u tail %u, %u-byte wqes",
			 dv->srqn, dv->head, dv->tail, dv->stride);
		return -EINVAL;
	}
	srq->wrid = rte_zmalloc("pv_mlx5_srq_wrid", cnt * sizeof(*srq->wrid),
				RTE_CACHE_LINE_SIZE);
	if (srq->wrid == NULL) {
		MLX5_LOG(ERR, "srq 0x%x: no memory for %u wr_ids", dv->srqn, cnt);
		return -ENOMEM;
	}
	srq->buf = dv->buf;
	srq->dbrec = dv->dbrec;
	srq->head = dv->head;
	srq->tail = dv->tail;
	srq->stride_shift = rte_log2_u32(dv->stride);
	srq->max_sge = (dv->stride - sizeof(struct mlx5_wqe_srq_next_seg)) /
		       sizeof(struct mlx5_wqe_data_seg);
	srq->counter = 0;
	srq->srqn = dv->srqn;
	srq->wqe_cnt = cnt;
	srq->max_wr = cnt - 1;
	rte_spinlock_init(&srq->lock);
	srq->ibsrq.fp_post_srq_recv = srq->ctx->single_threaded ? mlx5_post_srq_recv :
								  mlx5_post_srq_recv_mt;
	srq->ctx->nb_queues++;
	return 0;
}

void
pv_mlx5_srq_dp_fini(struct pv_mlx5_srq *srq)
{
	if (srq->ibsrq.fp_post_srq_recv != NULL) {
		srq->ctx->nb_queues--;
		srq->ibsrq.fp_post_srq_recv = NULL;
	}
	rte_free(srq->wrid);
	srq->wrid = NULL;
}

int
pv_mlx5_srq_xrc_init(struct pv_mlx5_srq *srq)
{
	struct pv_mlx5_qp *v;
	int ret;

	v = rte_zmalloc("pv_mlx5_xrc_recv", sizeof(*v), RTE_CACHE_LINE_SIZE);
	if (v == NULL)
		return -ENOMEM;
	/* no CQE's QPN is this one: never the CQ's last_qp */
	v->qpn = pv_mlx5_qp_none.qpn;
	v->qpn_cqe = pv_mlx5_qp_none.qpn_cqe;
	v->srq = srq;
	v->recv_retire = pv_mlx5_srq_recv_retire;
	v->ctx = srq->ctx;
	ret = pv_mlx5_xsrqt_insert(srq->ctx, srq->srqn, v);
	if (ret != 0) {
		rte_free(v);
		return ret;
	}
	srq->xrc_recv = v;
	return 0;
}

void
pv_mlx5_srq_xrc_fini(struct pv_mlx5_srq *srq)
{
	if (srq->xrc_recv == NULL)
		return;
	pv_mlx5_xsrqt_remove(srq->ctx, srq->srqn);
	rte_free(srq->xrc_recv);
	srq->xrc_recv = NULL;
}

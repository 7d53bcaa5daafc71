/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Send and receive data path: pollverbs writes mlx5 WQEs into the queues a
 * control path handed over (mlx5dv_qp), publishes them through the doorbell
 * record and rings the BlueFlame register, once per post list. The same
 * object code runs against a ConnectX and against the device model.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "mlx5_priv.h"

/* Properties of a send opcode, indexed by enum pv_wr_opcode. */
#define OPF_VALID	(1u << 0)
#define OPF_RADDR	(1u << 1)	/* remote address segment */
#define OPF_ATOMIC	(1u << 2)	/* atomic segment, one 8-byte SGE */
#define OPF_IMM		(1u << 3)	/* immediate data in the ctrl segment */
#define OPF_INLINE	(1u << 4)	/* PV_SEND_INLINE honoured */

struct mlx5_op_desc {
	uint8_t mlx5_opcode;
	uint8_t wc_opcode;
	uint8_t flags;
};

static const struct mlx5_op_desc mlx5_op_tbl[16] = {
	[PV_WR_RDMA_WRITE] = {
		MLX5_OPCODE_RDMA_WRITE, PV_WC_RDMA_WRITE,
		OPF_VALID | OPF_RADDR | OPF_INLINE,
	},
	[PV_WR_RDMA_WRITE_WITH_IMM] = {
		MLX5_OPCODE_RDMA_WRITE_IMM, PV_WC_RDMA_WRITE,
		OPF_VALID | OPF_RADDR | OPF_IMM | OPF_INLINE,
	},
	[PV_WR_SEND] = {
		MLX5_OPCODE_SEND, PV_WC_SEND,
		OPF_VALID | OPF_INLINE,
	},
	[PV_WR_SEND_WITH_IMM] = {
		MLX5_OPCODE_SEND_IMM, PV_WC_SEND,
		OPF_VALID | OPF_IMM | OPF_INLINE,
	},
	[PV_WR_RDMA_READ] = {
		MLX5_OPCODE_RDMA_READ, PV_WC_RDMA_READ,
		OPF_VALID | OPF_RADDR,
	},
	[PV_WR_ATOMIC_CMP_AND_SWP] = {
		MLX5_OPCODE_ATOMIC_CS, PV_WC_COMP_SWAP,
		OPF_VALID | OPF_RADDR | OPF_ATOMIC,
	},
	[PV_WR_ATOMIC_FETCH_AND_ADD] = {
		MLX5_OPCODE_ATOMIC_FA, PV_WC_FETCH_ADD,
		OPF_VALID | OPF_RADDR | OPF_ATOMIC,
	},
};

#define MLX5_SEND_FLAGS_CTRL (PV_SEND_FENCE | PV_SEND_SIGNALED | PV_SEND_SOLICITED)

uint32_t
pv_mlx5_qp_max_wqe_size(const struct pv_qp_cap *cap)
{
	uint32_t hdr = sizeof(struct mlx5_wqe_ctrl_seg) + sizeof(struct mlx5_wqe_raddr_seg);
	uint32_t sge = hdr + RTE_MAX(cap->max_send_sge, 1u) * sizeof(struct mlx5_wqe_data_seg);
	uint32_t atomic = hdr + sizeof(struct mlx5_wqe_atomic_seg) +
			  sizeof(struct mlx5_wqe_data_seg);
	uint32_t inl = hdr + RTE_ALIGN_CEIL(sizeof(struct mlx5_wqe_inl_data_seg) +
					    cap->max_inline_data, 16u);

	return RTE_MAX(RTE_MAX(sge, atomic), inl);
}

/*
 * Copy the SGEs of @p wr into an inline data segment at @p seg.
 * @return 16-byte units written (0 for an empty payload), or -1 when the
 *         payload exceeds the QP's inline size.
 */
static inline int
mlx5_wqe_inline(const struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint8_t *seg)
{
	struct mlx5_wqe_inl_data_seg *inl = (struct mlx5_wqe_inl_data_seg *)seg;
	uint8_t *dst = seg + sizeof(*inl);
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		uint32_t l = wr->sg_list[i].length;

		len += l;
		if (unlikely(len > qp->max_inline))
			return -1;
		rte_memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr, l);
		dst += l;
	}
	if (len == 0)
		return 0;
	inl->byte_count = rte_cpu_to_be_32(len | MLX5_INLINE_SEG);
	return (sizeof(*inl) + len + 15) >> 4;
}

/* Data segments for the SGEs of @p wr; zero-length SGEs are skipped because
 * byte_count 0 means 2 GiB to the HCA. @return 16-byte units written. */
static inline int
mlx5_wqe_sgl(const struct pv_send_wr *wr, uint8_t *seg)
{
	struct mlx5_wqe_data_seg *dseg = (struct mlx5_wqe_data_seg *)seg;
	int i, n = 0;

	for (i = 0; i < wr->num_sge; i++) {
		const struct pv_sge *sge = &wr->sg_list[i];

		if (unlikely(sge->length == 0))
			continue;
		dseg[n].byte_count = rte_cpu_to_be_32(sge->length);
		dseg[n].lkey = rte_cpu_to_be_32(sge->lkey);
		dseg[n].addr = rte_cpu_to_be_64(sge->addr);
		n++;
	}
	return n;
}

/*
 * Build the WQE of @p wr at @p wqe (linear memory: the ring when the WQE
 * cannot wrap, else the QP's scratch area).
 * @return DS (16-byte units) of the WQE, or 0 when @p wr is malformed.
 */
static inline unsigned int
mlx5_wqe_build(const struct pv_mlx5_qp *qp, const struct pv_send_wr *wr,
	       const struct mlx5_op_desc *op, uint8_t *wqe, uint32_t pi)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (struct mlx5_wqe_ctrl_seg *)wqe;
	uint8_t *seg = wqe + sizeof(*ctrl);
	unsigned int flags = op->flags;
	int n;

	if (flags & OPF_RADDR) {
		struct mlx5_wqe_raddr_seg *raddr = (struct mlx5_wqe_raddr_seg *)seg;

		/* rdma and atomic share remote_addr; rkey sits apart */
		raddr->raddr = rte_cpu_to_be_64(wr->wr.rdma.remote_addr);
		raddr->rkey = rte_cpu_to_be_32((flags & OPF_ATOMIC) ?
					       wr->wr.atomic.rkey : wr->wr.rdma.rkey);
		raddr->reserved = 0;
		seg += sizeof(*raddr);
	}
	if (unlikely(flags & OPF_ATOMIC)) {
		struct mlx5_wqe_atomic_seg *aseg = (struct mlx5_wqe_atomic_seg *)seg;

		if (wr->num_sge != 1)
			return 0;
		if (op->mlx5_opcode == MLX5_OPCODE_ATOMIC_CS) {
			aseg->swap_add = rte_cpu_to_be_64(wr->wr.atomic.swap);
			aseg->compare = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
		} else {
			aseg->swap_add = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
			aseg->compare = 0;
		}
		seg += sizeof(*aseg);
	}
	if ((wr->send_flags & PV_SEND_INLINE) && (flags & OPF_INLINE)) {
		n = mlx5_wqe_inline(qp, wr, seg);
		if (unlikely(n < 0))
			return 0;
	} else {
		if (unlikely((uint32_t)wr->num_sge > qp->max_send_sge))
			return 0;
		n = mlx5_wqe_sgl(wr, seg);
	}
	n += (seg - wqe) >> 4;

	ctrl->opmod_idx_opcode = rte_cpu_to_be_32(((pi & 0xffff) << 8) | op->mlx5_opcode);
	ctrl->qpn_ds = qp->qpn_be | rte_cpu_to_be_32(n);
	ctrl->signature = 0;
	ctrl->dci_stream_channel_id = 0;
	ctrl->fm_ce_se = qp->fm_ce_se[wr->send_flags & MLX5_SEND_FLAGS_CTRL];
	ctrl->imm = (flags & OPF_IMM) ? wr->imm_data : 0;
	return n;
}

/* Copy a WQE built in the scratch area into the ring, wrapping at its end. */
static __rte_noinline void
mlx5_wqe_copy_wrapped(struct pv_mlx5_qp *qp, uint32_t idx, uint32_t nbb)
{
	uint32_t i;

	for (i = 0; i < nbb; i++)
		memcpy(qp->sq_buf + (((idx + i) & qp->sq_mask) << MLX5_SEND_WQE_SHIFT),
		       qp->scratch + (i << MLX5_SEND_WQE_SHIFT), MLX5_SEND_WQE_BB);
}

/*
 * Publish WQEs up to @p pi and ring the doorbell: one barrier, one doorbell
 * record store, one BlueFlame write carrying the last WQE (whole when it fits
 * a BlueFlame half and @p use_bf, else its first 8 bytes).
 */
static inline void
mlx5_sq_ring(struct pv_mlx5_qp *qp, uint32_t pi, uint32_t last_idx, uint32_t last_nbb,
	     const bool use_bf)
{
	volatile uint64_t *dst = (volatile uint64_t *)(qp->bf_reg + qp->bf_off);
	const uint64_t *src;
	uint32_t i, j;

	/* the WQEs must reach memory before the doorbell record announces them:
	 * the HCA may fetch any WQE below the record as soon as it reads it */
	rte_io_wmb();
	*qp->sq_dbrec = rte_cpu_to_be_32(pi & 0xffff);
	/* the doorbell record must be visible before the BlueFlame write that
	 * makes the HCA look at it (store to coherent memory, then to the UAR) */
	rte_wmb();
	if (use_bf && (last_nbb << MLX5_SEND_WQE_SHIFT) <= qp->bf_size) {
		for (i = 0; i < last_nbb; i++) {
			src = (const uint64_t *)(qp->sq_buf +
				(((last_idx + i) & qp->sq_mask) << MLX5_SEND_WQE_SHIFT));
			for (j = 0; j < MLX5_SEND_WQE_BB / 8; j++)
				*dst++ = src[j];
		}
	} else {
		*dst = *(const uint64_t *)(qp->sq_buf + (last_idx << MLX5_SEND_WQE_SHIFT));
	}
	/* flush the write-combining buffer so this BlueFlame write leaves the
	 * core before the next one to the other half can be merged with it */
	rte_wmb();
	qp->bf_off ^= qp->bf_size;
}

static inline int
mlx5_post_send_common(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr,
		      const bool use_bf)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	uint32_t pi = qp->sq_pi;
	uint32_t idx = 0, nbb = 0;
	int ret = 0;

	if (unlikely(ibqp->state < PV_QPS_RTS && ibqp->state != PV_QPS_ERR)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		const struct mlx5_op_desc *op;
		struct pv_mlx5_sq_info *info;
		uint8_t *wqe;
		unsigned int ds;

		if (unlikely((unsigned int)wr->opcode >= RTE_DIM(mlx5_op_tbl))) {
			ret = EINVAL;
			break;
		}
		op = &mlx5_op_tbl[wr->opcode];
		if (unlikely(!(op->flags & OPF_VALID))) {
			ret = EINVAL;
			break;
		}
		if (unlikely(pi - qp->sq_ci > qp->sq_room)) {
			ret = ENOMEM;
			break;
		}
		idx = pi & qp->sq_mask;
		wqe = likely(idx <= qp->sq_nowrap_idx) ?
		      qp->sq_buf + (idx << MLX5_SEND_WQE_SHIFT) : qp->scratch;
		ds = mlx5_wqe_build(qp, wr, op, wqe, pi);
		if (unlikely(ds == 0)) {
			ret = EINVAL;
			break;
		}
		nbb = (ds + 3) >> 2;
		if (unlikely(wqe == qp->scratch))
			mlx5_wqe_copy_wrapped(qp, idx, nbb);
		info = &qp->sq_info[idx];
		info->wr_id = wr->wr_id;
		info->next_pi = pi + nbb;
		info->wc_opcode = op->wc_opcode;
		pi += nbb;
	}
	if (likely(pi != qp->sq_pi)) {
		qp->sq_pi = pi;
		mlx5_sq_ring(qp, pi, idx, nbb, use_bf);
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	return ret;
}

/* Variant for a QP with a BlueFlame register: the last WQE goes whole. */
static int
mlx5_post_send_bf(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, true);
}

/* Variant for a QP on a doorbell-only UAR (bf.size 0): 8-byte doorbell. */
static int
mlx5_post_send_db(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, false);
}

static int
mlx5_post_recv(struct pv_qp *ibqp, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	uint32_t head = qp->rq_head;
	int ret = 0;

	if (unlikely(ibqp->state == PV_QPS_RESET || qp->rq_cnt == 0)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct mlx5_wqe_data_seg *dseg;
		uint32_t idx = head & qp->rq_mask;
		int i, n = 0;

		if (unlikely((uint32_t)wr->num_sge > qp->max_recv_sge)) {
			ret = EINVAL;
			break;
		}
		if (unlikely(head - qp->rq_tail >= qp->rq_cnt)) {
			ret = ENOMEM;
			break;
		}
		dseg = (struct mlx5_wqe_data_seg *)(qp->rq_buf + (idx << qp->rq_stride_shift));
		for (i = 0; i < wr->num_sge; i++) {
			const struct pv_sge *sge = &wr->sg_list[i];

			if (unlikely(sge->length == 0))
				continue;
			dseg[n].byte_count = rte_cpu_to_be_32(sge->length);
			dseg[n].lkey = rte_cpu_to_be_32(sge->lkey);
			dseg[n].addr = rte_cpu_to_be_64(sge->addr);
			n++;
		}
		if ((uint32_t)n < qp->rq_slots) {
			/* an invalid lkey ends a scatter list shorter than the WQE */
			dseg[n].byte_count = 0;
			dseg[n].lkey = rte_cpu_to_be_32(MLX5_INVALID_LKEY);
			dseg[n].addr = 0;
		}
		qp->rq_wrid[idx] = wr->wr_id;
		head++;
	}
	if (likely(head != qp->rq_head)) {
		qp->rq_head = head;
		/* receive WQEs must be in memory before the doorbell record
		 * that lets the HCA consume them */
		rte_io_wmb();
		qp->rq_dbrec[0] = rte_cpu_to_be_32(head & 0xffff);
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	return ret;
}

static void
mlx5_qp_fm_ce_se_init(struct pv_mlx5_qp *qp, int sq_sig_all)
{
	unsigned int f;

	for (f = 0; f < RTE_DIM(qp->fm_ce_se); f++) {
		uint8_t v = 0;

		if (f & PV_SEND_FENCE)
			v |= MLX5_WQE_CTRL_FENCE;
		if ((f & PV_SEND_SIGNALED) || sq_sig_all)
			v |= MLX5_WQE_CTRL_CQ_UPDATE;
		if (f & PV_SEND_SOLICITED)
			v |= MLX5_WQE_CTRL_SOLICITED;
		qp->fm_ce_se[f] = v;
	}
}

int
pv_mlx5_qp_dp_init(struct pv_mlx5_qp *qp, const struct mlx5dv_qp *dv, uint32_t qpn,
		   const struct pv_qp_init_attr *attr)
{
	uint32_t max_bb;

	if (dv->sq.wqe_cnt == 0 || !rte_is_power_of_2(dv->sq.wqe_cnt) ||
	    dv->sq.wqe_cnt > 65536 || dv->sq.stride != MLX5_SEND_WQE_BB) {
		MLX5_LOG(ERR, "qp 0x%x: unsupported send queue: %u wqebbs of %u bytes",
			 qpn, dv->sq.wqe_cnt, dv->sq.stride);
		return -EINVAL;
	}
	max_bb = (pv_mlx5_qp_max_wqe_size(&attr->cap) + MLX5_SEND_WQE_BB - 1) >>
		 MLX5_SEND_WQE_SHIFT;
	if (max_bb > PV_MLX5_MAX_WQE_BB || max_bb > dv->sq.wqe_cnt) {
		MLX5_LOG(ERR, "qp 0x%x: wqe of %u wqebbs does not fit a %u-wqebb queue",
			 qpn, max_bb, dv->sq.wqe_cnt);
		return -EINVAL;
	}
	if (dv->rq.wqe_cnt != 0 &&
	    (!rte_is_power_of_2(dv->rq.wqe_cnt) || !rte_is_power_of_2(dv->rq.stride) ||
	     dv->rq.stride < sizeof(struct mlx5_wqe_data_seg) ||
	     attr->cap.max_recv_sge * sizeof(struct mlx5_wqe_data_seg) > dv->rq.stride)) {
		MLX5_LOG(ERR, "qp 0x%x: unsupported receive queue: %u wqes of %u bytes",
			 qpn, dv->rq.wqe_cnt, dv->rq.stride);
		return -EINVAL;
	}

	qp->sq_info = rte_zmalloc("pv_mlx5_sq_info",
				  dv->sq.wqe_cnt * sizeof(*qp->sq_info), RTE_CACHE_LINE_SIZE);
	qp->scratch = rte_zmalloc("pv_mlx5_scratch", PV_MLX5_MAX_WQE_BB * MLX5_SEND_WQE_BB,
				  RTE_CACHE_LINE_SIZE);
	qp->rq_wrid = dv->rq.wqe_cnt == 0 ? NULL :
		      rte_zmalloc("pv_mlx5_rq_wrid", dv->rq.wqe_cnt * sizeof(uint64_t),
				  RTE_CACHE_LINE_SIZE);
	if (qp->sq_info == NULL || qp->scratch == NULL ||
	    (dv->rq.wqe_cnt != 0 && qp->rq_wrid == NULL)) {
		MLX5_LOG(ERR, "qp 0x%x: no memory for queue bookkeeping", qpn);
		pv_mlx5_qp_dp_fini(qp);
		return -ENOMEM;
	}

	qp->qpn = qpn;
	qp->sq_buf = dv->sq.buf;
	qp->sq_cnt = dv->sq.wqe_cnt;
	qp->sq_mask = dv->sq.wqe_cnt - 1;
	qp->max_wqe_bb = max_bb;
	qp->sq_room = dv->sq.wqe_cnt - max_bb;
	qp->sq_nowrap_idx = dv->sq.wqe_cnt - max_bb;
	qp->qpn_be = rte_cpu_to_be_32(qpn << 8);
	qp->max_inline = attr->cap.max_inline_data;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->sq_dbrec = &dv->dbrec[MLX5_SND_DBR];
	qp->bf_reg = dv->bf.reg;
	qp->bf_size = dv->bf.size;
	qp->bf_off = 0;
	mlx5_qp_fm_ce_se_init(qp, attr->sq_sig_all);

	qp->rq_buf = dv->rq.buf;
	qp->rq_cnt = dv->rq.wqe_cnt;
	qp->rq_mask = dv->rq.wqe_cnt ? dv->rq.wqe_cnt - 1 : 0;
	qp->rq_stride_shift = dv->rq.wqe_cnt ? rte_log2_u32(dv->rq.stride) : 0;
	qp->rq_slots = dv->rq.wqe_cnt ? dv->rq.stride / sizeof(struct mlx5_wqe_data_seg) : 0;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->rq_dbrec = &dv->dbrec[MLX5_RCV_DBR];
	pv_mlx5_qp_dp_reset(qp);

	qp->ibqp.qp_num = qpn;
	qp->ibqp.cap = attr->cap;
	qp->ibqp.sq_sig_all = attr->sq_sig_all;
	qp->ibqp.fp_post_send = qp->bf_size ? mlx5_post_send_bf : mlx5_post_send_db;
	qp->ibqp.fp_post_recv = mlx5_post_recv;
	return 0;
}

void
pv_mlx5_qp_dp_reset(struct pv_mlx5_qp *qp)
{
	qp->sq_pi = 0;
	qp->sq_ci = 0;
	qp->rq_head = 0;
	qp->rq_tail = 0;
	qp->bf_off = 0;
	qp->sq_dbrec[0] = 0;
	qp->rq_dbrec[0] = 0;
}

void
pv_mlx5_qp_dp_fini(struct pv_mlx5_qp *qp)
{
	rte_free(qp->sq_info);
	rte_free(qp->scratch);
	rte_free(qp->rq_wrid);
	qp->sq_info = NULL;
	qp->scratch = NULL;
	qp->rq_wrid = NULL;
}

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
#include <rte_vect.h>

#include "mlx5_priv.h"

/* What a send opcode puts in its WQE (mlx5_wqe_build's @p flags). */
#define OPF_RADDR	(1u << 0)	/* remote address segment */
#define OPF_ATOMIC	(1u << 1)	/* atomic segment, one 8-byte SGE */
#define OPF_IMM		(1u << 2)	/* immediate data in the ctrl segment */
#define OPF_INLINE	PV_SEND_INLINE	/* PV_SEND_INLINE honoured: same bit */
#define OPF_INV		(1u << 4)	/* invalidate rkey in the ctrl segment's imm */
#define OPF_COMMON	(1u << 5)	/* built by mlx5_wqe_build_slow() itself */

struct mlx5_op_desc {
	uint8_t mlx5_opcode;	/* 0: not an opcode pollverbs posts */
	uint8_t flags;
};

static const struct mlx5_op_desc mlx5_op_tbl[16] = {
	[PV_WR_RDMA_WRITE] = { MLX5_OPCODE_RDMA_WRITE, OPF_COMMON | OPF_RADDR | OPF_INLINE },
	[PV_WR_RDMA_WRITE_WITH_IMM] = { MLX5_OPCODE_RDMA_WRITE_IMM,
					OPF_COMMON | OPF_RADDR | OPF_INLINE | OPF_IMM },
	[PV_WR_SEND] = { MLX5_OPCODE_SEND, OPF_COMMON | OPF_INLINE },
	[PV_WR_SEND_WITH_IMM] = { MLX5_OPCODE_SEND_IMM, OPF_COMMON | OPF_INLINE | OPF_IMM },
	[PV_WR_RDMA_READ] = { MLX5_OPCODE_RDMA_READ, OPF_COMMON | OPF_RADDR },
	[PV_WR_ATOMIC_CMP_AND_SWP] = { MLX5_OPCODE_ATOMIC_CS,
				       OPF_COMMON | OPF_RADDR | OPF_ATOMIC },
	[PV_WR_ATOMIC_FETCH_AND_ADD] = { MLX5_OPCODE_ATOMIC_FA,
					 OPF_COMMON | OPF_RADDR | OPF_ATOMIC },
	[PV_WR_SEND_WITH_INV] = { MLX5_OPCODE_SEND_INVAL, OPF_COMMON | OPF_INLINE | OPF_INV },
	/* UMR WQEs, built by mlx5_wqe_build_umr() */
	[PV_WR_LOCAL_INV] = { MLX5_OPCODE_UMR, 0 },
	[PV_WR_BIND_MW] = { MLX5_OPCODE_UMR, 0 },
	/* the others: mlx5_opcode 0, not an opcode pollverbs posts */
};

#define MLX5_SEND_FLAGS_CTRL (PV_SEND_FENCE | PV_SEND_SIGNALED | PV_SEND_SOLICITED)

uint32_t
pv_mlx5_qp_max_wqe_size(const struct pv_qp_cap *cap, enum pv_qp_type qp_type)
{
	uint32_t hdr = sizeof(struct mlx5_wqe_ctrl_seg) + sizeof(struct mlx5_wqe_raddr_seg) +
		       (qp_type == PV_QPT_XRC_SEND ? sizeof(struct pv_mlx5_wqe_xrc_seg) : 0);
	uint32_t sge = hdr + RTE_MAX(cap->max_send_sge, 1u) * sizeof(struct mlx5_wqe_data_seg);
	uint32_t atomic = hdr + sizeof(struct mlx5_wqe_atomic_seg) +
			  sizeof(struct mlx5_wqe_data_seg);
	uint32_t inl = hdr + RTE_ALIGN_CEIL(sizeof(struct mlx5_wqe_inl_data_seg) +
					    cap->max_inline_data, 16u);

	return RTE_MAX(RTE_MAX(sge, atomic), inl);
}

/*
 * Copy @p len bytes of inline payload. Up to 16 bytes (the common small
 * message) with two possibly overlapping loads and stores, no call; longer
 * payloads out of line.
 */
static __rte_noinline void
mlx5_inline_copy_long(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	rte_memcpy(dst, src, len);
}

static __rte_always_inline void
mlx5_inline_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	uint64_t a8, b8;
	uint32_t a4, b4;

	if (likely(len - 8 <= 8)) {		/* 8..16 bytes */
		memcpy(&a8, src, 8);
		memcpy(&b8, src + len - 8, 8);
		memcpy(dst, &a8, 8);
		memcpy(dst + len - 8, &b8, 8);
	} else if (len > 16) {
		mlx5_inline_copy_long(dst, src, len);	/* keeps registers free here */
	} else if (len >= 4) {
		memcpy(&a4, src, 4);
		memcpy(&b4, src + len - 4, 4);
		memcpy(dst, &a4, 4);
		memcpy(dst + len - 4, &b4, 4);
	} else if (len != 0) {
		dst[0] = src[0];
		dst[len >> 1] = src[len >> 1];
		dst[len - 1] = src[len - 1];
	}
}

/*
 * Inline data segment gathered from several SGEs.
 * @return its size in 16-byte units (0 for an empty payload), or -1 when
 *         the payload exceeds the QP's inline size.
 */
static __rte_noinline int
mlx5_wqe_inline_gather(const struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint8_t *seg)
{
	struct mlx5_wqe_inl_data_seg *inl = (struct mlx5_wqe_inl_data_seg *)seg;
	uint8_t *dst = seg + sizeof(*inl);
	uint32_t len = 0;
	int i;

	/* SGE count first, then a 64-bit sum: 32-bit lengths must not wrap */
	if (unlikely(wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge ||
		     pv_sge_total_len(wr->sg_list, wr->num_sge) > qp->max_inline))
		return -1;
	for (i = 0; i < wr->num_sge; i++) {
		uint32_t l = wr->sg_list[i].length;

		len += l;
		mlx5_inline_copy(dst, (const uint8_t *)(uintptr_t)wr->sg_list[i].addr, l);
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

/* Remote address segment of an RDMA WR: address and key byte-swapped,
 * reserved zero. */
static __rte_always_inline void
mlx5_wqe_raddr(uint8_t *seg, const struct pv_send_wr *wr)
{
#ifdef __SSSE3__
	/* wr.rdma is 16 bytes (address, key, padding) inside the 32-byte
	 * union: one load, one shuffle reversing bytes 0-7 and 8-11 and
	 * zeroing 12-15, one store */
	const __m128i swap = _mm_set_epi8(-128, -128, -128, -128, 8, 9, 10, 11,
					  0, 1, 2, 3, 4, 5, 6, 7);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)&wr->wr.rdma);

	_mm_store_si128((__m128i *)seg, _mm_shuffle_epi8(v, swap));
#else
	struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)seg;

	r->raddr = rte_cpu_to_be_64(wr->wr.rdma.remote_addr);
	r->rkey = rte_cpu_to_be_32(wr->wr.rdma.rkey);
	r->reserved = 0;
#endif
}

/*
 * Build the WQE of @p wr at @p wqe (linear memory: the ring when the WQE
 * cannot wrap, else the QP's scratch area). Called with a constant
 * @p opcode and @p flags from the post loop, each opcode gets its own
 * straight-line copy; the slow path calls it with the values of the table.
 * @p tseg: bytes of the transport segment after the ctrl segment (an XRC
 * INI QP's struct mlx5_wqe_xrc_seg naming the remote SRQ), 0 for RC.
 * @return WQEBBs the WQE occupies (its DS goes into the ctrl segment), or 0
 *         when @p wr is malformed.
 */
static __rte_always_inline int
mlx5_wqe_build(const struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint8_t *wqe,
	       uint32_t pi, const uint8_t opcode, const unsigned int flags, const bool inl16,
	       const uint32_t tseg)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (struct mlx5_wqe_ctrl_seg *)wqe;
	unsigned int send_flags = wr->send_flags;
	uint32_t hdr = 16 + tseg;	/* bytes before the payload segment */
	uint32_t size;		/* bytes of the WQE */
	int n;

	if (tseg != 0) {
		struct pv_mlx5_wqe_xrc_seg *x = (struct pv_mlx5_wqe_xrc_seg *)(wqe + 16);

		x->xrc_srqn = rte_cpu_to_be_32(wr->qp_type.xrc.remote_srqn);
		memset(x->rsvd, 0, sizeof(x->rsvd));
	}
	if (flags & OPF_ATOMIC) {
		struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)(wqe + hdr);
		struct mlx5_wqe_atomic_seg *aseg = (struct mlx5_wqe_atomic_seg *)(wqe + hdr + 16);

		r->raddr = rte_cpu_to_be_64(wr->wr.atomic.remote_addr);
		r->rkey = rte_cpu_to_be_32(wr->wr.atomic.rkey);
		r->reserved = 0;

		if (wr->num_sge != 1)
			return 0;
		if (opcode == MLX5_OPCODE_ATOMIC_CS) {
			aseg->swap_add = rte_cpu_to_be_64(wr->wr.atomic.swap);
			aseg->compare = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
		} else {
			aseg->swap_add = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
			aseg->compare = 0;
		}
		hdr += 32;
	} else if (flags & OPF_RADDR) {
		mlx5_wqe_raddr(wqe + hdr, wr);
		hdr += 16;
	}
	size = hdr;
	if ((flags & OPF_INLINE) && (send_flags & PV_SEND_INLINE)) {
		uint8_t *seg = wqe + hdr;

		if (likely(wr->num_sge == 1)) {
			size_t len = wr->sg_list[0].length;
			const uint8_t *src = (const uint8_t *)(uintptr_t)wr->sg_list[0].addr;
			uint8_t *dst = seg + sizeof(struct mlx5_wqe_inl_data_seg);

			if (inl16 && likely(len - 8 <= 8)) {
				/* 8..16 bytes, within the inline size of the QP
				 * (>= 16 with inl16): two overlapping words */
				uint64_t a, b;

				memcpy(&a, src, 8);
				memcpy(&b, src + len - 8, 8);
				memcpy(dst, &a, 8);
				memcpy(dst + len - 8, &b, 8);
			} else {
				if (unlikely(len > qp->max_inline))
					return 0;
				mlx5_inline_copy(dst, src, len);
				if (unlikely(len == 0))
					goto ctrl;
			}
			((struct mlx5_wqe_inl_data_seg *)seg)->byte_count =
				rte_cpu_to_be_32((uint32_t)len | MLX5_INLINE_SEG);
			size += sizeof(struct mlx5_wqe_inl_data_seg) + len;
		} else {
			n = mlx5_wqe_inline_gather(qp, wr, seg);
			if (unlikely(n < 0))
				return 0;
			size += n * 16;
		}
	} else {
		if (unlikely((uint32_t)wr->num_sge > qp->max_send_sge))
			return 0;
		size += mlx5_wqe_sgl(wr, wqe + hdr) * 16;
	}
ctrl:
	/* big-endian (pi & 0xffff) << 8 | opcode, without a 32-bit swap */
	ctrl->opmod_idx_opcode = (uint32_t)rte_cpu_to_be_16((uint16_t)pi) << 8 |
				 rte_cpu_to_be_32(opcode);
	/* DS: 16-byte units, < 64; its big-endian form is the low byte */
	ctrl->qpn_ds = qp->qpn_be | rte_cpu_to_be_32((size + 15) >> 4);
	/* signature, dci_stream_channel_id, fm_ce_se and imm: one store, the
	 * first three precomputed per send_flags at QP creation */
	memcpy(&ctrl->signature, &qp->ctrl_w1[send_flags & MLX5_SEND_FLAGS_CTRL], 8);
	if (flags & OPF_IMM)
		ctrl->imm = wr->imm_data;
	else if (flags & OPF_INV)
		ctrl->imm = rte_cpu_to_be_32(wr->invalidate_rkey);
	/* holds by construction (QP sizes checked at creation, payloads
	 * above); said so the caller's test for 0 drops off this path */
	if (size > PV_MLX5_MAX_WQE_BB * MLX5_SEND_WQE_BB)
		__builtin_unreachable();
	return (int)((size + MLX5_SEND_WQE_BB - 1) >> MLX5_SEND_WQE_SHIFT);
}

#define MLX5_MW_ACCESS (PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_WRITE | \
			PV_ACCESS_REMOTE_ATOMIC | PV_ACCESS_ZERO_BASED)

/* Access rights of a window, in the mkey context's encoding. */
static uint8_t
mlx5_umr_access(unsigned int mw_access)
{
	uint8_t a = 0;

	if (mw_access & PV_ACCESS_REMOTE_WRITE)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
	if (mw_access & PV_ACCESS_REMOTE_READ)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ;
	if (mw_access & PV_ACCESS_REMOTE_ATOMIC)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC;
	return a;
}

/*
 * BIND_MW or LOCAL_INV as a UMR WQE, laid out as rdma-core's mlx5 provider
 * does (set_bind_wr): the ctrl segment's imm names the mkey to change (the
 * window's current rkey, or the rkey to invalidate); a UMR control segment
 * says which mkey context fields change; the mkey context carries the new
 * key's low byte (the tag), the QP a type 2 window is bound to, the rights
 * and the range, or the free bit; one KLM points at the MR. A bind of
 * length 0 (type 1 unbind) and LOCAL_INV free the window.
 * @return WQEBBs, or 0 when @p wr is malformed.
 */
static int
mlx5_wqe_build_umr(struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint8_t *wqe,
		   uint32_t pi)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (struct mlx5_wqe_ctrl_seg *)wqe;
	struct mlx5_wqe_umr_ctrl_seg *uc = (struct mlx5_wqe_umr_ctrl_seg *)(ctrl + 1);
	struct mlx5_wqe_mkey_context_seg *mk = (struct mlx5_wqe_mkey_context_seg *)(uc + 1);
	struct mlx5_wqe_umr_klm_seg *klm = (struct mlx5_wqe_umr_klm_seg *)(mk + 1);
	const struct pv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	bool bind = wr->opcode == PV_WR_BIND_MW;
	enum pv_mw_type type = PV_MW_TYPE_2;
	uint64_t length = 0;
	uint32_t size, tag = 0, cur_key;
	uint64_t mask;

	if (bind) {
		/* pv_post_send(): EINVAL for no window, a window or MR of
		 * another context, rights a window cannot have */
		if (wr->bind_mw.mw == NULL || wr->bind_mw.mw->context != qp->ibqp.context ||
		    (bi->mr != NULL && bi->mr->context != qp->ibqp.context) ||
		    (bi->mw_access_flags & ~MLX5_MW_ACCESS))
			return 0;
		type = wr->bind_mw.mw->type;
		length = bi->length;
		/* a KLM covers up to 2 GiB; a window needs an MR to point at */
		if (length > (1ull << 31) || (length != 0 && bi->mr == NULL) ||
		    (type == PV_MW_TYPE_2 && length == 0))
			return 0;
		cur_key = wr->bind_mw.mw->rkey;
		tag = wr->bind_mw.rkey & 0xff;
	} else {
		cur_key = wr->invalidate_rkey;
	}
	memset(uc, 0, sizeof(*uc) + sizeof(*mk));
	uc->flags = MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET | MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;
	if (type == PV_MW_TYPE_2)
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN;
	/* type 1 windows and freed ones name no QP */
	mk->qpn_mkey = rte_cpu_to_be_32(tag | ((type == PV_MW_TYPE_1 || length == 0) ?
					       0xffffff00u : qp->qpn << 8));
	size = sizeof(*ctrl) + sizeof(*uc) + sizeof(*mk);
	if (length != 0) {
		/* the KLM block in 16-byte octowords: one KLM padded to 64 */
		uc->klm_octowords = rte_cpu_to_be_16(PV_MLX5_UMR_KLM_BYTES / 16);
		if (type == PV_MW_TYPE_2)
			uc->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
		mk->access_flags = mlx5_umr_access(bi->mw_access_flags);
		mk->start_addr = (bi->mw_access_flags & PV_ACCESS_ZERO_BASED) ? 0 :
				 rte_cpu_to_be_64(bi->addr);
		mk->len = rte_cpu_to_be_64(length);
		memset(klm, 0, PV_MLX5_UMR_KLM_BYTES);
		klm->byte_count = rte_cpu_to_be_32((uint32_t)length);
		klm->mkey = rte_cpu_to_be_32(bi->mr->lkey);
		klm->address = rte_cpu_to_be_64(bi->addr);
		size += PV_MLX5_UMR_KLM_BYTES;
	} else {
		if (type == PV_MW_TYPE_2)
			uc->flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
		mk->free = MLX5_WQE_MKEY_CONTEXT_FREE;
	}
	uc->mkey_mask = rte_cpu_to_be_64(mask);
	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((pi & 0xffff) << 8 | MLX5_OPCODE_UMR);
	ctrl->qpn_ds = qp->qpn_be | rte_cpu_to_be_32(size >> 4);
	memcpy(&ctrl->signature, &qp->ctrl_w1[wr->send_flags & MLX5_SEND_FLAGS_CTRL], 8);
	ctrl->imm = rte_cpu_to_be_32(cur_key);
	qp->sq_umr_op[pi & qp->sq_mask] = bind ? PV_WC_BIND_MW : PV_WC_LOCAL_INV;
	qp->sq_umr_used = 1;
	return (int)((size + MLX5_SEND_WQE_BB - 1) >> MLX5_SEND_WQE_SHIFT);
}

/* Copy a WQE built in the scratch area into the ring, WQEBB by WQEBB, wrapping. */
static void
mlx5_wqe_scratch_copy(struct pv_mlx5_qp *qp, uint32_t idx, int nbb)
{
	int i;

	for (i = 0; i < nbb; i++)
		memcpy(qp->sq_buf + (((idx + i) & qp->sq_mask) << MLX5_SEND_WQE_SHIFT),
		       qp->scratch + (i << MLX5_SEND_WQE_SHIFT), MLX5_SEND_WQE_BB);
}

/* Poison the post loop's budget and the slow path's opcode test, or not. */
static void
mlx5_sq_fence_set(struct pv_mlx5_qp *qp, bool pending)
{
	qp->sq_fence = pending;
	qp->sq_room = pending ? PV_MLX5_SQ_ROOM_FENCE : qp->sq_room_max;
	qp->sq_common = pending || qp->tseg != 0 ? 0 : OPF_COMMON;
}

/*
 * What mlx5_wqe_build_slow() leaves out: opcodes the data path does not
 * build, UMR WQEs (larger than the QP's other WQEs: room checked for their
 * size) and the WQE after a UMR, which starts only once the UMR is done
 * (the small fence, as rdma-core's mlx5 puts it, unless it asked for the
 * full one): a WR that uses the new rkey, or sends it, must not overtake
 * the bind. While that fence is pending (sq_fence), sq_room is poisoned so
 * the post loop brings every WR here, and sq_common is 0. Also every slow
 * WR of an XRC INI QP (sq_common 0 for good): its XRC segment.
 */
static __rte_noinline int
mlx5_wqe_build_rare(struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint32_t pi,
		    const struct mlx5_op_desc *op)
{
	const bool umr = op->mlx5_opcode == MLX5_OPCODE_UMR;
	const uint32_t bb = umr ? PV_MLX5_UMR_WQE_BYTES >> MLX5_SEND_WQE_SHIFT : qp->max_wqe_bb;
	uint32_t idx = pi & qp->sq_mask;
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint8_t *wqe;
	int nbb;

	if (op->mlx5_opcode == 0)
		return 0;
	if (pi - qp->sq_ci + bb > qp->sq_cnt)
		return -ENOMEM;
	wqe = idx + bb <= qp->sq_cnt ? qp->sq_buf + (idx << MLX5_SEND_WQE_SHIFT) : qp->scratch;
	nbb = umr ? mlx5_wqe_build_umr(qp, wr, wqe, pi) :
		    mlx5_wqe_build(qp, wr, wqe, pi, op->mlx5_opcode, op->flags, false, qp->tseg);
	if (nbb == 0)
		return 0;
	if (qp->sq_fence) {
		ctrl = (struct mlx5_wqe_ctrl_seg *)wqe;
		if (!(ctrl->fm_ce_se & MLX5_WQE_CTRL_FENCE))
			ctrl->fm_ce_se |= MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
		mlx5_sq_fence_set(qp, false);
	}
	if (umr)
		mlx5_sq_fence_set(qp, true);
	if (wqe == qp->scratch)
		mlx5_wqe_scratch_copy(qp, idx, nbb);
	return nbb;
}

/*
 * Slow path of one WR: an atomic, a WQE that may cross the end of the ring
 * (built in the scratch area, then copied WQEBB by WQEBB, wrapping), or a
 * full queue; the rest in mlx5_wqe_build_rare(). @return its WQEBBs, 0
 * when malformed, -ENOMEM when full.
 */
static __rte_noinline int
mlx5_wqe_build_slow(struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint32_t pi)
{
	const struct mlx5_op_desc *op;
	uint32_t idx = pi & qp->sq_mask;
	uint8_t *wqe;
	int nbb;

	if ((unsigned int)wr->opcode >= RTE_DIM(mlx5_op_tbl))
		return 0;
	op = &mlx5_op_tbl[wr->opcode];
	if (unlikely(!(op->flags & qp->sq_common)))
		return mlx5_wqe_build_rare(qp, wr, pi, op);
	if (pi - qp->sq_ci > qp->sq_room_max)
		return -ENOMEM;
	wqe = idx <= qp->sq_room_max ? qp->sq_buf + (idx << MLX5_SEND_WQE_SHIFT) : qp->scratch;
	nbb = mlx5_wqe_build(qp, wr, wqe, pi, op->mlx5_opcode, op->flags, false, 0);
	if (nbb != 0 && wqe == qp->scratch)
		mlx5_wqe_scratch_copy(qp, idx, nbb);
	return nbb;
}

/*
 * WQEBBs that may be posted from @p pi on without a check per WR: within
 * the room the consumer left and short of the ring's end (where a WQE of
 * max_wqe_bb could wrap). Negative: none.
 */
static inline int32_t
mlx5_sq_budget(const struct pv_mlx5_qp *qp, uint32_t pi)
{
	int32_t free_bb = (int32_t)(qp->sq_room - (pi - qp->sq_ci));
	int32_t to_end = (int32_t)(qp->sq_room - (pi & qp->sq_mask));

	return RTE_MIN(free_bb, to_end);
}

/*
 * Publish WQEs up to @p pi and ring the doorbell: one barrier, one doorbell
 * record store, one BlueFlame write carrying the last WQE (whole when it fits
 * a BlueFlame half and @p use_bf, else its first 8 bytes).
 */
static __rte_always_inline void
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
#ifdef __SSE2__
			/* 16-byte stores: write-combined like 8-byte ones */
			for (j = 0; j < MLX5_SEND_WQE_BB / 16; j++)
				_mm_store_si128((__m128i *)(uintptr_t)(dst + 2 * j),
						_mm_load_si128((const __m128i *)(src + 2 * j)));
			dst += MLX5_SEND_WQE_BB / 8;
#else
			for (j = 0; j < MLX5_SEND_WQE_BB / 8; j++)
				*dst++ = src[j];
#endif
		}
	} else {
		*dst = *(const uint64_t *)(qp->sq_buf + (last_idx << MLX5_SEND_WQE_SHIFT));
	}
	/* flush the write-combining buffer so this BlueFlame write leaves the
	 * core before the next one to the other half can be merged with it */
	rte_wmb();
	qp->bf_off ^= qp->bf_size;
}

/*
 * Post a list. Per WR: one budget test (room left and distance to the ring's
 * end, taken together once per call), a test chain on the opcode, most
 * common first, into its specialised builder, and two bookkeeping stores.
 * Within the budget WQEs never wrap, so the ring index just advances.
 */
static __rte_always_inline int
mlx5_post_send_common(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr,
		      const bool use_bf, const bool inl16, const uint32_t tseg)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	uint64_t *const sq_wrid = qp->sq_wrid;
	uint32_t *const sq_next = qp->sq_next;
	const uint32_t pi0 = qp->sq_pi;
	uint32_t pi = pi0, nbb = 0;
	size_t idx = pi0 & qp->sq_mask;
	int32_t budget = mlx5_sq_budget(qp, pi0);
	int ret = 0;

	if (unlikely(ibqp->state < PV_QPS_RTS && ibqp->state != PV_QPS_ERR)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		uint8_t *wqe = qp->sq_buf + (idx << MLX5_SEND_WQE_SHIFT);
		enum pv_wr_opcode opcode = wr->opcode;
		int n = -1;	/* WQEBBs; -1: not built on the fast path */

		if (likely(budget >= 0)) {
			if (likely(opcode == PV_WR_RDMA_WRITE))
				n = mlx5_wqe_build(qp, wr, wqe, pi, MLX5_OPCODE_RDMA_WRITE,
						    OPF_RADDR | OPF_INLINE, inl16, tseg);
			else if (opcode == PV_WR_SEND)
				n = mlx5_wqe_build(qp, wr, wqe, pi, MLX5_OPCODE_SEND,
						    OPF_INLINE, inl16, tseg);
			else if (opcode == PV_WR_RDMA_WRITE_WITH_IMM)
				n = mlx5_wqe_build(qp, wr, wqe, pi, MLX5_OPCODE_RDMA_WRITE_IMM,
						    OPF_RADDR | OPF_INLINE | OPF_IMM, inl16, tseg);
			else if (opcode == PV_WR_SEND_WITH_IMM)
				n = mlx5_wqe_build(qp, wr, wqe, pi, MLX5_OPCODE_SEND_IMM,
						    OPF_INLINE | OPF_IMM, inl16, tseg);
			else if (opcode == PV_WR_RDMA_READ)
				n = mlx5_wqe_build(qp, wr, wqe, pi, MLX5_OPCODE_RDMA_READ,
						    OPF_RADDR, inl16, tseg);
			/* atomics and unknown opcodes: slow path */
		}
		if (unlikely(n <= 0)) {
			/* atomics, the ring's end, a full queue, bad WRs */
			if (n == 0 || (n = mlx5_wqe_build_slow(qp, wr, pi)) <= 0) {
				ret = n == 0 ? EINVAL : -n;
				break;
			}
			/* idx may have run to the ring's end: take it from pi */
			idx = pi & qp->sq_mask;
			nbb = n;
			qp->sq_wrid[idx] = wr->wr_id;
			pi += nbb;
			qp->sq_next[idx] = pi;
			idx = pi & qp->sq_mask;
			budget = mlx5_sq_budget(qp, pi);
			continue;
		}
		nbb = n;
		sq_wrid[idx] = wr->wr_id;
		pi += nbb;
		sq_next[idx] = pi;
		idx += nbb;
		budget -= nbb;
	}
	if (likely(pi != pi0)) {
		qp->sq_pi = pi;
		/* the last WQE: nbb WQEBBs back from pi */
		mlx5_sq_ring(qp, pi, (pi - nbb) & qp->sq_mask, nbb, use_bf);
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	return ret;
}

/*
 * Variants, chosen at QP creation: with a BlueFlame register (the last WQE
 * goes whole) or a doorbell-only UAR (bf.size 0: 8-byte doorbell); with an
 * inline size of 16 bytes or more (small payloads skip the size check).
 */
static int
mlx5_post_send_bf(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, true, false, 0);
}

static int
mlx5_post_send_bf_inl16(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, true, true, 0);
}

static int
mlx5_post_send_db(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, false, false, 0);
}

static int
mlx5_post_send_db_inl16(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, false, true, 0);
}

/* XRC INI QPs: the XRC segment after the ctrl segment. */
static int
mlx5_post_send_xrc_bf(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, true, false,
				     sizeof(struct pv_mlx5_wqe_xrc_seg));
}

static int
mlx5_post_send_xrc_db(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return mlx5_post_send_common(ibqp, wr, bad_wr, false, false,
				     sizeof(struct pv_mlx5_wqe_xrc_seg));
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
mlx5_qp_ctrl_w1_init(struct pv_mlx5_qp *qp, int sq_sig_all)
{
	unsigned int f;

	for (f = 0; f < RTE_DIM(qp->ctrl_w1); f++) {
		struct mlx5_wqe_ctrl_seg c;

		memset(&c, 0, sizeof(c));
		if (f & PV_SEND_FENCE)
			c.fm_ce_se |= MLX5_WQE_CTRL_FENCE;
		if ((f & PV_SEND_SIGNALED) || sq_sig_all)
			c.fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
		if (f & PV_SEND_SOLICITED)
			c.fm_ce_se |= MLX5_WQE_CTRL_SOLICITED;
		memcpy(&qp->ctrl_w1[f], &c.signature, sizeof(qp->ctrl_w1[f]));
	}
}


/*
 * Thread-safe mode (rdma-core's mlx5 locking): the send queue's lock around
 * post_send, the receive queue's around post_recv.
 */
#define MLX5_POST_SEND_MT(name) \
static int \
name##_mt(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr) \
{ \
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp); \
	int ret; \
	pv_rtc_spin_lock(&qp->sq_lock); \
	ret = name(ibqp, wr, bad_wr); \
	pv_rtc_spin_unlock(&qp->sq_lock); \
	return ret; \
}
MLX5_POST_SEND_MT(mlx5_post_send_bf)
MLX5_POST_SEND_MT(mlx5_post_send_bf_inl16)
MLX5_POST_SEND_MT(mlx5_post_send_db)
MLX5_POST_SEND_MT(mlx5_post_send_db_inl16)
MLX5_POST_SEND_MT(mlx5_post_send_xrc_bf)
MLX5_POST_SEND_MT(mlx5_post_send_xrc_db)

/* [locked][BlueFlame][inline of 16 bytes or more] */
static const pv_post_send_fn mlx5_post_send_fns[2][2][2] = {
	{ { mlx5_post_send_db, mlx5_post_send_db_inl16 },
	  { mlx5_post_send_bf, mlx5_post_send_bf_inl16 } },
	{ { mlx5_post_send_db_mt, mlx5_post_send_db_inl16_mt },
	  { mlx5_post_send_bf_mt, mlx5_post_send_bf_inl16_mt } },
};

/* XRC INI QPs: [locked][BlueFlame] */
static const pv_post_send_fn mlx5_post_send_xrc_fns[2][2] = {
	{ mlx5_post_send_xrc_db, mlx5_post_send_xrc_bf },
	{ mlx5_post_send_xrc_db_mt, mlx5_post_send_xrc_bf_mt },
};

static int
mlx5_post_recv_mt(struct pv_qp *ibqp, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	int ret;

	pv_rtc_spin_lock(&qp->rq_lock);
	ret = mlx5_post_recv(ibqp, wr, bad_wr);
	pv_rtc_spin_unlock(&qp->rq_lock);
	return ret;
}
int
pv_mlx5_qp_dp_init(struct pv_mlx5_qp *qp, const struct mlx5dv_qp *dv, uint32_t qpn,
		   const struct pv_qp_init_attr *attr)
{
	uint32_t max_bb;
	int locked;

	if (dv->sq.wqe_cnt == 0 || !rte_is_power_of_2(dv->sq.wqe_cnt) ||
	    dv->sq.wqe_cnt > 65536 || dv->sq.stride != MLX5_SEND_WQE_BB) {
		MLX5_LOG(ERR, "qp 0x%x: unsupported send queue: %u wqebbs of %u bytes",
			 qpn, dv->sq.wqe_cnt, dv->sq.stride);
		return -EINVAL;
	}
	max_bb = (pv_mlx5_qp_max_wqe_size(&attr->cap, attr->qp_type) + MLX5_SEND_WQE_BB - 1) >>
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

	qp->sq_wrid = rte_zmalloc("pv_mlx5_sq_wrid", dv->sq.wqe_cnt * sizeof(*qp->sq_wrid),
				  RTE_CACHE_LINE_SIZE);
	qp->sq_next = rte_zmalloc("pv_mlx5_sq_next", dv->sq.wqe_cnt * sizeof(*qp->sq_next),
				  RTE_CACHE_LINE_SIZE);
	qp->scratch = rte_zmalloc("pv_mlx5_scratch", PV_MLX5_MAX_WQE_BB * MLX5_SEND_WQE_BB,
				  RTE_CACHE_LINE_SIZE);
	qp->sq_umr_op = rte_zmalloc("pv_mlx5_sq_umr_op", dv->sq.wqe_cnt, RTE_CACHE_LINE_SIZE);
	qp->rq_wrid = dv->rq.wqe_cnt == 0 ? NULL :
		      rte_zmalloc("pv_mlx5_rq_wrid", dv->rq.wqe_cnt * sizeof(uint64_t),
				  RTE_CACHE_LINE_SIZE);
	if (qp->sq_wrid == NULL || qp->sq_next == NULL || qp->scratch == NULL ||
	    qp->sq_umr_op == NULL ||
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
	qp->sq_room_max = dv->sq.wqe_cnt - max_bb;
	qp->qpn_be = rte_cpu_to_be_32(qpn << 8);
	qp->qpn_cqe = rte_cpu_to_be_32(qpn);
	qp->max_inline = attr->cap.max_inline_data;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->sq_dbrec = &dv->dbrec[MLX5_SND_DBR];
	qp->bf_reg = dv->bf.reg;
	qp->bf_size = dv->bf.size;
	qp->bf_off = 0;
	mlx5_qp_ctrl_w1_init(qp, attr->sq_sig_all);

	qp->rq_buf = dv->rq.buf;
	qp->rq_cnt = dv->rq.wqe_cnt;
	qp->rq_mask = dv->rq.wqe_cnt ? dv->rq.wqe_cnt - 1 : 0;
	qp->rq_stride_shift = dv->rq.wqe_cnt ? rte_log2_u32(dv->rq.stride) : 0;
	qp->rq_slots = dv->rq.wqe_cnt ? dv->rq.stride / sizeof(struct mlx5_wqe_data_seg) : 0;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->rq_dbrec = &dv->dbrec[MLX5_RCV_DBR];
	qp->srq = attr->srq != NULL ? pv_mlx5_srq(attr->srq) : NULL;
	qp->recv_retire = qp->srq != NULL ? pv_mlx5_srq_recv_retire : pv_mlx5_rq_recv_retire;
	qp->tseg = attr->qp_type == PV_QPT_XRC_SEND ? sizeof(struct pv_mlx5_wqe_xrc_seg) : 0;
	pv_mlx5_qp_dp_reset(qp);

	qp->ibqp.qp_num = qpn;
	qp->ibqp.cap = attr->cap;
	qp->ibqp.sq_sig_all = attr->sq_sig_all;
	rte_spinlock_init(&qp->sq_lock);
	rte_spinlock_init(&qp->rq_lock);
	locked = !qp->td_lockless && !qp->ctx->single_threaded;
	if (qp->tseg != 0)
		qp->ibqp.fp_post_send = mlx5_post_send_xrc_fns[locked][qp->bf_size != 0];
	else
		qp->ibqp.fp_post_send =
			mlx5_post_send_fns[locked][qp->bf_size != 0][qp->max_inline >= 16];
	qp->ibqp.fp_post_recv = locked ? mlx5_post_recv_mt : mlx5_post_recv;
	qp->ctx->nb_queues++;
	return 0;
}

static int
mlx5_post_send_none(struct pv_qp *ibqp __rte_unused, struct pv_send_wr *wr,
		    struct pv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return EINVAL;
}

static int
mlx5_post_recv_none(struct pv_qp *ibqp __rte_unused, struct pv_recv_wr *wr,
		    struct pv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EINVAL;
}

void
pv_mlx5_qp_dp_init_tgt(struct pv_mlx5_qp *qp, uint32_t qpn)
{
	qp->qpn = qpn;
	qp->qpn_be = rte_cpu_to_be_32(qpn << 8);
	qp->qpn_cqe = rte_cpu_to_be_32(qpn);
	qp->ibqp.qp_num = qpn;
	qp->ibqp.fp_post_send = mlx5_post_send_none;
	qp->ibqp.fp_post_recv = mlx5_post_recv_none;
	qp->ctx->nb_queues++;
}

void
pv_mlx5_qp_dp_reset(struct pv_mlx5_qp *qp)
{
	if (qp->sq_dbrec == NULL)
		return;		/* an XRC TGT QP: no queues */
	qp->sq_pi = 0;
	qp->sq_ci = 0;
	mlx5_sq_fence_set(qp, false);
	qp->rq_head = 0;
	qp->rq_tail = 0;
	qp->bf_off = 0;
	qp->sq_dbrec[0] = 0;
	qp->rq_dbrec[0] = 0;
}

void
pv_mlx5_qp_dp_fini(struct pv_mlx5_qp *qp)
{
	/* counted once dp_init succeeded, which set the data-path functions */
	if (qp->ibqp.fp_post_send != NULL) {
		qp->ctx->nb_queues--;
		qp->ibqp.fp_post_send = NULL;
	}
	rte_free(qp->sq_wrid);
	rte_free(qp->sq_next);
	rte_free(qp->scratch);
	rte_free(qp->sq_umr_op);
	rte_free(qp->rq_wrid);
	qp->sq_umr_op = NULL;
	qp->sq_wrid = NULL;
	qp->sq_next = NULL;
	qp->scratch = NULL;
	qp->rq_wrid = NULL;
}

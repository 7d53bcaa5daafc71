/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv_create_qp_ex() and the work request API (ibv_wr_post(3)) for every
 * driver: the builders fill pv_send_wr entries of a per-QP array sized at
 * creation (max_send_wr WRs, max_send_sge SGEs and max_inline_data inline
 * bytes each) and pv_wr_complete() hands the whole list to the QP's
 * fp_post_send once, so a batch costs the driver one post call and one
 * doorbell. A builder that cannot build records the batch's first error
 * (as rdma-core's mlx5 and rxe providers do) and complete returns it.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "verbs_priv.h"

/** A QP's batch: what pv_wr_start() .. pv_wr_complete() build. */
struct pv_verbs_wr_batch {
	struct pv_send_wr *wr;		/* max_wr entries; [0, nwr) built, linked */
	struct pv_sge *sge;		/* sge_per_wr entries per WR */
	uint8_t *inl;			/* max_inline bytes per WR */
	uint64_t send_ops_flags;	/* enum pv_qp_create_send_ops_flags */
	uint32_t max_wr;
	uint32_t sge_per_wr;
	uint32_t max_inline;
	uint32_t nwr;
	int err;			/* first error of the batch, 0 if none */
	int locking;			/* 0: the QP is in a thread domain */
	pthread_mutex_t lock;		/* held from start to complete/abort */
};

#define VERBS_SEND_OPS_KNOWN (PV_QP_EX_WITH_RDMA_WRITE | PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			      PV_QP_EX_WITH_SEND | PV_QP_EX_WITH_SEND_WITH_IMM | \
			      PV_QP_EX_WITH_RDMA_READ | PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			      PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | PV_QP_EX_WITH_LOCAL_INV | \
			      PV_QP_EX_WITH_BIND_MW | PV_QP_EX_WITH_SEND_WITH_INV | \
			      PV_QP_EX_WITH_TSO | PV_QP_EX_WITH_ATOMIC_WRITE)

#define VERBS_QP_INIT_ATTR_KNOWN (PV_QP_INIT_ATTR_PD | PV_QP_INIT_ATTR_XRCD | \
				  PV_QP_INIT_ATTR_CREATE_FLAGS | \
				  PV_QP_INIT_ATTR_MAX_TSO_HEADER | PV_QP_INIT_ATTR_IND_TABLE | \
				  PV_QP_INIT_ATTR_RX_HASH | PV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* Operations of each QP type (ibv_wr_post(3)'s table), TSO aside. */
#define VERBS_SEND_OPS_UD (PV_QP_EX_WITH_SEND | PV_QP_EX_WITH_SEND_WITH_IMM)
#define VERBS_SEND_OPS_UC (VERBS_SEND_OPS_UD | PV_QP_EX_WITH_RDMA_WRITE | \
			   PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | PV_QP_EX_WITH_LOCAL_INV | \
			   PV_QP_EX_WITH_BIND_MW | PV_QP_EX_WITH_SEND_WITH_INV)
#define VERBS_SEND_OPS_RC (VERBS_SEND_OPS_UC | PV_QP_EX_WITH_RDMA_READ | \
			   PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			   PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static inline struct pv_qp_ex *
verbs_qpx(struct pv_qp *qp)
{
	return container_of(qp, struct pv_qp_ex, qp_base);
}

/* ---------------------------------------------------------------------- */
/* Builders and setters                                                    */
/* ---------------------------------------------------------------------- */

static inline void
verbs_wr_fail(struct pv_verbs_wr_batch *b, int err)
{
	if (b->err == 0)
		b->err = err;
}

/* Start the next WR of the batch, or NULL after recording why not. */
static inline struct pv_send_wr *
verbs_wr_new(struct pv_qp_ex *qpx, enum pv_wr_opcode opcode, uint64_t op_flag)
{
	struct pv_verbs_wr_batch *b = qpx->wr_batch;
	struct pv_send_wr *wr;

	if (unlikely(b == NULL))
		return NULL;	/* complete says EOPNOTSUPP */
	if (unlikely(b->err != 0))
		return NULL;
	if (unlikely(!(b->send_ops_flags & op_flag))) {
		verbs_wr_fail(b, EINVAL);	/* not requested at creation */
		return NULL;
	}
	if (unlikely(b->nwr == b->max_wr)) {
		verbs_wr_fail(b, ENOMEM);
		return NULL;
	}
	wr = &b->wr[b->nwr];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = qpx->wr_id;
	wr->opcode = opcode;
	wr->send_flags = qpx->wr_flags;
	if (b->nwr != 0)
		b->wr[b->nwr - 1].next = wr;
	b->nwr++;
	return wr;
}

/* The WR the setters apply to, or NULL after recording why not. */
static inline struct pv_send_wr *
verbs_wr_last(struct pv_qp_ex *qpx)
{
	struct pv_verbs_wr_batch *b = qpx->wr_batch;

	if (unlikely(b == NULL || b->err != 0))
		return NULL;
	if (unlikely(b->nwr == 0)) {
		verbs_wr_fail(b, EINVAL);	/* a setter before any builder */
		return NULL;
	}
	return &b->wr[b->nwr - 1];
}

static void
verbs_wr_atomic_cmp_swp(struct pv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			uint64_t compare, uint64_t swap)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_ATOMIC_CMP_AND_SWP,
					     PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);

	if (wr == NULL)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare;
	wr->wr.atomic.swap = swap;
}

static void
verbs_wr_atomic_fetch_add(struct pv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			  uint64_t add)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_ATOMIC_FETCH_AND_ADD,
					     PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);

	if (wr == NULL)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = add;
}

static void
verbs_wr_bind_mw(struct pv_qp_ex *qpx, struct pv_mw *mw, uint32_t rkey,
		 const struct pv_mw_bind_info *bind_info)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_BIND_MW, PV_QP_EX_WITH_BIND_MW);

	if (wr == NULL)
		return;
	if (unlikely(mw == NULL || bind_info == NULL)) {
		verbs_wr_fail(qpx->wr_batch, EINVAL);
		return;
	}
	/* the bind's own rules (type 2, MR, range, access) are the driver's,
	 * checked when it executes, as for a PV_WR_BIND_MW of pv_post_send() */
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void
verbs_wr_local_inv(struct pv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_LOCAL_INV, PV_QP_EX_WITH_LOCAL_INV);

	if (wr != NULL)
		wr->invalidate_rkey = invalidate_rkey;
}

/* RDMA READ / WRITE / WRITE_WITH_IMM: the remote half of the WR. */
static inline void
verbs_wr_rdma(struct pv_qp_ex *qpx, enum pv_wr_opcode opcode, uint64_t op_flag, uint32_t rkey,
	      uint64_t remote_addr, pv_be32 imm_data)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, opcode, op_flag);

	if (wr == NULL)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void
verbs_wr_rdma_read(struct pv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	verbs_wr_rdma(qpx, PV_WR_RDMA_READ, PV_QP_EX_WITH_RDMA_READ, rkey, remote_addr, 0);
}

static void
verbs_wr_rdma_write(struct pv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	verbs_wr_rdma(qpx, PV_WR_RDMA_WRITE, PV_QP_EX_WITH_RDMA_WRITE, rkey, remote_addr, 0);
}

static void
verbs_wr_rdma_write_imm(struct pv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			pv_be32 imm_data)
{
	verbs_wr_rdma(qpx, PV_WR_RDMA_WRITE_WITH_IMM, PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, rkey,
		      remote_addr, imm_data);
}

static void
verbs_wr_send(struct pv_qp_ex *qpx)
{
	verbs_wr_new(qpx, PV_WR_SEND, PV_QP_EX_WITH_SEND);
}

static void
verbs_wr_send_imm(struct pv_qp_ex *qpx, pv_be32 imm_data)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_SEND_WITH_IMM,
					     PV_QP_EX_WITH_SEND_WITH_IMM);

	if (wr != NULL)
		wr->imm_data = imm_data;
}

static void
verbs_wr_send_inv(struct pv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct pv_send_wr *wr = verbs_wr_new(qpx, PV_WR_SEND_WITH_INV,
					     PV_QP_EX_WITH_SEND_WITH_INV);

	if (wr != NULL)
		wr->invalidate_rkey = invalidate_rkey;
}

static void
verbs_wr_send_tso(struct pv_qp_ex *qpx, void *hdr __rte_unused, uint16_t hdr_sz __rte_unused,
		  uint16_t mss __rte_unused)
{
	/* creation refuses TSO: this records EINVAL (or EOPNOTSUPP, no batch) */
	verbs_wr_new(qpx, PV_WR_TSO, PV_QP_EX_WITH_TSO);
}

static void
verbs_wr_atomic_write(struct pv_qp_ex *qpx, uint32_t rkey __rte_unused,
		      uint64_t remote_addr __rte_unused, const void *atomic_wr __rte_unused)
{
	/* creation refuses ATOMIC_WRITE (no driver executes it) */
	verbs_wr_new(qpx, PV_WR_ATOMIC_WRITE, PV_QP_EX_WITH_ATOMIC_WRITE);
}

static void
verbs_wr_set_ud_addr(struct pv_qp_ex *qpx, struct pv_ah *ah, uint32_t remote_qpn,
		     uint32_t remote_qkey)
{
	struct pv_send_wr *wr = verbs_wr_last(qpx);

	if (wr == NULL)
		return;
	if (unlikely(qpx->qp_base.qp_type != PV_QPT_UD || ah == NULL)) {
		verbs_wr_fail(qpx->wr_batch, EINVAL);
		return;
	}
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void
verbs_wr_set_xrc_srqn(struct pv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct pv_send_wr *wr = verbs_wr_last(qpx);

	if (wr == NULL)
		return;
	if (unlikely(qpx->qp_base.qp_type != PV_QPT_XRC_SEND)) {
		verbs_wr_fail(qpx->wr_batch, EINVAL);
		return;
	}
	wr->qp_type.xrc.remote_srqn = remote_srqn;
}

/* Index of @p wr in its batch. */
static inline uint32_t
verbs_wr_index(const struct pv_verbs_wr_batch *b, const struct pv_send_wr *wr)
{
	return (uint32_t)(wr - b->wr);
}

static void
verbs_wr_set_inline_data_list(struct pv_qp_ex *qpx, size_t num_buf,
			      const struct pv_data_buf *buf_list)
{
	struct pv_send_wr *wr = verbs_wr_last(qpx);
	struct pv_verbs_wr_batch *b = qpx->wr_batch;
	struct pv_sge *sge;
	uint8_t *dst;
	size_t i, len = 0;

	if (wr == NULL)
		return;
	for (i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (unlikely(len > b->max_inline)) {
		verbs_wr_fail(b, EINVAL);
		return;
	}
	dst = b->inl + (size_t)verbs_wr_index(b, wr) * b->max_inline;
	for (i = 0, len = 0; i < num_buf; i++) {
		memcpy(dst + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	/* one SGE over the copy; PV_SEND_INLINE makes the driver ignore lkey */
	sge = &b->sge[(size_t)verbs_wr_index(b, wr) * b->sge_per_wr];
	sge->addr = (uintptr_t)dst;
	sge->length = (uint32_t)len;
	sge->lkey = 0;
	wr->sg_list = sge;
	wr->num_sge = len != 0;
	wr->send_flags |= PV_SEND_INLINE;
}

static void
verbs_wr_set_inline_data(struct pv_qp_ex *qpx, void *addr, size_t length)
{
	const struct pv_data_buf buf = { .addr = addr, .length = length };

	verbs_wr_set_inline_data_list(qpx, 1, &buf);
}

static void
verbs_wr_set_sge_list(struct pv_qp_ex *qpx, size_t num_sge, const struct pv_sge *sg_list)
{
	struct pv_send_wr *wr = verbs_wr_last(qpx);
	struct pv_verbs_wr_batch *b = qpx->wr_batch;
	struct pv_sge *sge;

	if (wr == NULL)
		return;
	if (unlikely(num_sge > qpx->qp_base.cap.max_send_sge)) {
		verbs_wr_fail(b, EINVAL);
		return;
	}
	sge = &b->sge[(size_t)verbs_wr_index(b, wr) * b->sge_per_wr];
	if (num_sge != 0)
		memcpy(sge, sg_list, num_sge * sizeof(*sge));
	wr->sg_list = sge;
	wr->num_sge = (int)num_sge;
	wr->send_flags &= ~(unsigned int)PV_SEND_INLINE;
}

static void
verbs_wr_set_sge(struct pv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	const struct pv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	verbs_wr_set_sge_list(qpx, 1, &sge);
}

/* ---------------------------------------------------------------------- */
/* The critical region                                                     */
/* ---------------------------------------------------------------------- */

static void
verbs_wr_start(struct pv_qp_ex *qpx)
{
	struct pv_verbs_wr_batch *b = qpx->wr_batch;

	if (b == NULL)
		return;
	if (b->locking)
		pthread_mutex_lock(&b->lock);
	b->nwr = 0;
	b->err = 0;
}

/* Close the batch: forget its WRs and let the next start in. */
static inline void
verbs_wr_close(struct pv_verbs_wr_batch *b)
{
	b->nwr = 0;
	b->err = 0;
	if (b->locking)
		pthread_mutex_unlock(&b->lock);
}

/* Setters a UD WR cannot do without; 0 or EINVAL. */
static int
verbs_wr_batch_check(const struct pv_qp *qp, const struct pv_verbs_wr_batch *b)
{
	uint32_t i;

	if (qp->qp_type != PV_QPT_UD)
		return 0;
	for (i = 0; i < b->nwr; i++)
		if (b->wr[i].wr.ud.ah == NULL)
			return EINVAL;	/* pv_wr_set_ud_addr() missing */
	return 0;
}

static int
verbs_wr_complete(struct pv_qp_ex *qpx)
{
	struct pv_verbs_wr_batch *b = qpx->wr_batch;
	struct pv_qp *qp = &qpx->qp_base;
	struct pv_send_wr *bad_wr = NULL;
	int ret;

	if (b == NULL)
		return EOPNOTSUPP;
	ret = b->err;
	if (ret == 0 && b->nwr != 0) {
		ret = verbs_wr_batch_check(qp, b);
		/* the whole batch in one post: one doorbell */
		if (ret == 0)
			ret = qp->fp_post_send(qp, b->wr, &bad_wr);
	}
	verbs_wr_close(b);
	return ret;
}

static void
verbs_wr_abort(struct pv_qp_ex *qpx)
{
	if (qpx->wr_batch != NULL)
		verbs_wr_close(qpx->wr_batch);
}

void
pv_verbs_qp_ex_init(struct pv_qp *qp)
{
	struct pv_qp_ex *qpx = verbs_qpx(qp);

	qpx->comp_mask = 0;
	qpx->wr_id = 0;
	qpx->wr_flags = 0;
	qpx->wr_atomic_cmp_swp = verbs_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = verbs_wr_atomic_fetch_add;
	qpx->wr_bind_mw = verbs_wr_bind_mw;
	qpx->wr_local_inv = verbs_wr_local_inv;
	qpx->wr_rdma_read = verbs_wr_rdma_read;
	qpx->wr_rdma_write = verbs_wr_rdma_write;
	qpx->wr_rdma_write_imm = verbs_wr_rdma_write_imm;
	qpx->wr_send = verbs_wr_send;
	qpx->wr_send_imm = verbs_wr_send_imm;
	qpx->wr_send_inv = verbs_wr_send_inv;
	qpx->wr_send_tso = verbs_wr_send_tso;
	qpx->wr_set_ud_addr = verbs_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = verbs_wr_set_xrc_srqn;
	qpx->wr_set_inline_data = verbs_wr_set_inline_data;
	qpx->wr_set_inline_data_list = verbs_wr_set_inline_data_list;
	qpx->wr_set_sge = verbs_wr_set_sge;
	qpx->wr_set_sge_list = verbs_wr_set_sge_list;
	qpx->wr_start = verbs_wr_start;
	qpx->wr_complete = verbs_wr_complete;
	qpx->wr_abort = verbs_wr_abort;
	qpx->wr_atomic_write = verbs_wr_atomic_write;
	qpx->wr_batch = NULL;
}

void
pv_verbs_wr_batch_free(struct pv_verbs_wr_batch *b)
{
	if (b == NULL)
		return;
	pthread_mutex_destroy(&b->lock);
	free(b->inl);
	free(b->sge);
	free(b->wr);
	free(b);
}

/* The batch of a QP created with send_ops_flags; NULL when out of memory. */
static struct pv_verbs_wr_batch *
verbs_wr_batch_alloc(const struct pv_qp *qp, uint64_t send_ops_flags)
{
	struct pv_verbs_wr_batch *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	pthread_mutex_init(&b->lock, NULL);
	b->send_ops_flags = send_ops_flags;
	b->max_wr = RTE_MAX(qp->cap.max_send_wr, 1u);
	b->sge_per_wr = RTE_MAX(qp->cap.max_send_sge, 1u);
	b->max_inline = qp->cap.max_inline_data;
	b->locking = qp->pd == NULL || pv_pd_td(qp->pd) == NULL;
	b->wr = calloc(b->max_wr, sizeof(*b->wr));
	b->sge = calloc((size_t)b->max_wr * b->sge_per_wr, sizeof(*b->sge));
	if (b->max_inline != 0)
		b->inl = calloc(b->max_wr, b->max_inline);
	if (b->wr == NULL || b->sge == NULL || (b->max_inline != 0 && b->inl == NULL)) {
		pv_verbs_wr_batch_free(b);
		return NULL;
	}
	return b;
}

struct pv_qp_ex *
pv_qp_to_qp_ex(struct pv_qp *qp)
{
	struct pv_qp_ex *qpx;

	if (qp == NULL)
		return verbs_err_ptr(EINVAL);
	qpx = verbs_qpx(qp);
	/* libibverbs: only a QP created with send_ops_flags has the API */
	if (qpx->wr_batch == NULL)
		return verbs_err_ptr(EOPNOTSUPP);
	return qpx;
}

/* ---------------------------------------------------------------------- */
/* Creation                                                                */
/* ---------------------------------------------------------------------- */

static int
verbs_qp_type_is_xrc(enum pv_qp_type type)
{
	return type == PV_QPT_XRC_SEND || type == PV_QPT_XRC_RECV;
}

struct pv_qp *
pv_verbs_default_create_qp_ex(struct pv_context *ctx,
			      struct pv_qp_init_attr_ex *x)
{
	struct pv_qp_init_attr a;
	struct pv_qp *qp;

	if (verbs_qp_type_is_xrc(x->qp_type) || (x->comp_mask & ~(PV_QP_INIT_ATTR_PD |
							       PV_QP_INIT_ATTR_SEND_OPS_FLAGS)))
		return verbs_err_ptr(EOPNOTSUPP);
	pv_qp_init_attr_from_ex(&a, x);
	qp = verbs_ops(ctx)->create_qp(x->pd, &a);
	if (qp != NULL)
		x->cap = a.cap;	/* what the driver granted, if it said there */
	return qp;
}

/* send_ops_flags against the QP type and the device; 0, EINVAL or EOPNOTSUPP. */
static int
verbs_send_ops_check(struct pv_context *ctx, const struct pv_qp_init_attr_ex *x)
{
	const struct pv_device_attr *dattr = verbs_dev_attr(ctx);
	uint64_t ops = x->send_ops_flags, allowed;

	if (ops & ~(uint64_t)VERBS_SEND_OPS_KNOWN)
		return EINVAL;
	switch (x->qp_type) {
	case PV_QPT_RC:
	case PV_QPT_XRC_SEND:
		allowed = VERBS_SEND_OPS_RC;
		break;
	case PV_QPT_UC:
		allowed = VERBS_SEND_OPS_UC;
		break;
	case PV_QPT_UD:
		allowed = VERBS_SEND_OPS_UD;
		break;
	case PV_QPT_RAW_PACKET:
		allowed = PV_QP_EX_WITH_SEND;
		break;
	default:
		allowed = 0;
		break;
	}
	if (dattr->atomic_cap == PV_ATOMIC_NONE)
		allowed &= ~(uint64_t)(PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				       PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	/* invalidation: of fast-registered MRs or of memory windows */
	if (!(dattr->device_cap_flags & (PV_DEVICE_MEM_MGT_EXTENSIONS | PV_DEVICE_MEM_WINDOW)))
		allowed &= ~(uint64_t)(PV_QP_EX_WITH_LOCAL_INV | PV_QP_EX_WITH_SEND_WITH_INV);
	/* a bind WR binds a type 2 window */
	if (!(dattr->device_cap_flags & PV_DEVICE_MEM_WINDOW) ||
	    !(dattr->device_cap_flags & (PV_DEVICE_MEM_WINDOW_TYPE_2A |
					 PV_DEVICE_MEM_WINDOW_TYPE_2B)))
		allowed &= ~(uint64_t)PV_QP_EX_WITH_BIND_MW;
	/* TSO and ATOMIC_WRITE: no driver executes them, never allowed */
	if (ops & ~allowed)
		return EOPNOTSUPP;
	return 0;
}

/* ibv_create_qp_ex(3) rules before the driver; 0 or a positive errno. */
static int
verbs_qp_init_attr_ex_check(struct pv_context *ctx, const struct pv_qp_init_attr_ex *x)
{
	struct pv_qp_init_attr a;
	int ret;

	if (x->comp_mask & ~(uint32_t)VERBS_QP_INIT_ATTR_KNOWN) {
		VERBS_LOG(ERR, "device %s: qp comp_mask 0x%x has unknown bits", ctx->device->name,
			  x->comp_mask);
		return EINVAL;
	}
	if (x->qp_type == PV_QPT_XRC_RECV) {
		if (!(x->comp_mask & PV_QP_INIT_ATTR_XRCD) || x->xrcd == NULL)
			return EINVAL;
	} else if (!(x->comp_mask & PV_QP_INIT_ATTR_PD) || x->pd == NULL ||
		   x->pd->context != ctx) {
		VERBS_LOG(ERR, "device %s: qp needs a PD of the context (PV_QP_INIT_ATTR_PD)",
			  ctx->device->name);
		return EINVAL;
	}
	if (x->comp_mask & PV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = verbs_send_ops_check(ctx, x);
		if (ret != 0) {
			VERBS_LOG(ERR, "device %s: qp type %d cannot post send_ops_flags 0x%" PRIx64,
				  ctx->device->name, x->qp_type, x->send_ops_flags);
			return ret;
		}
	}
	/* XRC: an INI QP sends (a send CQ of this context, no receive side),
	 * a TGT QP only receives, through the SRQs of its domain */
	if (x->qp_type == PV_QPT_XRC_SEND &&
	    (x->send_cq == NULL || x->send_cq->context != ctx || x->srq != NULL)) {
		VERBS_LOG(ERR, "device %s: an XRC INI QP needs a send CQ of the context, "
			  "no SRQ", ctx->device->name);
		return EINVAL;
	}
	if (x->qp_type == PV_QPT_XRC_RECV && x->xrcd->context != ctx)
		return EINVAL;
	if (verbs_qp_type_is_xrc(x->qp_type))
		return 0;	/* the driver's create_qp_ex checks the caps */
	pv_qp_init_attr_from_ex(&a, x);
	return pv_verbs_qp_init_attr_check(x->pd, &a);
}

struct pv_qp *
pv_create_qp_ex(struct pv_context *context, struct pv_qp_init_attr_ex *x)
{
	struct pv_verbs_wr_batch *batch;
	struct pv_qp_init_attr a;
	struct pv_qp *qp;
	int ret;

	if (context == NULL || x == NULL)
		return verbs_err_ptr(EINVAL);
	ret = verbs_qp_init_attr_ex_check(context, x);
	if (ret != 0)
		return verbs_err_ptr(ret);
	qp = verbs_ops(context)->create_qp_ex(context, x);
	if (qp == NULL)
		return NULL;
	pv_qp_init_attr_from_ex(&a, x);
	/* an XRC TGT QP has no PD and no CQs: it belongs to its XRC domain */
	if (x->qp_type == PV_QPT_XRC_RECV) {
		a.send_cq = a.recv_cq = NULL;
		a.srq = NULL;
		pv_verbs_qp_init(qp, context, NULL, &a, x->xrcd);
	} else {
		if (x->qp_type == PV_QPT_XRC_SEND) {
			a.recv_cq = NULL;
			a.srq = NULL;
		}
		pv_verbs_qp_init(qp, context, x->pd, &a, NULL);
	}
	x->cap = a.cap;
	if (x->comp_mask & PV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		batch = verbs_wr_batch_alloc(qp, x->send_ops_flags);
		if (batch == NULL) {
			pv_destroy_qp(qp);
			return verbs_err_ptr(ENOMEM);
		}
		verbs_qpx(qp)->wr_batch = batch;
	}
	return qp;
}

int
pv_query_qp_data_in_order(struct pv_qp *qp __rte_unused, enum pv_wr_opcode op __rte_unused,
			  uint32_t flags __rte_unused)
{
	/* no driver states its placement order yet (no op for it): 0, "not
	 * guaranteed", is the answer that is never wrong */
	return 0;
}

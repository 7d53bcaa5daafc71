/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Extended CQs (ibv_create_cq_ex(3)) for every driver: a classic CQ whose
 * pv_cq_ex part lib/verbs fills. pv_start_poll() fetches a burst of
 * completions with the CQ's fp_poll_cq (one progress pass for up to
 * VERBS_CQ_POLL_BURST completions) and the read functions read the current
 * one of that burst.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "verbs_priv.h"

#define VERBS_CQ_POLL_BURST 16

/** Completions fetched from the driver and not yet consumed. */
struct pv_verbs_cq_poll {
	uint32_t cur;		/* index of the current completion */
	uint32_t n;		/* completions in wc[] */
	int valid;		/* wc[cur] is current (start/next returned 0) */
	struct pv_wc wc[VERBS_CQ_POLL_BURST];
};

#define VERBS_CQ_WC_FLAGS_SUP PV_WC_STANDARD_FLAGS
#define VERBS_CQ_INIT_ATTR_KNOWN (PV_CQ_INIT_ATTR_MASK_FLAGS | PV_CQ_INIT_ATTR_MASK_PD)
#define VERBS_CQ_FLAGS_SUP PV_CREATE_CQ_ATTR_SINGLE_THREADED

static inline const struct pv_wc *
verbs_cq_wc(struct pv_cq_ex *cq)
{
	return &cq->poll->wc[cq->poll->cur];
}

/* Make wc[cur] current, fetching a burst when none is left; 0 or ENOENT. */
static inline int
verbs_cq_current(struct pv_cq_ex *cq)
{
	struct pv_verbs_cq_poll *p = cq->poll;
	int n;

	if (p->cur >= p->n) {
		n = cq->cq_base.fp_poll_cq(&cq->cq_base, VERBS_CQ_POLL_BURST, p->wc);
		p->cur = 0;
		p->n = n > 0 ? (uint32_t)n : 0;
		if (p->n == 0) {
			p->valid = 0;
			return ENOENT;
		}
	}
	p->valid = 1;
	cq->status = p->wc[p->cur].status;
	cq->wr_id = p->wc[p->cur].wr_id;
	return 0;
}

static int
verbs_cq_start_poll(struct pv_cq_ex *cq, struct pv_poll_cq_attr *attr)
{
	if (unlikely(attr != NULL && attr->comp_mask != 0))
		return EINVAL;
	return verbs_cq_current(cq);
}

static int
verbs_cq_next_poll(struct pv_cq_ex *cq)
{
	if (cq->poll->valid)
		cq->poll->cur++;
	return verbs_cq_current(cq);
}

static void
verbs_cq_end_poll(struct pv_cq_ex *cq)
{
	/* the current completion is consumed; the rest of the burst waits */
	if (cq->poll->valid)
		cq->poll->cur++;
	cq->poll->valid = 0;
}

static enum pv_wc_opcode
verbs_cq_read_opcode(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->opcode;
}

static uint32_t
verbs_cq_read_vendor_err(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->vendor_err;
}

static uint32_t
verbs_cq_read_byte_len(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->byte_len;
}

static pv_be32
verbs_cq_read_imm_data(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->imm_data;
}

static uint32_t
verbs_cq_read_qp_num(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->qp_num;
}

static uint32_t
verbs_cq_read_src_qp(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->src_qp;
}

static unsigned int
verbs_cq_read_wc_flags(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->wc_flags;
}

static uint32_t
verbs_cq_read_slid(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->slid;
}

static uint8_t
verbs_cq_read_sl(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->sl;
}

static uint8_t
verbs_cq_read_dlid_path_bits(struct pv_cq_ex *cq)
{
	return verbs_cq_wc(cq)->dlid_path_bits;
}

/* Fields creation refuses to provide (wc_flags beyond the standard ones). */
static uint64_t
verbs_cq_read_u64_none(struct pv_cq_ex *cq __rte_unused)
{
	return 0;
}

static uint16_t
verbs_cq_read_cvlan(struct pv_cq_ex *cq __rte_unused)
{
	return 0;
}

static uint32_t
verbs_cq_read_flow_tag(struct pv_cq_ex *cq __rte_unused)
{
	return 0;
}

static void
verbs_cq_read_tm_info(struct pv_cq_ex *cq __rte_unused, struct pv_wc_tm_info *tm_info)
{
	memset(tm_info, 0, sizeof(*tm_info));
}

/* ibv_create_cq_ex(3) rules beyond pv_create_cq()'s; 0 or a positive errno. */
static int
verbs_cq_init_attr_ex_check(struct pv_context *ctx, const struct pv_cq_init_attr_ex *a)
{
	if (a->comp_mask & ~(uint32_t)VERBS_CQ_INIT_ATTR_KNOWN) {
		VERBS_LOG(ERR, "device %s: cq comp_mask 0x%x has unknown bits", ctx->device->name,
			  a->comp_mask);
		return EINVAL;
	}
	if (a->wc_flags & ~(uint64_t)VERBS_CQ_WC_FLAGS_SUP) {
		VERBS_LOG(ERR, "device %s: cq wc_flags 0x%" PRIx64 ": only the standard fields "
			  "(no timestamps, cvlan, flow tag, tm info)", ctx->device->name,
			  a->wc_flags);
		return EOPNOTSUPP;
	}
	if ((a->comp_mask & PV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (a->flags & ~(uint32_t)VERBS_CQ_FLAGS_SUP)) {
		VERBS_LOG(ERR, "device %s: cq flags 0x%x not supported", ctx->device->name,
			  a->flags);
		return EOPNOTSUPP;
	}
	if ((a->comp_mask & PV_CQ_INIT_ATTR_MASK_PD) &&
	    (a->parent_domain == NULL || a->parent_domain->context != ctx ||
	     a->parent_domain->pd_base == NULL)) {
		VERBS_LOG(ERR, "device %s: cq parent_domain must be a parent domain of the context",
			  ctx->device->name);
		return EINVAL;
	}
	if (a->cqe > INT32_MAX || a->comp_vector > INT32_MAX)
		return EINVAL;
	return 0;
}

struct pv_cq_ex *
pv_create_cq_ex(struct pv_context *context, struct pv_cq_init_attr_ex *cq_attr)
{
	struct pv_cq_ex *cqx;
	struct pv_cq *cq;
	int ret;

	if (context == NULL || cq_attr == NULL)
		return verbs_err_ptr(EINVAL);
	ret = verbs_cq_init_attr_ex_check(context, cq_attr);
	if (ret != 0)
		return verbs_err_ptr(ret);
	cq = pv_create_cq(context, (int)cq_attr->cqe, cq_attr->cq_context, cq_attr->channel,
			  (int)cq_attr->comp_vector);
	if (cq == NULL)
		return NULL;
	cqx = container_of(cq, struct pv_cq_ex, cq_base);
	cqx->poll = calloc(1, sizeof(*cqx->poll));
	if (cqx->poll == NULL) {
		pv_destroy_cq(cq);
		return verbs_err_ptr(ENOMEM);
	}
	cqx->comp_mask = 0;
	cqx->status = PV_WC_SUCCESS;
	cqx->wr_id = 0;
	cqx->start_poll = verbs_cq_start_poll;
	cqx->next_poll = verbs_cq_next_poll;
	cqx->end_poll = verbs_cq_end_poll;
	cqx->read_opcode = verbs_cq_read_opcode;
	cqx->read_vendor_err = verbs_cq_read_vendor_err;
	cqx->read_byte_len = verbs_cq_read_byte_len;
	cqx->read_imm_data = verbs_cq_read_imm_data;
	cqx->read_qp_num = verbs_cq_read_qp_num;
	cqx->read_src_qp = verbs_cq_read_src_qp;
	cqx->read_wc_flags = verbs_cq_read_wc_flags;
	cqx->read_slid = verbs_cq_read_slid;
	cqx->read_sl = verbs_cq_read_sl;
	cqx->read_dlid_path_bits = verbs_cq_read_dlid_path_bits;
	cqx->read_completion_ts = verbs_cq_read_u64_none;
	cqx->read_cvlan = verbs_cq_read_cvlan;
	cqx->read_flow_tag = verbs_cq_read_flow_tag;
	cqx->read_tm_info = verbs_cq_read_tm_info;
	cqx->read_completion_wallclock_ns = verbs_cq_read_u64_none;
	return cqx;
}

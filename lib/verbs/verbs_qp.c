/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Shared receive queues and queue pairs: generic validation against the
 * device limits and the QP state machine (verbs_qp_state.c), then the
 * driver op, then the common fields.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "verbs_priv.h"

#define VERBS_PSN_MAX 0xffffffu
#define VERBS_QPN_MAX 0xffffffu

struct pv_srq *
pv_create_srq(struct pv_pd *pd, struct pv_srq_init_attr *srq_init_attr)
{
	const struct pv_device_attr *dattr;
	struct pv_context *ctx;
	struct pv_srq *srq;

	if (pd == NULL || srq_init_attr == NULL)
		return verbs_err_ptr(EINVAL);
	ctx = pd->context;
	dattr = verbs_dev_attr(ctx);
	if (srq_init_attr->attr.max_wr == 0 ||
	    srq_init_attr->attr.max_wr > (uint32_t)dattr->max_srq_wr ||
	    srq_init_attr->attr.max_sge > (uint32_t)dattr->max_srq_sge) {
		VERBS_LOG(ERR, "pd %u: srq max_wr %u (1..%d) or max_sge %u (..%d) out of range",
			  pd->handle, srq_init_attr->attr.max_wr, dattr->max_srq_wr,
			  srq_init_attr->attr.max_sge, dattr->max_srq_sge);
		return verbs_err_ptr(EINVAL);
	}
	srq = verbs_ops(ctx)->create_srq(pd, srq_init_attr);
	if (srq == NULL)
		return NULL;
	pv_verbs_srq_fill(srq, pd, srq_init_attr->srq_context, NULL, NULL);
	return srq;
}

void
pv_verbs_srq_fill(struct pv_srq *srq, struct pv_pd *pd, void *srq_context,
		  struct pv_xrcd *xrcd, struct pv_cq *cq)
{
	srq->context = pd->context;
	srq->srq_context = srq_context;
	srq->pd = pd;
	srq->handle = verbs_handle_next(pd->context);
	srq->usecnt = 0;
	srq->lcore_id = rte_lcore_id();
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	srq->events_completed = 0;
	srq->xrcd = xrcd;
	srq->cq = cq;
	verbs_ref_get(&pd->usecnt);
	if (xrcd != NULL)
		verbs_ref_get(&xrcd->usecnt);
	if (cq != NULL)
		verbs_ref_get(&cq->usecnt);
}

int
pv_modify_srq(struct pv_srq *srq, struct pv_srq_attr *srq_attr, int srq_attr_mask)
{
	const struct pv_device_attr *dattr;
	struct pv_srq_attr cur;
	uint32_t max_wr;

	if (srq == NULL || srq_attr == NULL)
		return EINVAL;
	if (srq_attr_mask == 0 || (srq_attr_mask & ~(PV_SRQ_MAX_WR | PV_SRQ_LIMIT)))
		return EINVAL;
	dattr = verbs_dev_attr(srq->context);
	if ((srq_attr_mask & PV_SRQ_MAX_WR) &&
	    (srq_attr->max_wr == 0 || srq_attr->max_wr > (uint32_t)dattr->max_srq_wr))
		return EINVAL;
	if (srq_attr_mask & PV_SRQ_LIMIT) {
		/* the limit must be below the queue size it will apply to */
		if (srq_attr_mask & PV_SRQ_MAX_WR) {
			max_wr = srq_attr->max_wr;
		} else {
			if (verbs_ops(srq->context)->query_srq(srq, &cur) != 0)
				cur.max_wr = (uint32_t)dattr->max_srq_wr;
			max_wr = cur.max_wr;
		}
		if (srq_attr->srq_limit > max_wr)
			return EINVAL;
	}
	return verbs_ops(srq->context)->modify_srq(srq, srq_attr, srq_attr_mask);
}

int
pv_query_srq(struct pv_srq *srq, struct pv_srq_attr *srq_attr)
{
	if (srq == NULL || srq_attr == NULL)
		return EINVAL;
	return verbs_ops(srq->context)->query_srq(srq, srq_attr);
}

int
pv_destroy_srq(struct pv_srq *srq)
{
	struct pv_xrcd *xrcd;
	struct pv_cq *cq;
	struct pv_pd *pd;
	int ret;

	if (srq == NULL)
		return EINVAL;
	if (verbs_ref_read(&srq->usecnt) != 0) {
		VERBS_LOG(ERR, "srq %u: %u QPs still use it", srq->handle,
			  verbs_ref_read(&srq->usecnt));
		return EBUSY;
	}
	pd = srq->pd;
	xrcd = srq->xrcd;
	cq = srq->cq;
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	ret = verbs_ops(srq->context)->destroy_srq(srq);
	if (ret != 0) {
		pthread_mutex_init(&srq->mutex, NULL);
		pthread_cond_init(&srq->cond, NULL);
		return ret;
	}
	verbs_ref_put(&pd->usecnt);
	if (xrcd != NULL)
		verbs_ref_put(&xrcd->usecnt);
	if (cq != NULL)
		verbs_ref_put(&cq->usecnt);
	return 0;
}

static int
verbs_qp_type_known(enum pv_qp_type type)
{
	switch (type) {
	case PV_QPT_RC:
	case PV_QPT_UC:
	case PV_QPT_UD:
	case PV_QPT_RAW_PACKET:
	case PV_QPT_XRC_SEND:
	case PV_QPT_XRC_RECV:
	case PV_QPT_DRIVER:
		return 1;
	default:
		return 0;
	}
}

int
pv_verbs_qp_init_attr_check(struct pv_pd *pd, const struct pv_qp_init_attr *a)
{
	const struct pv_device_attr *dattr = verbs_dev_attr(pd->context);
	uint32_t max_wr = (uint32_t)dattr->max_qp_wr;
	uint32_t max_sge = (uint32_t)dattr->max_sge;

	if (!verbs_qp_type_known(a->qp_type)) {
		VERBS_LOG(ERR, "pd %u: unknown qp_type %d", pd->handle, a->qp_type);
		return EINVAL;
	}
	if (a->send_cq == NULL || a->recv_cq == NULL ||
	    a->send_cq->context != pd->context || a->recv_cq->context != pd->context) {
		VERBS_LOG(ERR, "pd %u: send_cq and recv_cq must be CQs of its context",
			  pd->handle);
		return EINVAL;
	}
	if (a->srq != NULL) {
		if (a->qp_type != PV_QPT_RC && a->qp_type != PV_QPT_UD) {
			VERBS_LOG(ERR, "pd %u: srq needs an RC or UD QP", pd->handle);
			return EINVAL;
		}
		if (a->srq->context != pd->context)
			return EINVAL;
	}
	if (a->cap.max_send_wr > max_wr || a->cap.max_send_sge > max_sge ||
	    a->cap.max_inline_data > dattr->max_inline_data ||
	    (a->srq == NULL && (a->cap.max_recv_wr > max_wr || a->cap.max_recv_sge > max_sge))) {
		VERBS_LOG(ERR, "pd %u: caps wr %u/%u sge %u/%u inline %u beyond wr %u sge %u "
			  "inline %u", pd->handle, a->cap.max_send_wr, a->cap.max_recv_wr,
			  a->cap.max_send_sge, a->cap.max_recv_sge, a->cap.max_inline_data,
			  max_wr, max_sge, dattr->max_inline_data);
		return EINVAL;
	}
	return 0;
}

void
pv_verbs_qp_init(struct pv_qp *qp, struct pv_context *ctx, struct pv_pd *pd,
		 struct pv_qp_init_attr *qp_init_attr, struct pv_xrcd *xrcd)
{
	static const struct pv_qp_cap no_cap;

	qp->context = ctx;
	qp->qp_context = qp_init_attr->qp_context;
	qp->pd = pd;
	qp->send_cq = qp_init_attr->send_cq;
	qp->recv_cq = qp_init_attr->recv_cq;
	qp->srq = qp_init_attr->srq;
	qp->handle = verbs_handle_next(ctx);
	qp->state = PV_QPS_RESET;
	qp->qp_type = qp_init_attr->qp_type;
	qp->lcore_id = rte_lcore_id();
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	qp->events_completed = 0;
	qp->sq_sig_all = qp_init_attr->sq_sig_all;
	/* the granted caps: whichever side the driver filled in */
	if (memcmp(&qp->cap, &no_cap, sizeof(no_cap)) == 0)
		qp->cap = qp_init_attr->cap;
	else
		qp_init_attr->cap = qp->cap;
	/* an XRC TGT QP has no PD and no CQ, an INI QP no receive CQ */
	qp->xrcd = xrcd;
	if (pd != NULL)
		verbs_ref_get(&pd->usecnt);
	if (qp->send_cq != NULL)
		verbs_ref_get(&qp->send_cq->usecnt);
	if (qp->recv_cq != NULL)
		verbs_ref_get(&qp->recv_cq->usecnt);
	if (qp->srq != NULL)
		verbs_ref_get(&qp->srq->usecnt);
	if (xrcd != NULL)
		verbs_ref_get(&xrcd->usecnt);
	pv_verbs_qp_ex_init(qp);
}

/* pv_create_qp(), and with @p gsi the GSI QP: checks, the driver's op, common fields */
static struct pv_qp *
verbs_qp_create(struct pv_pd *pd, struct pv_qp_init_attr *qp_init_attr, int gsi)
{
	const struct pv_driver_ops *ops;
	struct pv_qp *qp;
	int ret;

	if (pd == NULL || qp_init_attr == NULL)
		return verbs_err_ptr(EINVAL);
	if (gsi && qp_init_attr->qp_type != PV_QPT_UD) {
		VERBS_LOG(ERR, "pd %u: the GSI QP is a UD QP, not type %d", pd->handle,
			  qp_init_attr->qp_type);
		return verbs_err_ptr(EINVAL);
	}
	ret = pv_verbs_qp_init_attr_check(pd, qp_init_attr);
	if (ret != 0)
		return verbs_err_ptr(ret);
	ops = verbs_ops(pd->context);
	qp = gsi ? ops->create_gsi_qp(pd, qp_init_attr) : ops->create_qp(pd, qp_init_attr);
	if (qp == NULL)
		return NULL;
	pv_verbs_qp_init(qp, pd->context, pd, qp_init_attr, NULL);
	return qp;
}

struct pv_qp *
pv_create_qp(struct pv_pd *pd, struct pv_qp_init_attr *qp_init_attr)
{
	return verbs_qp_create(pd, qp_init_attr, 0);
}

struct pv_qp *
pv_verbs_create_gsi_qp(struct pv_pd *pd, struct pv_qp_init_attr *qp_init_attr)
{
	return verbs_qp_create(pd, qp_init_attr, 1);
}

#define VERBS_QP_ACCESS_KNOWN (PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | \
			       PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC | \
			       PV_ACCESS_MW_BIND)

/* Range checks of the attributes named by @p mask; 0 or EINVAL. */
static int
verbs_qp_attr_values_check(struct pv_qp *qp, const struct pv_qp_attr *attr, int mask)
{
	struct pv_context *ctx = qp->context;
	const struct pv_device_attr *dattr = verbs_dev_attr(ctx);
	/* a RoCE device may report no P_Key table; index 0 is always valid */
	uint16_t npkeys = RTE_MAX(dattr->max_pkeys, 1);

	if ((mask & PV_QP_PATH_MTU) &&
	    (attr->path_mtu < PV_MTU_256 || attr->path_mtu > PV_MTU_4096))
		return EINVAL;
	if ((mask & PV_QP_TIMEOUT) && attr->timeout > 31)
		return EINVAL;
	if ((mask & PV_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return EINVAL;
	if ((mask & PV_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return EINVAL;
	if ((mask & PV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & PV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > dattr->max_qp_init_rd_atom)
		return EINVAL;
	if ((mask & PV_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > dattr->max_qp_rd_atom)
		return EINVAL;
	if ((mask & PV_QP_PORT) && pv_verbs_port_check(ctx, attr->port_num) != 0)
		return EINVAL;
	if ((mask & PV_QP_PKEY_INDEX) && attr->pkey_index >= npkeys)
		return EINVAL;
	if ((mask & PV_QP_ACCESS_FLAGS) && (attr->qp_access_flags & ~VERBS_QP_ACCESS_KNOWN))
		return EINVAL;
	if ((mask & PV_QP_PATH_MIG_STATE) && attr->path_mig_state > PV_MIG_ARMED)
		return EINVAL;
	if ((mask & PV_QP_RQ_PSN) && attr->rq_psn > VERBS_PSN_MAX)
		return EINVAL;
	if ((mask & PV_QP_SQ_PSN) && attr->sq_psn > VERBS_PSN_MAX)
		return EINVAL;
	if ((mask & PV_QP_DEST_QPN) && attr->dest_qp_num > VERBS_QPN_MAX)
		return EINVAL;
	if ((mask & PV_QP_AV) && pv_verbs_ah_attr_check(ctx, &attr->ah_attr) != 0)
		return EINVAL;
	if (mask & PV_QP_ALT_PATH) {
		if (pv_verbs_ah_attr_check(ctx, &attr->alt_ah_attr) != 0 ||
		    pv_verbs_port_check(ctx, attr->alt_port_num) != 0 ||
		    attr->alt_timeout > 31 || attr->alt_pkey_index >= npkeys)
			return EINVAL;
	}
	return 0;
}

int
pv_modify_qp(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask)
{
	enum pv_qp_state cur, next;
	int ret;

	if (qp == NULL || attr == NULL)
		return EINVAL;
	cur = qp->state;
	if ((attr_mask & PV_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		VERBS_LOG(ERR, "qp 0x%x: cur_qp_state %d but the QP is in %d", qp->qp_num,
			  attr->cur_qp_state, cur);
		return EINVAL;
	}
	next = (attr_mask & PV_QP_STATE) ? attr->qp_state : cur;
	if (pv_qp_attr_mask_check(cur, next, qp->qp_type, attr_mask) != 0) {
		VERBS_LOG(ERR, "qp 0x%x: type %d, %d -> %d with attr_mask 0x%x is not allowed",
			  qp->qp_num, qp->qp_type, cur, next, attr_mask);
		return EINVAL;
	}
	if (verbs_qp_attr_values_check(qp, attr, attr_mask) != 0) {
		VERBS_LOG(ERR, "qp 0x%x: attribute out of range (attr_mask 0x%x)", qp->qp_num,
			  attr_mask);
		return EINVAL;
	}
	ret = verbs_ops(qp->context)->modify_qp(qp, attr, attr_mask);
	if (ret != 0)
		return ret;
	if (attr_mask & PV_QP_STATE)
		qp->state = next;
	return 0;
}

int
pv_query_qp(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask,
	    struct pv_qp_init_attr *init_attr)
{
	int ret;

	if (qp == NULL || attr == NULL || init_attr == NULL)
		return EINVAL;
	ret = verbs_ops(qp->context)->query_qp(qp, attr, attr_mask);
	if (ret != 0)
		return ret;
	/* the driver knows best (a fatal error may have moved the QP to ERR) */
	if (attr_mask & PV_QP_STATE)
		qp->state = attr->qp_state;
	/* creation attributes are the same for every driver: the public QP holds them */
	*init_attr = (struct pv_qp_init_attr){
		.qp_context = qp->qp_context,
		.send_cq = qp->send_cq,
		.recv_cq = qp->recv_cq,
		.srq = qp->srq,
		.cap = qp->cap,
		.qp_type = qp->qp_type,
		.sq_sig_all = qp->sq_sig_all,
	};
	return 0;
}

int
pv_destroy_qp(struct pv_qp *qp)
{
	struct pv_verbs_wr_batch *batch;
	struct pv_cq *scq, *rcq;
	struct pv_xrcd *xrcd;
	struct pv_srq *srq;
	struct pv_pd *pd;
	int ret;

	if (qp == NULL)
		return EINVAL;
	batch = container_of(qp, struct pv_qp_ex, qp_base)->wr_batch;
	pd = qp->pd;
	xrcd = qp->xrcd;
	scq = qp->send_cq;
	rcq = qp->recv_cq;
	srq = qp->srq;
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	ret = verbs_ops(qp->context)->destroy_qp(qp);
	if (ret != 0) {
		pthread_mutex_init(&qp->mutex, NULL);
		pthread_cond_init(&qp->cond, NULL);
		return ret;
	}
	pv_verbs_wr_batch_free(batch);
	if (pd != NULL)
		verbs_ref_put(&pd->usecnt);
	if (scq != NULL)
		verbs_ref_put(&scq->usecnt);
	if (rcq != NULL)
		verbs_ref_put(&rcq->usecnt);
	if (srq != NULL)
		verbs_ref_put(&srq->usecnt);
	if (xrcd != NULL)
		verbs_ref_put(&xrcd->usecnt);
	return 0;
}

/* attach/detach_mcast arguments: a UD QP and a multicast GID; 0 or EINVAL. */
static int
verbs_mcast_check(struct pv_qp *qp, const union pv_gid *gid)
{
	if (qp == NULL || gid == NULL)
		return EINVAL;
	if (qp->qp_type != PV_QPT_UD) {
		VERBS_LOG(ERR, "qp 0x%x: multicast needs a UD QP", qp->qp_num);
		return EINVAL;
	}
	if (gid->raw[0] != 0xff)
		return EINVAL;
	return 0;
}

int
pv_attach_mcast(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid)
{
	int ret = verbs_mcast_check(qp, gid);

	if (ret != 0)
		return ret;
	return verbs_ops(qp->context)->attach_mcast(qp, gid, lid);
}

int
pv_detach_mcast(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid)
{
	int ret = verbs_mcast_check(qp, gid);

	if (ret != 0)
		return ret;
	return verbs_ops(qp->context)->detach_mcast(qp, gid, lid);
}

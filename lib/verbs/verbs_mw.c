/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3)) and XRC domains and SRQs
 * (ibv_open_xrcd(3), ibv_create_srq_ex(3), ibv_get_srq_num(3)): generic
 * validation, then the driver op, then the common fields. A type 1 bind is
 * a PV_WR_BIND_MW work request on the QP, as libibverbs' providers post it.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "verbs_priv.h"

struct pv_mw *
pv_alloc_mw(struct pv_pd *pd, enum pv_mw_type type)
{
	struct pv_mw *mw;

	if (pd == NULL || (type != PV_MW_TYPE_1 && type != PV_MW_TYPE_2))
		return verbs_err_ptr(EINVAL);
	mw = verbs_ops(pd->context)->alloc_mw(pd, type);
	if (mw == NULL)
		return NULL;
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->handle = verbs_handle_next(pd->context);
	verbs_ref_get(&pd->usecnt);
	return mw;
}

int
pv_dealloc_mw(struct pv_mw *mw)
{
	struct pv_pd *pd;
	int ret;

	if (mw == NULL)
		return EINVAL;
	pd = mw->pd;
	ret = verbs_ops(mw->context)->dealloc_mw(mw);
	if (ret == 0)
		verbs_ref_put(&pd->usecnt);
	return ret;
}

int
pv_bind_mw(struct pv_qp *qp, struct pv_mw *mw, struct pv_mw_bind *mw_bind)
{
	struct pv_send_wr wr, *bad_wr;
	int ret;

	if (qp == NULL || mw == NULL || mw_bind == NULL)
		return EINVAL;
	if (mw->type != PV_MW_TYPE_1)
		return EINVAL;
	if (mw_bind->bind_info.mr == NULL &&
	    (mw_bind->bind_info.addr != 0 || mw_bind->bind_info.length != 0))
		return EINVAL;
	if (mw_bind->bind_info.mr != NULL && mw_bind->bind_info.mr->pd != mw->pd)
		return EPERM;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = PV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = pv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = pv_post_send(qp, &wr, &bad_wr);
	if (ret == 0)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

#define VERBS_XRCD_ATTR_KNOWN (PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS)

struct pv_xrcd *
pv_open_xrcd(struct pv_context *context, struct pv_xrcd_init_attr *xrcd_init_attr)
{
	struct pv_xrcd *xrcd;

	if (context == NULL || xrcd_init_attr == NULL)
		return verbs_err_ptr(EINVAL);
	if ((xrcd_init_attr->comp_mask & VERBS_XRCD_ATTR_KNOWN) != VERBS_XRCD_ATTR_KNOWN ||
	    (xrcd_init_attr->comp_mask & ~VERBS_XRCD_ATTR_KNOWN) != 0) {
		VERBS_LOG(ERR, "xrcd: comp_mask 0x%x: FD and OFLAGS required, nothing else",
			  xrcd_init_attr->comp_mask);
		return verbs_err_ptr(EINVAL);
	}
	if (xrcd_init_attr->oflags & ~(O_CREAT | O_EXCL))
		return verbs_err_ptr(EINVAL);
	if (xrcd_init_attr->fd != -1) {
		VERBS_LOG(ERR, "xrcd: domains shared through a file are not implemented");
		return verbs_err_ptr(EOPNOTSUPP);
	}
	xrcd = verbs_ops(context)->open_xrcd(context, xrcd_init_attr);
	if (xrcd == NULL)
		return NULL;
	xrcd->context = context;
	xrcd->usecnt = 0;
	verbs_ref_get(&context->usecnt);
	return xrcd;
}

int
pv_close_xrcd(struct pv_xrcd *xrcd)
{
	struct pv_context *ctx;
	int ret;

	if (xrcd == NULL)
		return EINVAL;
	if (verbs_ref_read(&xrcd->usecnt) != 0) {
		VERBS_LOG(ERR, "xrcd: %u SRQs or QPs still use it", verbs_ref_read(&xrcd->usecnt));
		return EBUSY;
	}
	ctx = xrcd->context;
	ret = verbs_ops(ctx)->close_xrcd(xrcd);
	if (ret == 0)
		verbs_ref_put(&ctx->usecnt);
	return ret;
}

#define VERBS_SRQ_ATTR_KNOWN (PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_PD | \
			      PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ | \
			      PV_SRQ_INIT_ATTR_TM)

struct pv_srq *
pv_create_srq_ex(struct pv_context *context, struct pv_srq_init_attr_ex *attr)
{
	const struct pv_device_attr *dattr;
	struct pv_srq_init_attr basic;
	enum pv_srq_type type;
	struct pv_srq *srq;

	if (context == NULL || attr == NULL)
		return verbs_err_ptr(EINVAL);
	if ((attr->comp_mask & ~VERBS_SRQ_ATTR_KNOWN) || !(attr->comp_mask & PV_SRQ_INIT_ATTR_PD) ||
	    attr->pd == NULL || attr->pd->context != context) {
		VERBS_LOG(ERR, "srq_ex: comp_mask 0x%x needs PD (of this context), no unknown bit",
			  attr->comp_mask);
		return verbs_err_ptr(EINVAL);
	}
	type = (attr->comp_mask & PV_SRQ_INIT_ATTR_TYPE) ? attr->srq_type : PV_SRQT_BASIC;
	if (type == PV_SRQT_BASIC) {
		basic.srq_context = attr->srq_context;
		basic.attr = attr->attr;
		srq = pv_create_srq(attr->pd, &basic);
		if (srq != NULL)
			attr->attr = basic.attr;
		return srq;
	}
	if (type == PV_SRQT_TM) {
		VERBS_LOG(ERR, "srq_ex: tag matching SRQs are not implemented");
		return verbs_err_ptr(EOPNOTSUPP);
	}
	if (type != PV_SRQT_XRC)
		return verbs_err_ptr(EINVAL);
	if ((attr->comp_mask & (PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ)) !=
	    (PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ) || attr->xrcd == NULL ||
	    attr->cq == NULL || attr->xrcd->context != context || attr->cq->context != context) {
		VERBS_LOG(ERR, "srq_ex: an XRC SRQ needs an XRCD and a CQ of this context");
		return verbs_err_ptr(EINVAL);
	}
	dattr = verbs_dev_attr(context);
	if (attr->attr.max_wr == 0 || attr->attr.max_wr > (uint32_t)dattr->max_srq_wr ||
	    attr->attr.max_sge > (uint32_t)dattr->max_srq_sge) {
		VERBS_LOG(ERR, "srq_ex: max_wr %u (1..%d) or max_sge %u (..%d) out of range",
			  attr->attr.max_wr, dattr->max_srq_wr, attr->attr.max_sge,
			  dattr->max_srq_sge);
		return verbs_err_ptr(EINVAL);
	}
	srq = verbs_ops(context)->create_srq_ex(context, attr);
	if (srq == NULL)
		return NULL;
	pv_verbs_srq_fill(srq, attr->pd, attr->srq_context, attr->xrcd, attr->cq);
	return srq;
}

int
pv_get_srq_num(struct pv_srq *srq, uint32_t *srq_num)
{
	if (srq == NULL || srq_num == NULL || srq->xrcd == NULL)
		return EINVAL;
	return verbs_ops(srq->context)->get_srq_num(srq, srq_num);
}

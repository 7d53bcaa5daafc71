/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Shared receive queues (IBTA vol. 1 10.2.9): a ring of receive WQEs that
 * the responders of the RC QPs created with it consume in order, one WQE per
 * SEND or RDMA WRITE with immediate (sroce_srq_take() in sroce_priv.h).
 *
 * Ownership: the SRQ, every QP using it and their CQs are driven by the
 * device's thread (softroce has one RX queue per device), so the ring has no
 * lock: pv_post_srq_recv() and the responders run on that thread.
 *
 * Limit (srq_limit): armed by pv_modify_srq(PV_SRQ_LIMIT); when a responder
 * takes a WQE and fewer than srq_limit stay posted, one
 * PV_EVENT_SRQ_LIMIT_REACHED is posted and the limit disarms (query: 0).
 * Resizing (PV_SRQ_MAX_WR) is not implemented: EOPNOTSUPP.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

static int
sroce_srq_post_recv(struct pv_srq *ibsrq, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);
	int ret = 0;

	sroce_owner_check(srq->eng);
	for (; wr != NULL; wr = wr->next) {
		struct sroce_rwqe *r;

		if (unlikely(wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge)) {
			ret = EINVAL;
			break;
		}
		if (unlikely(srq->pi - srq->ci > srq->mask)) {
			ret = ENOMEM;
			break;
		}
		r = sroce_srq_wqe_at(srq, srq->pi);
		ret = sroce_rwqe_fill(srq->dev, srq->pd, r, wr);
		if (unlikely(ret != 0))
			break;
		srq->pi++;
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	return ret;
}

static int
sroce_srq_post_recv_mt(struct pv_srq *ibsrq, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);
	struct sroce_eng *eng;
	int ret;

	/* the first QP attached may move the SRQ to its engine meanwhile */
	for (;;) {
		eng = sroce_srq_eng(srq);
		pv_rtc_spin_lock(&eng->lock);
		if (eng == srq->eng)
			break;
		pv_rtc_spin_unlock(&eng->lock);
	}
	ret = sroce_srq_post_recv(ibsrq, wr, bad_wr);
	pv_rtc_spin_unlock(&eng->lock);
	return ret;
}

static struct sroce_srq *
sroce_srq_create(struct sroce_pd *pd, struct pv_srq_init_attr *attr)
{
	struct sroce_dev *dev = pd->dev;
	struct sroce_srq *srq;
	uint32_t n;

	/* lib/verbs checked max_wr (1..max_srq_wr) and max_sge against query_device */
	if (dev->nb_srq >= SROCE_MAX_SRQ) {
		SROCE_LOG(ERR, "%s: %u SRQs, no more", dev->ibdev.name, dev->nb_srq);
		errno = ENOMEM;
		return NULL;
	}
	srq = rte_zmalloc("sroce_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE);
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	n = rte_align32pow2(attr->attr.max_wr);
	srq->dev = dev;
	srq->eng = &dev->eng[0];
	srq->pd = pd;
	srq->max_sge = RTE_MAX(attr->attr.max_sge, 1u);
	srq->stride = RTE_ALIGN_CEIL((uint32_t)sizeof(struct sroce_rwqe) +
				     srq->max_sge * (uint32_t)sizeof(struct sroce_sge), 16);
	srq->mask = n - 1;
	srq->rq = rte_zmalloc("sroce_srq_rq", (size_t)n * srq->stride, RTE_CACHE_LINE_SIZE);
	if (srq->rq == NULL) {
		rte_free(srq);
		errno = ENOMEM;
		return NULL;
	}
	/* ibv_create_srq(3): srq_limit of the init attributes is ignored (it
	 * arms only through modify_srq); the granted sizes are written back */
	attr->attr.max_wr = n;
	attr->attr.max_sge = srq->max_sge;
	attr->attr.srq_limit = 0;
	srq->ibsrq.fp_post_srq_recv = dev->mt ? sroce_srq_post_recv_mt : sroce_srq_post_recv;
	dev->nb_srq++;
	return srq;
}

struct pv_srq *
pv_sroce_srq_create(struct pv_pd *ibpd, struct pv_srq_init_attr *attr)
{
	struct sroce_srq *srq = sroce_srq_create(sroce_pd(ibpd), attr);

	return srq != NULL ? &srq->ibsrq : NULL;
}

struct pv_srq *
pv_sroce_srq_create_ex(struct pv_context *context, struct pv_srq_init_attr_ex *attr)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	struct pv_srq_init_attr basic;
	struct sroce_srq *srq;
	uint32_t slot;

	/* lib/verbs checked: an XRC SRQ, with an XRCD, a CQ and a PD of ours */
	for (slot = 0; slot < SROCE_MAX_SRQ; slot++)
		if (dev->xsrq[slot] == NULL)
			break;
	if (slot == SROCE_MAX_SRQ) {
		errno = ENOMEM;
		return NULL;
	}
	basic.srq_context = attr->srq_context;
	basic.attr = attr->attr;
	srq = sroce_srq_create(sroce_pd(attr->pd), &basic);
	if (srq == NULL)
		return NULL;
	attr->attr = basic.attr;
	srq->xrcd = container_of(attr->xrcd, struct sroce_xrcd, ibxrcd);
	srq->cq = sroce_cq(attr->cq);
	srq->srqn = SROCE_SRQN_BASE + slot;
	dev->xsrq[slot] = srq;
	return &srq->ibsrq;
}

int
pv_sroce_srq_num(struct pv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);

	if (srq->srqn == 0)
		return EINVAL;
	*srq_num = srq->srqn;
	return 0;
}

struct pv_xrcd *
pv_sroce_xrcd_open(struct pv_context *context, struct pv_xrcd_init_attr *attr __rte_unused)
{
	struct sroce_xrcd *xrcd = calloc(1, sizeof(*xrcd));

	if (xrcd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	xrcd->dev = sroce_dev_of(context);
	return &xrcd->ibxrcd;
}

int
pv_sroce_xrcd_close(struct pv_xrcd *ibxrcd)
{
	/* lib/verbs refused while SRQs or TGT QPs use it */
	free(container_of(ibxrcd, struct sroce_xrcd, ibxrcd));
	return 0;
}

int
pv_sroce_srq_modify(struct pv_srq *ibsrq, struct pv_srq_attr *attr, int attr_mask)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);

	if (attr_mask & PV_SRQ_MAX_WR)
		return EOPNOTSUPP;	/* no PV_DEVICE_SRQ_RESIZE */
	if (attr_mask & PV_SRQ_LIMIT) {
		if (attr->srq_limit > srq->mask + 1)
			return EINVAL;
		srq->limit = attr->srq_limit;
	}
	return 0;
}

int
pv_sroce_srq_query(struct pv_srq *ibsrq, struct pv_srq_attr *attr)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);

	attr->max_wr = srq->mask + 1;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int
pv_sroce_srq_destroy(struct pv_srq *ibsrq)
{
	struct sroce_srq *srq = sroce_srq(ibsrq);

	/* lib/verbs refused while a QP uses it; XRC TGT QPs point at the XRC
	 * SRQ of their last request: they forget it (and a WQE they held) */
	if (srq->srqn != 0) {
		struct sroce_dev *dev = srq->dev;
		uint32_t i;

		dev->xsrq[srq->srqn - SROCE_SRQN_BASE] = NULL;
		for (i = 0; i < dev->max_qp; i++) {
			struct sroce_qp *qp = dev->qp_tbl[i];

			if (qp != NULL && qp->srq == srq && qp->xrcd != NULL) {
				qp->srq = NULL;
				qp->scq = qp->rcq = NULL;
				qp->pd = NULL;
				qp->resp.srq_held = 0;
			}
		}
	}
	srq->dev->nb_srq--;
	rte_free(srq->rq);
	rte_free(srq);
	return 0;
}

void
pv_sroce_srq_limit_fire(struct sroce_srq *srq)
{
	struct pv_async_event ev;

	srq->limit = 0;
	memset(&ev, 0, sizeof(ev));
	ev.element.srq = &srq->ibsrq;
	ev.event_type = PV_EVENT_SRQ_LIMIT_REACHED;
	if (srq->ibsrq.context != NULL && pv_async_event_post(srq->ibsrq.context, &ev) != 0)
		SROCE_DP_LOG(WARNING, "%s: srq %u: async event queue full, limit event lost",
			     srq->dev->ibdev.name, srq->ibsrq.handle);
}

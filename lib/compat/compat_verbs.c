/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Protection domains, memory regions, address handles, completion channels
 * and queues, shared receive queues, XRC domains and queue pairs of
 * libibverbs, and the verbs_context ops its inline verbs call
 * (ibv_query_device_ex, ibv_create_cq_ex, ibv_create_qp_ex ...). Each verb
 * makes the compat object, calls the pv_* verb and copies back what
 * rdma-core's object shows the program.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pv_verbs.h"
#include "pv_verbs_ibv.h"
#include "compat_priv.h"

#define PVC_REL(t, f, base) (offsetof(struct t, f) - offsetof(struct t, base))
#define PVC_SAME_REL(f) \
	(PVC_REL(ibv_device_attr_ex, f, comp_mask) == PVC_REL(pv_device_attr_ex, f, comp_mask))
_Static_assert(PVC_SAME_REL(odp_caps) && PVC_SAME_REL(completion_timestamp_mask) &&
	       PVC_SAME_REL(device_cap_flags_ex) && PVC_SAME_REL(tso_caps) &&
	       PVC_SAME_REL(rss_caps) && PVC_SAME_REL(max_wq_type_rq) &&
	       PVC_SAME_REL(packet_pacing_caps) && PVC_SAME_REL(raw_packet_caps) &&
	       PVC_SAME_REL(tm_caps) && PVC_SAME_REL(cq_mod_caps) && PVC_SAME_REL(max_dm_size) &&
	       PVC_SAME_REL(pci_atomic_caps) && PVC_SAME_REL(xrc_odp_caps) &&
	       PVC_SAME_REL(phys_port_cnt_ex),
	       "ibv_device_attr_ex after orig_attr is pv_device_attr_ex's");
_Static_assert(PV_IBV_SAME(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, PV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	       PV_IBV_SAME(IBV_QP_INIT_ATTR_XRCD, PV_QP_INIT_ATTR_XRCD) &&
	       PV_IBV_SAME(IBV_QP_EX_WITH_ATOMIC_WRITE, PV_QP_EX_WITH_ATOMIC_WRITE) &&
	       PV_IBV_SAME(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
			   PV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) &&
	       PV_IBV_SAME(IBV_SRQ_INIT_ATTR_CQ, PV_SRQ_INIT_ATTR_CQ),
	       "the ex mask bits are libibverbs'");

/* ---- PDs, MRs, AHs ---- */

PVC_EXPORT struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct pvc_pd *pd;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->pv = pv_alloc_pd(pvc_ctx(context)->pv);
	if (pd->pv == NULL) {
		int err = errno;

		free(pd);
		errno = err;
		return NULL;
	}
	pd->ibv.context = context;
	pd->ibv.handle = pd->pv->handle;
	if (pv_compat_map_put(pd->pv, pd) != 0) {
		pv_dealloc_pd(pd->pv);
		free(pd);
		errno = ENOMEM;
		return NULL;
	}
	return &pd->ibv;
}

PVC_EXPORT int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	if (pd == NULL)
		return EINVAL;
	ret = pv_dealloc_pd(pvc_pd(pd)->pv);
	if (ret == 0) {
		pv_compat_map_del(pvc_pd(pd)->pv);
		free(pvc_pd(pd));
	}
	return ret;
}

static struct ibv_mr *
pvc_mr_new(struct ibv_pd *pd, struct pv_mr *pv)
{
	struct pvc_mr *mr;

	if (pv == NULL)
		return NULL;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		pv_dereg_mr(pv);
		errno = ENOMEM;
		return NULL;
	}
	mr->pv = pv;
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = pv->addr;
	mr->ibv.length = pv->length;
	mr->ibv.handle = pv->handle;
	mr->ibv.lkey = pv->lkey;
	mr->ibv.rkey = pv->rkey;
	return &mr->ibv;
}

PVC_EXPORT struct ibv_mr *
(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return pvc_mr_new(pd, pv_reg_mr(pvc_pd(pd)->pv, addr, length, access));
}

PVC_EXPORT struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return pvc_mr_new(pd, pv_reg_mr_iova2(pvc_pd(pd)->pv, addr, length, iova, access));
}

PVC_EXPORT struct ibv_mr *
(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, access);
}

PVC_EXPORT int
ibv_dereg_mr(struct ibv_mr *mr)
{
	struct pvc_mr *m;
	int ret;

	if (mr == NULL)
		return EINVAL;
	m = PVC_CONTAINER(mr, struct pvc_mr, ibv);
	ret = pv_dereg_mr(m->pv);
	if (ret == 0)
		free(m);
	return ret;
}

static struct ibv_ah *
pvc_ah_new(struct ibv_pd *pd, struct pv_ah *pv)
{
	struct pvc_ah *ah;

	if (pv == NULL)
		return NULL;
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		pv_destroy_ah(pv);
		errno = ENOMEM;
		return NULL;
	}
	ah->pv = pv;
	ah->ibv.context = pd->context;
	ah->ibv.pd = pd;
	ah->ibv.handle = pv->handle;
	return &ah->ibv;
}

PVC_EXPORT struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct pv_ah_attr a;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pv_ah_attr_from_ibv(attr, &a);
	return pvc_ah_new(pd, pv_create_ah(pvc_pd(pd)->pv, &a));
}

PVC_EXPORT int
ibv_destroy_ah(struct ibv_ah *ah)
{
	struct pvc_ah *a;
	int ret;

	if (ah == NULL)
		return EINVAL;
	a = PVC_CONTAINER(ah, struct pvc_ah, ibv);
	ret = pv_destroy_ah(a->pv);
	if (ret == 0)
		free(a);
	return ret;
}

_Static_assert(sizeof(struct ibv_grh) == sizeof(struct pv_grh) &&
	       offsetof(struct ibv_grh, dgid) == offsetof(struct pv_grh, dgid),
	       "pv_grh is ibv_grh");

PVC_EXPORT int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
		    struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	struct pv_ah_attr a;
	int ret;

	if (context == NULL || ah_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* struct ibv_wc is struct pv_wc (compat_dp.c) */
	ret = pv_init_ah_from_wc(pvc_ctx(context)->pv, port_num, (struct pv_wc *)wc,
				 (struct pv_grh *)grh, &a);
	if (ret == 0) {
		memset(ah_attr, 0, sizeof(*ah_attr));
		pv_ah_attr_to_ibv(&a, ah_attr);
	}
	return ret;
}

PVC_EXPORT struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a) != 0)
		return NULL;
	return ibv_create_ah(pd, &a);
}

/* ---- completion channels and CQs ---- */

PVC_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct pvc_channel *ch;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->pv = pv_create_comp_channel(pvc_ctx(context)->pv);
	if (ch->pv == NULL) {
		int err = errno;

		free(ch);
		errno = err;
		return NULL;
	}
	ch->ibv.context = context;
	ch->ibv.fd = ch->pv->fd;
	if (pv_compat_map_put(ch->pv, ch) != 0) {
		pv_destroy_comp_channel(ch->pv);
		free(ch);
		errno = ENOMEM;
		return NULL;
	}
	return &ch->ibv;
}

PVC_EXPORT int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct pvc_channel *ch;
	int ret;

	if (channel == NULL)
		return EINVAL;
	ch = PVC_CONTAINER(channel, struct pvc_channel, ibv);
	ret = pv_destroy_comp_channel(ch->pv);
	if (ret == 0) {
		pv_compat_map_del(ch->pv);
		free(ch);
	}
	return ret;
}

static struct pv_comp_channel *
pvc_channel_pv(struct ibv_comp_channel *channel)
{
	return channel == NULL ? NULL : PVC_CONTAINER(channel, struct pvc_channel, ibv)->pv;
}

struct pvc_cq *
pv_compat_cq_new(struct ibv_context *context, void *cq_context, struct ibv_comp_channel *channel)
{
	struct pvc_cq *cq = calloc(1, sizeof(*cq));

	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	cq->ibv.context = context;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	return cq;
}

/* the CQ the pollverbs CQ @p pv stands behind (its cq_context is @p cq) */
void
pv_compat_cq_fill(struct pvc_cq *cq, struct pv_cq *pv)
{
	cq->pv = pv;
	cq->ibv.handle = pv->handle;
	cq->ibv.cqe = pv->cqe;
	/* no entry: the CQ works, only lib/cm's reports of it cannot map back */
	(void)pv_compat_map_put(pv, cq);
}

static void
pvc_cq_free(struct pvc_cq *cq)
{
	pthread_cond_destroy(&cq->ibv.cond);
	pthread_mutex_destroy(&cq->ibv.mutex);
	free(cq);
}

PVC_EXPORT struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct pvc_cq *cq;
	struct pv_cq *pv;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	cq = pv_compat_cq_new(context, cq_context, channel);
	if (cq == NULL)
		return NULL;
	pv = pv_create_cq(pvc_ctx(context)->pv, cqe, cq, pvc_channel_pv(channel), comp_vector);
	if (pv == NULL) {
		int err = errno;

		pvc_cq_free(cq);
		errno = err;
		return NULL;
	}
	pv_compat_cq_fill(cq, pv);
	return (struct ibv_cq *)&cq->ibv;
}

static struct ibv_cq_ex *
pvc_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct pv_cq_init_attr_ex a;
	struct pvc_cq *cq;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	cq = pv_compat_cq_new(context, attr->cq_context, attr->channel);
	if (cq == NULL)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.cqe = attr->cqe;
	a.cq_context = cq;
	a.channel = pvc_channel_pv(attr->channel);
	a.comp_vector = attr->comp_vector;
	a.wc_flags = attr->wc_flags;
	a.comp_mask = attr->comp_mask;
	a.flags = attr->flags;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) && attr->parent_domain != NULL)
		a.parent_domain = pvc_pd(attr->parent_domain)->pv;
	cq->pvx = pv_create_cq_ex(pvc_ctx(context)->pv, &a);
	if (cq->pvx == NULL) {
		int err = errno;

		pvc_cq_free(cq);
		errno = err;
		return NULL;
	}
	pv_compat_cq_fill(cq, pv_cq_ex_to_cq(cq->pvx));
	pv_compat_cq_ex_init(cq);
	return &cq->ibv;
}

PVC_EXPORT int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	int ret;

	if (cq == NULL)
		return EINVAL;
	ret = pv_resize_cq(pvc_cq(cq)->pv, cqe);
	if (ret == 0)
		cq->cqe = pvc_cq(cq)->pv->cqe;
	return ret;
}

PVC_EXPORT int
ibv_destroy_cq(struct ibv_cq *cq)
{
	int ret;

	if (cq == NULL)
		return EINVAL;
	ret = pv_destroy_cq(pvc_cq(cq)->pv);
	if (ret == 0) {
		pv_compat_map_del(pvc_cq(cq)->pv);
		pvc_cq_free(pvc_cq(cq));
	}
	return ret;
}

PVC_EXPORT int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct pv_cq *pcq;
	struct pvc_cq *c;
	void *ctx;
	int ret;

	if (channel == NULL || cq == NULL || cq_context == NULL) {
		errno = EINVAL;
		return -1;
	}
	pv_compat_block_enter();
	ret = pv_get_cq_event(pvc_channel_pv(channel), &pcq, &ctx);
	pv_compat_block_leave();
	if (ret != 0)
		return -1;
	c = ctx;	/* every pollverbs CQ of this library has its compat CQ as context */
	*cq = (struct ibv_cq *)&c->ibv;
	*cq_context = c->ibv.cq_context;
	return 0;
}

PVC_EXPORT void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq != NULL)
		pv_ack_cq_events(pvc_cq(cq)->pv, nevents);
}

/* ---- SRQs and XRC domains ---- */

static struct pvc_srq *
pvc_srq_new(struct ibv_context *context, struct ibv_pd *pd, void *srq_context)
{
	struct pvc_srq *srq = calloc(1, sizeof(*srq));

	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	srq->ibv.context = context;
	srq->ibv.pd = pd;
	srq->ibv.srq_context = srq_context;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	return srq;
}

static void
pvc_srq_free(struct pvc_srq *srq)
{
	int err = errno;

	pthread_cond_destroy(&srq->ibv.cond);
	pthread_mutex_destroy(&srq->ibv.mutex);
	free(srq);
	errno = err;
}

PVC_EXPORT struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct pv_srq_init_attr a;
	struct pvc_srq *srq;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	srq = pvc_srq_new(pd->context, pd, attr->srq_context);
	if (srq == NULL)
		return NULL;
	a.srq_context = srq;
	a.attr.max_wr = attr->attr.max_wr;
	a.attr.max_sge = attr->attr.max_sge;
	a.attr.srq_limit = attr->attr.srq_limit;
	srq->pv = pv_create_srq(pvc_pd(pd)->pv, &a);
	if (srq->pv == NULL) {
		pvc_srq_free(srq);
		return NULL;
	}
	attr->attr.max_wr = a.attr.max_wr;
	attr->attr.max_sge = a.attr.max_sge;
	srq->ibv.handle = srq->pv->handle;
	(void)pv_compat_map_put(srq->pv, srq);
	return &srq->ibv;
}

static struct ibv_srq *
pvc_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *attr)
{
	struct pv_srq_init_attr_ex a;
	struct pvc_srq *srq;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	srq = pvc_srq_new(context, (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL,
			  attr->srq_context);
	if (srq == NULL)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.srq_context = srq;
	a.attr.max_wr = attr->attr.max_wr;
	a.attr.max_sge = attr->attr.max_sge;
	a.attr.srq_limit = attr->attr.srq_limit;
	a.comp_mask = attr->comp_mask;
	a.srq_type = (enum pv_srq_type)attr->srq_type;
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) && attr->pd != NULL)
		a.pd = pvc_pd(attr->pd)->pv;
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) && attr->xrcd != NULL)
		a.xrcd = PVC_CONTAINER(attr->xrcd, struct pvc_xrcd, ibv)->pv;
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ)
		a.cq = pvc_cq_pv(attr->cq);
	a.tm_cap.max_num_tags = attr->tm_cap.max_num_tags;
	a.tm_cap.max_ops = attr->tm_cap.max_ops;
	srq->pv = pv_create_srq_ex(pvc_ctx(context)->pv, &a);
	if (srq->pv == NULL) {
		pvc_srq_free(srq);
		return NULL;
	}
	attr->attr.max_wr = a.attr.max_wr;
	attr->attr.max_sge = a.attr.max_sge;
	srq->ibv.handle = srq->pv->handle;
	(void)pv_compat_map_put(srq->pv, srq);
	return &srq->ibv;
}

static int
pvc_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	if (srq == NULL)
		return EINVAL;
	return pv_get_srq_num(pvc_srq(srq)->pv, srq_num);
}

PVC_EXPORT int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	if (srq == NULL || srq_attr == NULL)
		return EINVAL;
	_Static_assert(sizeof(struct ibv_srq_attr) == sizeof(struct pv_srq_attr),
		       "pv_srq_attr is ibv_srq_attr");
	return pv_modify_srq(pvc_srq(srq)->pv, (struct pv_srq_attr *)srq_attr, srq_attr_mask);
}

PVC_EXPORT int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	if (srq == NULL || srq_attr == NULL)
		return EINVAL;
	return pv_query_srq(pvc_srq(srq)->pv, (struct pv_srq_attr *)srq_attr);
}

PVC_EXPORT int
ibv_destroy_srq(struct ibv_srq *srq)
{
	int ret;

	if (srq == NULL)
		return EINVAL;
	ret = pv_destroy_srq(pvc_srq(srq)->pv);
	if (ret == 0) {
		pv_compat_map_del(pvc_srq(srq)->pv);
		pvc_srq_free(pvc_srq(srq));
	}
	return ret;
}

static struct ibv_xrcd *
pvc_open_xrcd(struct ibv_context *context, struct ibv_xrcd_init_attr *attr)
{
	struct pv_xrcd_init_attr a;
	struct pvc_xrcd *x;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	a.comp_mask = attr->comp_mask;
	/*
	 * A file names a domain shared by the processes that open it; no
	 * pollverbs object outlives or leaves its process, so each process
	 * gets a domain of its own (what one process of ibv_xsrq_pingpong
	 * needs). pv_open_xrcd() itself refuses files (EOPNOTSUPP).
	 */
	a.fd = -1;
	a.oflags = attr->oflags;
	x->pv = pv_open_xrcd(pvc_ctx(context)->pv, &a);
	if (x->pv == NULL) {
		int err = errno;

		free(x);
		errno = err;
		return NULL;
	}
	x->ibv.context = context;
	return &x->ibv;
}

static int
pvc_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct pvc_xrcd *x;
	int ret;

	if (xrcd == NULL)
		return EINVAL;
	x = PVC_CONTAINER(xrcd, struct pvc_xrcd, ibv);
	ret = pv_close_xrcd(x->pv);
	if (ret == 0)
		free(x);
	return ret;
}

/* ---- QPs ---- */

struct pvc_qp *
pv_compat_qp_new(struct ibv_context *context, void *qp_context)
{
	struct pvc_qp *qp = calloc(1, sizeof(*qp));

	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	qp->ibv.qp_base.context = context;
	qp->ibv.qp_base.qp_context = qp_context;
	pthread_mutex_init(&qp->ibv.qp_base.mutex, NULL);
	pthread_cond_init(&qp->ibv.qp_base.cond, NULL);
	return qp;
}

void
pv_compat_qp_free(struct pvc_qp *qp)
{
	int err = errno;

	pthread_cond_destroy(&qp->ibv.qp_base.cond);
	pthread_mutex_destroy(&qp->ibv.qp_base.mutex);
	free(qp);
	errno = err;
}

/* rdma-core's view of the new pollverbs QP @p pv */
void
pv_compat_qp_fill(struct pvc_qp *qp, struct pv_qp *pv, struct ibv_pd *pd, struct ibv_cq *send_cq,
		  struct ibv_cq *recv_cq, struct ibv_srq *srq)
{
	struct ibv_qp *q = &qp->ibv.qp_base;

	qp->pv = pv;
	q->pd = pd;
	q->send_cq = send_cq;
	q->recv_cq = recv_cq;
	q->srq = srq;
	q->handle = qp->pv->handle;
	q->qp_num = qp->pv->qp_num;
	q->state = (enum ibv_qp_state)qp->pv->state;
	q->qp_type = (enum ibv_qp_type)qp->pv->qp_type;
	qp->translate_ah = qp->pv->qp_type == PV_QPT_UD;
	pv_compat_qp_ex_init(qp);
}

static void
pvc_qp_cap_from_pv(const struct pv_qp_cap *p, struct ibv_qp_cap *c)
{
	c->max_send_wr = p->max_send_wr;
	c->max_recv_wr = p->max_recv_wr;
	c->max_send_sge = p->max_send_sge;
	c->max_recv_sge = p->max_recv_sge;
	c->max_inline_data = p->max_inline_data;
}

static void
pvc_qp_cap_to_pv(const struct ibv_qp_cap *c, struct pv_qp_cap *p)
{
	p->max_send_wr = c->max_send_wr;
	p->max_recv_wr = c->max_recv_wr;
	p->max_send_sge = c->max_send_sge;
	p->max_recv_sge = c->max_recv_sge;
	p->max_inline_data = c->max_inline_data;
}

static struct ibv_qp *pvc_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr);

PVC_EXPORT struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex x;
	struct pv_qp_init_attr a;
	struct pvc_qp *qp;
	struct ibv_qp *q;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_SEND) {
		/* as libibverbs: an XRC INI QP (no receive side, no recv_cq)
		 * through the extended path, which knows it */
		memset(&x, 0, sizeof(x));
		memcpy(&x, attr, sizeof(*attr));
		x.comp_mask = IBV_QP_INIT_ATTR_PD;
		x.pd = pd;
		q = pvc_create_qp_ex(pd->context, &x);
		if (q != NULL)
			attr->cap = x.cap;
		return q;
	}
	qp = pv_compat_qp_new(pd->context, attr->qp_context);
	if (qp == NULL)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.qp_context = qp;
	a.send_cq = pvc_cq_pv(attr->send_cq);
	a.recv_cq = pvc_cq_pv(attr->recv_cq);
	a.srq = pvc_srq_pv(attr->srq);
	pvc_qp_cap_to_pv(&attr->cap, &a.cap);
	a.qp_type = (enum pv_qp_type)attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	qp->pv = pv_create_qp(pvc_pd(pd)->pv, &a);
	if (qp->pv == NULL) {
		pv_compat_qp_free(qp);
		return NULL;
	}
	pvc_qp_cap_from_pv(&a.cap, &attr->cap);
	pv_compat_qp_fill(qp, qp->pv, pd, attr->send_cq, attr->recv_cq, attr->srq);
	return &qp->ibv.qp_base;
}

static struct ibv_qp *
pvc_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	struct pv_qp_init_attr_ex a;
	struct pvc_qp *qp;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	qp = pv_compat_qp_new(context, attr->qp_context);
	if (qp == NULL)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.qp_context = qp;
	a.send_cq = pvc_cq_pv(attr->send_cq);
	a.recv_cq = pvc_cq_pv(attr->recv_cq);
	a.srq = pvc_srq_pv(attr->srq);
	pvc_qp_cap_to_pv(&attr->cap, &a.cap);
	a.qp_type = (enum pv_qp_type)attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	a.comp_mask = attr->comp_mask;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd != NULL)
		a.pd = pvc_pd(attr->pd)->pv;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) && attr->xrcd != NULL)
		a.xrcd = PVC_CONTAINER(attr->xrcd, struct pvc_xrcd, ibv)->pv;
	a.create_flags = attr->create_flags;
	a.max_tso_header = attr->max_tso_header;
	if (attr->comp_mask & (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH)) {
		pv_compat_qp_free(qp);
		errno = EOPNOTSUPP;	/* no RSS on softroce (pv_create_qp_ex()) */
		return NULL;
	}
	a.source_qpn = attr->source_qpn;
	a.send_ops_flags = attr->send_ops_flags;
	qp->pv = pv_create_qp_ex(pvc_ctx(context)->pv, &a);
	if (qp->pv == NULL) {
		pv_compat_qp_free(qp);
		return NULL;
	}
	pvc_qp_cap_from_pv(&a.cap, &attr->cap);
	pv_compat_qp_fill(qp, qp->pv, (attr->comp_mask & IBV_QP_INIT_ATTR_PD) ? attr->pd : NULL,
		    attr->send_cq, attr->recv_cq, attr->srq);
	return &qp->ibv.qp_base;
}

PVC_EXPORT int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct pv_qp_attr a;
	int ret;

	if (qp == NULL || attr == NULL)
		return EINVAL;
	pv_qp_attr_from_ibv(attr, &a);
	ret = pv_modify_qp(pvc_qp(qp)->pv, &a, attr_mask);
	if (ret == 0 && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

PVC_EXPORT int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	int ret;

	if (qp == NULL || attr == NULL || init_attr == NULL)
		return EINVAL;
	ret = pv_query_qp(pvc_qp(qp)->pv, &a, attr_mask, &ia);
	if (ret != 0)
		return ret;
	pv_qp_attr_to_ibv(&a, attr);
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	pvc_qp_cap_from_pv(&ia.cap, &init_attr->cap);
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = ia.sq_sig_all;
	return 0;
}

PVC_EXPORT int
ibv_destroy_qp(struct ibv_qp *qp)
{
	int ret;

	if (qp == NULL)
		return EINVAL;
	ret = pv_destroy_qp(pvc_qp(qp)->pv);
	if (ret == 0)
		pv_compat_qp_free(pvc_qp(qp));
	return ret;
}

PVC_EXPORT struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (qp == NULL || pvc_qp(qp)->pvx == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &pvc_qp(qp)->ibv;
}

PVC_EXPORT int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	if (qp == NULL)
		return 0;
	return pv_query_qp_data_in_order(pvc_qp(qp)->pv, (enum pv_wr_opcode)op, flags);
}

PVC_EXPORT int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	if (qp == NULL)
		return EINVAL;
	return pv_attach_mcast(pvc_qp(qp)->pv, (const union pv_gid *)gid, lid);
}

PVC_EXPORT int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	if (qp == NULL)
		return EINVAL;
	return pv_detach_mcast(pvc_qp(qp)->pv, (const union pv_gid *)gid, lid);
}

/* ---- the verbs_context ops ---- */

static int
pvc_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct pv_device_attr_ex a;
	size_t tail;
	int ret;

	(void)input;	/* comp_mask 0 is the only input there is */
	if (context == NULL || attr == NULL || attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	ret = pv_query_device_ex(pvc_ctx(context)->pv, NULL, &a);
	if (ret != 0)
		return ret;
	memset(attr, 0, attr_size);
	memcpy(&attr->orig_attr, &a.orig_attr, sizeof(attr->orig_attr));
	if (attr_size > offsetof(struct ibv_device_attr_ex, comp_mask)) {
		tail = sizeof(*attr) - offsetof(struct ibv_device_attr_ex, comp_mask);
		if (attr_size < sizeof(*attr))
			tail = attr_size - offsetof(struct ibv_device_attr_ex, comp_mask);
		memcpy(&attr->comp_mask, &a.comp_mask, tail);
	}
	return 0;
}

void
pv_compat_ctx_ops_init(struct pvc_context *ctx)
{
	struct verbs_context *v = &ctx->vctx;

	v->query_port = pv_compat_query_port;
	v->query_device_ex = pvc_query_device_ex;
	v->create_cq_ex = pvc_create_cq_ex;
	v->create_qp_ex = pvc_create_qp_ex;
	v->create_srq_ex = pvc_create_srq_ex;
	v->get_srq_num = pvc_get_srq_num;
	v->open_xrcd = pvc_open_xrcd;
	v->close_xrcd = pvc_close_xrcd;
}

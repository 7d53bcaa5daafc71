/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * librdmacm.so.1 over pollverbs' connection manager (lib/cm, pv_rdma_*,
 * inside libibverbs.so.1 of lib/compat). The program's struct rdma_cm_id,
 * rdma_cm_event and rdma_event_channel have librdmacm's layouts; an id's
 * verbs, pd, qp, CQs and channels are the compat libibverbs objects of the
 * pollverbs ones lib/cm made or was given (pv_compat_*_of()). Each call
 * forwards to its pv_rdma_* twin and then copies the id's state that the
 * program reads (route, port, QP, CQs) into its rdma_cm_id.
 *
 * The rdma_verbs.h helpers (rdma_post_send, rdma_get_send_comp ...) are
 * inline in the program and call libibverbs. rsocket (rsocket, rsend ...)
 * and shared receive queues on ids (rdma_create_srq) are not provided:
 * pv-compat-stubs.py answers -1 with errno EOPNOTSUPP.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "pv_rdma_cma.h"
#include "pv_verbs_ibv.h"
#include "compat_priv.h"

#define PVC_SAME_CM(t1, t2, f) \
	(offsetof(struct t1, f) == offsetof(struct t2, f) && \
	 sizeof(((struct t1 *)0)->f) == sizeof(((struct t2 *)0)->f))

_Static_assert(sizeof(struct rdma_conn_param) == sizeof(struct pv_rdma_conn_param) &&
	       PVC_SAME_CM(rdma_conn_param, pv_rdma_conn_param, rnr_retry_count) &&
	       PVC_SAME_CM(rdma_conn_param, pv_rdma_conn_param, qp_num),
	       "pv_rdma_conn_param is rdma_conn_param");
_Static_assert(sizeof(struct rdma_addr) == sizeof(struct pv_rdma_addr) &&
	       PVC_SAME_CM(rdma_addr, pv_rdma_addr, dst_storage) &&
	       PVC_SAME_CM(rdma_addr, pv_rdma_addr, addr.ibaddr.pkey),
	       "pv_rdma_addr is rdma_addr");
_Static_assert(sizeof(struct ibv_sa_path_rec) == sizeof(struct pv_sa_path_rec) &&
	       PVC_SAME_CM(ibv_sa_path_rec, pv_sa_path_rec, flow_label) &&
	       PVC_SAME_CM(ibv_sa_path_rec, pv_sa_path_rec, preference),
	       "pv_sa_path_rec is ibv_sa_path_rec");
_Static_assert(sizeof(struct rdma_addrinfo) == sizeof(struct pv_rdma_addrinfo) &&
	       PVC_SAME_CM(rdma_addrinfo, pv_rdma_addrinfo, ai_route) &&
	       PVC_SAME_CM(rdma_addrinfo, pv_rdma_addrinfo, ai_next),
	       "pv_rdma_addrinfo is rdma_addrinfo");
_Static_assert(PV_IBV_SAME(RDMA_CM_EVENT_TIMEWAIT_EXIT, PV_RDMA_CM_EVENT_TIMEWAIT_EXIT) &&
	       PV_IBV_SAME(RDMA_PS_IB, PV_RDMA_PS_IB) &&
	       PV_IBV_SAME(RDMA_OPTION_ID_ACK_TIMEOUT, PV_RDMA_OPTION_ID_ACK_TIMEOUT) &&
	       PV_IBV_SAME(RDMA_OPTION_IB_PATH, PV_RDMA_OPTION_IB_PATH),
	       "event types, port spaces and options are librdmacm's");

struct pvc_cm_channel {
	struct rdma_event_channel ibv;
	struct pv_rdma_event_channel *pv;
	int inflight;		/* threads in rdma_get_cm_event() on it */
	int dead;		/* rdma_destroy_event_channel() was called */
	struct pvc_cm_channel *next_dead;
};

/*
 * Destroyed channels: never freed. A program may call rdma_get_cm_event()
 * on a channel another of its threads destroys (rping's CM thread does,
 * at exit): librdmacm's read() then fails on the closed fd (EBADF), and
 * here that call must still find the channel's memory to say so. The list
 * keeps them reachable; one is a few dozen bytes.
 */
static struct pvc_cm_channel *pvc_cm_dead_channels;
static pthread_mutex_t pvc_cm_dead_lock = PTHREAD_MUTEX_INITIALIZER;

struct pvc_cm_event {
	struct rdma_cm_event ibv;
	struct pv_rdma_cm_event *pv;
};

struct pvc_cm_id {
	struct rdma_cm_id ibv;
	struct pv_rdma_cm_id *pv;
	struct pvc_cm_event *sync_event;	/* a synchronous id's id->event */
	/*
	 * lib/cm's objects the id showed at its last sync (pvc_cm_id_sync).
	 * The program may have freed them since: rping deallocates its PD and
	 * destroys its QP with ibv_destroy_qp() before it destroys the id,
	 * while an event for the id may still come. librdmacm's id keeps such
	 * stale pointers and never reads through them; neither may we.
	 */
	const void *seen_pd, *seen_scc, *seen_rcc, *seen_scq, *seen_rcq, *seen_srq, *seen_qp;
};

static struct pvc_cm_id *
pvc_cm_id(struct rdma_cm_id *id)
{
	return PVC_CONTAINER(id, struct pvc_cm_id, ibv);
}

/* pollverbs started (pv-run's arguments) and its devices probed */
static int
pvc_cm_start(void)
{
	struct ibv_device **list;

	list = ibv_get_device_list(NULL);
	if (list == NULL)
		return -1;
	ibv_free_device_list(list);
	return 0;
}

/*
 * The compat id of @p pv. An id lib/cm made for a connection request
 * carries its listener's context (librdmacm gives it the listener's
 * context too): it gets its own compat id here, with the listener's
 * context and channel.
 */
static struct pvc_cm_id *
pvc_cm_id_of(struct pv_rdma_cm_id *pv)
{
	struct pvc_cm_id *parent = pv->context;
	struct pvc_cm_id *id;

	if (parent != NULL && parent->pv == pv)
		return parent;
	id = calloc(1, sizeof(*id));
	if (id == NULL)
		return NULL;
	id->pv = pv;
	if (parent != NULL) {
		id->ibv.context = parent->ibv.context;
		id->ibv.channel = parent->ibv.channel;
	}
	pv->context = id;
	return id;
}

/*
 * Whether the id field holding lib/cm's object @p pv (@p *seen at the last
 * sync) must be mapped again: only when it changed. An unchanged object may
 * have been freed by the program: its field stays as it was. (lib/cm sets
 * these when it makes the id's QP, and pvc_cm_qp_wrap() then maps them all
 * again, even at an address an object freed before had.)
 */
static int
pvc_cm_fresh(const void *pv, const void **seen)
{
	if (pv == *seen)
		return 0;
	*seen = pv;
	return 1;
}

/* what the program reads in its rdma_cm_id, from lib/cm's id */
static void
pvc_cm_id_sync(struct pvc_cm_id *id)
{
	struct pv_rdma_cm_id *pv = id->pv;
	struct rdma_cm_id *c = &id->ibv;
	struct pvc_qp *qp;

	c->verbs = pv_compat_context_of(pv->verbs);
	c->ps = (enum rdma_port_space)pv->ps;
	c->port_num = pv->port_num;
	memcpy(&c->route.addr, &pv->route.addr, sizeof(c->route.addr));
	c->route.path_rec = (struct ibv_sa_path_rec *)pv->route.path_rec;
	c->route.num_paths = pv->route.num_paths;
	c->qp_type = (enum ibv_qp_type)pv->qp_type;
	if (pvc_cm_fresh(pv->pd, &id->seen_pd))
		c->pd = pv_compat_pd_of(pv->pd);
	if (pvc_cm_fresh(pv->send_cq_channel, &id->seen_scc))
		c->send_cq_channel = pv_compat_channel_of(pv->send_cq_channel);
	if (pvc_cm_fresh(pv->recv_cq_channel, &id->seen_rcc))
		c->recv_cq_channel = pv_compat_channel_of(pv->recv_cq_channel);
	/* librdmacm's own CQs have the id as context */
	if (pvc_cm_fresh(pv->send_cq, &id->seen_scq))
		c->send_cq = pv_compat_cq_of(pv->send_cq, c);
	if (pvc_cm_fresh(pv->recv_cq, &id->seen_rcq))
		c->recv_cq = pv_compat_cq_of(pv->recv_cq, c);
	if (pvc_cm_fresh(pv->srq, &id->seen_srq))
		c->srq = pv_compat_srq_of(pv->srq);
	/* the QP is found through itself: only a QP the id did not show yet */
	if (!pvc_cm_fresh(pv->qp, &id->seen_qp))
		return;
	if (pv->qp == NULL) {
		c->qp = NULL;
		return;
	}
	qp = pv->qp->qp_context;	/* NULL until it has a compat QP */
	if (qp == NULL || qp->pv != pv->qp) {
		qp = pv_compat_qp_new(c->verbs, NULL);
		if (qp == NULL)
			return;
		pv->qp->qp_context = qp;
		pv_compat_qp_fill(qp, pv->qp, c->pd, c->send_cq, c->recv_cq, c->srq);
	}
	c->qp = &qp->ibv.qp_base;
}

static struct pvc_cm_event *
pvc_cm_event_new(struct pv_rdma_cm_event *pe)
{
	struct pvc_cm_event *ev = calloc(1, sizeof(*ev));
	struct pvc_cm_id *id;
	struct pvc_cm_id *lid;

	if (ev == NULL)
		return NULL;
	id = pvc_cm_id_of(pe->id);
	lid = pe->listen_id != NULL ? pvc_cm_id_of(pe->listen_id) : NULL;
	if (id == NULL || (pe->listen_id != NULL && lid == NULL)) {
		free(ev);
		return NULL;
	}
	pvc_cm_id_sync(id);
	ev->pv = pe;
	ev->ibv.id = &id->ibv;
	ev->ibv.listen_id = lid != NULL ? &lid->ibv : NULL;
	ev->ibv.event = (enum rdma_cm_event_type)pe->event;
	ev->ibv.status = pe->status;
	if (pe->id->ps == PV_RDMA_PS_UDP || pe->id->ps == PV_RDMA_PS_IPOIB ||
	    pe->event == PV_RDMA_CM_EVENT_MULTICAST_JOIN) {
		ev->ibv.param.ud.private_data = pe->param.ud.private_data;
		ev->ibv.param.ud.private_data_len = pe->param.ud.private_data_len;
		pv_ah_attr_to_ibv(&pe->param.ud.ah_attr, &ev->ibv.param.ud.ah_attr);
		ev->ibv.param.ud.qp_num = pe->param.ud.qp_num;
		ev->ibv.param.ud.qkey = pe->param.ud.qkey;
	} else {
		memcpy(&ev->ibv.param.conn, &pe->param.conn, sizeof(ev->ibv.param.conn));
	}
	return ev;
}

/* a synchronous id: its last event (lib/cm acks it at the next call) */
static void
pvc_cm_id_sync_event(struct pvc_cm_id *id)
{
	struct pvc_cm_event *old = id->sync_event;

	pvc_cm_id_sync(id);
	if (id->ibv.channel != NULL)
		return;
	if (old != NULL && old->pv == id->pv->event)
		return;
	free(old);
	id->sync_event = id->pv->event != NULL ? pvc_cm_event_new(id->pv->event) : NULL;
	id->ibv.event = id->sync_event != NULL ? &id->sync_event->ibv : NULL;
}

/* the API's 0 / -1: then the id's state and synchronous event */
static int
pvc_cm_ret(struct pvc_cm_id *id, int ret)
{
	int err = errno;

	pvc_cm_id_sync_event(id);
	errno = err;
	return ret;
}

PVC_EXPORT struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct pvc_cm_channel *ch;

	if (pvc_cm_start() != 0)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->pv = pv_rdma_create_event_channel();
	if (ch->pv == NULL) {
		int err = errno;

		free(ch);
		errno = err;
		return NULL;
	}
	ch->ibv.fd = ch->pv->fd;
	return &ch->ibv;
}

PVC_EXPORT void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct pvc_cm_channel *ch;

	if (channel == NULL)
		return;
	ch = PVC_CONTAINER(channel, struct pvc_cm_channel, ibv);
	pthread_mutex_lock(&pvc_cm_dead_lock);
	ch->next_dead = pvc_cm_dead_channels;
	pvc_cm_dead_channels = ch;
	pthread_mutex_unlock(&pvc_cm_dead_lock);
	/* dead before inflight is read, as rdma_get_cm_event() counts itself
	 * in before it reads dead (both sequentially consistent): a caller
	 * either is seen here or sees dead */
	__atomic_store_n(&ch->dead, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ch->inflight, __ATOMIC_SEQ_CST) > 0) {
		/*
		 * Another thread waits in rdma_get_cm_event() on it (rping's
		 * CM thread, until exit): librdmacm closes the fd and that
		 * read() stays blocked. Here lib/cm's channel stays, and the
		 * thread with it, until the process exits.
		 */
		return;
	}
	pv_rdma_destroy_event_channel(ch->pv);
}

static struct pv_rdma_event_channel *
pvc_cm_channel_pv(struct rdma_event_channel *channel)
{
	return channel == NULL ? NULL : PVC_CONTAINER(channel, struct pvc_cm_channel, ibv)->pv;
}

PVC_EXPORT int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
	       enum rdma_port_space ps)
{
	struct pv_rdma_cm_id *pv;
	struct pvc_cm_id *c;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pvc_cm_start() != 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (pv_rdma_create_id(pvc_cm_channel_pv(channel), &pv, c,
			      (enum pv_rdma_port_space)ps) != 0) {
		int err = errno;

		free(c);
		errno = err;
		return -1;
	}
	c->pv = pv;
	c->ibv.channel = channel;
	c->ibv.context = context;
	c->ibv.ps = ps;
	*id = &c->ibv;
	return 0;
}

/* the compat CQs and channels lib/cm made for @p id's QP, which it has
 * just destroyed with it */
static void
pvc_cm_id_cqs_release(struct rdma_cm_id *c, struct pv_rdma_cm_id *pv)
{
	if (pv->send_cq == NULL && c->send_cq != NULL)
		pv_compat_cq_release(c->send_cq);
	if (pv->recv_cq == NULL && c->recv_cq != NULL && c->recv_cq != c->send_cq)
		pv_compat_cq_release(c->recv_cq);
	if (pv->send_cq_channel == NULL && c->send_cq_channel != NULL)
		pv_compat_channel_release(c->send_cq_channel);
	if (pv->recv_cq_channel == NULL && c->recv_cq_channel != NULL &&
	    c->recv_cq_channel != c->send_cq_channel)
		pv_compat_channel_release(c->recv_cq_channel);
	c->send_cq = c->recv_cq = NULL;
	c->send_cq_channel = c->recv_cq_channel = NULL;
}

static void
pvc_cm_id_free(struct pvc_cm_id *id)
{
	free(id->sync_event);
	free(id);
}

PVC_EXPORT int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct pvc_cm_id *c;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	c = pvc_cm_id(id);
	if (pv_rdma_destroy_id(c->pv) != 0)
		return -1;
	pvc_cm_id_free(c);
	return 0;
}

PVC_EXPORT int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_bind_addr(pvc_cm_id(id)->pv, addr));
}

PVC_EXPORT int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		  int timeout_ms)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_resolve_addr(pvc_cm_id(id)->pv, src_addr,
							       dst_addr, timeout_ms));
}

PVC_EXPORT int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_resolve_route(pvc_cm_id(id)->pv, timeout_ms));
}

/* the program's QP attributes for lib/cm: CQs and SRQ as pollverbs objects */
static void
pvc_cm_qp_attr(const struct ibv_qp_init_attr *attr, struct pv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = pvc_cq_pv(attr->send_cq);
	a->recv_cq = pvc_cq_pv(attr->recv_cq);
	a->srq = pvc_srq_pv(attr->srq);
	a->cap.max_send_wr = attr->cap.max_send_wr;
	a->cap.max_recv_wr = attr->cap.max_recv_wr;
	a->cap.max_send_sge = attr->cap.max_send_sge;
	a->cap.max_recv_sge = attr->cap.max_recv_sge;
	a->cap.max_inline_data = attr->cap.max_inline_data;
	a->qp_type = (enum pv_qp_type)attr->qp_type;
	a->sq_sig_all = attr->sq_sig_all;
}

static void
pvc_cm_qp_cap(const struct pv_qp_cap *p, struct ibv_qp_cap *c)
{
	c->max_send_wr = p->max_send_wr;
	c->max_recv_wr = p->max_recv_wr;
	c->max_send_sge = p->max_send_sge;
	c->max_recv_sge = p->max_recv_sge;
	c->max_inline_data = p->max_inline_data;
}

/* after lib/cm made @p id's QP: its compat QP, with the program's context */
static int
pvc_cm_qp_wrap(struct pvc_cm_id *id, void *qp_context)
{
	struct pvc_qp *qp;

	/* lib/cm has just made these: all alive, whatever their addresses */
	id->seen_pd = id->seen_scc = id->seen_rcc = NULL;
	id->seen_scq = id->seen_rcq = id->seen_srq = id->seen_qp = NULL;
	pvc_cm_id_sync(id);
	if (id->ibv.qp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	qp = pvc_qp(id->ibv.qp);
	qp->ibv.qp_base.qp_context = qp_context;
	return 0;
}

PVC_EXPORT int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct pv_qp_init_attr a;
	struct pvc_cm_id *c;

	if (id == NULL || qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	c = pvc_cm_id(id);
	pvc_cm_qp_attr(qp_init_attr, &a);
	if (pv_rdma_create_qp(c->pv, pd == NULL ? NULL : pvc_pd(pd)->pv, &a) != 0)
		return -1;
	pvc_cm_qp_cap(&a.cap, &qp_init_attr->cap);
	return pvc_cm_qp_wrap(c, qp_init_attr->qp_context);
}

PVC_EXPORT int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct pv_qp_init_attr_ex a;
	struct pvc_cm_id *c;

	if (id == NULL || attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	c = pvc_cm_id(id);
	memset(&a, 0, sizeof(a));
	pvc_cm_qp_attr((const struct ibv_qp_init_attr *)attr, (struct pv_qp_init_attr *)&a);
	a.comp_mask = attr->comp_mask & (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd != NULL)
		a.pd = pvc_pd(attr->pd)->pv;
	a.send_ops_flags = attr->send_ops_flags;
	if (pv_rdma_create_qp_ex(c->pv, &a) != 0)
		return -1;
	pvc_cm_qp_cap(&a.cap, &attr->cap);
	return pvc_cm_qp_wrap(c, attr->qp_context);
}

PVC_EXPORT void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct pvc_cm_id *c;
	struct ibv_qp *qp;

	if (id == NULL)
		return;
	c = pvc_cm_id(id);
	qp = id->qp;
	pv_rdma_destroy_qp(c->pv);
	if (qp != NULL && c->pv->qp == NULL)
		pv_compat_qp_free(pvc_qp(qp));
	id->qp = NULL;
	pvc_cm_id_cqs_release(id, c->pv);
}

PVC_EXPORT int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_connect(pvc_cm_id(id)->pv,
					(struct pv_rdma_conn_param *)conn_param));
}

PVC_EXPORT int
rdma_establish(struct rdma_cm_id *id)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_establish(pvc_cm_id(id)->pv));
}

PVC_EXPORT int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_listen(pvc_cm_id(id)->pv, backlog));
}

PVC_EXPORT int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct pv_rdma_cm_id *pv;
	struct pvc_cm_id *c;

	if (listen == NULL || id == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pv_rdma_get_request(pvc_cm_id(listen)->pv, &pv) != 0)
		return -1;
	c = pvc_cm_id_of(pv);
	if (c == NULL) {
		errno = ENOMEM;
		return -1;
	}
	*id = &c->ibv;
	return pvc_cm_ret(c, 0);
}

PVC_EXPORT int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_accept(pvc_cm_id(id)->pv,
				(struct pv_rdma_conn_param *)conn_param));
}

PVC_EXPORT int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_reject(pvc_cm_id(id)->pv, private_data,
							 private_data_len));
}

PVC_EXPORT int
rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_reject_ece(pvc_cm_id(id)->pv, private_data,
							     private_data_len));
}

PVC_EXPORT int
rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_rdma_notify(pvc_cm_id(id)->pv, (enum pv_event_type)event);
}

PVC_EXPORT int
rdma_disconnect(struct rdma_cm_id *id)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pvc_cm_ret(pvc_cm_id(id), pv_rdma_disconnect(pvc_cm_id(id)->pv));
}

PVC_EXPORT int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_rdma_join_multicast(pvc_cm_id(id)->pv, addr, context);
}

PVC_EXPORT int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_rdma_leave_multicast(pvc_cm_id(id)->pv, addr);
}

PVC_EXPORT int
rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	struct pv_rdma_cm_join_mc_attr_ex a;

	if (id == NULL || mc_join_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	a.comp_mask = mc_join_attr->comp_mask;
	a.join_flags = mc_join_attr->join_flags;
	a.addr = mc_join_attr->addr;
	return pv_rdma_join_multicast_ex(pvc_cm_id(id)->pv, &a, context);
}

PVC_EXPORT int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct pvc_cm_channel *ch;
	struct pv_rdma_cm_event *pe;
	struct pvc_cm_event *ev;
	int ret;

	if (channel == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = PVC_CONTAINER(channel, struct pvc_cm_channel, ibv);
	__atomic_fetch_add(&ch->inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ch->dead, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&ch->inflight, 1, __ATOMIC_SEQ_CST);
		errno = EBADF;	/* read() on librdmacm's closed fd */
		return -1;
	}
	pv_compat_block_enter();
	ret = pv_rdma_get_cm_event(ch->pv, &pe);
	pv_compat_block_leave();
	__atomic_fetch_sub(&ch->inflight, 1, __ATOMIC_SEQ_CST);
	if (ret != 0)
		return -1;
	ev = pvc_cm_event_new(pe);
	if (ev == NULL) {
		pv_rdma_ack_cm_event(pe);
		errno = ENOMEM;
		return -1;
	}
	*event = &ev->ibv;
	return 0;
}

PVC_EXPORT int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct pvc_cm_event *ev;
	int ret;

	if (event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ev = PVC_CONTAINER(event, struct pvc_cm_event, ibv);
	ret = pv_rdma_ack_cm_event(ev->pv);
	free(ev);
	return ret;
}

PVC_EXPORT __be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return id == NULL ? 0 : pv_rdma_get_src_port(pvc_cm_id(id)->pv);
}

PVC_EXPORT __be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id == NULL ? 0 : pv_rdma_get_dst_port(pvc_cm_id(id)->pv);
}

PVC_EXPORT struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	struct pv_context **pvl;
	int n = 0;
	int i;

	if (pvc_cm_start() != 0)
		return NULL;
	pvl = pv_rdma_get_devices(&n);
	if (pvl == NULL)
		return NULL;
	/* one slot more after the NULL: lib/cm's list, for rdma_free_devices() */
	list = calloc(n + 2, sizeof(*list));
	if (list == NULL) {
		pv_rdma_free_devices(pvl);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = pv_compat_context_of(pvl[i]);
	list[n + 1] = (struct ibv_context *)(void *)pvl;
	if (num_devices != NULL)
		*num_devices = n;
	return list;
}

PVC_EXPORT void
rdma_free_devices(struct ibv_context **list)
{
	int i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		pv_compat_context_release(list[i]);
	pv_rdma_free_devices((struct pv_context **)(void *)list[i + 1]);
	free(list);
}

PVC_EXPORT const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	return pv_rdma_event_str((enum pv_rdma_cm_event_type)event);
}

PVC_EXPORT int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_rdma_set_option(pvc_cm_id(id)->pv, level, optname, optval, optlen);
}

PVC_EXPORT int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pv_rdma_migrate_id(pvc_cm_id(id)->pv, pvc_cm_channel_pv(channel)) != 0)
		return -1;
	id->channel = channel;
	return 0;
}

PVC_EXPORT int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	if (pvc_cm_start() != 0)
		return -1;
	return pv_rdma_getaddrinfo(node, service, (const struct pv_rdma_addrinfo *)hints,
				   (struct pv_rdma_addrinfo **)res);
}

PVC_EXPORT void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	pv_rdma_freeaddrinfo((struct pv_rdma_addrinfo *)res);
}

PVC_EXPORT int
rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct pv_qp_init_attr a;
	struct pv_rdma_cm_id *pv;
	struct pvc_cm_id *c;

	if (id == NULL || res == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pvc_cm_start() != 0)
		return -1;
	if (qp_init_attr != NULL)
		pvc_cm_qp_attr(qp_init_attr, &a);
	if (pv_rdma_create_ep(&pv, (struct pv_rdma_addrinfo *)res,
			      pd == NULL ? NULL : pvc_pd(pd)->pv,
			      qp_init_attr == NULL ? NULL : &a) != 0)
		return -1;
	pv->context = NULL;
	c = pvc_cm_id_of(pv);
	if (c == NULL) {
		pv_rdma_destroy_ep(pv);
		errno = ENOMEM;
		return -1;
	}
	if (qp_init_attr != NULL)
		pvc_cm_qp_cap(&a.cap, &qp_init_attr->cap);
	pvc_cm_id_sync_event(c);
	*id = &c->ibv;
	return 0;
}

PVC_EXPORT void
rdma_destroy_ep(struct rdma_cm_id *id)
{
	struct pvc_cm_id *c;

	if (id == NULL)
		return;
	c = pvc_cm_id(id);
	if (id->qp != NULL)
		rdma_destroy_qp(id);
	pv_rdma_destroy_ep(c->pv);
	pvc_cm_id_free(c);
}

PVC_EXPORT int
rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct pv_qp_attr a;

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = (enum pv_qp_state)qp_attr->qp_state;
	if (pv_rdma_init_qp_attr(pvc_cm_id(id)->pv, &a, qp_attr_mask) != 0)
		return -1;
	pv_qp_attr_to_ibv(&a, qp_attr);
	return 0;
}

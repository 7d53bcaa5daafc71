/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * librdmacm's API (pv_rdma_cma.h) over the IB CM of cm_ib.c: event
 * channels, ids and their states, address and route resolution from the
 * devices' GID tables (RoCEv2: no SA, the path record is built locally),
 * the rdma_cm private-data header and service IDs as Linux's rdma_cm
 * builds them, and the QP driven INIT -> RTR -> RTS as librdmacm drives a
 * QP made with rdma_create_qp(). Semantics follow rdma-core 44's librdmacm
 * over Linux's cma.c: where the two split work (librdmacm moves the QP,
 * the kernel sends MADs), both halves are here.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_random.h>

#include "cma_priv.h"
#include "cma_sys.h"

pthread_mutex_t cma_lock = PTHREAD_MUTEX_INITIALIZER;
struct cma_id_list cma_ids = TAILQ_HEAD_INITIALIZER(cma_ids);

/* path record values rdma_cm uses on RoCE (cma.c) */
#define CMA_HOP_LIMIT		64
#define CMA_IBOE_PACKET_LIFETIME 18	/* local ACK timeout 19 in the rxe captures */
#define CMA_PERMISSIVE_LID	0xffff
#define CMA_EPHEMERAL_LO	32768	/* ip_local_port_range of Linux */
#define CMA_EPHEMERAL_HI	60999
#define CMA_DEFAULT_RETRY	7	/* librdmacm with a NULL conn_param */

static inline struct cma_id *
cma_id_of(struct pv_rdma_cm_id *id)
{
	return (struct cma_id *)id;
}

static int
cma_err(int err)
{
	errno = err;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* Event channels and events                                               */
/* ---------------------------------------------------------------------- */

static struct cma_channel *
cma_channel_new(int sync)
{
	struct cma_channel *chan = calloc(1, sizeof(*chan));

	if (chan == NULL)
		return NULL;
	chan->ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (chan->ch.fd < 0) {
		int err = errno;

		free(chan);
		errno = err;
		return NULL;
	}
	TAILQ_INIT(&chan->events);
	chan->sync = sync;
	return chan;
}

static void
cma_channel_free(struct cma_channel *chan)
{
	struct cma_event *e;

	while ((e = TAILQ_FIRST(&chan->events)) != NULL) {
		TAILQ_REMOVE(&chan->events, e, next);
		free(e);
	}
	close(chan->ch.fd);
	free(chan);
}

struct pv_rdma_event_channel *
pv_rdma_create_event_channel(void)
{
	struct cma_channel *chan;
	int ret;

	pthread_mutex_lock(&cma_lock);
	ret = cma_start();
	pthread_mutex_unlock(&cma_lock);
	if (ret != 0) {
		errno = -ret;
		return NULL;
	}
	chan = cma_channel_new(0);
	return chan == NULL ? NULL : &chan->ch;
}

void
pv_rdma_destroy_event_channel(struct pv_rdma_event_channel *channel)
{
	if (channel == NULL)
		return;
	pthread_mutex_lock(&cma_lock);
	cma_channel_free((struct cma_channel *)channel);
	pthread_mutex_unlock(&cma_lock);
}

struct cma_event *
cma_event_new(struct cma_id *id, enum pv_rdma_cm_event_type type, int status)
{
	struct cma_event *e = calloc(1, sizeof(*e));

	if (e == NULL) {
		CMA_LOG(ERR, "no memory for event %s", pv_rdma_event_str(type));
		return NULL;
	}
	e->id = id;
	e->ev.id = &id->id;
	e->ev.event = type;
	e->ev.status = status;
	return e;
}

void
cma_event_data(struct cma_event *e, const uint8_t *data, size_t len)
{
	if (len > sizeof(e->private_data))
		len = sizeof(e->private_data);
	memcpy(e->private_data, data, len);
	e->ev.param.conn.private_data = e->private_data;
	e->ev.param.conn.private_data_len = (uint8_t)len;
}

/* queue @p e on @p chan (a request: its listener's) and count it on the fd */
void
cma_event_queue_on(struct cma_event *e, struct cma_channel *chan)
{
	uint64_t one = 1;

	TAILQ_INSERT_TAIL(&chan->events, e, next);
	if (write(chan->ch.fd, &one, sizeof(one)) < 0)
		CMA_LOG(ERR, "event channel write: %s", strerror(errno));
}

void
cma_event_queue(struct cma_event *e)
{
	cma_event_queue_on(e, e->id->chan);
}

static void
cma_event_post(struct cma_id *id, enum pv_rdma_cm_event_type type, int status)
{
	struct cma_event *e = cma_event_new(id, type, status);

	if (e != NULL)
		cma_event_queue(e);
}

int
pv_rdma_get_cm_event(struct pv_rdma_event_channel *channel, struct pv_rdma_cm_event **event)
{
	struct cma_channel *chan = (struct cma_channel *)channel;
	struct cma_event *e;
	uint64_t v;

	if (channel == NULL || event == NULL)
		return cma_err(EINVAL);
	for (;;) {
		if (read(chan->ch.fd, &v, sizeof(v)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;	/* EAGAIN on an O_NONBLOCK channel */
		}
		pthread_mutex_lock(&cma_lock);
		e = TAILQ_FIRST(&chan->events);
		if (e != NULL) {
			TAILQ_REMOVE(&chan->events, e, next);
			e->id->events_taken++;
		}
		pthread_mutex_unlock(&cma_lock);
		if (e != NULL)
			break;
		/* its id was destroyed after the event was counted: next one */
	}
	*event = &e->ev;
	return 0;
}

int
pv_rdma_ack_cm_event(struct pv_rdma_cm_event *event)
{
	struct cma_event *e = (struct cma_event *)((char *)event - offsetof(struct cma_event, ev));

	if (event == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	e->id->events_acked++;
	pthread_cond_broadcast(&e->id->cond);
	pthread_mutex_unlock(&cma_lock);
	free(e);
	return 0;
}

/*
 * A synchronous id's call waits for the event it produced (librdmacm's
 * ucma_complete()): the previous event is acknowledged, the new one stays
 * in id->event; a failed event becomes the call's errno.
 */
int
cma_complete(struct cma_id *id)
{
	struct pv_rdma_cm_event *ev;

	if (!id->chan->sync)
		return 0;
	if (id->id.event != NULL) {
		pv_rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
	if (pv_rdma_get_cm_event(&id->chan->ch, &ev) != 0)
		return -1;
	id->id.event = ev;
	if (ev->status != 0) {
		if (ev->event == PV_RDMA_CM_EVENT_REJECTED)
			return cma_err(ECONNREFUSED);
		return cma_err(ev->status < 0 ? -ev->status : ev->status);
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Ids                                                                     */
/* ---------------------------------------------------------------------- */

struct cma_id *
cma_id_new(struct cma_channel *chan, void *context, enum pv_rdma_port_space ps,
	   enum pv_qp_type qp_type)
{
	struct cma_id *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	if (chan == NULL) {
		chan = cma_channel_new(1);
		if (chan == NULL) {
			free(id);
			return NULL;
		}
	}
	id->chan = chan;
	id->id.channel = &chan->ch;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qp_type;
	id->id.route.path_rec = &id->path;
	id->state = CMA_IDLE;
	id->qkey = PV_RDMA_UDP_QKEY;
	pthread_cond_init(&id->cond, NULL);
	TAILQ_INSERT_TAIL(&cma_ids, id, next);
	return id;
}

int
pv_rdma_create_id(struct pv_rdma_event_channel *channel, struct pv_rdma_cm_id **id,
		  void *context, enum pv_rdma_port_space ps)
{
	struct cma_id *cid;
	int ret;

	if (id == NULL)
		return cma_err(EINVAL);
	if (ps != PV_RDMA_PS_TCP && ps != PV_RDMA_PS_UDP && ps != PV_RDMA_PS_IB &&
	    ps != PV_RDMA_PS_IPOIB)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	ret = cma_start();
	if (ret != 0) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(-ret);
	}
	/* rdma_create_id(): UD for the UDP and IPoIB port spaces, RC else */
	cid = cma_id_new((struct cma_channel *)channel, context, ps,
			 ps == PV_RDMA_PS_UDP || ps == PV_RDMA_PS_IPOIB ? PV_QPT_UD : PV_QPT_RC);
	pthread_mutex_unlock(&cma_lock);
	if (cid == NULL)
		return cma_err(ENOMEM);
	*id = &cid->id;
	return 0;
}

static void
cma_set_device(struct cma_id *id, struct cma_device *dev, int gid_index)
{
	id->dev = dev;
	id->id.verbs = dev->ctx;
	id->id.port_num = 1;
	memcpy(id->id.route.addr.addr.ibaddr.sgid.raw, dev->gid[gid_index].raw, 16);
	id->id.route.addr.addr.ibaddr.pkey = rte_cpu_to_be_16(PV_GSI_PKEY);
	id->path.sgid = dev->gid[gid_index];
}

/* another id of the port space holds @p port on an overlapping address */
static int
cma_port_in_use(const struct cma_id *self, const struct sockaddr *sa, uint16_t port)
{
	const struct cma_id *o;

	TAILQ_FOREACH(o, &cma_ids, next) {
		const struct sockaddr *os = &o->id.route.addr.src_addr;

		if (o == self || o->state == CMA_IDLE || o->state == CMA_DESTROYING ||
		    o->id.ps != self->id.ps || o->passive ||
		    os->sa_family != sa->sa_family || cma_addr_port(os) != port)
			continue;
		if (!cma_addr_any(os) && !cma_addr_any(sa) &&
		    memcmp(os, sa, cma_addr_len(sa)) != 0) {
			/* different addresses: compare without the port */
			uint8_t g1[16], g2[16];

			cma_addr_to_gid(os, g1);
			cma_addr_to_gid(sa, g2);
			if (memcmp(g1, g2, 16) != 0)
				continue;
		}
		if (o->state == CMA_LISTEN || self->state == CMA_LISTEN ||
		    !(o->reuseaddr && self->reuseaddr))
			return 1;
	}
	return 0;
}

static int
cma_bind(struct cma_id *id, const struct sockaddr *addr)
{
	struct sockaddr *src = &id->id.route.addr.src_addr;
	struct cma_device *dev = NULL;
	uint16_t port;
	int gid_index = 0, i;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (!cma_addr_any(addr)) {
		dev = cma_device_by_addr(addr, &gid_index);
		if (dev == NULL)
			return -EADDRNOTAVAIL;
		if (dev->sys)
			return cma_sys_bind(id, dev, addr);
	}
	memset(&id->id.route.addr.src_storage, 0, sizeof(id->id.route.addr.src_storage));
	memcpy(src, addr, cma_addr_len(addr));
	port = cma_addr_port(addr);
	if (port == 0) {
		for (i = 0; i < 1000; i++) {
			port = (uint16_t)(CMA_EPHEMERAL_LO +
					  rte_rand() % (CMA_EPHEMERAL_HI - CMA_EPHEMERAL_LO + 1));
			if (!cma_port_in_use(id, src, port))
				break;
		}
		if (i == 1000)
			return -EADDRINUSE;
	} else if (cma_port_in_use(id, src, port)) {
		return -EADDRINUSE;
	}
	cma_addr_set_port(src, port);
	if (dev != NULL)
		cma_set_device(id, dev, gid_index);
	id->state = CMA_ADDR_BOUND;
	return 0;
}

int
pv_rdma_bind_addr(struct pv_rdma_cm_id *id, struct sockaddr *addr)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL || addr == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	ret = cid->state == CMA_IDLE ? cma_bind(cid, addr) : -EINVAL;
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

int
pv_rdma_resolve_addr(struct pv_rdma_cm_id *id, struct sockaddr *src_addr,
		     struct sockaddr *dst_addr, int timeout_ms)
{
	struct cma_id *cid = cma_id_of(id);
	struct cma_device *dev;
	int gid_index = 0, ret = 0, status = 0;

	(void)timeout_ms;	/* resolution is local: it never waits */
	if (id == NULL || dst_addr == NULL ||
	    (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6) ||
	    (src_addr != NULL && src_addr->sa_family != dst_addr->sa_family))
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->state == CMA_IDLE) {
		struct sockaddr_storage any;

		if (src_addr == NULL) {
			memset(&any, 0, sizeof(any));
			any.ss_family = dst_addr->sa_family;
			src_addr = (struct sockaddr *)&any;
		}
		ret = cma_bind(cid, src_addr);
	} else if (cid->state != CMA_ADDR_BOUND) {
		ret = -EINVAL;
	}
	if (ret != 0)
		goto out;
	if (id->route.addr.src_addr.sa_family != dst_addr->sa_family) {
		ret = -EINVAL;
		goto out;
	}
	memset(&id->route.addr.dst_storage, 0, sizeof(id->route.addr.dst_storage));
	memcpy(&id->route.addr.dst_addr, dst_addr, cma_addr_len(dst_addr));
	if (cma_sys_resolves(cid, dst_addr)) {
		ret = cma_sys_resolve_addr(cid, dst_addr, timeout_ms);
		goto out;
	}
	if (cid->dev == NULL) {
		/* our own address: loopback; else the device with a GID of the
		 * family (an IPv6 link-local destination: the link-local GID) */
		dev = cma_device_by_addr(dst_addr, &gid_index);
		if (dev == NULL && dst_addr->sa_family == AF_INET6 &&
		    IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)dst_addr)->sin6_addr)) {
			dev = cma_device_first(AF_INET6, &gid_index);
			if (dev != NULL)
				gid_index = 0;
		} else if (dev == NULL) {
			dev = cma_device_first(dst_addr->sa_family, &gid_index);
		}
		if (dev != NULL) {
			uint16_t port = cma_addr_port(&id->route.addr.src_addr);

			cma_set_device(cid, dev, gid_index);
			cma_gid_to_addr(dev->gid[gid_index].raw, port,
					&id->route.addr.src_storage);
		}
	}
	if (cid->dev == NULL) {
		status = -EHOSTUNREACH;
	} else {
		cma_addr_to_gid(dst_addr, id->route.addr.addr.ibaddr.dgid.raw);
		cid->state = CMA_ADDR_RESOLVED;
	}
	cma_event_post(cid, status == 0 ? PV_RDMA_CM_EVENT_ADDR_RESOLVED :
		       PV_RDMA_CM_EVENT_ADDR_ERROR, status);
out:
	pthread_mutex_unlock(&cma_lock);
	if (ret != 0)
		return cma_err(-ret);
	return cma_complete(cid);
}

int
pv_rdma_resolve_route(struct pv_rdma_cm_id *id, int timeout_ms)
{
	struct cma_id *cid = cma_id_of(id);
	struct pv_sa_path_rec *p;

	(void)timeout_ms;	/* resolution is local: it never waits */
	if (id == NULL)
		return cma_err(EINVAL);
	if (cid->sys != NULL)
		return cma_sys_resolve_route(cid, timeout_ms);
	pthread_mutex_lock(&cma_lock);
	if (cid->state != CMA_ADDR_RESOLVED && cid->state != CMA_ROUTE_RESOLVED) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(EINVAL);
	}
	p = &cid->path;
	p->sgid = id->route.addr.addr.ibaddr.sgid;
	p->dgid = id->route.addr.addr.ibaddr.dgid;
	p->dlid = rte_cpu_to_be_16(CMA_PERMISSIVE_LID);
	p->slid = rte_cpu_to_be_16(CMA_PERMISSIVE_LID);
	p->flow_label = rte_cpu_to_be_32(pv_cma_flow_label(cma_addr_port(&id->route.addr.src_addr),
							   cma_addr_port(&id->route.addr.dst_addr)));
	p->hop_limit = CMA_HOP_LIMIT;
	p->traffic_class = cid->tos;
	p->reversible = 1;
	p->numb_path = 1;
	p->pkey = rte_cpu_to_be_16(PV_GSI_PKEY);
	p->sl = 0;
	p->mtu_selector = 2;	/* exactly */
	p->mtu = (uint8_t)cid->dev->active_mtu;
	p->rate_selector = 2;
	p->rate = 0;
	p->packet_life_time_selector = 2;
	p->packet_life_time = CMA_IBOE_PACKET_LIFETIME;
	id->route.num_paths = 1;
	cid->state = CMA_ROUTE_RESOLVED;
	cma_event_post(cid, PV_RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	pthread_mutex_unlock(&cma_lock);
	return cma_complete(cid);
}

/* ---------------------------------------------------------------------- */
/* QP attributes (rdma_init_qp_attr) and the QP's states                   */
/* ---------------------------------------------------------------------- */

static uint8_t
cma_local_ack_timeout(const struct cma_id *id)
{
	return id->ack_timeout_set ? id->ack_timeout :
	       (uint8_t)(id->path.packet_life_time + 1);
}

static int
cma_init_qp_attr(struct cma_id *id, struct pv_qp_attr *a, int *mask)
{
	enum pv_qp_state want = a->qp_state;
	int ud = id->id.qp_type == PV_QPT_UD, uc = id->id.qp_type == PV_QPT_UC;

	if (id->sys != NULL)
		return cma_sys_init_qp_attr(id, a, mask);
	if (id->dev == NULL)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->qp_state = want;
	switch (want) {
	case PV_QPS_INIT:
		a->pkey_index = 0;
		a->port_num = id->id.port_num;
		*mask = PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT;
		if (ud) {
			a->qkey = id->qkey;
			*mask |= PV_QP_QKEY;
		} else {
			/* the CM's rights once connecting (ib_cm: WRITE, and
			 * READ/ATOMIC with responder resources), none before */
			if (id->ib != NULL) {
				a->qp_access_flags = PV_ACCESS_REMOTE_WRITE;
				if (id->responder_resources != 0)
					a->qp_access_flags |= PV_ACCESS_REMOTE_READ |
							      PV_ACCESS_REMOTE_ATOMIC;
			}
			*mask |= PV_QP_ACCESS_FLAGS;
		}
		return 0;
	case PV_QPS_RTR:
		*mask = PV_QP_STATE;
		if (ud)
			return 0;
		if (id->state != CMA_CONNECT && id->state != CMA_CONNECTED)
			return -EINVAL;
		a->path_mtu = (enum pv_mtu)id->path_mtu;
		a->dest_qp_num = id->remote_qpn;
		a->rq_psn = id->remote_psn;
		a->ah_attr.is_global = 1;
		a->ah_attr.port_num = id->id.port_num;
		a->ah_attr.grh.dgid = id->path.dgid;
		a->ah_attr.grh.sgid_index =
			(uint8_t)cma_device_gid_index(id->dev, id->path.sgid.raw);
		a->ah_attr.grh.flow_label = rte_be_to_cpu_32(id->path.flow_label);
		a->ah_attr.grh.hop_limit = id->path.hop_limit;
		a->ah_attr.grh.traffic_class = id->path.traffic_class;
		a->ah_attr.sl = id->path.sl;
		*mask |= PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN;
		if (!uc) {
			a->max_dest_rd_atomic = id->responder_resources;
			a->min_rnr_timer = 0;
			*mask |= PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER;
		}
		return 0;
	case PV_QPS_RTS:
		a->sq_psn = id->local_psn;
		*mask = PV_QP_STATE | PV_QP_SQ_PSN;
		if (ud || uc)
			return 0;
		if (id->state != CMA_CONNECT && id->state != CMA_CONNECTED)
			return -EINVAL;
		a->timeout = cma_local_ack_timeout(id);
		a->retry_cnt = id->retry_count;
		a->rnr_retry = id->rnr_retry_count;
		a->max_rd_atomic = id->initiator_depth;
		*mask |= PV_QP_TIMEOUT | PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	default:
		return -EINVAL;
	}
}

int
pv_rdma_init_qp_attr(struct pv_rdma_cm_id *id, struct pv_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret;

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	ret = cma_init_qp_attr(cma_id_of(id), qp_attr, qp_attr_mask);
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

static int
cma_modify_qp(struct cma_id *id, enum pv_qp_state state)
{
	struct pv_qp_attr a;
	int mask, ret;

	if (id->id.qp == NULL)
		return 0;
	a.qp_state = state;
	ret = cma_init_qp_attr(id, &a, &mask);
	if (ret != 0)
		return ret;
	return -pv_modify_qp(id->id.qp, &a, mask);
}

/* librdmacm's ucma_modify_qp_rtr/rts: INIT again with the CM's access
 * rights, then RTR and RTS */
static int
cma_qp_connect(struct cma_id *id)
{
	int ret;

	if (id->id.qp == NULL)
		return 0;
	ret = cma_modify_qp(id, PV_QPS_INIT);
	if (ret == 0)
		ret = cma_modify_qp(id, PV_QPS_RTR);
	if (ret == 0)
		ret = cma_modify_qp(id, PV_QPS_RTS);
	return ret;
}

void
cma_qp_error(struct cma_id *id)
{
	struct pv_qp_attr a = { .qp_state = PV_QPS_ERR };

	if (id->id.qp != NULL)
		pv_modify_qp(id->id.qp, &a, PV_QP_STATE);
}

/* one CQ of @p n entries on its own completion channel (librdmacm's
 * ucma_create_cqs); nothing is kept on failure */
static int
cma_cq_make(struct cma_id *id, uint32_t n, struct pv_comp_channel **chan_p,
	    struct pv_cq **cq_p)
{
	struct pv_context *ctx = id->dev->ctx;
	int err;

	*chan_p = pv_create_comp_channel(ctx);
	if (*chan_p == NULL)
		return -errno;
	*cq_p = pv_create_cq(ctx, (int)RTE_MAX(n, 1u), &id->id, *chan_p, 0);
	if (*cq_p == NULL) {
		err = errno;
		pv_destroy_comp_channel(*chan_p);
		*chan_p = NULL;
		return -err;
	}
	return 0;
}

static void
cma_cq_free(struct pv_comp_channel **chan_p, struct pv_cq **cq_p)
{
	pv_destroy_cq(*cq_p);
	pv_destroy_comp_channel(*chan_p);
	*cq_p = NULL;
	*chan_p = NULL;
}

/* the CQs @p attr does not give: made by the CM (bit 0 recv, bit 1 send) */
static int
cma_create_cqs(struct cma_id *id, struct pv_qp_init_attr *attr)
{
	int ret;

	if (attr->recv_cq == NULL) {
		ret = cma_cq_make(id, attr->cap.max_recv_wr, &id->id.recv_cq_channel,
				  &id->id.recv_cq);
		if (ret != 0)
			return ret;
		attr->recv_cq = id->id.recv_cq;
		id->made_cqs |= 1;
	}
	if (attr->send_cq == NULL) {
		ret = cma_cq_make(id, attr->cap.max_send_wr, &id->id.send_cq_channel,
				  &id->id.send_cq);
		if (ret != 0)
			return ret;
		attr->send_cq = id->id.send_cq;
		id->made_cqs |= 2;
	}
	return 0;
}

static void
cma_destroy_cqs(struct cma_id *id)
{
	if (id->made_cqs & 1)
		cma_cq_free(&id->id.recv_cq_channel, &id->id.recv_cq);
	if (id->made_cqs & 2)
		cma_cq_free(&id->id.send_cq_channel, &id->id.send_cq);
	id->made_cqs = 0;
}

/* a new QP goes to INIT; a UD QP on to RTS at once (ucma_init_ud_qp) */
static int
cma_qp_init(struct cma_id *id, struct pv_qp *qp, struct pv_pd *pd)
{
	int ret;

	id->id.qp = qp;
	id->id.pd = pd;
	id->id.srq = qp->srq;
	if (id->id.qp_type != qp->qp_type)
		id->id.qp_type = qp->qp_type;
	ret = cma_modify_qp(id, PV_QPS_INIT);
	if (ret == 0 && qp->qp_type == PV_QPT_UD) {
		ret = cma_modify_qp(id, PV_QPS_RTR);
		if (ret == 0)
			ret = cma_modify_qp(id, PV_QPS_RTS);
	}
	if (ret != 0)
		id->id.qp = NULL;
	return ret;
}

int
pv_rdma_create_qp(struct pv_rdma_cm_id *id, struct pv_pd *pd,
		  struct pv_qp_init_attr *qp_init_attr)
{
	struct cma_id *cid = cma_id_of(id);
	struct pv_qp *qp;
	int ret;

	if (id == NULL || qp_init_attr == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->dev == NULL || id->qp != NULL || (pd != NULL && pd->context != id->verbs)) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(EINVAL);
	}
	if (pd == NULL)
		pd = cid->dev->pd;
	/* a passive id sends with the REQ's starting PSN (set at REQ) */
	if (!cid->passive)
		cid->local_psn = (uint32_t)rte_rand() & 0xffffff;
	ret = cma_create_cqs(cid, qp_init_attr);
	if (ret == 0) {
		qp = pv_create_qp(pd, qp_init_attr);
		ret = qp == NULL ? -errno : cma_qp_init(cid, qp, pd);
		if (ret != 0 && qp != NULL)
			pv_destroy_qp(qp);
	}
	if (ret != 0)
		cma_destroy_cqs(cid);
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

int
pv_rdma_create_qp_ex(struct pv_rdma_cm_id *id, struct pv_qp_init_attr_ex *attr)
{
	struct cma_id *cid = cma_id_of(id);
	struct pv_qp_init_attr base;
	struct pv_qp *qp;
	int ret;

	if (id == NULL || attr == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->dev == NULL || id->qp != NULL) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(EINVAL);
	}
	if (!(attr->comp_mask & PV_QP_INIT_ATTR_PD) || attr->pd == NULL) {
		attr->pd = cid->dev->pd;
		attr->comp_mask |= PV_QP_INIT_ATTR_PD;
	}
	/* a passive id sends with the REQ's starting PSN (set at REQ) */
	if (!cid->passive)
		cid->local_psn = (uint32_t)rte_rand() & 0xffffff;
	memset(&base, 0, sizeof(base));
	base.send_cq = attr->send_cq;
	base.recv_cq = attr->recv_cq;
	base.cap = attr->cap;
	ret = cma_create_cqs(cid, &base);
	if (ret == 0) {
		attr->send_cq = base.send_cq;
		attr->recv_cq = base.recv_cq;
		qp = pv_create_qp_ex(id->verbs, attr);
		ret = qp == NULL ? -errno : cma_qp_init(cid, qp, attr->pd);
		if (ret != 0 && qp != NULL)
			pv_destroy_qp(qp);
	}
	if (ret != 0)
		cma_destroy_cqs(cid);
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

void
pv_rdma_destroy_qp(struct pv_rdma_cm_id *id)
{
	struct cma_id *cid = cma_id_of(id);

	if (id == NULL)
		return;
	pthread_mutex_lock(&cma_lock);
	if (id->qp != NULL)
		pv_destroy_qp(id->qp);
	id->qp = NULL;
	cma_destroy_cqs(cid);
	pthread_mutex_unlock(&cma_lock);
}

/* ---------------------------------------------------------------------- */
/* Connecting                                                              */
/* ---------------------------------------------------------------------- */

static int
cma_hdr_fill(const struct cma_id *id, uint8_t buf[PV_CMA_HDR_SIZE])
{
	const struct sockaddr *src = &id->id.route.addr.src_addr;
	const struct sockaddr *dst = &id->id.route.addr.dst_addr;
	struct pv_cma_hdr h;

	memset(&h, 0, sizeof(h));
	h.cma_version = PV_CMA_VERSION;
	h.family = src->sa_family;
	h.ip_version = src->sa_family == AF_INET ? 4 : 6;
	h.src_port = cma_addr_port(src);
	if (src->sa_family == AF_INET) {
		memcpy(h.src_addr, &((const struct sockaddr_in *)src)->sin_addr, 4);
		memcpy(h.dst_addr, &((const struct sockaddr_in *)dst)->sin_addr, 4);
	} else {
		memcpy(h.src_addr, &((const struct sockaddr_in6 *)src)->sin6_addr, 16);
		memcpy(h.dst_addr, &((const struct sockaddr_in6 *)dst)->sin6_addr, 16);
	}
	return pv_cma_hdr_encode(&h, buf);
}

static void
cma_peer_av(const struct cma_id *id, struct pv_ib_cm_av *av)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, id->path.dgid.raw, 16);
	memcpy(av->sgid, id->path.sgid.raw, 16);
	av->sgid_index = (uint8_t)cma_device_gid_index(id->dev, id->path.sgid.raw);
	av->hop_limit = CMA_HOP_LIMIT;
	av->traffic_class = id->path.traffic_class;
}

/* rdma_connect/accept parameters as librdmacm checks and defaults them */
static int
cma_conn_param(struct cma_id *id, const struct pv_rdma_conn_param *p, size_t max_pd)
{
	const struct pv_device_attr *da = &id->dev->attr;
	uint8_t max_resp = (uint8_t)RTE_MIN(da->max_qp_rd_atom, 255);
	uint8_t max_init = (uint8_t)RTE_MIN(da->max_qp_init_rd_atom, 255);

	if (p == NULL) {
		id->responder_resources = max_resp;
		id->initiator_depth = max_init;
		id->retry_count = CMA_DEFAULT_RETRY;
		id->rnr_retry_count = CMA_DEFAULT_RETRY;
		return 0;
	}
	if (p->private_data_len > max_pd || (p->private_data_len && p->private_data == NULL))
		return -EINVAL;
	if ((p->responder_resources != PV_RDMA_MAX_RESP_RES &&
	     p->responder_resources > max_resp) ||
	    (p->initiator_depth != PV_RDMA_MAX_INIT_DEPTH && p->initiator_depth > max_init))
		return -EINVAL;
	id->responder_resources = RTE_MIN(p->responder_resources, max_resp);
	id->initiator_depth = RTE_MIN(p->initiator_depth, max_init);
	id->retry_count = (uint8_t)RTE_MIN(p->retry_count, 7);
	id->rnr_retry_count = (uint8_t)RTE_MIN(p->rnr_retry_count, 7);
	id->flow_control = p->flow_control;
	id->srq = p->srq;
	return 0;
}

/* the IB CM id of an active connection, on the id's port (QP1 opened) */
static int
cma_ib_open(struct cma_id *id)
{
	int ret = cma_port_open(id->dev);

	if (ret != 0)
		return ret;
	id->ib = pv_ib_cm_create_id(id->dev->port->ib, cma_ib_handler, id);
	return id->ib == NULL ? -ENOMEM : 0;
}

/* after the REQ or SIDR_REQ went (ret 0) or failed: the id's state */
static int
cma_connect_sent(struct cma_id *id, int ret)
{
	if (ret != 0) {
		id->state = CMA_ROUTE_RESOLVED;
		pv_ib_cm_destroy_id(id->ib);
		id->ib = NULL;
		return ret;
	}
	cma_kick();
	return 0;
}

static int
cma_connect_rc(struct cma_id *id, const struct pv_rdma_conn_param *p)
{
	struct pv_ib_cm_tunables tun;
	struct pv_ib_cm_av av;
	struct pv_cm_req req;
	int ret;

	ret = cma_conn_param(id, p, CMA_REQ_USER_PD);
	if (ret != 0)
		return ret;
	if (id->id.qp == NULL && (p == NULL || p->qp_num == 0))
		return -EINVAL;
	ret = cma_ib_open(id);
	if (ret != 0)
		return ret;
	/* Linux's CM: the REQ's starting PSN is what the passive side sends
	 * with (our rq_psn), the REP's what we send with */
	id->remote_psn = (uint32_t)rte_rand() & 0xffffff;
	pv_ib_cm_tunables_default(&tun);
	memset(&req, 0, sizeof(req));
	req.service_id = pv_cma_service_id((uint16_t)id->id.ps,
					   cma_addr_port(&id->id.route.addr.dst_addr));
	req.local_qpn = id->id.qp != NULL ? id->id.qp->qp_num : p->qp_num;
	req.responder_resources = id->responder_resources;
	req.initiator_depth = id->initiator_depth;
	req.remote_cm_response_timeout = tun.cm_response_timeout;
	req.transport_type = id->id.qp_type == PV_QPT_UC ? PV_CM_TRANSPORT_UC :
			     PV_CM_TRANSPORT_RC;
	req.end_to_end_flow_control = id->flow_control;
	req.starting_psn = id->remote_psn;
	req.local_cm_response_timeout = tun.cm_response_timeout;
	req.retry_count = id->retry_count;
	req.pkey = PV_GSI_PKEY;
	req.path_mtu = id->path.mtu;
	req.rnr_retry_count = id->rnr_retry_count;
	req.max_cm_retries = tun.max_cm_retries;
	req.srq = id->id.qp != NULL ? id->id.qp->srq != NULL : id->srq;
	req.primary.local_lid = CMA_PERMISSIVE_LID;
	req.primary.remote_lid = CMA_PERMISSIVE_LID;
	memcpy(req.primary.local_gid, id->path.sgid.raw, 16);
	memcpy(req.primary.remote_gid, id->path.dgid.raw, 16);
	req.primary.flow_label = rte_be_to_cpu_32(id->path.flow_label);
	req.primary.traffic_class = id->path.traffic_class;
	req.primary.hop_limit = id->path.hop_limit;
	req.primary.sl = id->path.sl;
	req.primary.local_ack_timeout = cma_local_ack_timeout(id);
	cma_hdr_fill(id, req.private_data);
	if (p != NULL && p->private_data_len)
		memcpy(req.private_data + PV_CMA_HDR_SIZE, p->private_data, p->private_data_len);
	id->path_mtu = id->path.mtu;
	cma_peer_av(id, &av);
	id->state = CMA_CONNECT;
	return cma_connect_sent(id, pv_ib_cm_send_req(id->ib, &req, &av));
}

static int
cma_connect_ud(struct cma_id *id, const struct pv_rdma_conn_param *p)
{
	struct pv_cm_sidr_req req;
	struct pv_ib_cm_av av;
	int ret;

	if (p != NULL && (p->private_data_len > CMA_SIDR_USER_PD ||
			  (p->private_data_len && p->private_data == NULL)))
		return -EINVAL;
	ret = cma_ib_open(id);
	if (ret != 0)
		return ret;
	memset(&req, 0, sizeof(req));
	req.pkey = PV_GSI_PKEY;
	req.service_id = pv_cma_service_id((uint16_t)id->id.ps,
					   cma_addr_port(&id->id.route.addr.dst_addr));
	cma_hdr_fill(id, req.private_data);
	if (p != NULL && p->private_data_len)
		memcpy(req.private_data + PV_CMA_HDR_SIZE, p->private_data, p->private_data_len);
	cma_peer_av(id, &av);
	id->state = CMA_CONNECT;
	return cma_connect_sent(id, pv_ib_cm_send_sidr_req(id->ib, &req, &av));
}

int
pv_rdma_connect(struct pv_rdma_cm_id *id, struct pv_rdma_conn_param *conn_param)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->state != CMA_ROUTE_RESOLVED)
		ret = -EINVAL;
	else if (cid->sys != NULL)
		ret = cma_sys_connect(cid, conn_param);
	else if (id->qp_type == PV_QPT_UD)
		ret = cma_connect_ud(cid, conn_param);
	else
		ret = cma_connect_rc(cid, conn_param);
	pthread_mutex_unlock(&cma_lock);
	if (ret != 0)
		return cma_err(-ret);
	return cma_complete(cid);
}

int
pv_rdma_establish(struct pv_rdma_cm_id *id)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->sys != NULL) {
		ret = cma_sys_establish(cid);
	} else if (cid->ib == NULL || cid->state != CMA_CONNECT || cid->listen != NULL) {
		ret = -EINVAL;
	} else {
		ret = pv_ib_cm_send_rtu(cid->ib, NULL, 0);
		if (ret == 0)
			cid->state = CMA_CONNECTED;
	}
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

/* ---------------------------------------------------------------------- */
/* Listening and accepting                                                 */
/* ---------------------------------------------------------------------- */

struct cma_listen_arg {
	struct cma_id *id;
	uint64_t service_id;
	int ret;
	int nb;
};

static void
cma_listen_dev(struct cma_device *dev, void *arg)
{
	struct cma_listen_arg *la = arg;
	struct pv_ib_cm_id *ib;
	int ret;

	if (la->ret != 0 || la->nb >= (int)RTE_DIM(la->id->lib))
		return;
	if ((la->id->dev != NULL && la->id->dev != dev) || dev->sys)
		return;		/* dev->sys: the kernel's CM listens there (cma_sys.c) */
	ret = cma_port_open(dev);
	if (ret != 0) {
		/* a device without QP1 (mlx5 without librdmacm...): skipped */
		if (la->id->dev == dev)
			la->ret = ret;
		return;
	}
	ib = pv_ib_cm_create_id(dev->port->ib, cma_ib_handler, la->id);
	if (ib == NULL) {
		la->ret = -ENOMEM;
		return;
	}
	ret = pv_ib_cm_listen(ib, la->service_id, UINT64_MAX);
	if (ret != 0) {
		pv_ib_cm_destroy_id(ib);
		la->ret = ret == -EBUSY ? -EADDRINUSE : ret;
		return;
	}
	la->id->lib[la->nb++] = ib;
}

static void
cma_unlisten(struct cma_id *id)
{
	int i;

	for (i = 0; i < (int)RTE_DIM(id->lib); i++)
		if (id->lib[i] != NULL) {
			pv_ib_cm_destroy_id(id->lib[i]);
			id->lib[i] = NULL;
		}
}

int
pv_rdma_listen(struct pv_rdma_cm_id *id, int backlog)
{
	struct cma_id *cid = cma_id_of(id);
	struct cma_listen_arg la;
	int ret = 0;

	if (id == NULL)
		return cma_err(EINVAL);
	if (cid->sys != NULL)
		return cma_sys_listen(cid, backlog);
	pthread_mutex_lock(&cma_lock);
	if (cid->state == CMA_IDLE) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		ret = cma_bind(cid, (struct sockaddr *)&any);
	} else if (cid->state != CMA_ADDR_BOUND) {
		ret = -EINVAL;
	}
	if (ret == 0) {
		cid->state = CMA_LISTEN;
		if (cma_port_in_use(cid, &id->route.addr.src_addr,
				    cma_addr_port(&id->route.addr.src_addr)))
			ret = -EADDRINUSE;
	}
	if (ret == 0) {
		memset(&la, 0, sizeof(la));
		la.id = cid;
		la.service_id = pv_cma_service_id((uint16_t)id->ps,
						  cma_addr_port(&id->route.addr.src_addr));
		cma_devices_foreach(cma_listen_dev, &la);
		ret = la.ret != 0 ? la.ret : la.nb == 0 ? -ENODEV : 0;
		ret = cma_sys_listen_any(cid, backlog, ret);
	}
	if (ret != 0) {
		cma_unlisten(cid);
		if (cid->state == CMA_LISTEN)
			cid->state = CMA_ADDR_BOUND;
	} else {
		cid->backlog = backlog > 0 ? backlog : CMA_DEFAULT_BACKLOG;
	}
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

/* the new id of a request; addresses from the rdma_cm header */
static struct cma_id *
cma_conn_id(struct cma_id *listen, struct pv_ib_cm_id *ib, const struct pv_cma_hdr *h,
	    const struct pv_ib_cm_av *av)
{
	struct cma_device *dev = NULL;
	struct cma_channel *chan = listen->chan->sync ? NULL : listen->chan;
	struct sockaddr_storage ss;
	struct cma_id *c;
	uint8_t gid[16];
	int gi;

	c = cma_id_new(chan, listen->id.context, listen->id.ps, listen->id.qp_type);
	if (c == NULL)
		return NULL;
	memcpy(gid, av->sgid, 16);
	cma_gid_to_addr(gid, 0, &ss);
	dev = cma_device_by_addr((struct sockaddr *)&ss, &gi);
	if (dev == NULL) {
		TAILQ_REMOVE(&cma_ids, c, next);
		if (chan == NULL)
			cma_channel_free(c->chan);
		pthread_cond_destroy(&c->cond);
		free(c);
		return NULL;
	}
	cma_set_device(c, dev, gi);
	/* local: the header's destination and the listener's port */
	if (h->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&c->id.route.addr.src_storage;
		struct sockaddr_in *d = (struct sockaddr_in *)&c->id.route.addr.dst_storage;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, h->dst_addr, 4);
		d->sin_family = AF_INET;
		memcpy(&d->sin_addr, h->src_addr, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&c->id.route.addr.src_storage;
		struct sockaddr_in6 *d = (struct sockaddr_in6 *)&c->id.route.addr.dst_storage;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, h->dst_addr, 16);
		d->sin6_family = AF_INET6;
		memcpy(&d->sin6_addr, h->src_addr, 16);
	}
	cma_addr_set_port(&c->id.route.addr.src_addr,
			  cma_addr_port(&listen->id.route.addr.src_addr));
	cma_addr_set_port(&c->id.route.addr.dst_addr, h->src_port);
	memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, av->dgid, 16);
	memcpy(c->path.dgid.raw, av->dgid, 16);
	c->path.dlid = rte_cpu_to_be_16(CMA_PERMISSIVE_LID);
	c->path.slid = rte_cpu_to_be_16(CMA_PERMISSIVE_LID);
	c->path.hop_limit = CMA_HOP_LIMIT;
	c->path.reversible = 1;
	c->path.numb_path = 1;
	c->path.pkey = rte_cpu_to_be_16(PV_GSI_PKEY);
	c->path.mtu_selector = 2;
	c->path.mtu = (uint8_t)dev->active_mtu;
	c->path.packet_life_time_selector = 2;
	c->path.packet_life_time = CMA_IBOE_PACKET_LIFETIME;
	c->id.route.num_paths = 1;
	c->ib = ib;
	ib->context = c;
	c->listen = listen;
	c->passive = 1;
	c->state = CMA_CONNECT;
	c->pending = 1;
	c->tos = listen->tos;
	c->ack_timeout = listen->ack_timeout;
	c->ack_timeout_set = listen->ack_timeout_set;
	listen->pending++;
	return c;
}

static int
cma_req_received(struct cma_id *listen, struct pv_ib_cm_id *ib, const struct pv_ib_cm_event *ev)
{
	const struct pv_cm_req *req = &ev->msg->req;
	struct pv_ib_cm_tunables tun;
	struct pv_cma_hdr h;
	struct cma_event *e;
	struct cma_id *c;

	if (pv_cma_hdr_decode(req->private_data, sizeof(req->private_data), &h) != 0 ||
	    listen->pending >= listen->backlog)
		return 1;
	if (!cma_addr_any(&listen->id.route.addr.src_addr)) {
		uint8_t g1[16], g2[16];
		struct sockaddr_storage ss;

		cma_gid_to_addr(ev->av->sgid, 0, &ss);
		cma_addr_to_gid((struct sockaddr *)&ss, g1);
		cma_addr_to_gid(&listen->id.route.addr.src_addr, g2);
		if (memcmp(g1, g2, 16) != 0)
			return 1;
	}
	if (req->transport_type != PV_CM_TRANSPORT_RC &&
	    req->transport_type != PV_CM_TRANSPORT_UC)
		return 1;
	c = cma_conn_id(listen, ib, &h, ev->av);
	if (c == NULL)
		return 1;
	c->id.qp_type = req->transport_type == PV_CM_TRANSPORT_UC ? PV_QPT_UC : PV_QPT_RC;
	memcpy(c->path.sgid.raw, req->primary.remote_gid, 16);
	memcpy(c->path.dgid.raw, req->primary.local_gid, 16);
	c->path.flow_label = rte_cpu_to_be_32(req->primary.flow_label);
	c->path.traffic_class = req->primary.traffic_class;
	c->path.hop_limit = req->primary.hop_limit != 0 ? req->primary.hop_limit : CMA_HOP_LIMIT;
	c->path.sl = req->primary.sl;
	c->path.mtu = RTE_MIN(req->path_mtu, (uint8_t)c->dev->active_mtu);
	c->path_mtu = c->path.mtu;
	c->remote_qpn = req->local_qpn;
	/* as Linux's CM: the REQ's starting PSN is ours to send with; the
	 * REP's (chosen now, so that rdma_init_qp_attr before accept gives
	 * the same PSNs) is the active side's */
	c->local_psn = req->starting_psn;
	c->remote_psn = (uint32_t)rte_rand() & 0xffffff;
	c->responder_resources = req->initiator_depth;
	c->initiator_depth = req->responder_resources;
	c->retry_count = req->retry_count;
	c->rnr_retry_count = req->rnr_retry_count;
	c->flow_control = req->end_to_end_flow_control;
	c->srq = req->srq;
	/* as rdma_cm: enter the MRA state, send the MRA if the REQ repeats */
	pv_ib_cm_tunables_default(&tun);
	pv_ib_cm_send_mra(ib, tun.mra_service_timeout | PV_IB_CM_MRA_FLAG_DELAY, NULL, 0);
	e = cma_event_new(c, PV_RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (e == NULL)
		return 0;	/* the peer's REQ retry brings it again */
	e->listen = listen;
	e->ev.listen_id = &listen->id;
	cma_event_data(e, req->private_data + PV_CMA_HDR_SIZE, CMA_REQ_USER_PD);
	e->ev.param.conn.responder_resources = c->responder_resources;
	e->ev.param.conn.initiator_depth = c->initiator_depth;
	e->ev.param.conn.flow_control = req->end_to_end_flow_control;
	e->ev.param.conn.retry_count = req->retry_count;
	e->ev.param.conn.rnr_retry_count = req->rnr_retry_count;
	e->ev.param.conn.srq = req->srq;
	e->ev.param.conn.qp_num = req->local_qpn;
	cma_event_queue_on(e, listen->chan);
	return 0;
}

static int
cma_sidr_req_received(struct cma_id *listen, struct pv_ib_cm_id *ib,
		      const struct pv_ib_cm_event *ev)
{
	const struct pv_cm_sidr_req *req = &ev->msg->sidr_req;
	struct pv_cma_hdr h;
	struct cma_event *e;
	struct cma_id *c;

	if (listen->id.qp_type != PV_QPT_UD ||
	    pv_cma_hdr_decode(req->private_data, sizeof(req->private_data), &h) != 0)
		return 1;
	c = cma_conn_id(listen, ib, &h, ev->av);
	if (c == NULL)
		return 1;
	memcpy(c->path.sgid.raw, ev->av->sgid, 16);
	e = cma_event_new(c, PV_RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (e == NULL)
		return 1;
	e->listen = listen;
	e->ev.listen_id = &listen->id;
	cma_event_data(e, req->private_data + PV_CMA_HDR_SIZE, CMA_SIDR_USER_PD);
	cma_event_queue_on(e, listen->chan);
	return 0;
}

/* a request stops counting against its listener's backlog */
static void
cma_request_done(struct cma_id *id)
{
	if (id->listen != NULL && id->pending) {
		id->listen->pending--;
		id->pending = 0;
	}
}

int
pv_rdma_accept(struct pv_rdma_cm_id *id, struct pv_rdma_conn_param *conn_param)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL)
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->sys != NULL) {
		ret = cma_sys_accept(cid, conn_param);
		goto out;
	}
	if (cid->listen == NULL || cid->state != CMA_CONNECT || cid->ib == NULL ||
	    cid->accepted) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(EINVAL);
	}
	if (id->qp_type == PV_QPT_UD) {
		struct pv_cm_sidr_rep rep;

		memset(&rep, 0, sizeof(rep));
		if (conn_param != NULL && conn_param->private_data_len > PV_CM_SIDR_REP_PRIVATE_DATA_SIZE) {
			ret = -EINVAL;
			goto out;
		}
		rep.status = PV_CM_SIDR_SUCCESS;
		rep.qpn = id->qp != NULL ? id->qp->qp_num : conn_param != NULL ? conn_param->qp_num : 0;
		rep.qkey = cid->qkey;
		if (conn_param != NULL && conn_param->private_data_len)
			memcpy(rep.private_data, conn_param->private_data,
			       conn_param->private_data_len);
		ret = pv_ib_cm_send_sidr_rep(cid->ib, &rep);
		if (ret == 0) {
			cma_request_done(cid);
			cid->state = CMA_CONNECTED;
		}
		goto out;
	}
	{
		struct pv_cm_rep rep;
		uint8_t retry = cid->retry_count, rnr = cid->rnr_retry_count, rep_rnr;
		const struct pv_device_attr *da = &cid->dev->attr;

		/* the QP's retry counts are the REQ's; the REP's RNR retry
		 * count is the accepting side's (retry_count is ignored) */
		if (conn_param != NULL) {
			ret = cma_conn_param(cid, conn_param, PV_CM_REP_PRIVATE_DATA_SIZE);
			if (ret != 0)
				goto out;
			rep_rnr = cid->rnr_retry_count;
		} else {
			cid->responder_resources = (uint8_t)RTE_MIN(cid->responder_resources,
								    da->max_qp_rd_atom);
			cid->initiator_depth = (uint8_t)RTE_MIN(cid->initiator_depth,
								da->max_qp_init_rd_atom);
			rep_rnr = CMA_DEFAULT_RETRY;
		}
		cid->retry_count = retry;
		cid->rnr_retry_count = rnr;
		if (id->qp == NULL && (conn_param == NULL || conn_param->qp_num == 0)) {
			ret = -EINVAL;
			goto out;
		}
		ret = cma_qp_connect(cid);
		if (ret != 0)
			goto out;
		memset(&rep, 0, sizeof(rep));
		rep.local_qpn = id->qp != NULL ? id->qp->qp_num : conn_param->qp_num;
		rep.starting_psn = cid->remote_psn;
		rep.responder_resources = cid->responder_resources;
		rep.initiator_depth = cid->initiator_depth;
		rep.target_ack_delay = cid->dev->attr.local_ca_ack_delay;
		rep.end_to_end_flow_control = cid->flow_control;
		rep.rnr_retry_count = rep_rnr;
		rep.srq = id->qp != NULL ? id->qp->srq != NULL : cid->srq;
		if (conn_param != NULL && conn_param->private_data_len)
			memcpy(rep.private_data, conn_param->private_data,
			       conn_param->private_data_len);
		ret = pv_ib_cm_send_rep(cid->ib, &rep);
		if (ret == 0) {
			cma_request_done(cid);
			cid->accepted = 1;
		}
	}
out:
	pthread_mutex_unlock(&cma_lock);
	if (ret != 0)
		return cma_err(-ret);
	if (id->qp_type == PV_QPT_UD)
		return 0;
	return cma_complete(cid);
}

int
pv_rdma_reject(struct pv_rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL || (private_data_len && private_data == NULL))
		return cma_err(EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (cid->sys != NULL) {
		ret = cma_sys_reject(cid, private_data, private_data_len);
	} else if (cid->listen == NULL || cid->state != CMA_CONNECT || cid->ib == NULL) {
		ret = -EINVAL;
	} else if (id->qp_type == PV_QPT_UD) {
		struct pv_cm_sidr_rep rep;

		memset(&rep, 0, sizeof(rep));
		rep.status = PV_CM_SIDR_REJECT;
		memcpy(rep.private_data, private_data,
		       RTE_MIN(private_data_len, PV_CM_SIDR_REP_PRIVATE_DATA_SIZE));
		ret = pv_ib_cm_send_sidr_rep(cid->ib, &rep);
	} else if (private_data_len > PV_CM_REJ_PRIVATE_DATA_SIZE) {
		ret = -EINVAL;
	} else {
		ret = pv_ib_cm_send_rej(cid->ib, PV_CM_REJ_CONSUMER_DEFINED, NULL, 0,
					private_data, private_data_len);
	}
	if (ret == 0) {
		if (!cid->accepted)
			cma_request_done(cid);
		cid->state = CMA_DISCONNECT;
	}
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

int
pv_rdma_reject_ece(struct pv_rdma_cm_id *id, const void *private_data,
		   uint8_t private_data_len)
{
	return pv_rdma_reject(id, private_data, private_data_len);
}

int
pv_rdma_notify(struct pv_rdma_cm_id *id, enum pv_event_type event)
{
	struct cma_id *cid = cma_id_of(id);
	int ret = 0;

	if (id == NULL)
		return cma_err(EINVAL);
	if (event != PV_EVENT_COMM_EST)
		return 0;
	pthread_mutex_lock(&cma_lock);
	if (cid->ib != NULL && cid->state == CMA_CONNECT && cid->accepted)
		ret = pv_ib_cm_establish(cid->ib);
	else if (cid->sys != NULL)
		ret = cma_sys_notify(cid, event);
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

int
pv_rdma_disconnect(struct pv_rdma_cm_id *id)
{
	struct cma_id *cid = cma_id_of(id);
	int ret;

	if (id == NULL)
		return cma_err(EINVAL);
	if (cid->sys != NULL)
		return cma_sys_disconnect(cid);
	pthread_mutex_lock(&cma_lock);
	if (cid->ib == NULL || id->qp_type == PV_QPT_UD ||
	    (cid->state != CMA_CONNECTED && cid->state != CMA_CONNECT &&
	     cid->state != CMA_DISCONNECT)) {
		pthread_mutex_unlock(&cma_lock);
		return cma_err(EINVAL);
	}
	cma_qp_error(cid);
	/* rdma_disconnect(): a DREQ, or the DREP of the peer's DREQ */
	ret = pv_ib_cm_send_dreq(cid->ib, NULL, 0);
	if (ret != 0)
		ret = pv_ib_cm_send_drep(cid->ib, NULL, 0);
	if (cid->state != CMA_DISCONNECT)
		cid->state = CMA_DISCONNECT;
	pthread_mutex_unlock(&cma_lock);
	cma_kick();
	return ret == 0 ? 0 : cma_err(-ret);
}

/* ---------------------------------------------------------------------- */
/* IB CM events                                                            */
/* ---------------------------------------------------------------------- */

static void
cma_disconnected(struct cma_id *id, int status)
{
	if (id->disc_reported)
		return;
	id->disc_reported = 1;
	id->state = CMA_DISCONNECT;
	cma_event_post(id, PV_RDMA_CM_EVENT_DISCONNECTED, status);
}

static void
cma_rep_received(struct cma_id *id, const struct pv_cm_rep *rep)
{
	struct cma_event *e;
	int ret;

	id->remote_qpn = rep->local_qpn;
	id->local_psn = rep->starting_psn;
	id->initiator_depth = RTE_MIN(id->initiator_depth, rep->responder_resources);
	id->responder_resources = RTE_MIN(id->responder_resources, rep->initiator_depth);
	id->rnr_retry_count = rep->rnr_retry_count;
	id->remote_ack_delay = rep->target_ack_delay;
	ret = cma_qp_connect(id);
	if (ret != 0) {
		CMA_LOG(ERR, "qp 0x%x: RTR/RTS: %s", id->id.qp->qp_num, strerror(-ret));
		pv_ib_cm_send_rej(id->ib, PV_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		cma_qp_error(id);
		id->state = CMA_DISCONNECT;
		cma_event_post(id, PV_RDMA_CM_EVENT_CONNECT_ERROR, ret);
		return;
	}
	if (id->id.qp != NULL) {
		pv_ib_cm_send_rtu(id->ib, NULL, 0);
		id->state = CMA_CONNECTED;
	}
	e = cma_event_new(id, id->id.qp != NULL ? PV_RDMA_CM_EVENT_ESTABLISHED :
			  PV_RDMA_CM_EVENT_CONNECT_RESPONSE, 0);
	if (e == NULL)
		return;
	cma_event_data(e, rep->private_data, PV_CM_REP_PRIVATE_DATA_SIZE);
	e->ev.param.conn.responder_resources = id->responder_resources;
	e->ev.param.conn.initiator_depth = id->initiator_depth;
	e->ev.param.conn.flow_control = rep->end_to_end_flow_control;
	e->ev.param.conn.rnr_retry_count = rep->rnr_retry_count;
	e->ev.param.conn.srq = rep->srq;
	e->ev.param.conn.qp_num = rep->local_qpn;
	cma_event_queue(e);
}

static void
cma_sidr_rep_received(struct cma_id *id, const struct pv_cm_sidr_rep *rep)
{
	struct cma_event *e;

	if (rep->status != PV_CM_SIDR_SUCCESS) {
		id->state = CMA_ROUTE_RESOLVED;
		cma_event_post(id, PV_RDMA_CM_EVENT_UNREACHABLE, rep->status);
		return;
	}
	if (rep->qkey != id->qkey) {
		id->state = CMA_ROUTE_RESOLVED;
		cma_event_post(id, PV_RDMA_CM_EVENT_UNREACHABLE, -EINVAL);
		return;
	}
	e = cma_event_new(id, PV_RDMA_CM_EVENT_ESTABLISHED, 0);
	if (e == NULL)
		return;
	id->state = CMA_CONNECTED;
	memcpy(e->private_data, rep->private_data, PV_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	e->ev.param.ud.private_data = e->private_data;
	e->ev.param.ud.private_data_len = PV_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	e->ev.param.ud.qp_num = rep->qpn;
	e->ev.param.ud.qkey = rep->qkey;
	e->ev.param.ud.ah_attr.is_global = 1;
	e->ev.param.ud.ah_attr.port_num = id->id.port_num;
	e->ev.param.ud.ah_attr.grh.dgid = id->path.dgid;
	e->ev.param.ud.ah_attr.grh.sgid_index =
		(uint8_t)cma_device_gid_index(id->dev, id->path.sgid.raw);
	e->ev.param.ud.ah_attr.grh.hop_limit = id->path.hop_limit;
	e->ev.param.ud.ah_attr.grh.traffic_class = id->path.traffic_class;
	e->ev.param.ud.ah_attr.grh.flow_label = rte_be_to_cpu_32(id->path.flow_label);
	cma_event_queue(e);
}

int
cma_ib_handler(struct pv_ib_cm_id *ib, const struct pv_ib_cm_event *ev)
{
	struct cma_id *id = ib->context;

	switch (ev->type) {
	case PV_IB_CM_REQ_RECEIVED:
		return cma_req_received(ev->listen_id->context, ib, ev);
	case PV_IB_CM_SIDR_REQ_RECEIVED:
		return cma_sidr_req_received(ev->listen_id->context, ib, ev);
	default:
		break;
	}
	if (id == NULL || id->state == CMA_DESTROYING)
		return 0;
	switch (ev->type) {
	case PV_IB_CM_REP_RECEIVED:
		if (id->state == CMA_CONNECT && id->listen == NULL)
			cma_rep_received(id, &ev->msg->rep);
		break;
	case PV_IB_CM_RTU_RECEIVED:
	case PV_IB_CM_USER_ESTABLISHED:
		if (id->state == CMA_CONNECT) {
			id->state = CMA_CONNECTED;
			cma_event_post(id, PV_RDMA_CM_EVENT_ESTABLISHED, 0);
		}
		break;
	case PV_IB_CM_REQ_ERROR:
	case PV_IB_CM_REP_ERROR:
	case PV_IB_CM_SIDR_REQ_ERROR:
		if (id->state == CMA_CONNECT) {
			cma_request_done(id);
			cma_qp_error(id);
			id->state = CMA_DISCONNECT;
			cma_event_post(id, PV_RDMA_CM_EVENT_UNREACHABLE,
				       ev->status != 0 ? ev->status : -ETIMEDOUT);
		}
		break;
	case PV_IB_CM_REJ_RECEIVED:
		if (id->state == CMA_CONNECT || id->state == CMA_CONNECTED) {
			struct cma_event *e;

			if (!id->accepted)
				cma_request_done(id);
			cma_qp_error(id);
			id->state = CMA_DISCONNECT;
			e = cma_event_new(id, PV_RDMA_CM_EVENT_REJECTED, ev->msg->rej.reason);
			if (e != NULL) {
				cma_event_data(e, ev->msg->rej.private_data,
					       PV_CM_REJ_PRIVATE_DATA_SIZE);
				cma_event_queue(e);
			}
		}
		break;
	case PV_IB_CM_DREQ_RECEIVED:
	case PV_IB_CM_DREP_RECEIVED:
	case PV_IB_CM_DREQ_ERROR:
		/* one DISCONNECTED per connection, whoever started (or both:
		 * crossing DREQs); a DREQ that timed out carries -ETIMEDOUT */
		if (id->state == CMA_CONNECTED || id->state == CMA_CONNECT ||
		    id->state == CMA_DISCONNECT)
			cma_disconnected(id, ev->type == PV_IB_CM_DREQ_ERROR ? -ETIMEDOUT : 0);
		break;
	case PV_IB_CM_TIMEWAIT_EXIT:
		cma_event_post(id, PV_RDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
		break;
	case PV_IB_CM_SIDR_REP_RECEIVED:
		if (id->state == CMA_CONNECT)
			cma_sidr_rep_received(id, &ev->msg->sidr_rep);
		break;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Destroying                                                              */
/* ---------------------------------------------------------------------- */

/* drop events not yet taken that belong to @p id; requests a listener
 * never saw are rejected with their ids */
static void
cma_drop_events(struct cma_id *id)
{
	struct cma_event *e, *t;

	for (e = TAILQ_FIRST(&id->chan->events); e != NULL; e = t) {
		t = TAILQ_NEXT(e, next);
		if (e->id == id) {
			TAILQ_REMOVE(&id->chan->events, e, next);
			free(e);
		} else if (e->listen == id) {
			struct cma_id *c = e->id;

			TAILQ_REMOVE(&id->chan->events, e, next);
			free(e);
			if (c->ib != NULL)
				pv_ib_cm_destroy_id(c->ib);
			c->ib = NULL;
			cma_sys_destroy(c);
			c->listen = NULL;
			TAILQ_REMOVE(&cma_ids, c, next);
			if (c->chan->sync)
				cma_channel_free(c->chan);
			pthread_cond_destroy(&c->cond);
			free(c);
		}
	}
}

int
pv_rdma_destroy_id(struct pv_rdma_cm_id *id)
{
	struct cma_id *cid = cma_id_of(id), *o;

	if (id == NULL)
		return cma_err(EINVAL);
	if (id->event != NULL) {
		pv_rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	pthread_mutex_lock(&cma_lock);
	cma_request_done(cid);
	cid->state = CMA_DESTROYING;
	cma_unlisten(cid);
	cma_sys_destroy(cid);	/* its kernel id: no event of it follows */
	if (cid->ib != NULL) {
		pv_ib_cm_destroy_id(cid->ib);
		cid->ib = NULL;
	}
	cma_drop_events(cid);
	TAILQ_FOREACH(o, &cma_ids, next)
		if (o->listen == cid)
			o->listen = NULL;
	while (cid->events_acked != cid->events_taken)
		pthread_cond_wait(&cid->cond, &cma_lock);
	TAILQ_REMOVE(&cma_ids, cid, next);
	if (cid->chan->sync)
		cma_channel_free(cid->chan);
	pthread_mutex_unlock(&cma_lock);
	cma_kick();
	pthread_cond_destroy(&cid->cond);
	free(cid);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Synchronous listeners, endpoints, options, migration                    */
/* ---------------------------------------------------------------------- */

int
pv_rdma_get_request(struct pv_rdma_cm_id *listen, struct pv_rdma_cm_id **id)
{
	struct cma_id *l = cma_id_of(listen);
	struct pv_rdma_cm_event *ev;
	struct cma_id *c;
	int ret;

	if (listen == NULL || id == NULL || !l->chan->sync || l->state != CMA_LISTEN)
		return cma_err(EINVAL);
	for (;;) {
		if (pv_rdma_get_cm_event(listen->channel, &ev) != 0)
			return -1;
		if (ev->event == PV_RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		pv_rdma_ack_cm_event(ev);
	}
	c = cma_id_of(ev->id);
	c->id.event = ev;
	if (l->ep_attr_set) {
		struct pv_qp_init_attr attr = l->ep_attr;

		ret = pv_rdma_create_qp(&c->id, l->ep_pd, &attr);
		if (ret != 0) {
			int err = errno;

			pv_rdma_reject(&c->id, NULL, 0);
			pv_rdma_destroy_id(&c->id);
			return cma_err(err);
		}
		c->ep = 1;
	}
	*id = &c->id;
	return 0;
}

int
pv_rdma_create_ep(struct pv_rdma_cm_id **id, struct pv_rdma_addrinfo *res, struct pv_pd *pd,
		  struct pv_qp_init_attr *qp_init_attr)
{
	struct pv_rdma_cm_id *cm;
	struct cma_id *cid;
	int ret;

	if (id == NULL || res == NULL)
		return cma_err(EINVAL);
	if (pv_rdma_create_id(NULL, &cm, NULL, (enum pv_rdma_port_space)res->ai_port_space) != 0)
		return -1;
	cid = cma_id_of(cm);
	if (res->ai_qp_type != 0)
		cm->qp_type = (enum pv_qp_type)res->ai_qp_type;
	if (res->ai_flags & PV_RAI_PASSIVE) {
		ret = pv_rdma_bind_addr(cm, res->ai_src_addr);
		if (ret == 0 && qp_init_attr != NULL) {
			/* as librdmacm: the QP type is the address info's */
			qp_init_attr->qp_type = cm->qp_type;
			cid->ep_attr = *qp_init_attr;
			cid->ep_attr_set = 1;
			cid->ep_pd = pd;
		}
	} else {
		ret = pv_rdma_resolve_addr(cm, res->ai_src_addr, res->ai_dst_addr, 2000);
		if (ret == 0)
			ret = pv_rdma_resolve_route(cm, 2000);
		if (ret == 0 && qp_init_attr != NULL) {
			qp_init_attr->qp_type = cm->qp_type;
			ret = pv_rdma_create_qp(cm, pd, qp_init_attr);
			cid->ep = ret == 0;
		}
	}
	if (ret != 0) {
		int err = errno;

		pv_rdma_destroy_ep(cm);
		return cma_err(err);
	}
	*id = cm;
	return 0;
}

void
pv_rdma_destroy_ep(struct pv_rdma_cm_id *id)
{
	if (id == NULL)
		return;
	if (id->qp != NULL)
		pv_rdma_destroy_qp(id);
	pv_rdma_destroy_id(id);
}

pv_be16
pv_rdma_get_src_port(struct pv_rdma_cm_id *id)
{
	return id == NULL ? 0 : rte_cpu_to_be_16(cma_addr_port(&id->route.addr.src_addr));
}

pv_be16
pv_rdma_get_dst_port(struct pv_rdma_cm_id *id)
{
	return id == NULL ? 0 : rte_cpu_to_be_16(cma_addr_port(&id->route.addr.dst_addr));
}

int
pv_rdma_set_option(struct pv_rdma_cm_id *id, int level, int optname, void *optval,
		   size_t optlen)
{
	struct cma_id *cid = cma_id_of(id);
	int ret = 0;

	if (id == NULL || optval == NULL)
		return cma_err(EINVAL);
	if (cid->sys != NULL)
		return cma_sys_set_option(cid, level, optname, optval, optlen);
	pthread_mutex_lock(&cma_lock);
	if (level == PV_RDMA_OPTION_ID) {
		switch (optname) {
		case PV_RDMA_OPTION_ID_TOS:
			if (optlen != sizeof(uint8_t)) {
				ret = -EINVAL;
				break;
			}
			cid->tos = *(uint8_t *)optval;
			cid->tos_set = 1;
			cid->path.traffic_class = cid->tos;
			break;
		case PV_RDMA_OPTION_ID_REUSEADDR:
			if (optlen != sizeof(int) || cid->state != CMA_IDLE)
				ret = -EINVAL;
			else
				cid->reuseaddr = *(int *)optval != 0;
			break;
		case PV_RDMA_OPTION_ID_AFONLY:
			if (optlen != sizeof(int) || cid->state != CMA_IDLE)
				ret = -EINVAL;
			else
				cid->afonly = *(int *)optval != 0;
			break;
		case PV_RDMA_OPTION_ID_ACK_TIMEOUT:
			if (optlen != sizeof(uint8_t)) {
				ret = -EINVAL;
				break;
			}
			cid->ack_timeout = RTE_MIN(*(uint8_t *)optval, 31);
			cid->ack_timeout_set = 1;
			break;
		default:
			ret = -ENOSYS;
		}
	} else if (level == PV_RDMA_OPTION_IB && optname == PV_RDMA_OPTION_IB_PATH) {
		const struct pv_path_data *pd = optval;

		if (optlen < sizeof(*pd) || optlen % sizeof(*pd) != 0 ||
		    (cid->state != CMA_ADDR_RESOLVED && cid->state != CMA_ROUTE_RESOLVED)) {
			ret = -EINVAL;
		} else {
			const struct pv_path_record *r = &pd->path;

			cid->path.dgid = r->dgid;
			cid->path.sgid = r->sgid;
			cid->path.flow_label = rte_cpu_to_be_32(
				rte_be_to_cpu_32(r->flowlabel_hoplimit) >> 8 & 0xfffff);
			cid->path.hop_limit = (uint8_t)rte_be_to_cpu_32(r->flowlabel_hoplimit);
			cid->path.traffic_class = r->tclass;
			cid->path.pkey = r->pkey;
			cid->path.sl = (uint8_t)(rte_be_to_cpu_16(r->qosclass_sl) & 0xf);
			cid->path.mtu = r->mtu & 0x3f;
			cid->path.packet_life_time = r->packetlifetime & 0x3f;
			id->route.num_paths = 1;
			cid->state = CMA_ROUTE_RESOLVED;
		}
	} else {
		ret = -ENOSYS;
	}
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? 0 : cma_err(-ret);
}

int
pv_rdma_migrate_id(struct pv_rdma_cm_id *id, struct pv_rdma_event_channel *channel)
{
	struct cma_id *cid = cma_id_of(id);
	struct cma_channel *to = (struct cma_channel *)channel, *from;
	struct cma_event *e, *t;
	uint64_t one = 1;

	if (id == NULL)
		return cma_err(EINVAL);
	if (to == NULL) {
		to = cma_channel_new(1);
		if (to == NULL)
			return -1;
	}
	pthread_mutex_lock(&cma_lock);
	/* events taken from the old channel must be acknowledged first */
	while (cid->events_acked != cid->events_taken)
		pthread_cond_wait(&cid->cond, &cma_lock);
	from = cid->chan;
	for (e = TAILQ_FIRST(&from->events); e != NULL; e = t) {
		t = TAILQ_NEXT(e, next);
		if (e->id == cid) {
			TAILQ_REMOVE(&from->events, e, next);
			TAILQ_INSERT_TAIL(&to->events, e, next);
			if (write(to->ch.fd, &one, sizeof(one)) < 0)
				CMA_LOG(ERR, "event channel write: %s", strerror(errno));
		}
	}
	cid->chan = to;
	id->channel = &to->ch;
	if (from->sync)
		cma_channel_free(from);
	pthread_mutex_unlock(&cma_lock);
	return 0;
}

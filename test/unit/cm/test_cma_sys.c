/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager of the devices the kernel owns (lib/cm/cma_sys.c:
 * librdmacm's user-created-QP flow, pollverbs owning the QP). Built twice:
 *
 *  - suite unit: this file fakes librdmacm and the kernel's device list (a
 *    loopback CM of a few calls that answers rdma_init_qp_attr() as the
 *    kernel does), and the kernel's device is the mlx5 model on lcore 1, so
 *    connections carry data through pollverbs QPs as on a ConnectX. Also
 *    the ibv <-> pv conversions, the UD event's address, rejections, an
 *    address on a device that is not pollverbs', and no kernel id leaked.
 *  - UT_HW (suite hw): the system's librdmacm on the first ConnectX, two
 *    ids over loopback on its IPv4 address; exits 77 without /dev/infiniband
 *    or such a device.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include <rte_common.h>

#include <infiniband/verbs.h>

#include "pv_rdma_cma.h"
#include "pv_rtc.h"
#include "pv_verbs_ibv.h"
#include "ut_common.h"

#define UT_WAIT_MS	5000
#define UT_PORT		7471

static struct sockaddr_in ut_ip;	/* the device's address (UT_HW) or a fake one */
static struct pv_rdma_event_channel *ut_ch;

#ifndef UT_HW
/* ---------------------------------------------------------------------- */
/* A fake librdmacm and kernel device list                                 */
/* ---------------------------------------------------------------------- */

#include <dlfcn.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/queue.h>

#include <rdma/rdma_cma.h>

#define FAKE_UNREACHABLE_IP "198.51.100.7"	/* resolves to a device not ours */
#define FAKE_REJ_NO_LISTENER 8			/* IB_CM_REJ_INVALID_SERVICE_ID */
#define FAKE_REJ_CONSUMER 28

struct fake_id {
	struct rdma_cm_id id;		/* first: what librdmacm hands out */
	LIST_ENTRY(fake_id) next;
	struct ibv_sa_path_rec path;
	struct fake_id *peer;
	int listening;
	int connected;
	uint32_t qpn;			/* conn_param.qp_num of connect/accept */
	int tos_set;
	uint8_t tos;
	int ack_timeout_set;
};

struct fake_event {
	struct rdma_cm_event ev;	/* first */
	TAILQ_ENTRY(fake_event) next;
	uint8_t data[256];
};

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, fake_id) fake_ids = LIST_HEAD_INITIALIZER(fake_ids);
static TAILQ_HEAD(, fake_event) fake_events = TAILQ_HEAD_INITIALIZER(fake_events);
static struct rdma_event_channel *fake_chan;
static int fake_on;			/* the fakes answer; else the real libraries */
static int fake_live;			/* kernel ids not destroyed */
static uint16_t fake_next_port = 40000;
static uint64_t fake_guid;		/* the model's node GUID, host order */
static union ibv_gid fake_gid;		/* the model's GID 0 */
static struct ibv_device fake_dev[2];	/* the model, and a device not ours */
static struct ibv_context fake_ctx[2];
static struct ibv_device *fake_list[3];

static void *
fake_real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static int
fake_is_ours(const struct ibv_device *d)
{
	return d == &fake_dev[0] || d == &fake_dev[1];
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **(*real)(int *) = fake_real("ibv_get_device_list");

	if (!fake_on)
		return real(num_devices);
	if (num_devices != NULL)
		*num_devices = 2;
	return fake_list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	void (*real)(struct ibv_device **) = fake_real("ibv_free_device_list");

	if (list != fake_list)
		real(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	const char *(*real)(struct ibv_device *) = fake_real("ibv_get_device_name");

	return fake_is_ours(device) ? device->name : real(device);
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	__be64 (*real)(struct ibv_device *) = fake_real("ibv_get_device_guid");

	if (!fake_is_ours(device))
		return real(device);
	return htobe64(device == &fake_dev[0] ? fake_guid : 0x1122334455667788ull);
}

static void
fake_init(uint64_t guid, const union pv_gid *gid)
{
	fake_guid = guid;
	memcpy(fake_gid.raw, gid->raw, 16);
	snprintf(fake_dev[0].name, sizeof(fake_dev[0].name), "mlx5_model0");
	snprintf(fake_dev[1].name, sizeof(fake_dev[1].name), "fake_other0");
	fake_dev[0].transport_type = IBV_TRANSPORT_IB;
	fake_dev[1].transport_type = IBV_TRANSPORT_IB;
	fake_ctx[0].device = &fake_dev[0];
	fake_ctx[1].device = &fake_dev[1];
	fake_list[0] = &fake_dev[0];
	fake_list[1] = &fake_dev[1];
	fake_on = 1;
}

static int
fake_err(int err)
{
	errno = err;
	return -1;
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL)
		return NULL;
	ch->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	fake_chan = ch;
	return ch;
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	close(channel->fd);
	free(channel);
	fake_chan = NULL;
}

/* queue an event of @p type on @p id; its parameters are the caller's to fill */
static struct fake_event *
fake_queue(struct fake_id *id, enum rdma_cm_event_type type, int status)
{
	struct fake_event *e = calloc(1, sizeof(*e));
	uint64_t one = 1;

	e->ev.id = &id->id;
	e->ev.event = type;
	e->ev.status = status;
	TAILQ_INSERT_TAIL(&fake_events, e, next);
	if (write(fake_chan->fd, &one, sizeof(one)) != sizeof(one))
		abort();
	return e;
}

static void
fake_data(struct fake_event *e, const void *data, uint8_t len, int ud)
{
	if (len != 0)
		memcpy(e->data, data, len);
	if (ud) {
		e->ev.param.ud.private_data = len ? e->data : NULL;
		e->ev.param.ud.private_data_len = len;
	} else {
		e->ev.param.conn.private_data = len ? e->data : NULL;
		e->ev.param.conn.private_data_len = len;
	}
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct fake_event *e;
	uint64_t v;

	if (read(channel->fd, &v, sizeof(v)) != sizeof(v))
		return -1;	/* EAGAIN: O_NONBLOCK, nothing queued */
	pthread_mutex_lock(&fake_lock);
	e = TAILQ_FIRST(&fake_events);
	TAILQ_REMOVE(&fake_events, e, next);
	pthread_mutex_unlock(&fake_lock);
	*event = &e->ev;
	return 0;
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	free(event);
	return 0;
}

static struct fake_id *
fake_id_new(void *context, enum rdma_port_space ps)
{
	struct fake_id *f = calloc(1, sizeof(*f));

	f->id.channel = fake_chan;
	f->id.context = context;
	f->id.ps = ps;
	f->id.qp_type = ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD : IBV_QPT_RC;
	LIST_INSERT_HEAD(&fake_ids, f, next);
	fake_live++;
	return f;
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
	       enum rdma_port_space ps)
{
	(void)channel;
	pthread_mutex_lock(&fake_lock);
	*id = &fake_id_new(context, ps)->id;
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct fake_id *f = (struct fake_id *)id;
	struct fake_event *e, *t;
	uint64_t v;

	pthread_mutex_lock(&fake_lock);
	/* the kernel drops what it has not delivered, and a DREQ goes out */
	for (e = TAILQ_FIRST(&fake_events); e != NULL; e = t) {
		t = TAILQ_NEXT(e, next);
		if (e->ev.id == id || e->ev.listen_id == id) {
			if (e->ev.listen_id == id) {
				/* a request never delivered: its id goes too */
				struct fake_id *c = (struct fake_id *)e->ev.id;

				if (c->peer != NULL)
					c->peer->peer = NULL;
				LIST_REMOVE(c, next);
				fake_live--;
				free(c);
			}
			TAILQ_REMOVE(&fake_events, e, next);
			free(e);
			if (read(fake_chan->fd, &v, sizeof(v)) != sizeof(v))
				abort();
		}
	}
	if (f->peer != NULL) {
		if (f->connected && f->peer->connected) {
			f->peer->connected = 0;
			fake_queue(f->peer, RDMA_CM_EVENT_DISCONNECTED, 0);
		}
		f->peer->peer = NULL;
	}
	LIST_REMOVE(f, next);
	fake_live--;
	pthread_mutex_unlock(&fake_lock);
	free(f);
	return 0;
}

static void
fake_bind(struct fake_id *f, const struct sockaddr *addr)
{
	struct sockaddr_in *s = &f->id.route.addr.src_sin;

	memcpy(s, addr, sizeof(*s));
	if (s->sin_port == 0)
		s->sin_port = htons(fake_next_port++);
}

/* the address is the model's: the kernel knows the device */
static void
fake_on_device(struct fake_id *f, int other)
{
	f->id.verbs = &fake_ctx[other ? 1 : 0];
	f->id.port_num = 1;
	f->id.route.addr.addr.ibaddr.sgid = fake_gid;
	f->id.route.addr.addr.ibaddr.dgid = fake_gid;
	f->id.route.addr.addr.ibaddr.pkey = htobe16(0xffff);
}

int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct fake_id *f = (struct fake_id *)id;

	if (addr->sa_family != AF_INET)
		return fake_err(EAFNOSUPPORT);
	pthread_mutex_lock(&fake_lock);
	fake_bind(f, addr);
	if (((struct sockaddr_in *)addr)->sin_addr.s_addr != INADDR_ANY)
		fake_on_device(f, 0);
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		  int timeout_ms)
{
	struct fake_id *f = (struct fake_id *)id;
	struct sockaddr_in *d = (struct sockaddr_in *)dst_addr;
	struct in_addr other;

	(void)timeout_ms;
	inet_pton(AF_INET, FAKE_UNREACHABLE_IP, &other);
	pthread_mutex_lock(&fake_lock);
	if (src_addr != NULL)
		fake_bind(f, src_addr);
	memcpy(&f->id.route.addr.dst_sin, d, sizeof(*d));
	/* loopback: the source address is the destination's */
	f->id.route.addr.src_sin.sin_addr = d->sin_addr;
	fake_on_device(f, d->sin_addr.s_addr == other.s_addr);
	fake_queue(f, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct fake_id *f = (struct fake_id *)id;

	(void)timeout_ms;
	pthread_mutex_lock(&fake_lock);
	f->path.dgid = fake_gid;
	f->path.sgid = fake_gid;
	f->path.dlid = htobe16(0xffff);
	f->path.flow_label = htobe32(0x12345);
	f->path.hop_limit = 64;
	f->path.traffic_class = f->tos;
	f->path.reversible = 1;
	f->path.numb_path = 1;
	f->path.pkey = htobe16(0xffff);
	f->path.mtu_selector = 2;
	f->path.mtu = IBV_MTU_1024;
	f->path.packet_life_time = 18;
	id->route.path_rec = &f->path;
	id->route.num_paths = 1;
	fake_queue(f, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)backlog;
	((struct fake_id *)id)->listening = 1;
	return 0;
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct fake_id *f = (struct fake_id *)id, *l, *c;
	int ud = id->qp_type == IBV_QPT_UD;
	struct fake_event *e;

	pthread_mutex_lock(&fake_lock);
	LIST_FOREACH(l, &fake_ids, next)
		if (l->listening && l->id.route.addr.src_sin.sin_port ==
				    id->route.addr.dst_sin.sin_port)
			break;
	f->qpn = conn_param->qp_num;
	if (l == NULL) {
		fake_queue(f, RDMA_CM_EVENT_REJECTED, FAKE_REJ_NO_LISTENER);
		pthread_mutex_unlock(&fake_lock);
		return 0;
	}
	c = fake_id_new(l->id.context, l->id.ps);
	c->id.qp_type = l->id.qp_type;
	fake_on_device(c, 0);
	c->id.route.addr.src_sin = id->route.addr.dst_sin;
	c->id.route.addr.dst_sin = id->route.addr.src_sin;
	c->path = f->path;
	c->id.route.path_rec = &c->path;
	c->id.route.num_paths = 1;
	c->peer = f;
	f->peer = c;
	e = fake_queue(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	e->ev.listen_id = &l->id;
	fake_data(e, conn_param->private_data, conn_param->private_data_len, ud);
	if (!ud) {
		/* the request's depths as the passive side sees them */
		e->ev.param.conn.responder_resources = conn_param->initiator_depth;
		e->ev.param.conn.initiator_depth = conn_param->responder_resources;
		e->ev.param.conn.retry_count = conn_param->retry_count;
		e->ev.param.conn.rnr_retry_count = conn_param->rnr_retry_count;
		e->ev.param.conn.qp_num = conn_param->qp_num;
	}
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct fake_id *c = (struct fake_id *)id;
	struct fake_event *e;

	pthread_mutex_lock(&fake_lock);
	c->qpn = conn_param->qp_num;
	if (c->peer == NULL) {
		pthread_mutex_unlock(&fake_lock);
		return fake_err(EINVAL);
	}
	if (id->qp_type == IBV_QPT_UD) {
		struct ibv_ah_attr *ah;

		e = fake_queue(c->peer, RDMA_CM_EVENT_ESTABLISHED, 0);
		fake_data(e, conn_param->private_data, conn_param->private_data_len, 1);
		e->ev.param.ud.qp_num = conn_param->qp_num;
		e->ev.param.ud.qkey = RDMA_UDP_QKEY;
		ah = &e->ev.param.ud.ah_attr;
		ah->grh.dgid = fake_gid;
		ah->grh.flow_label = 0xabcde;
		ah->grh.sgid_index = 2;
		ah->grh.hop_limit = 9;
		ah->grh.traffic_class = 0x20;
		ah->dlid = 0x1234;
		ah->sl = 3;
		ah->src_path_bits = 1;
		ah->static_rate = 5;
		ah->is_global = 1;
		ah->port_num = 1;
	} else {
		e = fake_queue(c->peer, RDMA_CM_EVENT_CONNECT_RESPONSE, 0);
		fake_data(e, conn_param->private_data, conn_param->private_data_len, 0);
		e->ev.param.conn.qp_num = conn_param->qp_num;
		e->ev.param.conn.responder_resources = 4;
		e->ev.param.conn.initiator_depth = 4;
	}
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_establish(struct rdma_cm_id *id)
{
	struct fake_id *f = (struct fake_id *)id;

	if (id->qp != NULL || f->peer == NULL)
		return fake_err(EINVAL);
	pthread_mutex_lock(&fake_lock);
	f->connected = 1;
	f->peer->connected = 1;
	fake_queue(f->peer, RDMA_CM_EVENT_ESTABLISHED, 0);
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct fake_id *c = (struct fake_id *)id;
	struct fake_event *e;

	pthread_mutex_lock(&fake_lock);
	if (c->peer != NULL) {
		e = fake_queue(c->peer, RDMA_CM_EVENT_REJECTED, FAKE_REJ_CONSUMER);
		fake_data(e, private_data, private_data_len, 0);
		c->peer->peer = NULL;
		c->peer = NULL;
	}
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

int
rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id;
	(void)event;
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	struct fake_id *f = (struct fake_id *)id;

	if (id->verbs == NULL)
		return fake_err(EINVAL);
	pthread_mutex_lock(&fake_lock);
	if (f->connected) {
		/* DREQ, DREP: one DISCONNECTED each */
		f->connected = 0;
		fake_queue(f, RDMA_CM_EVENT_DISCONNECTED, 0);
		if (f->peer != NULL && f->peer->connected) {
			f->peer->connected = 0;
			fake_queue(f->peer, RDMA_CM_EVENT_DISCONNECTED, 0);
		}
	}
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

static uint32_t
fake_psn(uint32_t qpn)
{
	return (qpn * 2654435761u) & 0xffffff;
}

/* what the kernel's rdma_init_qp_attr() answers (cma.c, cm.c on RoCE) */
int
rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct fake_id *f = (struct fake_id *)id;
	enum ibv_qp_state want = qp_attr->qp_state;

	if (id->verbs == NULL)
		return fake_err(EINVAL);
	memset(qp_attr, 0, sizeof(*qp_attr));
	qp_attr->qp_state = want;
	if (want == IBV_QPS_INIT || id->qp_type == IBV_QPT_UD) {
		qp_attr->pkey_index = 0;
		qp_attr->port_num = id->port_num;
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (id->qp_type == IBV_QPT_UD) {
			qp_attr->qkey = RDMA_UDP_QKEY;
			*qp_attr_mask |= IBV_QP_QKEY;
		} else {
			qp_attr->qp_access_flags = f->peer == NULL ? 0 :
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
			*qp_attr_mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	}
	if (f->peer == NULL)
		return fake_err(EINVAL);
	if (want == IBV_QPS_RTR) {
		qp_attr->path_mtu = IBV_MTU_1024;
		qp_attr->dest_qp_num = f->peer->qpn;
		qp_attr->rq_psn = fake_psn(f->peer->qpn);
		qp_attr->ah_attr.is_global = 1;
		qp_attr->ah_attr.port_num = id->port_num;
		qp_attr->ah_attr.grh.dgid = fake_gid;
		qp_attr->ah_attr.grh.hop_limit = 64;
		qp_attr->max_dest_rd_atomic = 4;
		qp_attr->min_rnr_timer = 12;
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		return 0;
	}
	if (want == IBV_QPS_RTS) {
		qp_attr->sq_psn = fake_psn(f->qpn);
		qp_attr->timeout = 14;
		qp_attr->retry_cnt = 7;
		qp_attr->rnr_retry = 7;
		qp_attr->max_rd_atomic = 4;
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	}
	return fake_err(EINVAL);
}

int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	struct fake_id *f = (struct fake_id *)id;

	if (level != RDMA_OPTION_ID || optlen == 0)
		return fake_err(ENOSYS);
	if (optname == RDMA_OPTION_ID_TOS) {
		f->tos = *(uint8_t *)optval;
		f->tos_set = 1;
	} else if (optname == RDMA_OPTION_ID_ACK_TIMEOUT) {
		f->ack_timeout_set = 1;
	}
	return 0;
}

static struct fake_id *
fake_of(struct pv_rdma_cm_id *id)
{
	struct fake_id *f;

	LIST_FOREACH(f, &fake_ids, next)
		if (f->id.context == id)
			return f;
	return NULL;
}
#endif /* !UT_HW */

/* ---------------------------------------------------------------------- */
/* Events and data                                                         */
/* ---------------------------------------------------------------------- */

/* the next event: of @p type, on @p id when not NULL (acknowledged unless
 * kept through @p keep_p) */
static int
ut_event(enum pv_rdma_cm_event_type type, struct pv_rdma_cm_id *id,
	 struct pv_rdma_cm_event **keep_p)
{
	struct pollfd pfd = { .fd = ut_ch->fd, .events = POLLIN };
	struct pv_rdma_cm_event *ev;
	int ok;

	if (poll(&pfd, 1, UT_WAIT_MS) != 1 || pv_rdma_get_cm_event(ut_ch, &ev) != 0) {
		printf("  no event (wanted %s)\n", pv_rdma_event_str(type));
		return 0;
	}
	ok = ev->event == type && (id == NULL || ev->id == id);
	if (!ok)
		printf("  %s (status %d), wanted %s\n", pv_rdma_event_str(ev->event), ev->status,
		       pv_rdma_event_str(type));
	if (keep_p != NULL)
		*keep_p = ev;
	else
		pv_rdma_ack_cm_event(ev);
	return ok;
}

static struct sockaddr *
ut_addr(struct sockaddr_in *sin, int any, uint16_t port)
{
	*sin = ut_ip;
	if (any)
		sin->sin_addr.s_addr = INADDR_ANY;
	sin->sin_port = htons(port);
	return (struct sockaddr *)sin;
}

/*
 * The id's QP, on a CQ of our own: the CM's default CQs have completion
 * channels, which the mlx5 hardware path does not offer yet (EOPNOTSUPP).
 */
static int
ut_qp_create(struct pv_rdma_cm_id *id)
{
	struct pv_qp_init_attr attr = {
		.qp_type = PV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	attr.send_cq = pv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (attr.send_cq == NULL)
		return -1;
	attr.recv_cq = attr.send_cq;
	if (pv_rdma_create_qp(id, NULL, &attr) != 0) {
		pv_destroy_cq(attr.send_cq);
		return -1;
	}
	return 0;
}

static void
ut_qp_destroy(struct pv_rdma_cm_id *id)
{
	struct pv_cq *cq = id->qp->send_cq;

	pv_rdma_destroy_qp(id);
	pv_destroy_cq(cq);
}

/* an active id resolved towards @p port, with a QP when @p qp */
static struct pv_rdma_cm_id *
ut_active(enum pv_rdma_port_space ps, uint16_t port, int qp)
{
	struct pv_rdma_cm_id *id;
	struct sockaddr_in dst;

	if (pv_rdma_create_id(ut_ch, &id, NULL, ps) != 0)
		return NULL;
	CU_ASSERT_EQUAL(pv_rdma_resolve_addr(id, NULL, ut_addr(&dst, 0, port), 2000), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ADDR_RESOLVED, id, NULL));
	CU_ASSERT_PTR_NOT_NULL(id->verbs);
	CU_ASSERT_EQUAL(pv_rdma_resolve_route(id, 2000), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ROUTE_RESOLVED, id, NULL));
	CU_ASSERT_EQUAL(id->route.num_paths, 1);
	if (qp)
		CU_ASSERT_EQUAL(ut_qp_create(id), 0);
	return id;
}

/* a listener on every address (the unit fake) or the device's (UT_HW) */
static struct pv_rdma_cm_id *
ut_listener(enum pv_rdma_port_space ps, uint16_t *port_p)
{
	struct pv_rdma_cm_id *id;
	struct sockaddr_in sin;
#ifdef UT_HW
	int any = 0;
#else
	int any = 1;	/* the model has no IPv4 GID: the kernel has the address */
#endif

	*port_p = 0;
	if (pv_rdma_create_id(ut_ch, &id, NULL, ps) != 0)
		return NULL;
	CU_ASSERT_EQUAL(pv_rdma_bind_addr(id, ut_addr(&sin, any, any ? UT_PORT : 0)), 0);
	CU_ASSERT_EQUAL(pv_rdma_listen(id, 8), 0);
	*port_p = ntohs(pv_rdma_get_src_port(id));
	CU_ASSERT_NOT_EQUAL(*port_p, 0);
	return id;
}

/*
 * A listener, an active id towards it (with a QP when @p qp) connecting
 * with @p cp, and the listener's CONNECT_REQUEST (the caller acknowledges
 * it; ev->id is the request's id), or NULL.
 */
static struct pv_rdma_cm_event *
ut_request(enum pv_rdma_port_space ps, int qp, struct pv_rdma_conn_param *cp,
	   struct pv_rdma_cm_id **l_p, struct pv_rdma_cm_id **a_p)
{
	struct pv_rdma_cm_event *ev = NULL;
	uint16_t port;

	*l_p = ut_listener(ps, &port);
	*a_p = *l_p != NULL ? ut_active(ps, port, qp) : NULL;
	if (*a_p == NULL)
		return NULL;
	CU_ASSERT_EQUAL(pv_rdma_connect(*a_p, cp), 0);
	if (!ut_event(PV_RDMA_CM_EVENT_CONNECT_REQUEST, NULL, &ev)) {
		if (ev != NULL)
			pv_rdma_ack_cm_event(ev);
		return NULL;
	}
	CU_ASSERT_PTR_EQUAL(ev->listen_id, *l_p);
	return ev;
}

static int
ut_poll(struct pv_cq *cq, struct pv_wc *wc)
{
	int i, n;

	for (i = 0; i < UT_WAIT_MS * 10; i++) {
		n = pv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n;
		usleep(100);
	}
	return 0;
}

/* two ids connect over loopback and one sends a message to the other */
static void
test_connect_send(void)
{
	static const char hello[] = "pv hello", welcome[] = "pv welcome";
	static const char msg[] = "a message through a pollverbs QP";
	struct pv_rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	struct pv_rdma_cm_id *l, *a, *c;
	struct pv_rdma_cm_event *ev;
	char sbuf[64], rbuf[64];
	struct pv_mr *smr, *rmr;
	struct pv_sge sge;
	struct pv_send_wr wr, *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;

	cp.private_data = hello;
	cp.private_data_len = sizeof(hello);
	ev = ut_request(PV_RDMA_PS_TCP, 1, &cp, &l, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	c = ev->id;
	CU_ASSERT_EQUAL(a->qp->state, PV_QPS_INIT);
	/* the kernel pads a REQ's private data (56 bytes): compare the start */
	CU_ASSERT(ev->param.conn.private_data_len >= sizeof(hello) &&
		  memcmp(ev->param.conn.private_data, hello, sizeof(hello)) == 0);
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, a->qp->qp_num);
	CU_ASSERT_PTR_EQUAL(c->verbs, a->verbs);
	pv_rdma_ack_cm_event(ev);

	CU_ASSERT_EQUAL_FATAL(ut_qp_create(c), 0);
	rmr = pv_reg_mr(c->pd, rbuf, sizeof(rbuf), PV_ACCESS_LOCAL_WRITE);
	smr = pv_reg_mr(a->pd, sbuf, sizeof(sbuf), PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_FATAL(rmr != NULL && smr != NULL);
	memset(rbuf, 0, sizeof(rbuf));
	sge = (struct pv_sge){ (uintptr_t)rbuf, sizeof(rbuf), rmr->lkey };
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(pv_post_recv(c->qp, &rwr, &rbad), 0);
	cp.private_data = welcome;
	cp.private_data_len = sizeof(welcome);
	CU_ASSERT_EQUAL(pv_rdma_accept(c, &cp), 0);
	CU_ASSERT_EQUAL(c->qp->state, PV_QPS_RTS);

	/* the active side's QP goes to RTS on the REP, then its RTU */
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ESTABLISHED, a, &ev));
	if (ev != NULL && ev->event == PV_RDMA_CM_EVENT_ESTABLISHED) {
		CU_ASSERT(ev->param.conn.private_data_len >= sizeof(welcome) &&
			  memcmp(ev->param.conn.private_data, welcome, sizeof(welcome)) == 0);
		CU_ASSERT_EQUAL(ev->param.conn.qp_num, c->qp->qp_num);
	}
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(a->qp->state, PV_QPS_RTS);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ESTABLISHED, c, NULL));

	memcpy(sbuf, msg, sizeof(msg));
	sge = (struct pv_sge){ (uintptr_t)sbuf, sizeof(msg), smr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(pv_post_send(a->qp, &wr, &bad), 0);
	CU_ASSERT(ut_poll(a->qp->send_cq, &wc) == 1 && wc.status == PV_WC_SUCCESS);
	CU_ASSERT(ut_poll(c->qp->recv_cq, &wc) == 1 && wc.status == PV_WC_SUCCESS &&
		  wc.byte_len == sizeof(msg));
	CU_ASSERT_STRING_EQUAL(rbuf, msg);

	CU_ASSERT_EQUAL(pv_rdma_disconnect(a), 0);
	CU_ASSERT_EQUAL(a->qp->state, PV_QPS_ERR);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_DISCONNECTED, NULL, NULL));
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_DISCONNECTED, NULL, NULL));
	CU_ASSERT_EQUAL(pv_rdma_disconnect(c), 0);

	ut_qp_destroy(a);
	ut_qp_destroy(c);
	pv_dereg_mr(smr);
	pv_dereg_mr(rmr);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(c), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l), 0);
}

#ifndef UT_HW
/* ---------------------------------------------------------------------- */
/* Without hardware only                                                   */
/* ---------------------------------------------------------------------- */

/* every field of @p p, from @p seed */
static void
ut_ah_fill(struct pv_ah_attr *p, uint8_t seed)
{
	int i;

	for (i = 0; i < 16; i++)
		p->grh.dgid.raw[i] = (uint8_t)(seed + i);
	p->grh.flow_label = 0xf0000u | seed;
	p->grh.sgid_index = seed + 1;
	p->grh.hop_limit = seed + 2;
	p->grh.traffic_class = seed + 3;
	p->dlid = (uint16_t)(0xbe00 | seed);
	p->sl = (seed + 4) & 0xf;
	p->src_path_bits = seed + 5;
	p->static_rate = seed + 6;
	p->is_global = 1;
	p->port_num = seed + 7;
}

static void
test_ah_attr_conversion(void)
{
	struct pv_ah_attr p, q;
	struct ibv_ah_attr a;

	memset(&p, 0, sizeof(p));
	ut_ah_fill(&p, 0x40);
	memset(&a, 0xff, sizeof(a));
	pv_ah_attr_to_ibv(&p, &a);
	CU_ASSERT(memcmp(a.grh.dgid.raw, p.grh.dgid.raw, 16) == 0);
	CU_ASSERT(a.grh.flow_label == 0xf0040 && a.grh.sgid_index == 0x41 &&
		  a.grh.hop_limit == 0x42 && a.grh.traffic_class == 0x43);
	CU_ASSERT(a.dlid == 0xbe40 && a.sl == 4 && a.src_path_bits == 0x45 &&
		  a.static_rate == 0x46 && a.is_global == 1 && a.port_num == 0x47);
	memset(&q, 0, sizeof(q));
	pv_ah_attr_from_ibv(&a, &q);
	CU_ASSERT(memcmp(&p, &q, sizeof(p)) == 0);
}

static void
test_qp_attr_conversion(void)
{
	struct pv_qp_attr p, q;
	struct ibv_qp_attr a;

	memset(&p, 0, sizeof(p));
	p.qp_state = PV_QPS_RTR;
	p.cur_qp_state = PV_QPS_INIT;
	p.path_mtu = PV_MTU_4096;
	p.path_mig_state = PV_MIG_ARMED;
	p.qkey = 0x80010000;
	p.rq_psn = 0x123456;
	p.sq_psn = 0x654321;
	p.dest_qp_num = 0xabcdef;
	p.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	p.cap = (struct pv_qp_cap){ 1, 2, 3, 4, 5 };
	ut_ah_fill(&p.ah_attr, 0x10);
	ut_ah_fill(&p.alt_ah_attr, 0x20);
	p.pkey_index = 6;
	p.alt_pkey_index = 7;
	p.en_sqd_async_notify = 1;
	p.sq_draining = 1;
	p.max_rd_atomic = 8;
	p.max_dest_rd_atomic = 9;
	p.min_rnr_timer = 12;
	p.port_num = 1;
	p.timeout = 14;
	p.retry_cnt = 6;
	p.rnr_retry = 5;
	p.alt_port_num = 2;
	p.alt_timeout = 18;
	p.rate_limit = 100000;
	pv_qp_attr_to_ibv(&p, &a);
	CU_ASSERT(a.qp_state == IBV_QPS_RTR && a.cur_qp_state == IBV_QPS_INIT &&
		  a.path_mtu == IBV_MTU_4096 && a.path_mig_state == IBV_MIG_ARMED);
	CU_ASSERT(a.qkey == 0x80010000 && a.rq_psn == 0x123456 && a.sq_psn == 0x654321 &&
		  a.dest_qp_num == 0xabcdef);
	CU_ASSERT_EQUAL(a.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CU_ASSERT(a.cap.max_send_wr == 1 && a.cap.max_inline_data == 5);
	CU_ASSERT(a.ah_attr.grh.dgid.raw[15] == 0x1f && a.alt_ah_attr.dlid == 0xbe20);
	CU_ASSERT(a.pkey_index == 6 && a.alt_pkey_index == 7 && a.max_rd_atomic == 8 &&
		  a.max_dest_rd_atomic == 9 && a.min_rnr_timer == 12 && a.timeout == 14 &&
		  a.retry_cnt == 6 && a.rnr_retry == 5 && a.alt_port_num == 2 &&
		  a.alt_timeout == 18 && a.rate_limit == 100000);
	pv_qp_attr_from_ibv(&a, &q);
	CU_ASSERT(memcmp(&p, &q, sizeof(p)) == 0);
}

/* the kernel's answers to rdma_init_qp_attr() reach pv_rdma_init_qp_attr() */
static void
test_init_qp_attr_is_the_kernels(void)
{
	struct pv_rdma_cm_id *a = ut_active(PV_RDMA_PS_TCP, UT_PORT, 0);
	struct pv_qp_attr attr;
	int mask;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	attr.qp_state = PV_QPS_INIT;
	CU_ASSERT_EQUAL(pv_rdma_init_qp_attr(a, &attr, &mask), 0);
	CU_ASSERT_EQUAL(mask, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS);
	CU_ASSERT(attr.qp_state == PV_QPS_INIT && attr.port_num == 1 &&
		  attr.qp_access_flags == 0);
	/* RTR needs a connection: the kernel's EINVAL */
	attr.qp_state = PV_QPS_RTR;
	CU_ASSERT_EQUAL(pv_rdma_init_qp_attr(a, &attr, &mask), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* RDMA_PS_TCP without a QP: a parameter is needed (ucma_valid_param) */
	CU_ASSERT_EQUAL(pv_rdma_connect(a, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
}

/* options set before the kernel id existed are applied to it */
static void
test_options_reach_the_kernel(void)
{
	struct pv_rdma_cm_id *id;
	struct sockaddr_in dst;
	uint8_t tos = 0x68, to = 16;
	struct fake_id *f;

	CU_ASSERT_EQUAL_FATAL(pv_rdma_create_id(ut_ch, &id, NULL, PV_RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL(pv_rdma_set_option(id, PV_RDMA_OPTION_ID, PV_RDMA_OPTION_ID_TOS, &tos,
					   sizeof(tos)), 0);
	CU_ASSERT_EQUAL(pv_rdma_resolve_addr(id, NULL, ut_addr(&dst, 0, UT_PORT), 2000), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ADDR_RESOLVED, id, NULL));
	f = fake_of(id);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(f->tos_set && f->tos == 0x68);
	CU_ASSERT_EQUAL(pv_rdma_set_option(id, PV_RDMA_OPTION_ID, PV_RDMA_OPTION_ID_ACK_TIMEOUT,
					   &to, sizeof(to)), 0);
	CU_ASSERT(f->ack_timeout_set);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(id), 0);
}

/* the kernel routes to a device that is not pollverbs': ADDR_ERROR */
static void
test_address_on_a_device_not_ours(void)
{
	struct pv_rdma_cm_id *id;
	struct pv_rdma_cm_event *ev;
	struct sockaddr_in dst;

	CU_ASSERT_EQUAL_FATAL(pv_rdma_create_id(ut_ch, &id, NULL, PV_RDMA_PS_TCP), 0);
	ut_addr(&dst, 0, UT_PORT);
	inet_pton(AF_INET, FAKE_UNREACHABLE_IP, &dst.sin_addr);
	CU_ASSERT_EQUAL(pv_rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ADDR_ERROR, id, &ev));
	CU_ASSERT_EQUAL(ev->status, -ENODEV);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_PTR_NULL(id->verbs);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(id), 0);
}

/* a reject with private data; a connect where nothing listens */
static void
test_rejections(void)
{
	static const char why[] = "no thanks";
	struct pv_rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	struct pv_rdma_cm_id *l, *a, *c;
	struct pv_rdma_cm_event *ev;

	ev = ut_request(PV_RDMA_PS_TCP, 1, &cp, &l, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	c = ev->id;
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(pv_rdma_reject(c, why, sizeof(why)), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_REJECTED, a, &ev));
	CU_ASSERT_EQUAL(ev->status, FAKE_REJ_CONSUMER);
	CU_ASSERT(ev->param.conn.private_data_len == sizeof(why) &&
		  memcmp(ev->param.conn.private_data, why, sizeof(why)) == 0);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(a->qp->state, PV_QPS_ERR);	/* as librdmacm on REJECTED */
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(c), 0);
	ut_qp_destroy(a);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l), 0);

	a = ut_active(PV_RDMA_PS_TCP, UT_PORT + 1, 1);
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT_EQUAL(pv_rdma_connect(a, NULL), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_REJECTED, a, &ev));
	CU_ASSERT_EQUAL(ev->status, FAKE_REJ_NO_LISTENER);
	pv_rdma_ack_cm_event(ev);
	ut_qp_destroy(a);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
}

/* connect without a QP: CONNECT_RESPONSE, then pv_rdma_establish() */
static void
test_connect_response_then_establish(void)
{
	struct pv_rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7,
					 .qp_num = 0x4321 };
	struct pv_rdma_cm_id *l, *a, *c;
	struct pv_rdma_cm_event *ev;

	ev = ut_request(PV_RDMA_PS_TCP, 0, &cp, &l, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	c = ev->id;
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, 0x4321);
	pv_rdma_ack_cm_event(ev);
	cp.qp_num = 0x8765;
	CU_ASSERT_EQUAL(pv_rdma_accept(c, &cp), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_CONNECT_RESPONSE, a, &ev));
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, 0x8765);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(pv_rdma_establish(a), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_ESTABLISHED, c, NULL));
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
	CU_ASSERT(ut_event(PV_RDMA_CM_EVENT_DISCONNECTED, c, NULL));
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(c), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l), 0);
}

/* UD (SIDR): the peer's address arrives converted to a pv_ah_attr */
static void
test_ud_event_address(void)
{
	struct pv_rdma_conn_param cp = { .qp_num = 0x777 };
	struct pv_rdma_cm_id *l, *a, *c;
	struct pv_rdma_cm_event *ev;
	const struct pv_ah_attr *ah;

	ev = ut_request(PV_RDMA_PS_UDP, 0, NULL, &l, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	c = ev->id;
	CU_ASSERT_EQUAL(c->qp_type, PV_QPT_UD);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(pv_rdma_accept(c, &cp), 0);
	CU_ASSERT_FATAL(ut_event(PV_RDMA_CM_EVENT_ESTABLISHED, a, &ev));
	CU_ASSERT(ev->param.ud.qp_num == 0x777 && ev->param.ud.qkey == PV_RDMA_UDP_QKEY);
	ah = &ev->param.ud.ah_attr;
	CU_ASSERT(ah->grh.flow_label == 0xabcde && ah->grh.sgid_index == 2 &&
		  ah->grh.hop_limit == 9 && ah->grh.traffic_class == 0x20);
	CU_ASSERT(ah->dlid == 0x1234 && ah->sl == 3 && ah->src_path_bits == 1 &&
		  ah->static_rate == 5 && ah->is_global == 1 && ah->port_num == 1);
	CU_ASSERT(memcmp(ah->grh.dgid.raw, fake_gid.raw, 16) == 0);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(c), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(a), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l), 0);
}

/* every kernel id made went away with its pollverbs id */
static void
test_no_kernel_id_left(void)
{
	CU_ASSERT_EQUAL(fake_live, 0);
}
#endif /* !UT_HW */

static const struct ut_case ut_cma_sys_cases[] = {
#ifndef UT_HW
	{ "ibv_ah_attr <-> pv_ah_attr", test_ah_attr_conversion },
	{ "ibv_qp_attr <-> pv_qp_attr", test_qp_attr_conversion },
#endif
	{ "two ids connect over loopback and send", test_connect_send },
#ifndef UT_HW
	{ "pv_rdma_init_qp_attr is rdma_init_qp_attr", test_init_qp_attr_is_the_kernels },
	{ "options reach the kernel's id", test_options_reach_the_kernel },
	{ "an address on a device not ours", test_address_on_a_device_not_ours },
	{ "REJECTED: by the peer, nobody listening", test_rejections },
	{ "CONNECT_RESPONSE without a QP, then establish",
	  test_connect_response_then_establish },
	{ "UD: the peer's address converted", test_ud_event_address },
	{ "no kernel id left", test_no_kernel_id_left },
#endif
	{ NULL, NULL },
};

static const struct ut_suite ut_cma_sys_suite = {
	.name = "cma_sys",
	.cases = ut_cma_sys_cases,
};

#ifdef UT_HW
/* the first ConnectX with an IPv4 address (RoCEv2 GID ::ffff:a.b.c.d) */
static int
ut_device(void)
{
	struct pv_device **list;
	struct pv_context *ctx;
	union pv_gid gid;
	int i, g, n, found = 0;

	list = pv_get_device_list(&n);
	for (i = 0; list != NULL && i < n && !found; i++) {
		const char *name = pv_get_device_name(list[i]);

		if (strncmp(name, "mlx5_", 5) != 0 || strncmp(name, "mlx5_model", 10) == 0)
			continue;
		ctx = pv_open_device(list[i]);
		for (g = 0; ctx != NULL && g < 256 && !found; g++) {
			static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

			if (pv_query_gid(ctx, 1, g, &gid) != 0)
				break;
			if (memcmp(gid.raw, v4map, 12) == 0) {
				ut_ip.sin_family = AF_INET;
				memcpy(&ut_ip.sin_addr, gid.raw + 12, 4);
				printf("test_cma_sys_hw: %s, %s\n", name, inet_ntoa(ut_ip.sin_addr));
				found = 1;
			}
		}
		if (ctx != NULL)
			pv_close_device(ctx);
	}
	pv_free_device_list(list);
	return found;
}

int
main(void)
{
	int ret;

	if (access("/dev/infiniband", F_OK) != 0) {
		printf("test_cma_sys_hw: no RDMA device in the kernel: /dev/infiniband missing: "
		       "skipped\n");
		return UT_EXIT_SKIP;
	}
	ret = ut_pv_init("test_cma_sys_hw", 256, "pv_ut_cma_sys_hw", "0", NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %d\n", ret);
		return 1;
	}
	if (!ut_device()) {
		printf("test_cma_sys_hw: no mlx5 (ConnectX) device with an IPv4 address: "
		       "skipped\n");
		pv_cleanup();
		return UT_EXIT_SKIP;
	}
	ut_ch = pv_rdma_create_event_channel();
	if (ut_ch == NULL) {
		fprintf(stderr, "pv_rdma_create_event_channel: %s\n", strerror(errno));
		pv_cleanup();
		return 1;
	}
	ret = ut_cunit_run_one(&ut_cma_sys_suite);
	pv_rdma_destroy_event_channel(ut_ch);
	pv_cleanup();
	return ret;
}
#else
int
main(void)
{
	struct pv_device **list;
	struct pv_context *ctx = NULL;
	union pv_gid gid;
	uint64_t guid = 0;
	int i, n, ret;

	ret = ut_pv_init("test_cma_sys", 256, "pv_ut_cma_sys", "0,1", "--pv-dev=mlx5_model",
			 NULL);
	if (ret < 0) {
		printf("test_cma_sys: EAL with lcores 0,1 unavailable (%d): skipped\n", ret);
		return UT_EXIT_SKIP;
	}
	/* the kernel's device, as far as cma_sys.c can tell, is the model */
	list = pv_get_device_list(&n);
	for (i = 0; list != NULL && i < n && ctx == NULL; i++)
		if (strcmp(pv_get_device_name(list[i]), "mlx5_model0") == 0) {
			ctx = pv_open_device(list[i]);
			guid = be64toh(list[i]->node_guid);
		}
	pv_free_device_list(list);
	if (ctx == NULL || pv_query_gid(ctx, 1, 0, &gid) != 0) {
		fprintf(stderr, "cannot open mlx5_model0\n");
		return 1;
	}
	pv_close_device(ctx);
	fake_init(guid, &gid);
	ut_ip.sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.1", &ut_ip.sin_addr);
	ut_ch = pv_rdma_create_event_channel();
	if (ut_ch == NULL) {
		fprintf(stderr, "pv_rdma_create_event_channel: %s\n", strerror(errno));
		return 1;
	}
	ret = ut_cunit_run_one(&ut_cma_sys_suite);
	pv_rdma_destroy_event_channel(ut_ch);
	pv_cleanup();
	return ret;
}
#endif /* UT_HW */

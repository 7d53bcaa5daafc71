/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Connection management through the system's librdmacm for the devices
 * the kernel owns (mlx5: the kernel has QP1 and runs the CM on it), while
 * pollverbs owns the QP and its data path. This is librdmacm's
 * user-created-QP flow (rdma_cm(7), rdma_init_qp_attr(3)): the kernel's
 * id never has a QP; connect and accept carry conn_param.qp_num of the
 * pollverbs QP, and the QP is moved as librdmacm moves the QP of an id
 * (ucma_init_conn_qp, ucma_modify_qp_rtr/rts, ucma_process_conn_resp of
 * rdma-core 44's librdmacm/cma.c) with the attributes rdma_init_qp_attr()
 * returns, converted to pv_qp_attr.
 *
 * Devices: a pollverbs device is the kernel's when libibverbs lists a
 * device of the same name and node GUID (mlx5_hw.c names its devices so).
 * One system event channel serves the process; its fd is non-blocking and
 * watched by the pv-cm thread, which takes each event, translates it into
 * the pollverbs event of the id's channel (same type and status, private
 * data copied, conn and UD parameters converted) and acknowledges it at
 * once, all under cma_lock: an API call that holds cma_lock (and may call
 * rdma_destroy_id(), which waits for the id's events to be acknowledged)
 * never waits for an event this thread holds.
 *
 * A kernel id's context is its pollverbs id; a request's new kernel id
 * inherits the listener's and is given its own pollverbs id here.
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cma_sys.h"
#include "pv_verbs_ibv.h"

/* events one drain translates before the thread looks at its other fds */
#define SYS_DRAIN_BURST 32
/* librdmacm's retry counts for a NULL conn_param (ucma_copy_conn_param_to_kern) */
#define SYS_DEFAULT_RETRY 7

static_assert(PV_IBV_SAME(PV_RDMA_PS_TCP, RDMA_PS_TCP) &&
	      PV_IBV_SAME(PV_RDMA_PS_UDP, RDMA_PS_UDP) &&
	      PV_IBV_SAME(PV_RDMA_PS_IB, RDMA_PS_IB) &&
	      PV_IBV_SAME(PV_RDMA_PS_IPOIB, RDMA_PS_IPOIB), "port spaces are librdmacm's");
static_assert(PV_IBV_SAME(PV_RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_REQUEST) &&
	      PV_IBV_SAME(PV_RDMA_CM_EVENT_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT),
	      "event types are librdmacm's");
static_assert(PV_IBV_SAME(PV_RDMA_OPTION_IB, RDMA_OPTION_IB) &&
	      PV_IBV_SAME(PV_RDMA_OPTION_ID_ACK_TIMEOUT, RDMA_OPTION_ID_ACK_TIMEOUT) &&
	      PV_IBV_SAME(PV_RDMA_OPTION_IB_PATH, RDMA_OPTION_IB_PATH),
	      "options are librdmacm's");
static_assert(sizeof(struct pv_path_data) == sizeof(struct ibv_path_data),
	      "RDMA_OPTION_IB_PATH passes struct pv_path_data as ibv_path_data");
static_assert(PV_IBV_SAME(PV_RDMA_MAX_RESP_RES, RDMA_MAX_RESP_RES) &&
	      PV_IBV_SAME(PV_RDMA_MAX_INIT_DEPTH, RDMA_MAX_INIT_DEPTH),
	      "depth wildcards are librdmacm's");

static struct rdma_event_channel *sys_chan;	/* NULL: no device through the kernel */

/* errno of a failed librdmacm call, as -errno */
static int
sys_err(void)
{
	return errno != 0 ? -errno : -EIO;
}

/* -errno into the API's -1 with errno */
static int
sys_api(int ret)
{
	if (ret == 0)
		return 0;
	errno = -ret;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* Devices and the system event channel                                    */
/* ---------------------------------------------------------------------- */

static int
sys_same_device(const struct cma_device *dev, struct ibv_device *kdev)
{
	return strcmp(pv_get_device_name(dev->ctx->device), ibv_get_device_name(kdev)) == 0 &&
	       dev->guid == be64toh(ibv_get_device_guid(kdev));
}

struct sys_match {
	struct ibv_device *const *list;	/* the kernel's devices */
	int n;
	int nb;				/* pollverbs devices found among them */
	struct cma_device *found;
};

static void
sys_mark(struct cma_device *dev, void *arg)
{
	struct sys_match *m = arg;
	int i;

	for (i = 0; i < m->n; i++)
		if (sys_same_device(dev, m->list[i])) {
			dev->sys = 1;
			m->nb++;
			return;
		}
}

static void
sys_unmark(struct cma_device *dev, void *arg)
{
	(void)arg;
	dev->sys = 0;
}

void
cma_sys_start(void)
{
	struct ibv_device **list;
	struct sys_match m;
	int fl;

	if (sys_chan != NULL)
		return;
	memset(&m, 0, sizeof(m));
	list = ibv_get_device_list(&m.n);
	if (list == NULL) {
		CMA_LOG(DEBUG, "kernel CM not used: no RDMA device in the kernel: %s",
			strerror(errno));
		return;
	}
	m.list = list;
	cma_devices_foreach(sys_mark, &m);
	ibv_free_device_list(list);
	if (m.nb == 0)
		return;
	sys_chan = rdma_create_event_channel();
	if (sys_chan == NULL) {
		CMA_LOG(WARNING, "%d device(s) of the kernel, but no kernel CM "
			"(rdma_create_event_channel: %s; rdma_ucm loaded?): they cannot connect",
			m.nb, strerror(errno));
		cma_devices_foreach(sys_unmark, NULL);
		return;
	}
	/* the pv-cm thread takes events while holding cma_lock: never block */
	fl = fcntl(sys_chan->fd, F_GETFL);
	if (fl < 0 || fcntl(sys_chan->fd, F_SETFL, fl | O_NONBLOCK) != 0) {
		CMA_LOG(ERR, "kernel CM channel: O_NONBLOCK: %s", strerror(errno));
		rdma_destroy_event_channel(sys_chan);
		sys_chan = NULL;
		cma_devices_foreach(sys_unmark, NULL);
		return;
	}
	CMA_LOG(INFO, "%d device(s) connect through the kernel's CM (librdmacm)", m.nb);
}

void
cma_sys_stop(void)
{
	struct cma_id *id;

	if (sys_chan == NULL)
		return;
	TAILQ_FOREACH(id, &cma_ids, next)
		cma_sys_destroy(id);
	rdma_destroy_event_channel(sys_chan);
	sys_chan = NULL;
}

int
cma_sys_fd(void)
{
	return sys_chan != NULL ? sys_chan->fd : -1;
}

static void
sys_find(struct cma_device *dev, void *arg)
{
	struct sys_match *m = arg;

	if (m->found == NULL && dev->sys && sys_same_device(dev, m->list[0]))
		m->found = dev;
}

/* the pollverbs device of a kernel context (librdmacm's, not ours) */
static struct cma_device *
sys_device_of(struct ibv_context *verbs)
{
	struct sys_match m;

	memset(&m, 0, sizeof(m));
	m.list = &verbs->device;
	cma_devices_foreach(sys_find, &m);
	return m.found;
}

/* ---------------------------------------------------------------------- */
/* Kernel ids                                                              */
/* ---------------------------------------------------------------------- */

/* options set on the pollverbs id before its kernel id existed */
static int
sys_options_apply(const struct cma_id *id, struct rdma_cm_id *sys)
{
	int one = 1, ret = 0;
	uint8_t v;

	if (id->tos_set) {
		v = id->tos;
		ret = rdma_set_option(sys, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &v, sizeof(v));
	}
	if (ret == 0 && id->reuseaddr)
		ret = rdma_set_option(sys, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one,
				      sizeof(one));
	if (ret == 0 && id->afonly)
		ret = rdma_set_option(sys, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one,
				      sizeof(one));
	if (ret == 0 && id->ack_timeout_set) {
		v = id->ack_timeout;
		ret = rdma_set_option(sys, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v,
				      sizeof(v));
	}
	return ret == 0 ? 0 : sys_err();
}

static int
sys_id_create(struct cma_id *id)
{
	struct rdma_cm_id *sys;
	int ret;

	if (sys_chan == NULL)
		return -ENODEV;
	if (rdma_create_id(sys_chan, &sys, id, (enum rdma_port_space)id->id.ps) != 0) {
		ret = sys_err();
		CMA_LOG(ERR, "rdma_create_id: %s", strerror(-ret));
		return ret;
	}
	ret = sys_options_apply(id, sys);
	if (ret != 0) {
		rdma_destroy_id(sys);
		return ret;
	}
	id->sys = sys;
	id->sys_conn_error = 0;
	return 0;
}

void
cma_sys_destroy(struct cma_id *id)
{
	if (id->sys == NULL)
		return;
	/* a connected kernel id sends its DREQ, a request its REJ */
	if (rdma_destroy_id(id->sys) != 0)
		CMA_LOG(ERR, "rdma_destroy_id: %s", strerror(errno));
	id->sys = NULL;
}

/* ibv_sa_path_rec -> pv_sa_path_rec: the same fields */
static void
sys_path_from_ibv(const struct ibv_sa_path_rec *a, struct pv_sa_path_rec *p)
{
	memcpy(p->dgid.raw, a->dgid.raw, sizeof(p->dgid.raw));
	memcpy(p->sgid.raw, a->sgid.raw, sizeof(p->sgid.raw));
	p->dlid = a->dlid;
	p->slid = a->slid;
	p->raw_traffic = a->raw_traffic;
	p->flow_label = a->flow_label;
	p->hop_limit = a->hop_limit;
	p->traffic_class = a->traffic_class;
	p->reversible = a->reversible;
	p->numb_path = a->numb_path;
	p->pkey = a->pkey;
	p->sl = a->sl;
	p->mtu_selector = a->mtu_selector;
	p->mtu = a->mtu;
	p->rate_selector = a->rate_selector;
	p->rate = a->rate;
	p->packet_life_time_selector = a->packet_life_time_selector;
	p->packet_life_time = a->packet_life_time;
	p->preference = a->preference;
}

/*
 * The kernel id's addresses, device, port and path into the pollverbs id:
 * its device becomes the pollverbs device of the same name and GUID (the
 * QP is made there). -ENODEV: the kernel's device is not one of ours.
 */
static int
sys_id_import(struct cma_id *id)
{
	const struct rdma_cm_id *sys = id->sys;
	struct pv_rdma_addr *a = &id->id.route.addr;
	struct cma_device *dev;

	memcpy(&a->src_storage, &sys->route.addr.src_storage, sizeof(a->src_storage));
	memcpy(&a->dst_storage, &sys->route.addr.dst_storage, sizeof(a->dst_storage));
	memcpy(a->addr.ibaddr.sgid.raw, sys->route.addr.addr.ibaddr.sgid.raw, 16);
	memcpy(a->addr.ibaddr.dgid.raw, sys->route.addr.addr.ibaddr.dgid.raw, 16);
	a->addr.ibaddr.pkey = sys->route.addr.addr.ibaddr.pkey;
	if (sys->route.num_paths > 0 && sys->route.path_rec != NULL) {
		/* pollverbs keeps the primary path (route.path_rec is &id->path) */
		sys_path_from_ibv(&sys->route.path_rec[0], &id->path);
		id->id.route.num_paths = 1;
	}
	if (sys->verbs == NULL)
		return 0;	/* bound to a wildcard address: no device yet */
	dev = sys_device_of(sys->verbs);
	if (dev == NULL) {
		CMA_LOG(ERR, "%s: the kernel's device of the address is not a pollverbs device",
			ibv_get_device_name(sys->verbs->device));
		return -ENODEV;
	}
	id->dev = dev;
	id->id.verbs = dev->ctx;
	id->id.port_num = sys->port_num;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Addresses                                                               */
/* ---------------------------------------------------------------------- */

int
cma_sys_bind(struct cma_id *id, struct cma_device *dev, const struct sockaddr *addr)
{
	int ret;

	ret = sys_id_create(id);
	if (ret != 0)
		return ret;
	if (rdma_bind_addr(id->sys, (struct sockaddr *)(uintptr_t)addr) != 0) {
		ret = sys_err();
		cma_sys_destroy(id);
		return ret;
	}
	ret = sys_id_import(id);	/* the port the kernel chose */
	if (ret != 0) {
		cma_sys_destroy(id);
		return ret;
	}
	if (id->dev == NULL) {
		/* the address is @p dev's: the kernel bound no device? keep ours */
		id->dev = dev;
		id->id.verbs = dev->ctx;
		id->id.port_num = 1;
	}
	id->state = CMA_ADDR_BOUND;
	return 0;
}

/*
 * Whether the kernel resolves @p dst: the id is bound through it, or it is
 * bound to no device and @p dst is not the address of a device of ours that
 * runs its own CM (loopback on softroce). The kernel's routing then picks
 * the device, which must be one of ours (ADDR_ERROR -ENODEV otherwise).
 */
int
cma_sys_resolves(const struct cma_id *id, const struct sockaddr *dst)
{
	struct cma_device *dev;
	int gid_index;

	if (id->sys != NULL)
		return 1;
	if (id->dev != NULL || sys_chan == NULL)
		return 0;
	dev = cma_device_by_addr(dst, &gid_index);
	return dev == NULL || dev->sys;
}

int
cma_sys_resolve_addr(struct cma_id *id, struct sockaddr *dst, int timeout_ms)
{
	struct sockaddr *src = NULL;
	int ret;

	if (id->sys == NULL) {
		ret = sys_id_create(id);
		if (ret != 0)
			return ret;
		/* the wildcard address and port cma_bind() gave the id */
		src = &id->id.route.addr.src_addr;
	}
	if (rdma_resolve_addr(id->sys, src, dst, timeout_ms) != 0) {
		ret = sys_err();
		if (src != NULL)
			cma_sys_destroy(id);
		return ret;
	}
	return 0;
}

int
cma_sys_resolve_route(struct cma_id *id, int timeout_ms)
{
	int ret = 0;

	pthread_mutex_lock(&cma_lock);
	if (rdma_resolve_route(id->sys, timeout_ms) != 0)
		ret = sys_err();
	pthread_mutex_unlock(&cma_lock);
	return ret == 0 ? cma_complete(id) : sys_api(ret);
}

int
cma_sys_listen(struct cma_id *id, int backlog)
{
	int ret = 0;

	pthread_mutex_lock(&cma_lock);
	if (rdma_listen(id->sys, backlog) != 0) {
		ret = sys_err();
	} else {
		id->state = CMA_LISTEN;
		id->backlog = backlog;
	}
	pthread_mutex_unlock(&cma_lock);
	return sys_api(ret);
}

/*
 * A listener bound to a wildcard address also listens in the kernel, for
 * the devices it owns; @p ret is the IB CMs' result (-ENODEV: no device of
 * ours runs its own CM), kept when it is another error.
 */
int
cma_sys_listen_any(struct cma_id *id, int backlog, int ret)
{
	int err;

	if ((ret != 0 && ret != -ENODEV) || sys_chan == NULL || id->dev != NULL ||
	    id->sys != NULL)
		return ret;
	err = sys_id_create(id);
	if (err == 0 && rdma_bind_addr(id->sys, &id->id.route.addr.src_addr) != 0)
		err = sys_err();
	if (err == 0 && rdma_listen(id->sys, backlog) != 0)
		err = sys_err();
	if (err != 0) {
		CMA_LOG(ERR, "kernel listener on port %u: %s",
			cma_addr_port(&id->id.route.addr.src_addr), strerror(-err));
		cma_sys_destroy(id);
		return err;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The QP                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * rdma_init_qp_attr() on the kernel id, converted. A UD QP goes on to RTR
 * and RTS with its state alone and send PSN 0, as librdmacm's
 * ucma_init_ud_qp() moves it: the kernel answers a UD id with the INIT
 * attributes whatever state is asked.
 */
int
cma_sys_init_qp_attr(struct cma_id *id, struct pv_qp_attr *attr, int *mask)
{
	enum pv_qp_state want = attr->qp_state;
	struct ibv_qp_attr a;
	int m;

	if (id->id.qp_type == PV_QPT_UD && want != PV_QPS_INIT) {
		memset(attr, 0, sizeof(*attr));
		attr->qp_state = want;
		*mask = want == PV_QPS_RTS ? PV_QP_STATE | PV_QP_SQ_PSN : PV_QP_STATE;
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = (enum ibv_qp_state)want;
	if (rdma_init_qp_attr(id->sys, &a, &m) != 0)
		return sys_err();
	pv_qp_attr_from_ibv(&a, attr);
	*mask = m;
	return 0;
}

static int
sys_qp_modify(struct cma_id *id, enum pv_qp_state state, uint8_t depth, int ib_link)
{
	struct pv_qp_attr a;
	int mask, ret;

	a.qp_state = state;
	ret = cma_sys_init_qp_attr(id, &a, &mask);
	if (ret != 0)
		return ret;
	if (state == PV_QPS_RTR) {
		/* librdmacm's workaround of an rdma_ucm bug: on InfiniBand the
		 * kernel's mask may carry its RoCE-only bits 21-23 */
		if (ib_link)
			mask &= (int)(UINT32_MAX ^ 0xe00000);
		if (depth != RDMA_MAX_RESP_RES)
			a.max_dest_rd_atomic = depth;
	} else if (state == PV_QPS_RTS && depth != RDMA_MAX_INIT_DEPTH) {
		a.max_rd_atomic = depth;
	}
	return -pv_modify_qp(id->id.qp, &a, mask);
}

/*
 * The id's QP to RTR and RTS (ucma_modify_qp_rtr/rts): INIT again first,
 * with the access rights of the connection now known to the kernel; the
 * responder resources and initiator depth replace the kernel's unless
 * they are the wildcards.
 */
static int
sys_qp_connect(struct cma_id *id, uint8_t resp_res, uint8_t init_depth)
{
	struct pv_port_attr pa;
	int ret, ib_link;

	if (id->id.qp == NULL)
		return 0;
	/* the kernel's port is ours: same device */
	memset(&pa, 0, sizeof(pa));
	ib_link = pv_query_port(id->dev->ctx, id->id.port_num, &pa) == 0 &&
		  pa.link_layer == PV_LINK_LAYER_INFINIBAND;
	ret = sys_qp_modify(id, PV_QPS_INIT, 0, ib_link);
	if (ret == 0)
		ret = sys_qp_modify(id, PV_QPS_RTR, resp_res, ib_link);
	if (ret == 0)
		ret = sys_qp_modify(id, PV_QPS_RTS, init_depth, ib_link);
	if (ret != 0)
		CMA_LOG(ERR, "qp 0x%x: to RTR/RTS: %s", id->id.qp->qp_num, strerror(-ret));
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Connecting                                                              */
/* ---------------------------------------------------------------------- */

/*
 * librdmacm's ucma_valid_param(): on RDMA_PS_TCP a parameter is needed
 * without a QP, and the depths must be the wildcard or within the device's
 * (librdmacm reads them from the same ibv_query_device()).
 */
static int
sys_param_valid(const struct cma_id *id, const struct pv_rdma_conn_param *p)
{
	const struct pv_device_attr *da = &id->dev->attr;

	if (id->id.ps != PV_RDMA_PS_TCP)
		return 0;
	if (p == NULL)
		return id->id.qp != NULL ? 0 : -EINVAL;
	if ((p->responder_resources != RDMA_MAX_RESP_RES &&
	     p->responder_resources > (uint8_t)da->max_qp_rd_atom) ||
	    (p->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	     p->initiator_depth > (uint8_t)da->max_qp_init_rd_atom))
		return -EINVAL;
	return 0;
}

/*
 * The kernel id's connection parameters: the application's, or
 * librdmacm's defaults for none (device maximum depths, retry counts 7);
 * with a QP on the id, its number and SRQ (the fields rdma_connect(3)
 * ignores when the id has a QP: the kernel's id has none).
 */
static void
sys_conn_param_to_ibv(const struct cma_id *id, const struct pv_rdma_conn_param *p,
		      struct rdma_conn_param *k)
{
	memset(k, 0, sizeof(*k));
	if (p != NULL) {
		k->private_data = p->private_data;
		k->private_data_len = p->private_data_len;
		k->responder_resources = p->responder_resources;
		k->initiator_depth = p->initiator_depth;
		k->flow_control = p->flow_control;
		k->retry_count = p->retry_count;
		k->rnr_retry_count = p->rnr_retry_count;
		k->srq = p->srq;
		k->qp_num = p->qp_num;
	} else {
		k->responder_resources = RDMA_MAX_RESP_RES;
		k->initiator_depth = RDMA_MAX_INIT_DEPTH;
		k->retry_count = SYS_DEFAULT_RETRY;
		k->rnr_retry_count = SYS_DEFAULT_RETRY;
	}
	if (id->id.qp != NULL) {
		k->qp_num = id->id.qp->qp_num;
		k->srq = id->id.qp->srq != NULL;
	}
}

int
cma_sys_connect(struct cma_id *id, const struct pv_rdma_conn_param *param)
{
	struct rdma_conn_param k;
	int ret;

	ret = sys_param_valid(id, param);
	if (ret != 0)
		return ret;
	sys_conn_param_to_ibv(id, param, &k);
	if (rdma_connect(id->sys, &k) != 0)
		return sys_err();
	id->sys_conn_error = 0;
	id->state = CMA_CONNECT;
	return 0;
}

int
cma_sys_establish(struct cma_id *id)
{
	/* rdma_establish(3): for an id without a QP, after CONNECT_RESPONSE */
	if (id->id.qp != NULL || id->listen != NULL || id->state != CMA_CONNECT)
		return -EINVAL;
	if (rdma_establish(id->sys) != 0)
		return sys_err();
	id->state = CMA_CONNECTED;
	return 0;
}

int
cma_sys_accept(struct cma_id *id, const struct pv_rdma_conn_param *param)
{
	const struct pv_device_attr *da = &id->dev->attr;
	uint8_t resp_res, init_depth;
	struct rdma_conn_param k;
	int ret;

	if (id->listen == NULL || id->state != CMA_CONNECT || id->accepted)
		return -EINVAL;
	ret = sys_param_valid(id, param);
	if (ret != 0)
		return ret;
	/* rdma_accept(): the request's depths within the device's, unless given */
	if (param == NULL || param->initiator_depth == RDMA_MAX_INIT_DEPTH)
		init_depth = RTE_MIN(id->initiator_depth, (uint8_t)da->max_qp_init_rd_atom);
	else
		init_depth = param->initiator_depth;
	if (param == NULL || param->responder_resources == RDMA_MAX_RESP_RES)
		resp_res = RTE_MIN(id->responder_resources, (uint8_t)da->max_qp_rd_atom);
	else
		resp_res = param->responder_resources;
	if (id->id.qp_type != PV_QPT_UD) {
		ret = sys_qp_connect(id, resp_res, init_depth);
		if (ret != 0)
			return ret;
	}
	sys_conn_param_to_ibv(id, param, &k);
	if (rdma_accept(id->sys, &k) != 0) {
		ret = sys_err();
		cma_qp_error(id);
		return ret;
	}
	id->accepted = 1;
	return 0;
}

int
cma_sys_reject(struct cma_id *id, const void *private_data, uint8_t private_data_len)
{
	if (id->listen == NULL || id->state != CMA_CONNECT)
		return -EINVAL;
	return rdma_reject(id->sys, private_data, private_data_len) == 0 ? 0 : sys_err();
}

int
cma_sys_notify(struct cma_id *id, enum pv_event_type event)
{
	return rdma_notify(id->sys, (enum ibv_event_type)event) == 0 ? 0 : sys_err();
}

int
cma_sys_disconnect(struct cma_id *id)
{
	int ret = 0;

	pthread_mutex_lock(&cma_lock);
	/* rdma_disconnect(): the QP to ERR (ucma_shutdown on IB/RoCE), then
	 * the DREQ, or the DREP of the peer's */
	cma_qp_error(id);
	if (rdma_disconnect(id->sys) != 0)
		ret = sys_err();
	else
		id->state = CMA_DISCONNECT;
	pthread_mutex_unlock(&cma_lock);
	return sys_api(ret);
}

int
cma_sys_set_option(struct cma_id *id, int level, int optname, void *optval, size_t optlen)
{
	int ret = 0;

	/* the kernel checks lengths and states; an IB_PATH brings ROUTE_RESOLVED */
	pthread_mutex_lock(&cma_lock);
	if (rdma_set_option(id->sys, level, optname, optval, optlen) != 0)
		ret = sys_err();
	pthread_mutex_unlock(&cma_lock);
	return sys_api(ret);
}

/* ---------------------------------------------------------------------- */
/* Events                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * Whether librdmacm filled the UD parameters of @p ev (rdma_get_cm_event:
 * a UD id's request, ESTABLISHED and other events; never CONNECT_RESPONSE,
 * REJECTED, DISCONNECTED).
 */
static int
sys_event_ud(const struct rdma_cm_event *ev)
{
	return ev->id->qp_type == IBV_QPT_UD &&
	       ev->event != RDMA_CM_EVENT_CONNECT_RESPONSE &&
	       ev->event != RDMA_CM_EVENT_REJECTED && ev->event != RDMA_CM_EVENT_DISCONNECTED;
}

/* @p in's parameters into @p e: private data copied (up to what @p e holds),
 * the connection's fields, or the UD address converted */
static void
sys_event_param(const struct rdma_cm_event *in, int ud, struct cma_event *e)
{
	if (ud) {
		const struct rdma_ud_param *u = &in->param.ud;
		struct pv_rdma_ud_param *o = &e->ev.param.ud;
		size_t len = RTE_MIN((size_t)u->private_data_len, sizeof(e->private_data));

		if (len != 0)
			memcpy(e->private_data, u->private_data, len);
		o->private_data = len != 0 ? e->private_data : NULL;
		o->private_data_len = (uint8_t)len;
		pv_ah_attr_from_ibv(&u->ah_attr, &o->ah_attr);
		o->qp_num = u->qp_num;
		o->qkey = u->qkey;
	} else {
		const struct rdma_conn_param *c = &in->param.conn;
		struct pv_rdma_conn_param *o = &e->ev.param.conn;

		if (c->private_data_len != 0)
			cma_event_data(e, c->private_data, c->private_data_len);
		o->responder_resources = c->responder_resources;
		o->initiator_depth = c->initiator_depth;
		o->flow_control = c->flow_control;
		o->retry_count = c->retry_count;
		o->rnr_retry_count = c->rnr_retry_count;
		o->srq = c->srq;
		o->qp_num = c->qp_num;
	}
}

static void
sys_post(struct cma_id *id, enum pv_rdma_cm_event_type type, int status,
	 const struct rdma_cm_event *ev)
{
	struct cma_event *e = cma_event_new(id, type, status);

	if (e == NULL)
		return;
	sys_event_param(ev, sys_event_ud(ev), e);
	cma_event_queue(e);
}

/*
 * A request on a listener: a pollverbs id for the kernel's new one, its
 * CONNECT_REQUEST on the listener's channel. @return the kernel id to
 * destroy once the event is acknowledged (refused: rejected already), or
 * NULL.
 */
static struct rdma_cm_id *
sys_request(struct cma_id *listen, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *sys = ev->id;
	int ud = sys->qp_type == IBV_QPT_UD;
	struct cma_event *e;
	struct cma_id *c;

	if (listen == NULL || listen->state != CMA_LISTEN || sys->verbs == NULL ||
	    sys_device_of(sys->verbs) == NULL)
		goto refuse;
	e = cma_event_new(listen, PV_RDMA_CM_EVENT_CONNECT_REQUEST, ev->status);
	if (e == NULL)
		goto refuse;
	c = cma_id_new(listen->chan->sync ? NULL : listen->chan, listen->id.context,
		       listen->id.ps, ud ? PV_QPT_UD : PV_QPT_RC);
	if (c == NULL) {
		free(e);
		goto refuse;
	}
	c->sys = sys;
	sys->context = c;
	sys_id_import(c);	/* the device was found above */
	c->listen = listen;
	c->state = CMA_CONNECT;
	/* what librdmacm's ucma_process_conn_req() keeps for rdma_accept() */
	c->responder_resources = ev->param.conn.responder_resources;
	c->initiator_depth = ev->param.conn.initiator_depth;
	e->id = c;
	e->ev.id = &c->id;
	e->listen = listen;
	e->ev.listen_id = &listen->id;
	sys_event_param(ev, ud, e);
	cma_event_queue_on(e, listen->chan);
	return NULL;
refuse:
	CMA_LOG(WARNING, "request refused: %s", listen == NULL || listen->state != CMA_LISTEN ?
		"its listener is going away" : "not on a pollverbs device, or no memory");
	sys->context = NULL;
	rdma_reject(sys, NULL, 0);
	return sys;
}

/* the active side's REP: ucma_process_conn_resp() for the id's QP */
static void
sys_conn_resp(struct cma_id *id, struct rdma_cm_event *ev)
{
	int ret;

	if (id->id.qp == NULL) {
		/* the application moves its QP and calls pv_rdma_establish() */
		sys_post(id, PV_RDMA_CM_EVENT_CONNECT_RESPONSE, ev->status, ev);
		return;
	}
	ret = sys_qp_connect(id, RDMA_MAX_RESP_RES, RDMA_MAX_INIT_DEPTH);
	/* the RTU: the kernel id has no QP, so this only sends it */
	if (ret == 0 && rdma_establish(id->sys) != 0)
		ret = sys_err();
	if (ret != 0) {
		cma_qp_error(id);
		id->sys_conn_error = 1;
		id->state = CMA_DISCONNECT;
		sys_post(id, PV_RDMA_CM_EVENT_CONNECT_ERROR, ret, ev);
		return;
	}
	id->state = CMA_CONNECTED;
	sys_post(id, PV_RDMA_CM_EVENT_ESTABLISHED, 0, ev);
}

/* one kernel event into its pollverbs id; the kernel id to destroy, or NULL */
static struct rdma_cm_id *
sys_event(struct rdma_cm_event *ev)
{
	enum pv_rdma_cm_event_type type = (enum pv_rdma_cm_event_type)ev->event;
	struct cma_id *id;
	int status = ev->status;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return sys_request(ev->listen_id->context, ev);
	id = ev->id->context;
	if (id == NULL || id->state == CMA_DESTROYING)
		return NULL;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (status == 0)
			status = sys_id_import(id);
		if (status == 0)
			id->state = CMA_ADDR_RESOLVED;
		else
			type = PV_RDMA_CM_EVENT_ADDR_ERROR;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (status == 0)
			status = sys_id_import(id);
		if (status == 0)
			id->state = CMA_ROUTE_RESOLVED;
		else
			type = PV_RDMA_CM_EVENT_ROUTE_ERROR;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		sys_conn_resp(id, ev);
		return NULL;
	case RDMA_CM_EVENT_ESTABLISHED:
		id->state = CMA_CONNECTED;
		break;
	case RDMA_CM_EVENT_REJECTED:
		if (id->sys_conn_error)
			return NULL;	/* after our CONNECT_ERROR, as librdmacm */
		cma_qp_error(id);
		id->state = CMA_DISCONNECT;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (id->sys_conn_error)
			return NULL;
		id->disc_reported = 1;
		id->state = CMA_DISCONNECT;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		id->state = CMA_DISCONNECT;
		break;
	default:
		/* ADDR_ERROR, ROUTE_ERROR, DEVICE_REMOVAL, ADDR_CHANGE,
		 * TIMEWAIT_EXIT: as they come */
		break;
	}
	sys_post(id, type, status, ev);
	return NULL;
}

void
cma_sys_drain(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *refused;
	int i;

	pthread_mutex_lock(&cma_lock);
	for (i = 0; i < SYS_DRAIN_BURST && sys_chan != NULL; i++) {
		if (rdma_get_cm_event(sys_chan, &ev) != 0) {
			if (errno != EAGAIN)
				CMA_LOG(ERR, "rdma_get_cm_event: %s", strerror(errno));
			break;
		}
		refused = sys_event(ev);
		rdma_ack_cm_event(ev);
		if (refused != NULL && rdma_destroy_id(refused) != 0)
			CMA_LOG(ERR, "rdma_destroy_id: %s", strerror(errno));
	}
	pthread_mutex_unlock(&cma_lock);
}

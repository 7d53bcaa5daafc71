/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Devices, contexts, attributes, GIDs, async events and the helpers of
 * libibverbs (IBVERBS_1.0 .. 1.14): each verb does what its man page says by
 * calling the pv_* verb of the same name; this file only converts objects.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv_verbs.h"
#include "compat_priv.h"

/* struct ibv_device_attr is pv_device_attr's prefix; the port attributes
 * likewise up to port_cap_flags2 */
#define PVC_SAME_OFF(t1, t2, f) (offsetof(struct t1, f) == offsetof(struct t2, f))
_Static_assert(PVC_SAME_OFF(ibv_device_attr, pv_device_attr, node_guid) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, max_mr_size) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, device_cap_flags) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, atomic_cap) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, max_srq_sge) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, max_pkeys) &&
	       PVC_SAME_OFF(ibv_device_attr, pv_device_attr, phys_port_cnt) &&
	       sizeof(struct ibv_device_attr) <= sizeof(struct pv_device_attr),
	       "ibv_device_attr is a prefix of pv_device_attr");
_Static_assert(PVC_SAME_OFF(ibv_port_attr, pv_port_attr, gid_tbl_len) &&
	       PVC_SAME_OFF(ibv_port_attr, pv_port_attr, pkey_tbl_len) &&
	       PVC_SAME_OFF(ibv_port_attr, pv_port_attr, subnet_timeout) &&
	       PVC_SAME_OFF(ibv_port_attr, pv_port_attr, link_layer) &&
	       PVC_SAME_OFF(ibv_port_attr, pv_port_attr, port_cap_flags2),
	       "pv_port_attr is ibv_port_attr up to port_cap_flags2");
_Static_assert(sizeof(struct ibv_gid_entry) == sizeof(struct pv_gid_entry) &&
	       PVC_SAME_OFF(ibv_gid_entry, pv_gid_entry, gid_type) &&
	       PVC_SAME_OFF(ibv_gid_entry, pv_gid_entry, ndev_ifindex) &&
	       (int)IBV_GID_TYPE_ROCE_V2 == (int)PV_GID_TYPE_ROCE_V2,
	       "pv_gid_entry is ibv_gid_entry");

/* driver.h's enum ibv_gid_type_sysfs (ibv_query_gid_type()) */
enum {
	PVC_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	PVC_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

static pthread_mutex_t pvc_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pvc_device **pvc_devs;	/* every device seen; never freed */
static int pvc_nb_devs;

/* the compat device of @p pv, made at its first sight; under pvc_dev_lock */
static struct pvc_device *
pvc_device_get(struct pv_device *pv)
{
	struct pvc_device **grown;
	struct pvc_device *d;
	int i;

	for (i = 0; i < pvc_nb_devs; i++)
		if (pvc_devs[i]->pv == pv)
			return pvc_devs[i];
	d = calloc(1, sizeof(*d));
	grown = realloc(pvc_devs, (pvc_nb_devs + 1) * sizeof(*grown));
	if (d == NULL || grown == NULL) {
		free(d);
		if (grown != NULL)
			pvc_devs = grown;
		return NULL;
	}
	pvc_devs = grown;
	d->pv = pv;
	d->index = pvc_nb_devs;
	d->ibv.node_type = (enum ibv_node_type)pv->node_type;
	d->ibv.transport_type = (enum ibv_transport_type)pv->transport_type;
	snprintf(d->ibv.name, sizeof(d->ibv.name), "%s", pv->name);
	snprintf(d->ibv.dev_name, sizeof(d->ibv.dev_name), "%s", pv->dev_name);
	snprintf(d->ibv.dev_path, sizeof(d->ibv.dev_path), "%s", pv->dev_path);
	snprintf(d->ibv.ibdev_path, sizeof(d->ibv.ibdev_path), "%s", pv->ibdev_path);
	pvc_devs[pvc_nb_devs++] = d;
	return d;
}

/* a socket of this network namespace listens on TCP port @p port (the
 * LISTEN state, 0A, of /proc/net/tcp or tcp6; ports are in hex there) */
static int
pvc_tcp_listening(int port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	unsigned int lport;
	char line[256], st[8];
	size_t i;
	FILE *f;
	int found = 0;

	for (i = 0; i < 2 && !found; i++) {
		f = fopen(files[i], "r");
		if (f == NULL)
			continue;
		while (!found && fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %7s",
				   &lport, st) == 2 && (int)lport == port && strcmp(st, "0A") == 0)
				found = 1;
		fclose(f);
	}
	return found;
}

/*
 * Wait up to @p seconds for a TCP listener on @p port (pv-run
 * --wait-listen): the client of a pair started together connects its TCP
 * exchange (perftest, ibv_rc_pingpong) once, and only after its server
 * listens, however long that server took to start.
 */
static void
pvc_tcp_listen_wait(int port, double seconds)
{
	while (seconds > 0 && !pvc_tcp_listening(port)) {
		usleep(10000);
		seconds -= 0.01;
	}
	if (seconds <= 0)
		PVC_LOG(WARNING, "no TCP listener on port %d after PV_RUN_LINK_WAIT s", port);
}

/*
 * Wait until port 1 of every device is ACTIVE, at most PV_RUN_LINK_WAIT
 * seconds (pv-run --link-wait), once per process. A memif port is down
 * until the peer process attaches, and programs such as perftest give up
 * at once on a port that is not ACTIVE: a real RDMA port is up before the
 * program starts. When it had to wait, then PV_RUN_LINK_SETTLE_MS more
 * (pv-run --link-settle): both processes see the link come up at once, and
 * a client that connects its TCP exchange at once (perftest,
 * ibv_rc_pingpong) must leave its server the time to listen. Then, with
 * PV_RUN_WAIT_LISTEN=PORT (pv-run --wait-listen), until a TCP socket
 * listens on PORT, within the same PV_RUN_LINK_WAIT seconds.
 */
static void
pvc_links_wait(struct pv_device **list, int n)
{
	static int done;
	const char *env = getenv("PV_RUN_LINK_WAIT");
	const char *settle, *listen_port;
	struct pv_port_attr pa;
	int waited = 0;
	struct pv_context *c;
	double left;
	int i;

	if (done || env == NULL)
		return;
	done = 1;
	left = atof(env);
	for (i = 0; i < n && left > 0; i++) {
		c = pv_open_device(list[i]);
		if (c == NULL)
			continue;
		while (left > 0 && pv_query_port(c, 1, &pa) == 0 && pa.state != PV_PORT_ACTIVE) {
			usleep(10000);
			left -= 0.01;
			waited = 1;
		}
		if (left <= 0)
			PVC_LOG(WARNING, "device %s: port 1 not active after PV_RUN_LINK_WAIT=%s s",
				list[i]->name, env);
		pv_close_device(c);
	}
	/* a peer started with this one gets time to reach its listen() */
	settle = getenv("PV_RUN_LINK_SETTLE_MS");
	if (settle != NULL && waited)
		usleep((useconds_t)atoi(settle) * 1000);
	listen_port = getenv("PV_RUN_WAIT_LISTEN");
	if (listen_port != NULL)
		pvc_tcp_listen_wait(atoi(listen_port), atof(env));
}

PVC_EXPORT struct ibv_device **
(ibv_get_device_list)(int *num_devices)
{
	struct ibv_device **list;
	struct pv_device **pvl;
	int n = 0;
	int i;
	int ret;

	ret = pv_compat_start();
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	pvl = pv_get_device_list(&n);
	if (pvl == NULL)
		return NULL;
	pthread_mutex_lock(&pvc_dev_lock);
	pvc_links_wait(pvl, n);
	pthread_mutex_unlock(&pvc_dev_lock);
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		pv_free_device_list(pvl);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&pvc_dev_lock);
	for (i = 0; i < n; i++) {
		struct pvc_device *d = pvc_device_get(pvl[i]);

		if (d == NULL) {
			pthread_mutex_unlock(&pvc_dev_lock);
			pv_free_device_list(pvl);
			free(list);
			errno = ENOMEM;
			return NULL;
		}
		list[i] = &d->ibv;
	}
	pthread_mutex_unlock(&pvc_dev_lock);
	pv_free_device_list(pvl);
	if (num_devices != NULL)
		*num_devices = n;
	return list;
}

PVC_EXPORT void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

PVC_EXPORT const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device == NULL ? NULL : device->name;
}

PVC_EXPORT __be64
ibv_get_device_guid(struct ibv_device *device)
{
	if (device == NULL)
		return 0;
	return pv_get_device_guid(PVC_CONTAINER(device, struct pvc_device, ibv)->pv);
}

PVC_EXPORT int
ibv_get_device_index(struct ibv_device *device)
{
	if (device == NULL)
		return -1;
	return PVC_CONTAINER(device, struct pvc_device, ibv)->index;
}

struct pvc_context *
pv_compat_ctx_new(struct pv_context *pv)
{
	struct pvc_context *ctx;
	struct pvc_device *d;
	struct ibv_context *c;

	pthread_mutex_lock(&pvc_dev_lock);
	d = pvc_device_get(pv->device);
	pthread_mutex_unlock(&pvc_dev_lock);
	ctx = calloc(1, sizeof(*ctx));
	if (d == NULL || ctx == NULL || pv_compat_map_put(pv, ctx) != 0) {
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}
	ctx->pv = pv;
	c = &ctx->vctx.context;
	c->device = &d->ibv;
	c->cmd_fd = -1;			/* no kernel: no command channel */
	c->async_fd = pv->async_fd;
	c->num_comp_vectors = pv->num_comp_vectors;
	pthread_mutex_init(&c->mutex, NULL);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.sz = sizeof(ctx->vctx);
	c->ops.poll_cq = pv_compat_poll_cq;
	c->ops.req_notify_cq = pv_compat_req_notify_cq;
	c->ops.post_send = pv_compat_post_send;
	c->ops.post_recv = pv_compat_post_recv;
	c->ops.post_srq_recv = pv_compat_post_srq_recv;
	pv_compat_ctx_ops_init(ctx);
	return ctx;
}

PVC_EXPORT struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct pvc_context *ctx;
	struct pv_context *pv;
	int err;

	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pv = pv_open_device(PVC_CONTAINER(device, struct pvc_device, ibv)->pv);
	if (pv == NULL)
		return NULL;
	ctx = pv_compat_ctx_new(pv);
	if (ctx == NULL) {
		err = errno;
		pv_close_device(pv);
		errno = err;
		return NULL;
	}
	return &ctx->vctx.context;
}

PVC_EXPORT int
ibv_close_device(struct ibv_context *context)
{
	struct pvc_context *ctx;
	int ret;

	if (context == NULL)
		return EINVAL;
	ctx = pvc_ctx(context);
	ret = pv_close_device(ctx->pv);
	if (ret == EBUSY) {
		/*
		 * libibverbs closes a context whatever is left in it (the
		 * kernel frees those objects with the file) and programs rely
		 * on it: perftest's ib_send_bw client leaves its receive CQ.
		 * Here the objects stay, with the context, until exit.
		 */
		PVC_LOG(DEBUG, "device %s: objects left open: context kept until exit",
			context->device->name);
		return 0;
	}
	if (ret != 0)
		return ret;
	pv_compat_map_del(ctx->pv);
	pthread_mutex_destroy(&context->mutex);
	free(ctx);
	return 0;
}

PVC_EXPORT int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	struct pv_device_attr a;
	int ret;

	if (context == NULL || device_attr == NULL)
		return EINVAL;
	ret = pv_query_device(pvc_ctx(context)->pv, &a);
	if (ret == 0)
		memcpy(device_attr, &a, sizeof(*device_attr));
	return ret;
}

/* fills rdma-core's port attributes up to port_cap_flags2 (the legacy
 * struct of the exported ibv_query_port() ends there too) */
static int
pvc_query_port(struct ibv_context *context, uint8_t port_num, void *port_attr)
{
	struct pv_port_attr a;
	int ret;

	if (context == NULL || port_attr == NULL)
		return EINVAL;
	ret = pv_query_port(pvc_ctx(context)->pv, port_num, &a);
	if (ret == 0)
		memcpy(port_attr, &a, offsetof(struct ibv_port_attr, port_cap_flags2) +
		       sizeof(a.port_cap_flags2));
	return ret;
}

/* verbs_context.query_port: the path of the inline ibv_query_port() */
int
pv_compat_query_port(struct ibv_context *context, uint8_t port_num,
		     struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	if (port_attr_len < offsetof(struct ibv_port_attr, port_cap_flags2) +
	    sizeof(port_attr->port_cap_flags2))
		return EINVAL;
	memset(port_attr, 0, port_attr_len);
	return pvc_query_port(context, port_num, port_attr);
}

PVC_EXPORT int
(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return pvc_query_port(context, port_num, port_attr);
}

PVC_EXPORT int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	if (context == NULL || gid == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_query_gid(pvc_ctx(context)->pv, port_num, index, (union pv_gid *)gid);
}

PVC_EXPORT int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	if (context == NULL || pkey == NULL) {
		errno = EINVAL;
		return -1;
	}
	return pv_query_pkey(pvc_ctx(context)->pv, port_num, index, pkey);
}

PVC_EXPORT int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	struct ibv_port_attr pa;
	__be16 p;
	int i;

	if (pvc_query_port(context, port_num, &pa) != 0)
		return -1;
	for (i = 0; i < pa.pkey_tbl_len; i++)
		if (ibv_query_pkey(context, port_num, i, &p) == 0 && p == pkey)
			return i;
	errno = ENOENT;
	return -1;
}

PVC_EXPORT int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		  struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	if (context == NULL || entry == NULL || entry_size < sizeof(*entry))
		return EINVAL;
	return pv_query_gid_ex(pvc_ctx(context)->pv, port_num, gid_index,
			       (struct pv_gid_entry *)entry, flags);
}

PVC_EXPORT ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	if (context == NULL || entry_size != sizeof(*entries))
		return -EINVAL;
	return pv_query_gid_table(pvc_ctx(context)->pv, (struct pv_gid_entry *)entries,
				  max_entries, flags);
}

/* IBVERBS_PRIVATE_34, imported by perftest: 0 and the sysfs GID type */
PVC_EXPORT int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		   int *type)
{
	struct pv_gid_entry e;
	int ret;

	if (context == NULL || type == NULL) {
		errno = EINVAL;
		return -1;
	}
	ret = pv_query_gid_ex(pvc_ctx(context)->pv, port_num, index, &e, 0);
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	*type = e.gid_type == PV_GID_TYPE_ROCE_V2 ? PVC_GID_TYPE_SYSFS_ROCE_V2 :
						   PVC_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

PVC_EXPORT int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct pv_async_event e;
	int ret;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	pv_compat_block_enter();
	ret = pv_get_async_event(pvc_ctx(context)->pv, &e);
	pv_compat_block_leave();
	if (ret != 0)
		return ret;
	event->event_type = (enum ibv_event_type)e.event_type;
	switch (e.event_type) {
	case PV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)&((struct pvc_cq *)e.element.cq->cq_context)->ibv;
		break;
	case PV_EVENT_QP_FATAL:
	case PV_EVENT_QP_REQ_ERR:
	case PV_EVENT_QP_ACCESS_ERR:
	case PV_EVENT_COMM_EST:
	case PV_EVENT_SQ_DRAINED:
	case PV_EVENT_PATH_MIG:
	case PV_EVENT_PATH_MIG_ERR:
	case PV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = &((struct pvc_qp *)e.element.qp->qp_context)->ibv.qp_base;
		break;
	case PV_EVENT_SRQ_ERR:
	case PV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = &((struct pvc_srq *)e.element.srq->srq_context)->ibv;
		break;
	default:
		event->element.port_num = e.element.port_num;
		break;
	}
	return 0;
}

PVC_EXPORT void
ibv_ack_async_event(struct ibv_async_event *event)
{
	struct pv_async_event e;

	if (event == NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.event_type = (enum pv_event_type)event->event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		e.element.cq = pvc_cq(event->element.cq)->pv;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		e.element.qp = pvc_qp(event->element.qp)->pv;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		e.element.srq = pvc_srq(event->element.srq)->pv;
		break;
	default:
		e.element.port_num = event->element.port_num;
		break;
	}
	pv_ack_async_event(&e);
}

/* ---- helpers: the same enum values in both APIs ---- */

PVC_EXPORT const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	return pv_node_type_str((enum pv_node_type)node_type);
}

PVC_EXPORT const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	return pv_port_state_str((enum pv_port_state)port_state);
}

PVC_EXPORT const char *
ibv_event_type_str(enum ibv_event_type event)
{
	return pv_event_type_str((enum pv_event_type)event);
}

PVC_EXPORT const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	return pv_wc_status_str((enum pv_wc_status)status);
}

PVC_EXPORT int
ibv_rate_to_mult(enum ibv_rate rate)
{
	return pv_rate_to_mult((enum pv_rate)rate);
}

PVC_EXPORT enum ibv_rate
mult_to_ibv_rate(int mult)
{
	return (enum ibv_rate)pv_mult_to_rate(mult);
}

PVC_EXPORT int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	return pv_rate_to_mbps((enum pv_rate)rate);
}

PVC_EXPORT enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	return (enum ibv_rate)pv_mbps_to_rate(mbps);
}

/* pollverbs memory is DPDK's: no madvise(DONTFORK) bookkeeping is needed */
PVC_EXPORT int
ibv_fork_init(void)
{
	return pv_fork_init();
}

PVC_EXPORT enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

PVC_EXPORT int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

PVC_EXPORT int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

PVC_EXPORT const char *
ibv_get_sysfs_path(void)
{
	return "/sys";
}

/* as libibverbs: read @p dir/@p file into @p buf, NUL-terminated, without
 * its trailing newline; the byte count or -1 with errno */
PVC_EXPORT int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char *path;
	ssize_t len;
	int fd;

	if (dir == NULL || file == NULL || buf == NULL || size == 0) {
		errno = EINVAL;
		return -1;
	}
	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
}

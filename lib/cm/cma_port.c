/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager's devices, the QP1 (GSI) transport of each port
 * and the "pv-cm" thread.
 *
 * Devices: on first use the CM opens every pollverbs device, reads its GID
 * table (softroce: 0 link-local, 1 the IPv4-mapped address, then ip6=) and
 * keeps the context, a default PD and the attributes. A port's QP1, its CQ
 * on a completion channel and its IB CM (cm_ib.c) are made when an id first
 * listens or connects on it.
 *
 * The pv-cm thread (an EAL control thread) sleeps in poll(2) on a wake-up
 * eventfd and the completion channels of the open ports, with the timeout
 * of the nearest CM timer; it feeds received MADs to the port's IB CM and
 * runs its timers, under cma_lock. The device's own progress (softroce's
 * background progress in thread-safe mode) receives the frames; this thread
 * only consumes completions, so connections are made while every
 * application thread sleeps.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "cma_priv.h"
#include "cma_sys.h"
#include "pv_rtc_internal.h"
#include "pv_verbs_driver.h"

RTE_LOG_REGISTER_DEFAULT(pv_cma_logtype, NOTICE);

#define CMA_GSI_SLOT (CMA_GRH_SIZE + PV_MAD_SIZE)	/* one receive buffer */
#define CMA_GSI_CQE (CMA_GSI_RECV + CMA_GSI_SEND)
#define CMA_POLL_BATCH 16

static TAILQ_HEAD(, cma_device) cma_devices = TAILQ_HEAD_INITIALIZER(cma_devices);
static int cma_started;
static int cma_hook_added;
static int cma_wake_fd = -1;
static volatile int cma_running;
static pthread_t cma_thread;

static uint64_t
cma_now_us(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void
cma_kick(void)
{
	uint64_t one = 1;

	if (cma_wake_fd >= 0 && write(cma_wake_fd, &one, sizeof(one)) < 0)
		CMA_LOG(DEBUG, "wake-up write: %s", strerror(errno));
}

/* ---------------------------------------------------------------------- */
/* QP1 transport                                                           */
/* ---------------------------------------------------------------------- */

static int
cma_gsi_post_recv(struct cma_port *port, unsigned int slot)
{
	struct pv_sge sge = {
		.addr = (uintptr_t)(port->buf + (size_t)slot * CMA_GSI_SLOT),
		.length = CMA_GSI_SLOT,
		.lkey = port->mr->lkey,
	};
	struct pv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return pv_post_recv(port->qp, &wr, &bad);
}

/* transport send(): one MAD to QP1 of @p av, from a free send slot */
static int
cma_gsi_send(void *ctx, const uint8_t mad[PV_MAD_SIZE], const struct pv_ib_cm_av *av)
{
	struct cma_port *port = ctx;
	struct pv_ah_attr ah_attr;
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	unsigned int slot;
	uint8_t *buf;
	int ret;

	if (port->send_busy == UINT64_MAX) {
		port->tx_drops++;
		return -ENOBUFS;
	}
	slot = (unsigned int)__builtin_ctzll(~port->send_busy);
	memset(&ah_attr, 0, sizeof(ah_attr));
	ah_attr.is_global = 1;
	ah_attr.port_num = port->port_num;
	memcpy(ah_attr.grh.dgid.raw, av->dgid, 16);
	ah_attr.grh.sgid_index = av->sgid_index;
	ah_attr.grh.hop_limit = av->hop_limit != 0 ? av->hop_limit : 64;
	ah_attr.grh.traffic_class = av->traffic_class;
	ah_attr.grh.flow_label = av->flow_label;
	ah_attr.sl = av->sl;
	port->send_ah[slot] = pv_create_ah(port->pd, &ah_attr);
	if (port->send_ah[slot] == NULL) {
		port->tx_drops++;
		return -errno;
	}
	buf = port->buf + (size_t)CMA_GSI_RECV * CMA_GSI_SLOT + (size_t)slot * PV_MAD_SIZE;
	memcpy(buf, mad, PV_MAD_SIZE);
	sge.addr = (uintptr_t)buf;
	sge.length = PV_MAD_SIZE;
	sge.lkey = port->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = CMA_GSI_RECV + slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.wr.ud.ah = port->send_ah[slot];
	wr.wr.ud.remote_qpn = PV_GSI_QPN;
	wr.wr.ud.remote_qkey = PV_GSI_QKEY;
	ret = pv_post_send(port->qp, &wr, &bad);
	if (ret != 0) {
		pv_destroy_ah(port->send_ah[slot]);
		port->send_ah[slot] = NULL;
		port->tx_drops++;
		return -ret;
	}
	port->send_busy |= 1ull << slot;
	return 0;
}

static const struct pv_ib_cm_transport cma_gsi_transport = {
	.send = cma_gsi_send,
	.now_us = cma_now_us,
};

/* the peer's address of a received MAD, from the GRH area (IPv4: the IPv4
 * header in its last 20 bytes, as rxe and softroce place it) */
static int
cma_gsi_av(struct cma_port *port, const uint8_t *grh, struct pv_ib_cm_av *av)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int idx;

	memset(av, 0, sizeof(*av));
	if ((grh[0] >> 4) == 6) {
		memcpy(av->dgid, grh + 8, 16);
		memcpy(av->sgid, grh + 24, 16);
		av->traffic_class = (uint8_t)((grh[0] << 4) | (grh[1] >> 4));
	} else if ((grh[20] >> 4) == 4) {
		memcpy(av->dgid, v4map, 12);
		memcpy(av->dgid + 12, grh + 20 + 12, 4);
		memcpy(av->sgid, v4map, 12);
		memcpy(av->sgid + 12, grh + 20 + 16, 4);
		av->traffic_class = grh[20 + 1];
	} else {
		return -EPROTO;
	}
	idx = cma_device_gid_index(port->dev, av->sgid);
	if (idx < 0)
		return -EADDRNOTAVAIL;
	av->sgid_index = (uint8_t)idx;
	av->hop_limit = 64;
	av->pkey_index = 0;
	return 0;
}

/* consume the port's completions: MADs to the IB CM, send slots freed */
static void
cma_port_drain(struct cma_port *port)
{
	struct pv_wc wc[CMA_POLL_BATCH];
	struct pv_ib_cm_av av;
	int n, i;

	while ((n = pv_poll_cq(port->cq, CMA_POLL_BATCH, wc)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t slot = wc[i].wr_id;

			if (slot >= CMA_GSI_RECV) {
				slot -= CMA_GSI_RECV;
				if (slot < CMA_GSI_SEND && port->send_ah[slot] != NULL) {
					pv_destroy_ah(port->send_ah[slot]);
					port->send_ah[slot] = NULL;
					port->send_busy &= ~(1ull << slot);
				}
				continue;
			}
			if (wc[i].status != PV_WC_SUCCESS)
				continue;	/* flushed: the QP is going away */
			if (wc[i].byte_len < CMA_GSI_SLOT || !(wc[i].wc_flags & PV_WC_GRH) ||
			    wc[i].src_qp != PV_GSI_QPN ||
			    cma_gsi_av(port, port->buf + slot * CMA_GSI_SLOT, &av) != 0)
				port->rx_bad++;
			else
				pv_ib_cm_recv(port->ib,
					      port->buf + slot * CMA_GSI_SLOT + CMA_GRH_SIZE,
					      PV_MAD_SIZE, &av);
			if (cma_gsi_post_recv(port, (unsigned int)slot) != 0)
				port->rx_bad++;
		}
	}
}

static void
cma_port_close(struct cma_port *port)
{
	unsigned int i;

	if (port->qp != NULL)
		pv_destroy_qp(port->qp);
	for (i = 0; i < CMA_GSI_SEND; i++)
		if (port->send_ah[i] != NULL)
			pv_destroy_ah(port->send_ah[i]);
	if (port->cq != NULL)
		pv_destroy_cq(port->cq);
	if (port->channel != NULL)
		pv_destroy_comp_channel(port->channel);
	if (port->mr != NULL)
		pv_dereg_mr(port->mr);
	if (port->pd != NULL)
		pv_dealloc_pd(port->pd);
	if (port->ib != NULL)
		pv_ib_cm_free(port->ib);
	free(port->buf);
	free(port);
}

int
cma_port_open(struct cma_device *dev)
{
	struct pv_ib_cm_tunables tun;
	struct pv_qp_init_attr init;
	struct pv_qp_attr attr;
	struct cma_port *port;
	size_t len;
	unsigned int i;
	int ret;

	if (dev->port != NULL)
		return 0;
	port = calloc(1, sizeof(*port));
	if (port == NULL)
		return -ENOMEM;
	port->dev = dev;
	port->port_num = 1;
	len = (size_t)CMA_GSI_RECV * CMA_GSI_SLOT + (size_t)CMA_GSI_SEND * PV_MAD_SIZE;
	port->buf = calloc(1, len);
	port->pd = pv_alloc_pd(dev->ctx);
	if (port->buf == NULL || port->pd == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	port->mr = pv_reg_mr(port->pd, port->buf, len, PV_ACCESS_LOCAL_WRITE);
	port->channel = pv_create_comp_channel(dev->ctx);
	if (port->mr == NULL || port->channel == NULL) {
		ret = -errno;
		goto fail;
	}
	port->cq = pv_create_cq(dev->ctx, CMA_GSI_CQE, port, port->channel, 0);
	if (port->cq == NULL) {
		ret = -errno;
		goto fail;
	}
	memset(&init, 0, sizeof(init));
	init.send_cq = port->cq;
	init.recv_cq = port->cq;
	init.qp_type = PV_QPT_UD;
	init.cap.max_send_wr = CMA_GSI_SEND;
	init.cap.max_recv_wr = CMA_GSI_RECV;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	port->qp = pv_verbs_create_gsi_qp(port->pd, &init);
	if (port->qp == NULL) {
		ret = -errno;
		CMA_LOG(ERR, "%s: no QP1: %s", pv_get_device_name(dev->ctx->device),
			strerror(errno));
		goto fail;
	}
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = PV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = port->port_num;
	attr.qkey = PV_GSI_QKEY;
	ret = pv_modify_qp(port->qp, &attr,
			   PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY);
	if (ret == 0) {
		attr.qp_state = PV_QPS_RTR;
		ret = pv_modify_qp(port->qp, &attr, PV_QP_STATE);
	}
	if (ret == 0) {
		attr.qp_state = PV_QPS_RTS;
		attr.sq_psn = 0;
		ret = pv_modify_qp(port->qp, &attr, PV_QP_STATE | PV_QP_SQ_PSN);
	}
	if (ret != 0) {
		ret = -ret;
		goto fail;
	}
	for (i = 0; i < CMA_GSI_RECV; i++) {
		ret = cma_gsi_post_recv(port, i);
		if (ret != 0) {
			ret = -ret;
			goto fail;
		}
	}
	pv_ib_cm_tunables_default(&tun);
	port->ib = pv_ib_cm_create(&cma_gsi_transport, port, dev->guid, &tun);
	if (port->ib == NULL) {
		ret = -errno;
		goto fail;
	}
	ret = pv_req_notify_cq(port->cq, 0);
	if (ret != 0) {
		ret = -ret;
		goto fail;
	}
	dev->port = port;
	cma_kick();	/* the thread watches the new channel */
	return 0;
fail:
	cma_port_close(port);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The pv-cm thread                                                        */
/* ---------------------------------------------------------------------- */

static void *
cma_thread_main(void *arg)
{
	struct pollfd pfd[1 + 16 + 1];		/* wake-up, ports, the kernel's CM */
	struct cma_device *devs[1 + 16];
	(void)arg;

	while (cma_running) {
		struct cma_device *dev;
		uint64_t next = UINT64_MAX, t, junk;
		unsigned int n = 1, i;
		int timeout;

		pthread_mutex_lock(&cma_lock);
		TAILQ_FOREACH(dev, &cma_devices, next) {
			if (dev->port == NULL)
				continue;
			cma_port_drain(dev->port);
			pv_req_notify_cq(dev->port->cq, 0);
			cma_port_drain(dev->port);	/* what came before the arm */
			t = pv_ib_cm_timers(dev->port->ib);
			next = t < next ? t : next;
			if (n < RTE_DIM(devs)) {
				devs[n] = dev;
				pfd[n].fd = dev->port->channel->fd;
				pfd[n].events = POLLIN;
				n++;
			}
		}
		pfd[n].fd = cma_sys_fd();	/* -1 (none): poll() skips it */
		pfd[n].events = POLLIN;
		pthread_mutex_unlock(&cma_lock);
		pfd[0].fd = cma_wake_fd;
		pfd[0].events = POLLIN;
		timeout = next == UINT64_MAX ? 1000 : (int)((next + 999) / 1000);
		if (timeout > 1000)
			timeout = 1000;
		if (poll(pfd, n + 1, timeout) <= 0)
			continue;
		if (pfd[n].revents & POLLIN)
			cma_sys_drain();
		if (pfd[0].revents & POLLIN)
			if (read(cma_wake_fd, &junk, sizeof(junk)) < 0)
				CMA_LOG(DEBUG, "wake-up read: %s", strerror(errno));
		for (i = 1; i < n; i++) {
			struct pv_cq *cq;
			void *cq_ctx;

			if (!(pfd[i].revents & POLLIN))
				continue;
			pthread_mutex_lock(&cma_lock);
			if (devs[i]->port != NULL && pv_get_cq_event(devs[i]->port->channel,
								      &cq, &cq_ctx) == 0)
				pv_ack_cq_events(cq, 1);
			pthread_mutex_unlock(&cma_lock);
		}
	}
	return NULL;
}

static void
cma_device_close(struct cma_device *dev)
{
	if (dev->port != NULL)
		cma_port_close(dev->port);
	if (dev->pd != NULL)
		pv_dealloc_pd(dev->pd);
	pv_close_device(dev->ctx);
	free(dev);
}

/* how long pv_cleanup() lets the thread send the MADs that end the ids the
 * application left behind (milliseconds) */
#define CMA_CLEANUP_SEND_MS 200

/*
 * The ids the application left behind end on the wire as the kernel ends
 * a process's ids when it exits (rdma_ucm's close destroys them; ib_cm
 * answers a DREQ with a DREP, sends a DREQ from Established, a REJ from a
 * handshake): the peer is not left to time out. The MADs the application
 * itself sent last (a DREP just before exit) are waited for too. Called
 * with cma_lock held and the thread running; returns with the sends
 * completed or after CMA_CLEANUP_SEND_MS.
 */
/* any MAD of any port still in flight (its send slot taken); cma_lock held */
static int
cma_sends_busy(void)
{
	struct cma_device *dev;

	TAILQ_FOREACH(dev, &cma_devices, next)
		if (dev->port != NULL && dev->port->send_busy != 0)
			return 1;
	return 0;
}

static void
cma_cleanup_end_ids(void)
{
	struct cma_id *id;
	int i;

	TAILQ_FOREACH(id, &cma_ids, next) {
		if (id->ib == NULL)
			continue;
		pv_ib_cm_destroy_id(id->ib);
		id->ib = NULL;
	}
	/* the MADs just sent for those ids, and a DREP the application
	 * queued just before it exited: they leave before QP1 is destroyed */
	for (i = 0; cma_sends_busy() && i < CMA_CLEANUP_SEND_MS; i++) {
		pthread_mutex_unlock(&cma_lock);
		cma_kick();
		rte_delay_us_sleep(1000);
		pthread_mutex_lock(&cma_lock);
	}
}

/* pv_cleanup(): end the ids left behind on the wire, stop the thread,
 * close QP1s and devices; those ids are freed with them */
static void
cma_cleanup(void)
{
	struct cma_device *dev;
	struct cma_id *id;

	pthread_mutex_lock(&cma_lock);
	if (!cma_started) {
		pthread_mutex_unlock(&cma_lock);
		return;
	}
	cma_cleanup_end_ids();
	cma_running = 0;
	pthread_mutex_unlock(&cma_lock);
	cma_kick();
	pthread_join(cma_thread, NULL);
	pthread_mutex_lock(&cma_lock);
	cma_sys_stop();		/* the kernel's ids of the ids left behind */
	while ((id = TAILQ_FIRST(&cma_ids)) != NULL) {
		TAILQ_REMOVE(&cma_ids, id, next);
		id->ib = NULL;	/* freed with its IB CM */
	}
	while ((dev = TAILQ_FIRST(&cma_devices)) != NULL) {
		TAILQ_REMOVE(&cma_devices, dev, next);
		cma_device_close(dev);
	}
	close(cma_wake_fd);
	cma_wake_fd = -1;
	cma_started = 0;
	pthread_mutex_unlock(&cma_lock);
}

static int
cma_device_open(struct pv_device *device)
{
	struct pv_port_attr pattr;
	struct cma_device *dev;
	int i;

	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return -ENOMEM;
	dev->ctx = pv_open_device(device);
	if (dev->ctx == NULL) {
		free(dev);
		return -errno;
	}
	if (pv_query_device(dev->ctx, &dev->attr) != 0 ||
	    pv_query_port(dev->ctx, 1, &pattr) != 0) {
		pv_close_device(dev->ctx);
		free(dev);
		return -EIO;
	}
	dev->active_mtu = pattr.active_mtu;
	dev->guid = rte_be_to_cpu_64(dev->attr.node_guid);
	for (i = 0; i < CMA_MAX_GID && i < pattr.gid_tbl_len; i++) {
		if (pv_query_gid(dev->ctx, 1, i, &dev->gid[i]) != 0)
			break;
		dev->nb_gid = i + 1;
	}
	dev->pd = pv_alloc_pd(dev->ctx);
	if (dev->pd == NULL) {
		pv_close_device(dev->ctx);
		free(dev);
		return -ENOMEM;
	}
	TAILQ_INSERT_TAIL(&cma_devices, dev, next);
	return 0;
}

int
cma_start(void)
{
	struct pv_device **list;
	int i, n, ret;

	if (cma_started)
		return 0;
	list = pv_get_device_list(&n);
	if (list == NULL)
		return -ENODEV;
	for (i = 0; i < n; i++) {
		ret = cma_device_open(list[i]);
		if (ret != 0)
			CMA_LOG(WARNING, "%s: not used: %s", pv_get_device_name(list[i]),
				strerror(-ret));
	}
	pv_free_device_list(list);
	if (TAILQ_EMPTY(&cma_devices))
		return -ENODEV;
	cma_sys_start();	/* devices the kernel owns connect through its CM */
	cma_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cma_wake_fd < 0)
		return -errno;
	if (!cma_hook_added) {
		pv_rtc_cleanup_hook_add(cma_cleanup);
		cma_hook_added = 1;
	}
	cma_running = 1;
	ret = rte_ctrl_thread_create(&cma_thread, "pv-cm", NULL, cma_thread_main, NULL);
	if (ret != 0) {
		cma_running = 0;
		close(cma_wake_fd);
		cma_wake_fd = -1;
		return -ret;
	}
	cma_started = 1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Addresses and devices                                                   */
/* ---------------------------------------------------------------------- */

void
cma_addr_to_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static int
cma_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(gid, v4map, 12) == 0;
}

int
cma_gid_to_addr(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (cma_gid_is_v4(gid)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, gid + 12, 4);
		sin->sin_port = rte_cpu_to_be_16(port);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, gid, 16);
		sin6->sin6_port = rte_cpu_to_be_16(port);
	}
	return 0;
}

socklen_t
cma_addr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : 0;
}

uint16_t
cma_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return rte_be_to_cpu_16(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return rte_be_to_cpu_16(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

void
cma_addr_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = rte_cpu_to_be_16(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = rte_cpu_to_be_16(port);
}

int
cma_addr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == INADDR_ANY;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 1;
}

int
cma_device_gid_index(const struct cma_device *dev, const uint8_t gid[16])
{
	int i;

	for (i = 0; i < dev->nb_gid; i++)
		if (memcmp(dev->gid[i].raw, gid, 16) == 0)
			return i;
	return -1;
}

struct cma_device *
cma_device_by_addr(const struct sockaddr *addr, int *gid_index)
{
	struct cma_device *dev;
	uint8_t gid[16];
	int i;

	cma_addr_to_gid(addr, gid);
	TAILQ_FOREACH(dev, &cma_devices, next) {
		i = cma_device_gid_index(dev, gid);
		if (i >= 0) {
			*gid_index = i;
			return dev;
		}
	}
	return NULL;
}

/* the first device with a GID of @p family (IPv6: a global one first,
 * then link-local), for a destination none of our addresses matches */
struct cma_device *
cma_device_first(int family, int *gid_index)
{
	struct cma_device *dev;
	int i, pass;

	for (pass = 0; pass < 2; pass++)
		TAILQ_FOREACH(dev, &cma_devices, next)
			for (i = 0; i < dev->nb_gid; i++) {
				const uint8_t *g = dev->gid[i].raw;
				int v4 = cma_gid_is_v4(g), ll = g[0] == 0xfe && (g[1] & 0xc0) == 0x80;

				if ((family == AF_INET && v4) ||
				    (family == AF_INET6 && !v4 && ll == pass)) {
					*gid_index = i;
					return dev;
				}
			}
	return NULL;
}

struct cma_device *
cma_device_by_ctx(const struct pv_context *ctx)
{
	struct cma_device *dev;

	TAILQ_FOREACH(dev, &cma_devices, next)
		if (dev->ctx == ctx)
			return dev;
	return NULL;
}

void
cma_devices_foreach(void (*fn)(struct cma_device *dev, void *arg), void *arg)
{
	struct cma_device *dev;

	TAILQ_FOREACH(dev, &cma_devices, next)
		fn(dev, arg);
}

int
cma_device_count(void)
{
	struct cma_device *dev;
	int n = 0;

	TAILQ_FOREACH(dev, &cma_devices, next)
		n++;
	return n;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * One source for pollverbs and for librdmacm: the examples (rdma_rw.c,
 * rdma_steps.c) and pv-rping are written with the pv_ names; built with
 * -DUSE_LIBRDMACM this header maps those names to librdmacm's and
 * libibverbs' (rdma/rdma_cma.h, rdma/rdma_verbs.h) and stands in for the
 * start and stop of pollverbs' runtime, so that in a VM with rdma-core
 *
 *     cc -DUSE_LIBRDMACM -I apps/examples -o rping apps/rping/rping.c \
 *        -lrdmacm -libverbs -lpthread
 *
 * builds the same program against the kernel's RDMA stack. Only the names
 * the examples use are mapped: a new name in an example needs its line
 * here (the meson build checks the librdmacm build when librdmacm is
 * installed).
 *
 * Without USE_LIBRDMACM: pollverbs' headers and the apps' helpers
 * (pv_app_init() takes the EAL and --pv-dev arguments before a "--", or
 * makes the default softroce-over-memif ones).
 */

#ifndef PV_APPS_EXAMPLES_PV_RDMA_COMPAT_H
#define PV_APPS_EXAMPLES_PV_RDMA_COMPAT_H

#include <stdint.h>

#ifdef USE_LIBRDMACM

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

/* types */
#define pv_comp_channel			ibv_comp_channel
#define pv_cq				ibv_cq
#define pv_mr				ibv_mr
#define pv_pd				ibv_pd
#define pv_qp				ibv_qp
#define pv_qp_init_attr			ibv_qp_init_attr
#define pv_recv_wr			ibv_recv_wr
#define pv_send_wr			ibv_send_wr
#define pv_sge				ibv_sge
#define pv_wc				ibv_wc
#define pv_wr_opcode			ibv_wr_opcode
#define pv_rdma_cm_event		rdma_cm_event
#define pv_rdma_cm_event_type		rdma_cm_event_type
#define pv_rdma_cm_id			rdma_cm_id
#define pv_rdma_conn_param		rdma_conn_param
#define pv_rdma_event_channel		rdma_event_channel

/* constants */
#define PV_ACCESS_LOCAL_WRITE		IBV_ACCESS_LOCAL_WRITE
#define PV_ACCESS_REMOTE_READ		IBV_ACCESS_REMOTE_READ
#define PV_ACCESS_REMOTE_WRITE		IBV_ACCESS_REMOTE_WRITE
#define PV_QPT_RC			IBV_QPT_RC
#define PV_SEND_SIGNALED		IBV_SEND_SIGNALED
#define PV_WC_RDMA_READ			IBV_WC_RDMA_READ
#define PV_WC_RDMA_WRITE		IBV_WC_RDMA_WRITE
#define PV_WC_RECV			IBV_WC_RECV
#define PV_WC_SEND			IBV_WC_SEND
#define PV_WC_SUCCESS			IBV_WC_SUCCESS
#define PV_WC_WR_FLUSH_ERR		IBV_WC_WR_FLUSH_ERR
#define PV_WR_RDMA_READ			IBV_WR_RDMA_READ
#define PV_WR_RDMA_WRITE		IBV_WR_RDMA_WRITE
#define PV_WR_SEND			IBV_WR_SEND
#define PV_RDMA_PS_TCP			RDMA_PS_TCP
#define PV_RDMA_CM_EVENT_ADDR_ERROR	RDMA_CM_EVENT_ADDR_ERROR
#define PV_RDMA_CM_EVENT_ADDR_RESOLVED	RDMA_CM_EVENT_ADDR_RESOLVED
#define PV_RDMA_CM_EVENT_CONNECT_ERROR	RDMA_CM_EVENT_CONNECT_ERROR
#define PV_RDMA_CM_EVENT_CONNECT_REQUEST RDMA_CM_EVENT_CONNECT_REQUEST
#define PV_RDMA_CM_EVENT_CONNECT_RESPONSE RDMA_CM_EVENT_CONNECT_RESPONSE
#define PV_RDMA_CM_EVENT_DEVICE_REMOVAL	RDMA_CM_EVENT_DEVICE_REMOVAL
#define PV_RDMA_CM_EVENT_DISCONNECTED	RDMA_CM_EVENT_DISCONNECTED
#define PV_RDMA_CM_EVENT_ESTABLISHED	RDMA_CM_EVENT_ESTABLISHED
#define PV_RDMA_CM_EVENT_REJECTED	RDMA_CM_EVENT_REJECTED
#define PV_RDMA_CM_EVENT_ROUTE_ERROR	RDMA_CM_EVENT_ROUTE_ERROR
#define PV_RDMA_CM_EVENT_ROUTE_RESOLVED	RDMA_CM_EVENT_ROUTE_RESOLVED
#define PV_RDMA_CM_EVENT_UNREACHABLE	RDMA_CM_EVENT_UNREACHABLE

/* verbs */
#define pv_ack_cq_events		ibv_ack_cq_events
#define pv_alloc_pd			ibv_alloc_pd
#define pv_create_comp_channel		ibv_create_comp_channel
#define pv_create_cq			ibv_create_cq
#define pv_dealloc_pd			ibv_dealloc_pd
#define pv_dereg_mr			ibv_dereg_mr
#define pv_destroy_comp_channel		ibv_destroy_comp_channel
#define pv_destroy_cq			ibv_destroy_cq
#define pv_get_cq_event			ibv_get_cq_event
#define pv_poll_cq			ibv_poll_cq
#define pv_post_recv			ibv_post_recv
#define pv_post_send			ibv_post_send
#define pv_reg_mr			ibv_reg_mr
#define pv_req_notify_cq		ibv_req_notify_cq
#define pv_wc_status_str		ibv_wc_status_str

/* connection manager */
#define pv_rdma_accept			rdma_accept
#define pv_rdma_ack_cm_event		rdma_ack_cm_event
#define pv_rdma_bind_addr		rdma_bind_addr
#define pv_rdma_connect			rdma_connect
#define pv_rdma_create_event_channel	rdma_create_event_channel
#define pv_rdma_create_id		rdma_create_id
#define pv_rdma_create_qp		rdma_create_qp
#define pv_rdma_destroy_event_channel	rdma_destroy_event_channel
#define pv_rdma_destroy_id		rdma_destroy_id
#define pv_rdma_destroy_qp		rdma_destroy_qp
#define pv_rdma_disconnect		rdma_disconnect
#define pv_rdma_event_str		rdma_event_str
#define pv_rdma_get_cm_event		rdma_get_cm_event
#define pv_rdma_get_src_port		rdma_get_src_port
#define pv_rdma_listen			rdma_listen
#define pv_rdma_resolve_addr		rdma_resolve_addr
#define pv_rdma_resolve_route		rdma_resolve_route

/* rdma_verbs.h helpers */
#define pv_rdma_get_recv_comp		rdma_get_recv_comp
#define pv_rdma_get_send_comp		rdma_get_send_comp
#define pv_rdma_post_recv		rdma_post_recv
#define pv_rdma_post_send		rdma_post_send
#define pv_rdma_reg_msgs		rdma_reg_msgs

/* pollverbs' runtime: the kernel's stack needs no start nor stop */
static inline int
pv_app_init(int *argc_p, char ***argv_p, const char *app, int server, uint16_t port)
{
	(void)argc_p;
	(void)argv_p;
	(void)app;
	(void)server;
	(void)port;
	return 0;
}

static inline const char *
pv_app_opt_peek(int argc, char **argv, const char *optstring, int opt, const char *dflt)
{
	(void)argc;
	(void)argv;
	(void)optstring;
	(void)opt;
	return dflt;
}

static inline int
pv_cleanup(void)
{
	return 0;
}

#else /* !USE_LIBRDMACM */

#include <pv_rdma_cma.h>
#include <pv_rdma_verbs.h>
#include <pv_rtc.h>
#include <pv_verbs.h>

#include "pv_app.h"

#endif /* USE_LIBRDMACM */

#endif /* PV_APPS_EXAMPLES_PV_RDMA_COMPAT_H */

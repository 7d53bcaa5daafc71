/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager's internals, shared by cma.c (the pv_rdma_* API,
 * rdma_cm semantics over the IB CM) and cma_port.c (devices, the QP1
 * transport of each port, the "pv-cm" thread).
 *
 * Locking: one mutex, cma_lock, guards every structure below, the IB CMs
 * (cm_ib.c) and their handlers. The pv-cm thread takes it to feed received
 * MADs and run timers; API calls take it for their whole work, except while
 * they block (waiting for an event or for acknowledgements).
 */

#ifndef PV_LIB_CM_CMA_PRIV_H
#define PV_LIB_CM_CMA_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include <sys/queue.h>

#include "cm_ib.h"
#include "pv_rdma_cma.h"

#include <rte_log.h>

extern int pv_cma_logtype;
#define RTE_LOGTYPE_PV_CMA pv_cma_logtype
#define CMA_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_CMA, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* GIDs of a port the CM looks at (softroce: 0 link-local, 1 IPv4, then ip6=) */
#define CMA_MAX_GID 16

/* QP1 of a port: receive buffers and MAD send slots */
#define CMA_GSI_RECV 128
#define CMA_GSI_SEND 64
#define CMA_GRH_SIZE 40

/* rdma_cm's user private data sizes after its 36-byte header */
#define CMA_REQ_USER_PD (PV_CM_REQ_PRIVATE_DATA_SIZE - PV_CMA_HDR_SIZE)
#define CMA_SIDR_USER_PD (PV_CM_SIDR_REQ_PRIVATE_DATA_SIZE - PV_CMA_HDR_SIZE)

/* Default backlog of a listener (rdma_listen(3) with backlog 0). */
#define CMA_DEFAULT_BACKLOG 1024

struct cma_port;
struct rdma_cm_id;

/* An opened device: the CM's context, default PD and its port's CM. */
struct cma_device {
	TAILQ_ENTRY(cma_device) next;
	struct pv_context *ctx;
	struct pv_pd *pd;		/* default PD of pv_rdma_create_qp(NULL pd) */
	struct pv_device_attr attr;
	struct cma_port *port;		/* port 1 (every pv device has one) */
	uint64_t guid;			/* node GUID, host order */
	int nb_gid;
	union pv_gid gid[CMA_MAX_GID];
	enum pv_mtu active_mtu;
	int sys;			/* the kernel owns it: its CM is librdmacm's (cma_sys.c) */
};

/* QP1 of a device port and the IB CM that runs over it. */
struct cma_port {
	struct cma_device *dev;
	uint8_t port_num;
	struct pv_ib_cm *ib;
	struct pv_pd *pd;
	struct pv_comp_channel *channel;
	struct pv_cq *cq;
	struct pv_qp *qp;
	struct pv_mr *mr;
	uint8_t *buf;			/* CMA_GSI_RECV receive + CMA_GSI_SEND send slots */
	struct pv_ah *send_ah[CMA_GSI_SEND];	/* AH of the MAD in slot i */
	uint64_t send_busy;		/* bit i: send slot i in flight */
	uint64_t tx_drops;		/* no free slot, post failed */
	uint64_t rx_bad;		/* receive completions without a usable MAD */
};

/* rdma_cm id states (Linux enum rdma_cm_state). */
enum cma_state {
	CMA_IDLE,
	CMA_ADDR_BOUND,
	CMA_ADDR_RESOLVED,
	CMA_ROUTE_RESOLVED,
	CMA_LISTEN,
	CMA_CONNECT,		/* REQ sent (active) or REQ received (passive) */
	CMA_CONNECTED,
	CMA_DISCONNECT,
	CMA_DESTROYING,
};

struct cma_channel;

/* A queued event with the private data it carries. */
struct cma_event {
	TAILQ_ENTRY(cma_event) next;
	struct pv_rdma_cm_event ev;	/* first: the application's pointer */
	struct cma_id *id;
	struct cma_id *listen;
	uint8_t private_data[PV_CM_REP_PRIVATE_DATA_SIZE];
};
TAILQ_HEAD(cma_event_list, cma_event);

struct cma_channel {
	struct pv_rdma_event_channel ch;	/* first: the application's pointer */
	struct cma_event_list events;		/* queued, not yet taken */
	int sync;				/* a synchronous id's own channel */
};

/* A communication identifier. */
struct cma_id {
	struct pv_rdma_cm_id id;		/* first: the application's pointer */
	TAILQ_ENTRY(cma_id) next;		/* on cma_ids */
	struct cma_channel *chan;
	enum cma_state state;
	struct cma_device *dev;
	struct pv_ib_cm_id *ib;			/* NULL until connecting */
	struct pv_ib_cm_id *lib[8];		/* listening: one per device */
	struct cma_id *listen;			/* the listener a request came to */
	struct pv_sa_path_rec path;		/* route.path_rec points here */
	uint32_t events_taken;			/* handed to the application */
	uint32_t events_acked;
	pthread_cond_t cond;			/* events_acked moved */
	uint32_t qkey;				/* UD */
	uint32_t remote_qpn;
	uint32_t remote_psn;
	uint32_t local_psn;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t flow_control;
	uint8_t srq;
	uint8_t tos;
	uint8_t tos_set;
	uint8_t ack_timeout;			/* local ACK timeout exponent */
	uint8_t ack_timeout_set;
	uint8_t path_mtu;			/* enum pv_mtu of the connection */
	uint8_t remote_ack_delay;
	int reuseaddr;
	int afonly;
	int backlog;
	int pending;				/* listener: requests not yet accepted/rejected;
						 * request: 1 while it counts there */
	int passive;				/* made by a request: shares the
						 * listener's port, never holds it */
	int accepted;				/* passive: REP sent */
	int disc_reported;			/* DISCONNECTED delivered */
	int made_cqs;				/* bit 0 recv, bit 1 send: the CM made the CQ */
	int ep;					/* pv_rdma_create_ep made its QP */
	int ep_attr_set;			/* passive endpoint: QP for each request */
	struct pv_qp_init_attr ep_attr;
	struct pv_pd *ep_pd;
	struct rdma_cm_id *sys;			/* the kernel's id (cma_sys.c), or NULL */
	int sys_conn_error;			/* CONNECT_ERROR reported (cma_sys.c) */
};
TAILQ_HEAD(cma_id_list, cma_id);

extern pthread_mutex_t cma_lock;
extern struct cma_id_list cma_ids;

/* cma_port.c: devices and the pv-cm thread. Under cma_lock. */
int cma_start(void);				/* devices opened, thread running */
struct cma_device *cma_device_by_addr(const struct sockaddr *addr, int *gid_index);
struct cma_device *cma_device_first(int family, int *gid_index);
int cma_device_gid_index(const struct cma_device *dev, const uint8_t gid[16]);
struct cma_device *cma_device_by_ctx(const struct pv_context *ctx);
void cma_devices_foreach(void (*fn)(struct cma_device *dev, void *arg), void *arg);
int cma_device_count(void);
int cma_port_open(struct cma_device *dev);	/* QP1 and its IB CM, on first use */
void cma_kick(void);				/* wake the pv-cm thread (timers changed) */

/* cma.c: the IB CM handler of every id */
int cma_ib_handler(struct pv_ib_cm_id *ib, const struct pv_ib_cm_event *ev);

/* cma.c: ids and events, also for cma_sys.c. Under cma_lock. */
struct cma_id *cma_id_new(struct cma_channel *chan, void *context, enum pv_rdma_port_space ps,
			  enum pv_qp_type qp_type);
struct cma_event *cma_event_new(struct cma_id *id, enum pv_rdma_cm_event_type type, int status);
void cma_event_data(struct cma_event *e, const uint8_t *data, size_t len);
void cma_event_queue_on(struct cma_event *e, struct cma_channel *chan);
void cma_event_queue(struct cma_event *e);
int cma_complete(struct cma_id *id);		/* not under cma_lock: may wait */
void cma_qp_error(struct cma_id *id);		/* its QP, if any, to ERR */

/* Address helpers */
void cma_addr_to_gid(const struct sockaddr *sa, uint8_t gid[16]);
int cma_gid_to_addr(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *ss);
socklen_t cma_addr_len(const struct sockaddr *sa);
uint16_t cma_addr_port(const struct sockaddr *sa);
void cma_addr_set_port(struct sockaddr *sa, uint16_t port);
int cma_addr_any(const struct sockaddr *sa);

#endif /* PV_LIB_CM_CMA_PRIV_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * The RDMA connection manager: librdmacm's API (rdma/rdma_cma.h of
 * rdma-core 44) with the pv_ prefix, field for field. The man pages
 * rdma_cm(7), rdma_create_id(3), rdma_connect(3) ... are the specification.
 *
 * On softroce the connection manager is pollverbs' own: the IBTA CM
 * (IBA vol. 1 ch. 12) over QP1 of each port, MADs and private data as Linux
 * rdma_cm builds them, wire-compatible with the kernel's CM on rxe. On mlx5
 * it goes through the system's librdmacm (the kernel's CM) while pollverbs
 * owns the QP (doc/guides/prog_guide/cm.rst).
 *
 * Threads: every function may be called from any thread (as librdmacm's).
 * Connection management runs on its own EAL control thread ("pv-cm"); the
 * events are queued on event channels whose fd is readable while events
 * wait (poll/epoll; O_NONBLOCK on it makes pv_rdma_get_cm_event() return
 * -1/EAGAIN instead of blocking). Needs pv_init().
 *
 * Returns: as librdmacm, 0 on success and -1 with errno set on failure
 * (the errno values each function documents).
 */

#ifndef PV_LIB_CM_PV_RDMA_CMA_H
#define PV_LIB_CM_PV_RDMA_CMA_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <pv_verbs.h>
#include <pv_verbs_ex.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

/** Event types (rdma_cm_event_type; rdma_get_cm_event(3)). Same values. */
enum pv_rdma_cm_event_type {
	PV_RDMA_CM_EVENT_ADDR_RESOLVED,
	PV_RDMA_CM_EVENT_ADDR_ERROR,
	PV_RDMA_CM_EVENT_ROUTE_RESOLVED,
	PV_RDMA_CM_EVENT_ROUTE_ERROR,
	PV_RDMA_CM_EVENT_CONNECT_REQUEST,
	PV_RDMA_CM_EVENT_CONNECT_RESPONSE,
	PV_RDMA_CM_EVENT_CONNECT_ERROR,
	PV_RDMA_CM_EVENT_UNREACHABLE,
	PV_RDMA_CM_EVENT_REJECTED,
	PV_RDMA_CM_EVENT_ESTABLISHED,
	PV_RDMA_CM_EVENT_DISCONNECTED,
	PV_RDMA_CM_EVENT_DEVICE_REMOVAL,
	PV_RDMA_CM_EVENT_MULTICAST_JOIN,
	PV_RDMA_CM_EVENT_MULTICAST_ERROR,
	PV_RDMA_CM_EVENT_ADDR_CHANGE,
	PV_RDMA_CM_EVENT_TIMEWAIT_EXIT
};

/** Port spaces (rdma_port_space): the high 16 bits of the IB service ID. */
enum pv_rdma_port_space {
	PV_RDMA_PS_IPOIB = 0x0002,
	PV_RDMA_PS_TCP = 0x0106,
	PV_RDMA_PS_UDP = 0x0111,
	PV_RDMA_PS_IB = 0x013F,
};

#define PV_RDMA_IB_IP_PS_MASK 0xFFFFFFFFFFFF0000ULL
#define PV_RDMA_IB_IP_PORT_MASK 0x000000000000FFFFULL
#define PV_RDMA_IB_IP_PS_TCP 0x0000000001060000ULL
#define PV_RDMA_IB_IP_PS_UDP 0x0000000001110000ULL
#define PV_RDMA_IB_PS_IB 0x00000000013F0000ULL

/** Q_Key of RDMA_PS_UDP QPs (rdma_cm(7)). */
#define PV_RDMA_UDP_QKEY 0x01234567

/** A path record (struct ibv_sa_path_rec of infiniband/sa.h). */
struct pv_sa_path_rec {
	union pv_gid dgid;
	union pv_gid sgid;
	pv_be16 dlid;
	pv_be16 slid;
	int raw_traffic;
	pv_be32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	int reversible;
	uint8_t numb_path;
	pv_be16 pkey;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};

/** Wire path record (struct ibv_path_record), for RDMA_OPTION_IB_PATH. */
struct pv_path_record {
	pv_be64 service_id;
	union pv_gid dgid;
	union pv_gid sgid;
	pv_be16 dlid;
	pv_be16 slid;
	pv_be32 flowlabel_hoplimit;
	uint8_t tclass;
	uint8_t reversible_numpath;
	pv_be16 pkey;
	pv_be16 qosclass_sl;
	uint8_t mtu;
	uint8_t rate;
	uint8_t packetlifetime;
	uint8_t preference;
	uint8_t reserved[6];
};

#define PV_PATH_FLAG_GMP (1 << 0)
#define PV_PATH_FLAG_PRIMARY (1 << 1)
#define PV_PATH_FLAG_ALTERNATE (1 << 2)
#define PV_PATH_FLAG_OUTBOUND (1 << 3)
#define PV_PATH_FLAG_INBOUND (1 << 4)
#define PV_PATH_FLAG_INBOUND_REVERSE (1 << 5)
#define PV_PATH_FLAG_BIDIRECTIONAL (PV_PATH_FLAG_OUTBOUND | PV_PATH_FLAG_INBOUND_REVERSE)

/** struct ibv_path_data. */
struct pv_path_data {
	uint32_t flags;
	uint32_t reserved;
	struct pv_path_record path;
};

struct pv_rdma_ib_addr {
	union pv_gid sgid;
	union pv_gid dgid;
	pv_be16 pkey;
};

struct pv_rdma_addr {
	union {
		struct sockaddr src_addr;
		struct sockaddr_in src_sin;
		struct sockaddr_in6 src_sin6;
		struct sockaddr_storage src_storage;
	};
	union {
		struct sockaddr dst_addr;
		struct sockaddr_in dst_sin;
		struct sockaddr_in6 dst_sin6;
		struct sockaddr_storage dst_storage;
	};
	union {
		struct pv_rdma_ib_addr ibaddr;
	} addr;
};

struct pv_rdma_route {
	struct pv_rdma_addr addr;
	struct pv_sa_path_rec *path_rec;	/**< owned by the id */
	int num_paths;
};

/** An event channel (rdma_create_event_channel(3)). */
struct pv_rdma_event_channel {
	int fd;		/**< readable while events are queued; O_NONBLOCK may be set */
};

struct pv_rdma_cm_event;

/** A communication identifier (struct rdma_cm_id), same fields and order. */
struct pv_rdma_cm_id {
	struct pv_context *verbs;
	struct pv_rdma_event_channel *channel;
	void *context;
	struct pv_qp *qp;
	struct pv_rdma_route route;
	enum pv_rdma_port_space ps;
	uint8_t port_num;
	struct pv_rdma_cm_event *event;
	struct pv_comp_channel *send_cq_channel;
	struct pv_cq *send_cq;
	struct pv_comp_channel *recv_cq_channel;
	struct pv_cq *recv_cq;
	struct pv_srq *srq;
	struct pv_pd *pd;
	enum pv_qp_type qp_type;
};

enum {
	PV_RDMA_MAX_RESP_RES = 0xFF,
	PV_RDMA_MAX_INIT_DEPTH = 0xFF
};

/** Connection parameters (struct rdma_conn_param; rdma_connect(3)). */
struct pv_rdma_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;		/**< ignored when accepting */
	uint8_t rnr_retry_count;
	/* Fields below ignored if a QP is created on the rdma_cm_id. */
	uint8_t srq;
	uint32_t qp_num;
};

/** UD parameters (struct rdma_ud_param). */
struct pv_rdma_ud_param {
	const void *private_data;
	uint8_t private_data_len;
	struct pv_ah_attr ah_attr;
	uint32_t qp_num;
	uint32_t qkey;
};

/** An event (struct rdma_cm_event). */
struct pv_rdma_cm_event {
	struct pv_rdma_cm_id *id;
	struct pv_rdma_cm_id *listen_id;
	enum pv_rdma_cm_event_type event;
	int status;
	union {
		struct pv_rdma_conn_param conn;
		struct pv_rdma_ud_param ud;
	} param;
};

#define PV_RAI_PASSIVE 0x00000001
#define PV_RAI_NUMERICHOST 0x00000002
#define PV_RAI_NOROUTE 0x00000004
#define PV_RAI_FAMILY 0x00000008

/** struct rdma_addrinfo (rdma_getaddrinfo(3)). */
struct pv_rdma_addrinfo {
	int ai_flags;
	int ai_family;
	int ai_qp_type;
	int ai_port_space;
	socklen_t ai_src_len;
	socklen_t ai_dst_len;
	struct sockaddr *ai_src_addr;
	struct sockaddr *ai_dst_addr;
	char *ai_src_canonname;
	char *ai_dst_canonname;
	size_t ai_route_len;
	void *ai_route;
	size_t ai_connect_len;
	void *ai_connect;
	struct pv_rdma_addrinfo *ai_next;
};

enum pv_rdma_cm_join_mc_attr_mask {
	PV_RDMA_CM_JOIN_MC_ATTR_ADDRESS = 1 << 0,
	PV_RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS = 1 << 1,
	PV_RDMA_CM_JOIN_MC_ATTR_RESERVED = 1 << 2,
};

enum pv_rdma_cm_mc_join_flags {
	PV_RDMA_MC_JOIN_FLAG_FULLMEMBER,
	PV_RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
	PV_RDMA_MC_JOIN_FLAG_RESERVED,
};

struct pv_rdma_cm_join_mc_attr_ex {
	uint32_t comp_mask;
	uint32_t join_flags;
	struct sockaddr *addr;
};

enum {
	PV_RDMA_OPTION_ID = 0,
	PV_RDMA_OPTION_IB = 1
};

enum {
	PV_RDMA_OPTION_ID_TOS = 0,		/**< uint8_t: RFC 2474 */
	PV_RDMA_OPTION_ID_REUSEADDR = 1,	/**< int: ~SO_REUSEADDR */
	PV_RDMA_OPTION_ID_AFONLY = 2,		/**< int: ~IPV6_V6ONLY */
	PV_RDMA_OPTION_ID_ACK_TIMEOUT = 3	/**< uint8_t */
};

enum {
	PV_RDMA_OPTION_IB_PATH = 1	/**< struct pv_path_data[] */
};

/**
 * Open an event channel (rdma_create_event_channel(3)). Its fd is a
 * non-semaphore eventfd-like descriptor readable while events wait.
 * @return The channel, or NULL with errno ENOMEM, EMFILE, ENODEV (pv_init()
 *         not done).
 */
PV_EXPORT struct pv_rdma_event_channel *pv_rdma_create_event_channel(void);

/**
 * Close an event channel (rdma_destroy_event_channel(3)). Every id on it
 * must be destroyed and every event acknowledged before.
 */
PV_EXPORT void pv_rdma_destroy_event_channel(struct pv_rdma_event_channel *channel);

/**
 * Allocate a communication identifier (rdma_create_id(3)).
 * @param channel  NULL: the id is synchronous (librdmacm's sync mode: each
 *                 call that produces an event waits for it and returns its
 *                 status; the event is in id->event until the next call).
 * @param ps       PV_RDMA_PS_TCP (RC QPs), PV_RDMA_PS_UDP (UD), PV_RDMA_PS_IB
 *                 (either).
 * @return 0; -1 with errno EINVAL (NULL @p id, unknown @p ps), ENOMEM,
 *         ENODEV (pv_init() not done or no device).
 */
PV_EXPORT int pv_rdma_create_id(struct pv_rdma_event_channel *channel,
				struct pv_rdma_cm_id **id, void *context,
				enum pv_rdma_port_space ps);

/**
 * Allocate an id, resolve @p res's addresses and route (active side) or bind
 * (RAI_PASSIVE), and create its QP when @p qp_init_attr is given
 * (rdma_create_ep(3)). The id is synchronous.
 * @return 0; -1 with errno as rdma_create_id, rdma_resolve_addr,
 *         rdma_resolve_route, rdma_bind_addr and rdma_create_qp.
 */
PV_EXPORT int pv_rdma_create_ep(struct pv_rdma_cm_id **id, struct pv_rdma_addrinfo *res,
				struct pv_pd *pd, struct pv_qp_init_attr *qp_init_attr);

/** Destroy an id made by pv_rdma_create_ep() with its QP, CQs and PD it made. */
PV_EXPORT void pv_rdma_destroy_ep(struct pv_rdma_cm_id *id);

/**
 * Destroy an id (rdma_destroy_id(3)): a connected id sends a DREQ (or a REJ
 * while connecting) first; blocks until no event of it is unacknowledged.
 * The QP must have been destroyed (pv_rdma_destroy_qp()) or not created.
 * @return 0; -1 with errno EINVAL (NULL id), EBUSY (a QP is still bound).
 */
PV_EXPORT int pv_rdma_destroy_id(struct pv_rdma_cm_id *id);

/**
 * Bind a source address (rdma_bind_addr(3)): IPv4 or IPv6, port 0 picks an
 * ephemeral port; a specific address binds the id to the device owning it,
 * INADDR_ANY / in6addr_any to none yet.
 * @return 0; -1 with errno EINVAL (already bound, bad family),
 *         EADDRNOTAVAIL (no device has the address), EADDRINUSE.
 */
PV_EXPORT int pv_rdma_bind_addr(struct pv_rdma_cm_id *id, struct sockaddr *addr);

/**
 * Resolve @p dst_addr (and @p src_addr if given) to a device, port and GIDs
 * (rdma_resolve_addr(3)); completes with ADDR_RESOLVED or ADDR_ERROR.
 * @param timeout_ms  Budget of the resolution, milliseconds.
 * @return 0; -1 with errno EINVAL, EADDRNOTAVAIL (no device can reach it).
 */
PV_EXPORT int pv_rdma_resolve_addr(struct pv_rdma_cm_id *id, struct sockaddr *src_addr,
				   struct sockaddr *dst_addr, int timeout_ms);

/**
 * Resolve the route (rdma_resolve_route(3)): on RoCE the path record is
 * built locally from the GIDs (no SA); completes with ROUTE_RESOLVED.
 * @return 0; -1 with errno EINVAL (address not resolved).
 */
PV_EXPORT int pv_rdma_resolve_route(struct pv_rdma_cm_id *id, int timeout_ms);

/**
 * Create the id's QP on @p pd (rdma_create_qp(3)), moved to INIT; the CM
 * moves it to RTR and RTS as the connection proceeds. NULL @p pd: the
 * device's default PD. NULL CQs in @p qp_init_attr: the id's own CQs with
 * completion channels are created (id->send_cq, ...).
 * @return 0; -1 with errno EINVAL (no device resolved yet, QP exists), or the
 *         errno of pv_create_qp / pv_modify_qp.
 */
PV_EXPORT int pv_rdma_create_qp(struct pv_rdma_cm_id *id, struct pv_pd *pd,
				struct pv_qp_init_attr *qp_init_attr);

/** rdma_create_qp_ex(3): as pv_rdma_create_qp() with the extended attributes. */
PV_EXPORT int pv_rdma_create_qp_ex(struct pv_rdma_cm_id *id,
				   struct pv_qp_init_attr_ex *qp_init_attr);

/** Destroy the id's QP (rdma_destroy_qp(3)) and the CQs the CM made for it. */
PV_EXPORT void pv_rdma_destroy_qp(struct pv_rdma_cm_id *id);

/**
 * Connect (rdma_connect(3)): RC sends a REQ (completes with ESTABLISHED,
 * REJECTED, UNREACHABLE or CONNECT_ERROR; CONNECT_RESPONSE instead of
 * ESTABLISHED when the id has no QP); UD sends a SIDR REQ.
 * @return 0; -1 with errno EINVAL (route not resolved, bad parameter).
 */
PV_EXPORT int pv_rdma_connect(struct pv_rdma_cm_id *id, struct pv_rdma_conn_param *conn_param);

/** Complete an active connection without a QP: send the RTU (rdma_establish(3)). */
PV_EXPORT int pv_rdma_establish(struct pv_rdma_cm_id *id);

/**
 * Listen for connection requests (rdma_listen(3)). A listener bound to a
 * wildcard address listens on every device.
 * @param backlog  Requests queued before new ones are rejected (0: default).
 * @return 0; -1 with errno EINVAL (not bound), EADDRINUSE.
 */
PV_EXPORT int pv_rdma_listen(struct pv_rdma_cm_id *id, int backlog);

/** Next connection request on a synchronous listener (rdma_get_request(3)). */
PV_EXPORT int pv_rdma_get_request(struct pv_rdma_cm_id *listen, struct pv_rdma_cm_id **id);

/**
 * Accept a request (rdma_accept(3)): sends the REP (or SIDR REP); the id's
 * QP goes to RTR/RTS. Passive ids get ESTABLISHED when the RTU arrives.
 * @return 0; -1 with errno EINVAL (not a request), ENOTCONN.
 */
PV_EXPORT int pv_rdma_accept(struct pv_rdma_cm_id *id, struct pv_rdma_conn_param *conn_param);

/**
 * Reject a request with @p private_data (rdma_reject(3)): REJ reason
 * "consumer reject" (28), or SIDR REP status "rejected".
 * @return 0; -1 with errno EINVAL.
 */
PV_EXPORT int pv_rdma_reject(struct pv_rdma_cm_id *id, const void *private_data,
			     uint8_t private_data_len);

/** rdma_reject_ece(3): pv_rdma_reject() (ECE is not supported). */
PV_EXPORT int pv_rdma_reject_ece(struct pv_rdma_cm_id *id, const void *private_data,
				 uint8_t private_data_len);

/**
 * rdma_notify(3): a QP event seen before the RTU (IBV_EVENT_COMM_EST)
 * completes the connection.
 */
PV_EXPORT int pv_rdma_notify(struct pv_rdma_cm_id *id, enum pv_event_type event);

/**
 * Disconnect (rdma_disconnect(3)): the QP goes to ERROR, a DREQ is sent
 * (or the peer's DREQ answered); DISCONNECTED follows.
 * @return 0; -1 with errno EINVAL (not connected).
 */
PV_EXPORT int pv_rdma_disconnect(struct pv_rdma_cm_id *id);

/** Multicast is not supported: -1 with errno EOPNOTSUPP. */
PV_EXPORT int pv_rdma_join_multicast(struct pv_rdma_cm_id *id, struct sockaddr *addr,
				     void *context);
/** Multicast is not supported: -1 with errno EOPNOTSUPP. */
PV_EXPORT int pv_rdma_leave_multicast(struct pv_rdma_cm_id *id, struct sockaddr *addr);
/** Multicast is not supported: -1 with errno EOPNOTSUPP. */
PV_EXPORT int pv_rdma_join_multicast_ex(struct pv_rdma_cm_id *id,
					struct pv_rdma_cm_join_mc_attr_ex *mc_join_attr,
					void *context);

/**
 * Take the next event (rdma_get_cm_event(3)); blocks unless the channel's
 * fd is O_NONBLOCK. Each event must be acknowledged.
 * @return 0; -1 with errno EINVAL, EAGAIN (non-blocking, none queued).
 */
PV_EXPORT int pv_rdma_get_cm_event(struct pv_rdma_event_channel *channel,
				   struct pv_rdma_cm_event **event);

/** Acknowledge and free an event (rdma_ack_cm_event(3)). */
PV_EXPORT int pv_rdma_ack_cm_event(struct pv_rdma_cm_event *event);

/** Source port, network order (rdma_get_src_port(3)); 0 if none. */
PV_EXPORT pv_be16 pv_rdma_get_src_port(struct pv_rdma_cm_id *id);
/** Destination port, network order (rdma_get_dst_port(3)); 0 if none. */
PV_EXPORT pv_be16 pv_rdma_get_dst_port(struct pv_rdma_cm_id *id);

/** Local address (rdma_get_local_addr(3)). */
static inline struct sockaddr *
pv_rdma_get_local_addr(struct pv_rdma_cm_id *id)
{
	return &id->route.addr.src_addr;
}

/** Peer address (rdma_get_peer_addr(3)). */
static inline struct sockaddr *
pv_rdma_get_peer_addr(struct pv_rdma_cm_id *id)
{
	return &id->route.addr.dst_addr;
}

/**
 * Open every RDMA device (rdma_get_devices(3)): pv_open_device() of each
 * device of pv_get_device_list(), in its order; a device that does not
 * open is left out (as librdmacm leaves it).
 * @param num_devices  May be NULL; set to the number of contexts (0 on
 *                     failure, as librdmacm).
 * @return NULL-terminated array of contexts, or NULL with errno ENODEV
 *         (pv_init() not done, no device, none opens), ENOMEM.
 * Ownership: the caller's; pv_rdma_free_devices() closes the contexts
 *            (librdmacm keeps its own open instead) and frees the array.
 */
PV_EXPORT struct pv_context **pv_rdma_get_devices(int *num_devices);
/** Close the contexts of @p list and free it (rdma_free_devices(3)); NULL: nothing. */
PV_EXPORT void pv_rdma_free_devices(struct pv_context **list);

/**
 * Name of an event type (rdma_event_str(3)), e.g. "RDMA_CM_EVENT_ESTABLISHED":
 * the enumerator's name; "UNKNOWN EVENT" for any other value. A static
 * string. Thread: any; needs no pv_init().
 */
PV_EXPORT const char *pv_rdma_event_str(enum pv_rdma_cm_event_type event);

/**
 * Set an option (rdma_set_option(3)): ID level TOS (uint8_t), REUSEADDR
 * (int), AFONLY (int), ACK_TIMEOUT (uint8_t); IB level PATH.
 * @return 0; -1 with errno EINVAL (bad length, state), ENOSYS (unknown).
 */
PV_EXPORT int pv_rdma_set_option(struct pv_rdma_cm_id *id, int level, int optname,
				 void *optval, size_t optlen);

/** Move an id to another event channel (rdma_migrate_id(3)); NULL: sync. */
PV_EXPORT int pv_rdma_migrate_id(struct pv_rdma_cm_id *id,
				 struct pv_rdma_event_channel *channel);

/**
 * Resolve names to RDMA addresses (rdma_getaddrinfo(3)), as librdmacm of
 * rdma-core 44: @p node and @p service through getaddrinfo(3) with the
 * hints' RAI_PASSIVE (AI_PASSIVE), RAI_NUMERICHOST (AI_NUMERICHOST),
 * family, QP type (socket type) and port space (protocol); one answer, the
 * first. RAI_PASSIVE: ai_src_addr is set (ai_flags RAI_PASSIVE), else
 * ai_dst_addr (ai_flags 0), and ai_src_addr from the hints when they have
 * one. ai_qp_type and ai_port_space: the hints', else PV_QPT_RC and
 * PV_RDMA_PS_TCP for a stream answer, PV_QPT_UD and PV_RDMA_PS_UDP for a
 * datagram one (PV_QPT_UD in the hints asks for that). Canonical names:
 * only the ones getaddrinfo gives, which it does not unasked (librdmacm
 * never asks). Without @p node and @p service, the hints are copied.
 * No route resolution (ibacm): RAI_NOROUTE changes nothing. Needs no
 * pv_init() and no device (librdmacm needs an RDMA device).
 * @return 0 with *@p res set (free it with pv_rdma_freeaddrinfo());
 *         -1 with errno EINVAL (NULL @p res, or no node, service nor hints),
 *         ENOMEM, EAFNOSUPPORT (a numeric AF_IB address: RAI_FAMILY |
 *         RAI_NUMERICHOST with AF_IB); or, when getaddrinfo(3) fails, its
 *         nonzero EAI_* code, returned as librdmacm returns it, with errno
 *         set from it: EADDRNOTAVAIL (EAI_NONAME, EAI_NODATA,
 *         EAI_ADDRFAMILY), EAFNOSUPPORT (EAI_FAMILY), EPROTONOSUPPORT
 *         (EAI_SERVICE, EAI_SOCKTYPE), EAGAIN, EINVAL (EAI_BADFLAGS), ENOMEM,
 *         getaddrinfo's errno (EAI_SYSTEM), EIO (EAI_FAIL).
 * Thread: any (getaddrinfo(3)'s rules).
 */
PV_EXPORT int pv_rdma_getaddrinfo(const char *node, const char *service,
				  const struct pv_rdma_addrinfo *hints,
				  struct pv_rdma_addrinfo **res);
/** Free a list pv_rdma_getaddrinfo() returned (rdma_freeaddrinfo(3)); NULL: nothing. */
PV_EXPORT void pv_rdma_freeaddrinfo(struct pv_rdma_addrinfo *res);

/**
 * The QP attributes for the id's next state (rdma_init_qp_attr(3)): set
 * qp_attr->qp_state to PV_QPS_INIT, PV_QPS_RTR or PV_QPS_RTS; fills the
 * attributes and mask pv_modify_qp() needs, for applications that move
 * their own QP.
 * @return 0; -1 with errno EINVAL (state not reachable yet).
 */
PV_EXPORT int pv_rdma_init_qp_attr(struct pv_rdma_cm_id *id, struct pv_qp_attr *qp_attr,
				   int *qp_attr_mask);

/** ECE is not supported: -1 with errno EOPNOTSUPP. */
PV_EXPORT int pv_rdma_set_local_ece(struct pv_rdma_cm_id *id, struct pv_ece *ece);
/** ECE is not supported: -1 with errno EOPNOTSUPP. */
PV_EXPORT int pv_rdma_get_remote_ece(struct pv_rdma_cm_id *id, struct pv_ece *ece);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_CM_PV_RDMA_CMA_H */

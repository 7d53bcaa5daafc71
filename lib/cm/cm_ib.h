/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The IBTA communication manager of one port (IBA vol. 1 ch. 12): the
 * connection state machines (REQ/MRA/REJ/REP/RTU, DREQ/DREP, TimeWait),
 * service ID requests (SIDR), their timeouts and retries, duplicate and
 * stale MAD handling, and LAP answered by APR "unsupported". The layer
 * above (cma.c, rdma_cm semantics) drives it as Linux's cma.c drives
 * drivers/infiniband/core/cm.c.
 *
 * It does no I/O of its own: MADs go out through the transport's send()
 * (cm_gsi.c: QP1 of a pollverbs device; the unit tests: a lossy in-memory
 * wire) and come in through pv_ib_cm_recv(); time comes from the
 * transport's now_us() and timers run from pv_ib_cm_timers(). So the state
 * machine is tested under loss, duplication and reordering without a
 * device.
 *
 * Threads: not thread safe. Every call, and every handler it makes, runs
 * under the caller's lock (cma.c's global CM lock). A handler must not call
 * pv_ib_cm_destroy_id() on the id it is called for: it returns nonzero to
 * have that id destroyed after it returns (a REQ_RECEIVED id is then
 * rejected with PV_CM_REJ_CONSUMER_DEFINED... as Linux's cm_destroy_id()).
 */

#ifndef PV_LIB_CM_CM_IB_H
#define PV_LIB_CM_CM_IB_H

#include <stddef.h>
#include <stdint.h>

#include "cm_mad.h"

/* Q_Key and P_Key of QP1 (IBA 13.4.6.1, 10.9.1.2) */
#define PV_GSI_QKEY		0x80010000u
#define PV_GSI_PKEY		0xffff
#define PV_GSI_QPN		1

/* Where a MAD goes to or came from: the GSI of a peer port. */
struct pv_ib_cm_av {
	uint8_t dgid[16];	/* peer GID (raw, network order) */
	uint8_t sgid[16];	/* our GID the MAD is sent from / arrived at */
	uint8_t sgid_index;	/* its index on our port */
	uint32_t flow_label;	/* 20 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;
	uint16_t pkey_index;
};

/* How the CM sends MADs and reads the clock. */
struct pv_ib_cm_transport {
	/* Send one 256-byte MAD to QP1 of @p av. 0 or -errno (the CM treats a
	 * failed send like a lost MAD: its retry timer covers it). */
	int (*send)(void *ctx, const uint8_t mad[PV_MAD_SIZE], const struct pv_ib_cm_av *av);
	/* Monotonic microseconds. */
	uint64_t (*now_us)(void *ctx);
};

/* Timing, with the values Linux's rdma_cm uses as defaults. */
struct pv_ib_cm_tunables {
	uint8_t cm_response_timeout;	/* 5-bit exponent, 4.096 us * 2^x; cma.c: 20 */
	uint8_t max_cm_retries;		/* 4 bits; cma.c: 15 */
	uint8_t packet_life_time;	/* 5-bit exponent; cma.c RoCE: 18 (CMA_IBOE_PACKET_LIFETIME, 6.1) */
	uint8_t mra_service_timeout;	/* the MRA the passive side sends: cma.c 24 */
	uint64_t timewait_us;		/* 0: from the spec formula */
};

/* Fill @p t with Linux rdma_cm's defaults, then the environment's
 * overrides (PV_CM_RESPONSE_TIMEOUT, PV_CM_MAX_RETRIES, PV_CM_TIMEWAIT_MS;
 * documented in doc/guides/prog_guide/cm.rst). */
void pv_ib_cm_tunables_default(struct pv_ib_cm_tunables *t);

/* States (IBA 12.9.1-3, Linux enum ib_cm_state). */
enum pv_ib_cm_state {
	PV_IB_CM_IDLE,
	PV_IB_CM_LISTEN,
	PV_IB_CM_REQ_SENT,
	PV_IB_CM_REQ_RCVD,
	PV_IB_CM_MRA_REQ_SENT,
	PV_IB_CM_MRA_REQ_RCVD,
	PV_IB_CM_REP_SENT,
	PV_IB_CM_REP_RCVD,
	PV_IB_CM_MRA_REP_SENT,
	PV_IB_CM_MRA_REP_RCVD,
	PV_IB_CM_ESTABLISHED,
	PV_IB_CM_DREQ_SENT,
	PV_IB_CM_DREQ_RCVD,
	PV_IB_CM_TIMEWAIT,
	PV_IB_CM_SIDR_REQ_SENT,
	PV_IB_CM_SIDR_REQ_RCVD,
};

enum pv_ib_cm_event_type {
	PV_IB_CM_REQ_ERROR,		/* REQ retries exhausted (status -ETIMEDOUT); a REJ
					 * "timeout" went to the peer, the id is IDLE */
	PV_IB_CM_REQ_RECEIVED,		/* new id, listen_id = the listener */
	PV_IB_CM_REP_ERROR,		/* REP retries exhausted: IDLE */
	PV_IB_CM_REP_RECEIVED,
	PV_IB_CM_RTU_RECEIVED,
	PV_IB_CM_USER_ESTABLISHED,	/* pv_ib_cm_establish() on a REP_SENT id */
	PV_IB_CM_DREQ_ERROR,		/* DREQ retries exhausted: TimeWait */
	PV_IB_CM_DREQ_RECEIVED,		/* DREQ_RCVD; or, when our DREQ crossed it, the CM
					 * answered with a DREP itself: TimeWait */
	PV_IB_CM_DREP_RECEIVED,
	PV_IB_CM_TIMEWAIT_EXIT,		/* IDLE again (not for destroyed ids) */
	PV_IB_CM_MRA_RECEIVED,
	PV_IB_CM_REJ_RECEIVED,		/* IDLE, or TimeWait once a QP may be live */
	PV_IB_CM_SIDR_REQ_ERROR,	/* SIDR_REQ retries exhausted */
	PV_IB_CM_SIDR_REQ_RECEIVED,	/* new id, listen_id = the listener */
	PV_IB_CM_SIDR_REP_RECEIVED,
};

struct pv_ib_cm_id;

struct pv_ib_cm_event {
	enum pv_ib_cm_event_type type;
	const struct pv_cm_msg *msg;	/* the MAD received; NULL for errors and TIMEWAIT_EXIT */
	const struct pv_ib_cm_av *av;	/* where it came from (REQ/SIDR_REQ: the reply path) */
	struct pv_ib_cm_id *listen_id;	/* REQ/SIDR_REQ_RECEIVED */
	int status;			/* *_ERROR: -ETIMEDOUT */
};

/* Return 0, or nonzero to have the id destroyed once the handler returned. */
typedef int (*pv_ib_cm_handler)(struct pv_ib_cm_id *id, const struct pv_ib_cm_event *ev);

/* A connection endpoint. The fields are read-only outside cm_ib.c. */
struct pv_ib_cm_id {
	void *context;			/* the owner's; inherited from the listener */
	pv_ib_cm_handler handler;	/* inherited from the listener */
	enum pv_ib_cm_state state;
	uint64_t service_id;
	uint32_t local_id;		/* local comm ID */
	uint32_t remote_id;		/* remote comm ID (0 until known) */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	uint64_t remote_ca_guid;
	struct pv_ib_cm_av av;		/* the peer's GSI */
};

struct pv_ib_cm;

/* A CM for one port. @p ca_guid goes into REQ/REP "local CA GUID".
 * Returns NULL with errno ENOMEM, EINVAL. */
struct pv_ib_cm *pv_ib_cm_create(const struct pv_ib_cm_transport *t, void *t_ctx,
				 uint64_t ca_guid, const struct pv_ib_cm_tunables *tun);

/* Free the CM and every id still on it (without sending anything or
 * calling a handler). */
void pv_ib_cm_free(struct pv_ib_cm *cm);

/* Feed one received MAD: decoded, dropped and counted when malformed,
 * dispatched by attribute and comm ID otherwise (handlers run from here;
 * ClassPortInfo Get is answered, other Gets/Sets get "unsupported"). */
void pv_ib_cm_recv(struct pv_ib_cm *cm, const uint8_t *mad, size_t len,
		   const struct pv_ib_cm_av *src);

/* Run due timers (retransmissions, timeouts, TimeWait; handlers run from
 * here). Returns the microseconds until the next one, UINT64_MAX when none
 * is armed. Times are IBA exponents rounded as Linux: 2^(x - 8) ms; a REQ
 * is retried every 2 * 2^(life - 8) + 2^(remote_cm_response_timeout - 8)
 * ms, a REP every 2^(REQ local_cm_response_timeout - 8) ms, a DREQ as the
 * connection's REQ/REP, a SIDR_REQ every 2^(cm_response_timeout - 8) ms;
 * TimeWait lasts tunables.timewait_us, or 2^(local ACK timeout - 8) ms. */
uint64_t pv_ib_cm_timers(struct pv_ib_cm *cm);

/* Counters of one CM (for tests and telemetry). */
struct pv_ib_cm_stats {
	uint64_t mads_rx;
	uint64_t mads_tx;
	uint64_t malformed;	/* failed to decode: dropped */
	uint64_t unmatched;	/* no id for it (answered with REJ where the spec says) */
	uint64_t duplicates;	/* duplicate REQ/REP/DREQ... handled */
	uint64_t stale;		/* stale connections rejected */
	uint64_t retries;	/* retransmissions */
	uint64_t timeouts;	/* *_ERROR events */
	uint64_t ids;		/* ids alive now (TimeWait ones included) */
};
void pv_ib_cm_stats_get(const struct pv_ib_cm *cm, struct pv_ib_cm_stats *s);

/* New id in IDLE. Returns NULL with errno ENOMEM. */
struct pv_ib_cm_id *pv_ib_cm_create_id(struct pv_ib_cm *cm, pv_ib_cm_handler handler,
				       void *context);

/* Destroy @p id as Linux's ib_destroy_cm_id(): REJ (timeout) for a REQ it
 * sent, REJ (consumer) for one it received and did not accept, DREQ when
 * established; the CM keeps what TimeWait needs internally, the caller's
 * pointer is dead when this returns and no handler is called for it again. */
void pv_ib_cm_destroy_id(struct pv_ib_cm_id *id);

/* Listen for REQs and SIDR_REQs whose service ID & @p mask == @p service_id
 * (@p mask 0: exact, as Linux). Returns 0, -EBUSY another listener has it,
 * -EINVAL not IDLE or @p id NULL. */
int pv_ib_cm_listen(struct pv_ib_cm_id *id, uint64_t service_id, uint64_t mask);

/* Send a REQ: the caller fills @p req but local_comm_id and local_ca_guid;
 * @p av is the peer's GSI. Returns 0, -EINVAL not IDLE or a NULL argument
 * (an IDLE id may send again, e.g. after REQ_ERROR). */
int pv_ib_cm_send_req(struct pv_ib_cm_id *id, const struct pv_cm_req *req,
		      const struct pv_ib_cm_av *av);

/* Send a REP to a received REQ (REQ_RCVD / MRA_REQ_SENT): the caller fills
 * @p rep but the comm IDs and local_ca_guid. 0, -EINVAL other state. */
int pv_ib_cm_send_rep(struct pv_ib_cm_id *id, const struct pv_cm_rep *rep);

/* Send the RTU (REP_RCVD / MRA_REP_SENT): ESTABLISHED. 0, -EINVAL other
 * state or @p len over 224. (Private data of the send_* calls: @p len bytes,
 * at most the message's field; NULL only with @p len 0.) */
int pv_ib_cm_send_rtu(struct pv_ib_cm_id *id, const void *private_data, uint8_t len);

/* Reject (REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT; also REQ_SENT,
 * MRA_REQ_RCVD: IDLE; REP_SENT, MRA_REP_RCVD: TimeWait, as Linux).
 * 0, -EINVAL other state, @p ari_len over 72 or @p len over 148. */
int pv_ib_cm_send_rej(struct pv_ib_cm_id *id, uint16_t reason, const void *ari,
		      uint8_t ari_len, const void *private_data, uint8_t len);

/* Message-receipt acknowledgement for a REQ or REP received (REQ_RCVD,
 * REP_RCVD; 0, -EINVAL otherwise).
 * @p service_timeout | PV_IB_CM_MRA_FLAG_DELAY: only enter the MRA state,
 * send the MRA when the peer repeats its MAD (what rdma_cm does). */
#define PV_IB_CM_MRA_FLAG_DELAY 0x80
int pv_ib_cm_send_mra(struct pv_ib_cm_id *id, uint8_t service_timeout,
		      const void *private_data, uint8_t len);

/* Disconnect (ESTABLISHED): DREQ, retried until DREP or retries exhausted.
 * 0, -EINVAL other state. */
int pv_ib_cm_send_dreq(struct pv_ib_cm_id *id, const void *private_data, uint8_t len);

/* Answer a DREQ received (DREQ_RCVD): DREP, then TimeWait. 0, -EINVAL
 * other state. */
int pv_ib_cm_send_drep(struct pv_ib_cm_id *id, const void *private_data, uint8_t len);

/* The passive side saw traffic before the RTU (rdma_notify COMM_EST):
 * REP_SENT / MRA_REP_RCVD -> ESTABLISHED, USER_ESTABLISHED event (the
 * handler is called before this returns). 0, -EISCONN ESTABLISHED already,
 * -EINVAL other state. */
int pv_ib_cm_establish(struct pv_ib_cm_id *id);

/* SIDR: request (IDLE -> SIDR_REQ_SENT; the caller fills @p req but
 * request_id), and the answer to one received (SIDR_REQ_RCVD -> IDLE).
 * 0, -EINVAL other state or a NULL argument. */
int pv_ib_cm_send_sidr_req(struct pv_ib_cm_id *id, const struct pv_cm_sidr_req *req,
			   const struct pv_ib_cm_av *av);
int pv_ib_cm_send_sidr_rep(struct pv_ib_cm_id *id, const struct pv_cm_sidr_rep *rep);

const char *pv_ib_cm_state_str(enum pv_ib_cm_state s);

#endif /* PV_LIB_CM_CM_IB_H */

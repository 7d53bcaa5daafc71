/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The IBTA communication manager of one port (cm_ib.h): connection and SIDR
 * state machines, retransmissions, TimeWait, duplicate and stale MADs.
 *
 * Behaviour follows IBA vol. 1 ch. 12 (state diagrams 12.9) as Linux 6.1's
 * drivers/infiniband/core/cm.c implements it, so that a Linux rdma_cm peer
 * (rxe) sees what it would see from another Linux host:
 *
 *  - the TID of what an id starts (REQ, DREQ, SIDR_REQ) is
 *    CM_TID_HI << 32 | the local comm ID as Linux lays it out (its bytes
 *    swapped); answers (REP, RTU, MRA, REJ, DREP, SIDR_REP) reuse the TID of
 *    the MAD they answer;
 *  - times are IBA exponents (4.096 us * 2^x) rounded as Linux rounds them,
 *    2^(x - 8) ms (pv_ib_cm_time_us());
 *  - a MAD that wants an answer (REQ, REP, DREQ, SIDR_REQ) is sent again
 *    every timeout until the answer comes, max_cm_retries times, then the
 *    id gets the *_ERROR event; an MRA stretches the timeout of the MAD it
 *    acknowledges;
 *  - where Linux and the spec differ we say which we do and why: REJ
 *    timeout when the REQ retries run out, crossing DREQs answered by the
 *    CM, TimeWait ids kept for duplicate REQs, a DREQ for an ended
 *    connection answered.
 *
 * Every id is in the local table (by local comm ID) from creation to free.
 * A connection is also in the remote table (by remote comm ID + remote CA
 * GUID: duplicate REQs, REJ timeout) from REQ received or REP received until
 * it leaves TimeWait or goes back to IDLE, and in the QPN table (by remote
 * QPN + remote CA GUID: stale connections) until it enters TimeWait or IDLE.
 * Each id has at most one timer: its retransmission or its TimeWait.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_random.h>

#include "cm_ib_priv.h"

/* environment overrides of pv_ib_cm_tunables_default() */
#define CM_ENV_RESPONSE_TIMEOUT	"PV_CM_RESPONSE_TIMEOUT"
#define CM_ENV_MAX_RETRIES	"PV_CM_MAX_RETRIES"
#define CM_ENV_TIMEWAIT_MS	"PV_CM_TIMEWAIT_MS"
#define CM_TIMEWAIT_MS_MAX	3600000u	/* an hour */

static void cm_destroy(struct cm_id_priv *p);

static const char *const cm_state_names[] = {
	[PV_IB_CM_IDLE] = "IDLE",
	[PV_IB_CM_LISTEN] = "LISTEN",
	[PV_IB_CM_REQ_SENT] = "REQ_SENT",
	[PV_IB_CM_REQ_RCVD] = "REQ_RCVD",
	[PV_IB_CM_MRA_REQ_SENT] = "MRA_REQ_SENT",
	[PV_IB_CM_MRA_REQ_RCVD] = "MRA_REQ_RCVD",
	[PV_IB_CM_REP_SENT] = "REP_SENT",
	[PV_IB_CM_REP_RCVD] = "REP_RCVD",
	[PV_IB_CM_MRA_REP_SENT] = "MRA_REP_SENT",
	[PV_IB_CM_MRA_REP_RCVD] = "MRA_REP_RCVD",
	[PV_IB_CM_ESTABLISHED] = "ESTABLISHED",
	[PV_IB_CM_DREQ_SENT] = "DREQ_SENT",
	[PV_IB_CM_DREQ_RCVD] = "DREQ_RCVD",
	[PV_IB_CM_TIMEWAIT] = "TIMEWAIT",
	[PV_IB_CM_SIDR_REQ_SENT] = "SIDR_REQ_SENT",
	[PV_IB_CM_SIDR_REQ_RCVD] = "SIDR_REQ_RCVD",
};

const char *
pv_ib_cm_state_str(enum pv_ib_cm_state s)
{
	if ((unsigned int)s >= RTE_DIM(cm_state_names) || cm_state_names[s] == NULL)
		return "unknown";
	return cm_state_names[s];
}

/* ---------------------------------------------------------------------- */
/* Time                                                                    */
/* ---------------------------------------------------------------------- */

static uint64_t
cm_now(const struct pv_ib_cm *cm)
{
	return cm->t.now_us(cm->t_ctx);
}

/* ---------------------------------------------------------------------- */
/* Tables                                                                  */
/* ---------------------------------------------------------------------- */

static inline unsigned int
cm_hash(uint32_t a, uint64_t b)
{
	uint32_t k = a ^ (uint32_t)b ^ (uint32_t)(b >> 32);

	return (k * 2654435761u) >> (32 - CM_HASH_BITS);	/* Knuth */
}

struct cm_id_priv *
pv_ib_cm_id_find(struct pv_ib_cm *cm, uint32_t local_id)
{
	struct cm_id_priv *p;

	LIST_FOREACH(p, &cm->local[cm_hash(local_id, 0)], local_link)
		if (p->id.local_id == local_id)
			return p;
	return NULL;
}

/* the id @p local_id names whose remote comm ID is @p remote_id (0: not
 * known yet), as the receiver of an answer must check (IBA 12.6.3) */
struct cm_id_priv *
pv_ib_cm_id_lookup(struct pv_ib_cm *cm, uint32_t local_id, uint32_t remote_id)
{
	struct cm_id_priv *p = pv_ib_cm_id_find(cm, local_id);

	return p != NULL && p->id.remote_id == remote_id ? p : NULL;
}

struct cm_id_priv *
pv_ib_cm_id_find_remote(struct pv_ib_cm *cm, uint32_t remote_id, uint64_t ca_guid)
{
	struct cm_id_priv *p;

	LIST_FOREACH(p, &cm->remote[cm_hash(remote_id, ca_guid)], remote_link)
		if (p->id.remote_id == remote_id && p->id.remote_ca_guid == ca_guid)
			return p;
	return NULL;
}

struct cm_id_priv *
pv_ib_cm_id_find_qpn(struct pv_ib_cm *cm, uint32_t qpn, uint64_t ca_guid)
{
	struct cm_id_priv *p;

	LIST_FOREACH(p, &cm->qpn[cm_hash(qpn, ca_guid)], qpn_link)
		if (p->id.remote_qpn == qpn && p->id.remote_ca_guid == ca_guid)
			return p;
	return NULL;
}

void
pv_ib_cm_id_remote_insert(struct cm_id_priv *p)
{
	struct pv_ib_cm *cm = p->cm;

	LIST_INSERT_HEAD(&cm->remote[cm_hash(p->id.remote_id, p->id.remote_ca_guid)], p,
			 remote_link);
	p->in_remote = true;
	LIST_INSERT_HEAD(&cm->qpn[cm_hash(p->id.remote_qpn, p->id.remote_ca_guid)], p,
			 qpn_link);
	p->in_qpn = true;
}

static void
cm_qpn_remove(struct cm_id_priv *p)
{
	if (p->in_qpn) {
		LIST_REMOVE(p, qpn_link);
		p->in_qpn = false;
	}
}

static void
cm_remote_remove(struct cm_id_priv *p)
{
	cm_qpn_remove(p);
	if (p->in_remote) {
		LIST_REMOVE(p, remote_link);
		p->in_remote = false;
	}
}

static void
cm_list_remove(struct cm_id_priv *p)
{
	if (p->in_list) {
		LIST_REMOVE(p, list_link);
		p->in_list = false;
	}
}

/* ---------------------------------------------------------------------- */
/* Timers                                                                  */
/* ---------------------------------------------------------------------- */

void
pv_ib_cm_timer_set(struct cm_id_priv *p, enum cm_timer kind, uint64_t in_us)
{
	if (p->timer == CM_TIMER_NONE)
		TAILQ_INSERT_TAIL(&p->cm->timers, p, timer_link);
	p->timer = kind;
	p->due_us = cm_now(p->cm) + in_us;
}

void
pv_ib_cm_timer_cancel(struct cm_id_priv *p)
{
	if (p->timer != CM_TIMER_NONE) {
		TAILQ_REMOVE(&p->cm->timers, p, timer_link);
		p->timer = CM_TIMER_NONE;
	}
}

/* ---------------------------------------------------------------------- */
/* Sending                                                                 */
/* ---------------------------------------------------------------------- */

/* the TID of an exchange @p p starts: Linux (cm_form_tid) puts its local ID
 * there as stored in memory, big endian, read by an x86 host as a number:
 * the comm ID with its bytes swapped (0x41a8f8c8 -> 0x...c8f8a841) */
static uint64_t
cm_tid_new(const struct cm_id_priv *p)
{
	return (uint64_t)CM_TID_HI << 32 | rte_bswap32(p->id.local_id);
}

void
pv_ib_cm_hdr_fill(struct pv_cm_msg *msg, uint16_t attr_id, uint64_t tid)
{
	msg->hdr.base_version = PV_MAD_BASE_VERSION;
	msg->hdr.mgmt_class = PV_MAD_CLASS_CM;
	msg->hdr.class_version = PV_MAD_CM_CLASS_VERSION;
	msg->hdr.method = PV_MAD_METHOD_SEND;
	msg->hdr.status = 0;
	msg->hdr.class_specific = 0;
	msg->hdr.tid = tid;
	msg->hdr.attr_id = attr_id;
	msg->hdr.resv = 0;
	msg->hdr.attr_mod = 0;
}

/* comm IDs of a message, for the logs */
static void
cm_msg_ids(const struct pv_cm_msg *msg, uint32_t *local_p, uint32_t *remote_p)
{
	*local_p = 0;
	*remote_p = 0;
	switch (msg->hdr.attr_id) {
	case PV_CM_ATTR_REQ:
		*local_p = msg->req.local_comm_id;
		break;
	case PV_CM_ATTR_MRA:
	case PV_CM_ATTR_REJ:
	case PV_CM_ATTR_REP:
	case PV_CM_ATTR_RTU:
	case PV_CM_ATTR_DREQ:
	case PV_CM_ATTR_DREP:
	case PV_CM_ATTR_LAP:
	case PV_CM_ATTR_APR:
		/* these all start with the two comm IDs */
		*local_p = msg->rtu.local_comm_id;
		*remote_p = msg->rtu.remote_comm_id;
		break;
	case PV_CM_ATTR_SIDR_REQ:
		*local_p = msg->sidr_req.request_id;
		break;
	case PV_CM_ATTR_SIDR_REP:
		*remote_p = msg->sidr_rep.request_id;
		break;
	default:
		break;
	}
}

void
pv_ib_cm_msg_log(const char *dir, const struct pv_cm_msg *msg)
{
	uint32_t l, r;

	cm_msg_ids(msg, &l, &r);
	CM_LOG(DEBUG, "%s %s tid 0x%016" PRIx64 " local 0x%08x remote 0x%08x", dir,
	       pv_cm_attr_str(msg->hdr.attr_id), msg->hdr.tid, l, r);
}

/* hand one MAD to the transport; a failed send is a lost MAD, which the
 * retransmission of whatever waits for an answer covers */
void
pv_ib_cm_mad_send(struct pv_ib_cm *cm, const uint8_t mad[PV_MAD_SIZE], const struct pv_ib_cm_av *av)
{
	int ret;

	cm->stats.mads_tx++;
	ret = cm->t.send(cm->t_ctx, mad, av);
	if (ret != 0)
		CM_LOG(DEBUG, "transport send: %s", strerror(-ret));
}

/* encode @p msg into @p mad and send it to @p av */
static int
cm_msg_send_buf(struct pv_ib_cm *cm, const struct pv_cm_msg *msg,
		const struct pv_ib_cm_av *av, uint8_t mad[PV_MAD_SIZE])
{
	int ret;

	ret = pv_cm_mad_encode(msg, mad);
	if (ret != 0) {
		CM_LOG(ERR, "encode %s: %s", pv_cm_attr_str(msg->hdr.attr_id), strerror(-ret));
		return ret;
	}
	pv_ib_cm_msg_log("tx", msg);
	pv_ib_cm_mad_send(cm, mad, av);
	return 0;
}

/* send a MAD nothing answers */
int
pv_ib_cm_msg_send(struct pv_ib_cm *cm, const struct pv_cm_msg *msg, const struct pv_ib_cm_av *av)
{
	uint8_t mad[PV_MAD_SIZE];

	return cm_msg_send_buf(cm, msg, av, mad);
}

/* send the MAD that takes @p p to state @p next and waits for an answer
 * there, retried every conn_timeout_us up to max_cm_retries times */
static int
cm_msg_send_retx(struct cm_id_priv *p, const struct pv_cm_msg *msg, enum pv_ib_cm_state next)
{
	int ret;

	ret = cm_msg_send_buf(p->cm, msg, &p->id.av, p->out);
	if (ret != 0)
		return ret;
	p->out_timeout_us = p->conn_timeout_us;
	p->retries_left = p->max_cm_retries;
	p->out_state = next;
	pv_ib_cm_timer_set(p, CM_TIMER_RETX, p->out_timeout_us);
	pv_ib_cm_state_set(p, next);
	return 0;
}

static void
cm_pdata_keep(struct cm_id_priv *p, const void *pdata, uint8_t len)
{
	p->pdata_len = len;
	if (len != 0)
		memcpy(p->pdata, pdata, len);
}

/* the private data arguments of a send_* call */
static bool
cm_pdata_ok(const void *pdata, uint8_t len, size_t max)
{
	return len <= max && (len == 0 || pdata != NULL);
}

void
pv_ib_cm_mra_fill(struct pv_cm_msg *msg, const struct cm_id_priv *p, uint8_t msg_mraed)
{
	memset(msg, 0, sizeof(*msg));
	pv_ib_cm_hdr_fill(msg, PV_CM_ATTR_MRA, p->tid);
	msg->mra.local_comm_id = p->id.local_id;
	msg->mra.remote_comm_id = p->id.remote_id;
	msg->mra.msg_mraed = msg_mraed;
	msg->mra.service_timeout = p->service_timeout;
	memcpy(msg->mra.private_data, p->pdata, RTE_MIN(p->pdata_len, sizeof(msg->mra.private_data)));
}

/*
 * A REJ from @p p in state @p state (the state it leaves): what the local
 * comm ID and "message rejected" say depends on it (IBA 12.6.7; a REJ to a
 * REQ not yet answered has local comm ID 0, as Linux sends it).
 */
void
pv_ib_cm_rej_fill(struct pv_cm_msg *msg, const struct cm_id_priv *p, enum pv_ib_cm_state state,
		  uint16_t reason, const void *ari, uint8_t ari_len, const void *pdata, uint8_t len)
{
	memset(msg, 0, sizeof(*msg));
	pv_ib_cm_hdr_fill(msg, PV_CM_ATTR_REJ, p->tid);
	msg->rej.remote_comm_id = p->id.remote_id;
	msg->rej.local_comm_id = state == PV_IB_CM_REQ_RCVD ? 0 : p->id.local_id;
	switch (state) {
	case PV_IB_CM_REQ_RCVD:
	case PV_IB_CM_MRA_REQ_SENT:
		msg->rej.msg_rejected = PV_CM_MSG_REQ;
		break;
	case PV_IB_CM_REP_RCVD:
	case PV_IB_CM_MRA_REP_SENT:
		msg->rej.msg_rejected = PV_CM_MSG_REP;
		break;
	default:
		msg->rej.msg_rejected = PV_CM_MSG_OTHER;
		break;
	}
	msg->rej.reason = reason;
	msg->rej.reject_info_length = ari_len;
	if (ari_len != 0)
		memcpy(msg->rej.ari, ari, ari_len);
	if (len != 0)
		memcpy(msg->rej.private_data, pdata, len);
}

/* REJ "timeout": its ARI is our CA GUID, by which the peer finds the
 * connection whose comm ID we may not know (IBA 12.6.7.2) */
static void
cm_rej_timeout_send(struct cm_id_priv *p)
{
	rte_be64_t guid = rte_cpu_to_be_64(p->cm->ca_guid);
	struct pv_cm_msg msg;

	pv_ib_cm_rej_fill(&msg, p, p->id.state, PV_CM_REJ_TIMEOUT, &guid, sizeof(guid), NULL, 0);
	pv_ib_cm_msg_send(p->cm, &msg, &p->id.av);
}

/* ---------------------------------------------------------------------- */
/* State changes                                                           */
/* ---------------------------------------------------------------------- */

void
pv_ib_cm_state_set(struct cm_id_priv *p, enum pv_ib_cm_state s)
{
	if (p->id.state != s)
		CM_LOG(DEBUG, "id 0x%08x: %s -> %s", p->id.local_id,
		       pv_ib_cm_state_str(p->id.state), pv_ib_cm_state_str(s));
	p->id.state = s;
}

/* back to IDLE: nothing outstanding, not a connection any more */
void
pv_ib_cm_idle_reset(struct cm_id_priv *p)
{
	pv_ib_cm_timer_cancel(p);
	cm_remote_remove(p);
	cm_list_remove(p);
	pv_ib_cm_state_set(p, PV_IB_CM_IDLE);
}

static uint64_t
cm_timewait_us(const struct cm_id_priv *p)
{
	if (p->cm->tun.timewait_us != 0)
		return p->cm->tun.timewait_us;
	return pv_ib_cm_time_us(p->ack_timeout);
}

/*
 * TimeWait (IBA 12.9.7.4): the QP may still see stray packets of the
 * connection for about a local ACK timeout (2 * packet life time + the
 * peer's ACK delay), so the comm ID is not reused until then. Linux waits
 * the ACK timeout exponent it gave the QP (pv_ib_cm_timewait_enter), so do we.
 * The id leaves the QPN table (a new REQ from the same QP is a new
 * connection) but stays in the remote table, so that a late duplicate REQ
 * is answered with REJ "stale connection".
 */
void
pv_ib_cm_timewait_enter(struct cm_id_priv *p)
{
	pv_ib_cm_timer_cancel(p);
	cm_qpn_remove(p);
	pv_ib_cm_state_set(p, PV_IB_CM_TIMEWAIT);
	pv_ib_cm_timer_set(p, CM_TIMER_TIMEWAIT, cm_timewait_us(p));
}

/* hand @p ev to the owner's handler; a nonzero return destroys the id */
void
pv_ib_cm_event_deliver(struct cm_id_priv *p, const struct pv_ib_cm_event *ev)
{
	if (p->destroyed || p->id.handler == NULL)
		return;
	if (p->id.handler(&p->id, ev) != 0)
		cm_destroy(p);
}

/* ---------------------------------------------------------------------- */
/* Ids                                                                     */
/* ---------------------------------------------------------------------- */

static uint32_t
cm_local_id_new(struct pv_ib_cm *cm)
{
	uint32_t id;

	/* cyclic: an id is not reused before 2^32 others; never 0 (a REJ's
	 * "no comm ID"), never one in use (TimeWait ids included) */
	do {
		id = cm->id_next++ ^ cm->id_xor;
	} while (id == 0 || pv_ib_cm_id_find(cm, id) != NULL);
	return id;
}

struct cm_id_priv *
pv_ib_cm_id_alloc(struct pv_ib_cm *cm, pv_ib_cm_handler handler, void *context)
{
	struct cm_id_priv *p;

	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->cm = cm;
	p->id.handler = handler;
	p->id.context = context;
	p->id.state = PV_IB_CM_IDLE;
	p->id.local_id = cm_local_id_new(cm);
	LIST_INSERT_HEAD(&cm->local[cm_hash(p->id.local_id, 0)], p, local_link);
	cm->stats.ids++;
	return p;
}

void
pv_ib_cm_id_free(struct cm_id_priv *p)
{
	pv_ib_cm_timer_cancel(p);
	cm_remote_remove(p);
	cm_list_remove(p);
	LIST_REMOVE(p, local_link);
	p->cm->stats.ids--;
	free(p);
}

/*
 * Let go of @p p as Linux's cm_destroy_id(): tell the peer what the state
 * requires, then free it, or keep it (no handler) until its TimeWait ends.
 */
static void
cm_destroy(struct cm_id_priv *p)
{
	p->destroyed = true;
	switch (p->id.state) {
	case PV_IB_CM_SIDR_REQ_RCVD: {
		struct pv_cm_sidr_rep rep = { .status = PV_CM_SIDR_REJECT };

		pv_ib_cm_send_sidr_rep(&p->id, &rep);
		break;
	}
	case PV_IB_CM_REQ_SENT:
	case PV_IB_CM_MRA_REQ_RCVD:
		pv_ib_cm_timer_cancel(p);
		cm_rej_timeout_send(p);
		break;
	case PV_IB_CM_REQ_RCVD:
	case PV_IB_CM_MRA_REQ_SENT:
	case PV_IB_CM_REP_RCVD:
	case PV_IB_CM_MRA_REP_SENT:
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
		/* IDLE from the first four, TimeWait from REP sent */
		pv_ib_cm_send_rej(&p->id, PV_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		break;
	case PV_IB_CM_ESTABLISHED:
		/* one DREQ, not retried: nobody is left to hear the answer */
		pv_ib_cm_dreq_send(p, NULL, 0);
		pv_ib_cm_timewait_enter(p);
		break;
	case PV_IB_CM_DREQ_SENT:
		pv_ib_cm_timewait_enter(p);
		break;
	case PV_IB_CM_DREQ_RCVD:
		pv_ib_cm_send_drep(&p->id, NULL, 0);
		break;
	case PV_IB_CM_LISTEN:
	case PV_IB_CM_SIDR_REQ_SENT:
	case PV_IB_CM_TIMEWAIT:
	case PV_IB_CM_IDLE:
		break;
	}
	if (p->id.state == PV_IB_CM_TIMEWAIT) {
		p->id.handler = NULL;
		p->id.context = NULL;
		return;
	}
	pv_ib_cm_id_free(p);
}

/* ---------------------------------------------------------------------- */
/* Owner's calls                                                           */
/* ---------------------------------------------------------------------- */

struct pv_ib_cm_id *
pv_ib_cm_create_id(struct pv_ib_cm *cm, pv_ib_cm_handler handler, void *context)
{
	struct cm_id_priv *p;

	if (cm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	p = pv_ib_cm_id_alloc(cm, handler, context);
	if (p == NULL) {
		CM_LOG(ERR, "no memory for an id");
		errno = ENOMEM;
		return NULL;
	}
	return &p->id;
}

void
pv_ib_cm_destroy_id(struct pv_ib_cm_id *id)
{
	if (id != NULL)
		cm_destroy(pv_ib_cm_priv(id));
}

int
pv_ib_cm_listen(struct pv_ib_cm_id *id, uint64_t service_id, uint64_t mask)
{
	struct cm_id_priv *p, *l;

	if (id == NULL)
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	if (id->state != PV_IB_CM_IDLE)
		return -EINVAL;
	if (mask == 0)
		mask = UINT64_MAX;	/* as Linux: 0 is an exact match */
	service_id &= mask;
	/* two listeners may not both match one service ID */
	LIST_FOREACH(l, &p->cm->listeners, list_link)
		if ((l->service_mask & service_id) == (mask & l->id.service_id))
			return -EBUSY;
	id->service_id = service_id;
	p->service_mask = mask;
	LIST_INSERT_HEAD(&p->cm->listeners, p, list_link);
	p->in_list = true;
	pv_ib_cm_state_set(p, PV_IB_CM_LISTEN);
	return 0;
}

/*
 * An IDLE id starts an exchange (REQ, SIDR_REQ) of kind @p attr_id with the
 * peer at @p av: nothing of an earlier connection of the id is left, @p msg
 * gets its header. Returns the id, or NULL when it may not (-EINVAL).
 */
static struct cm_id_priv *
cm_exchange_start(struct pv_ib_cm_id *id, const struct pv_ib_cm_av *av, uint64_t service_id,
		  struct pv_cm_msg *msg, uint16_t attr_id)
{
	struct cm_id_priv *p;

	if (id == NULL || av == NULL || id->state != PV_IB_CM_IDLE)
		return NULL;
	p = pv_ib_cm_priv(id);
	id->av = *av;
	id->service_id = service_id;
	id->remote_id = 0;
	id->remote_qpn = 0;
	id->remote_ca_guid = 0;
	p->tid = cm_tid_new(p);
	memset(msg, 0, sizeof(*msg));
	pv_ib_cm_hdr_fill(msg, attr_id, p->tid);
	return p;
}

int
pv_ib_cm_send_req(struct pv_ib_cm_id *id, const struct pv_cm_req *req,
		  const struct pv_ib_cm_av *av)
{
	const struct pv_ib_cm_tunables *tun;
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	if (req == NULL)
		return -EINVAL;
	p = cm_exchange_start(id, av, req->service_id, &msg, PV_CM_ATTR_REQ);
	if (p == NULL)
		return -EINVAL;
	tun = &p->cm->tun;
	id->local_qpn = req->local_qpn & 0xffffff;
	/* Linux ib_send_cm_req: a REQ waits 2 packet life times plus the
	 * peer's CM response time for its answer */
	p->conn_timeout_us = 2 * pv_ib_cm_time_us(tun->packet_life_time) +
			     pv_ib_cm_time_us(req->remote_cm_response_timeout & 0x1f);
	p->max_cm_retries = req->max_cm_retries & 0xf;
	p->ack_timeout = (uint8_t)RTE_MIN(tun->packet_life_time + 1u, 31u);
	msg.req = *req;
	msg.req.local_comm_id = id->local_id;
	msg.req.local_ca_guid = p->cm->ca_guid;
	return cm_msg_send_retx(p, &msg, PV_IB_CM_REQ_SENT);
}

int
pv_ib_cm_send_rep(struct pv_ib_cm_id *id, const struct pv_cm_rep *rep)
{
	struct pv_cm_msg msg;
	struct cm_id_priv *p;
	int ret;

	if (id == NULL || rep == NULL)
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	if (id->state != PV_IB_CM_REQ_RCVD && id->state != PV_IB_CM_MRA_REQ_SENT)
		return -EINVAL;
	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_REP, p->tid);
	msg.rep = *rep;
	msg.rep.local_comm_id = id->local_id;
	msg.rep.remote_comm_id = id->remote_id;
	msg.rep.local_ca_guid = p->cm->ca_guid;
	ret = cm_msg_send_retx(p, &msg, PV_IB_CM_REP_SENT);
	if (ret == 0)
		id->local_qpn = rep->local_qpn & 0xffffff;
	return ret;
}

int
pv_ib_cm_send_rtu(struct pv_ib_cm_id *id, const void *private_data, uint8_t len)
{
	struct pv_cm_msg msg;
	struct cm_id_priv *p;
	int ret;

	if (id == NULL || !cm_pdata_ok(private_data, len, PV_CM_RTU_PRIVATE_DATA_SIZE))
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	if (id->state != PV_IB_CM_REP_RCVD && id->state != PV_IB_CM_MRA_REP_SENT)
		return -EINVAL;
	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_RTU, p->tid);
	msg.rtu.local_comm_id = id->local_id;
	msg.rtu.remote_comm_id = id->remote_id;
	if (len != 0)
		memcpy(msg.rtu.private_data, private_data, len);
	ret = pv_ib_cm_msg_send(p->cm, &msg, &id->av);
	if (ret != 0)
		return ret;
	/* kept: a duplicate REP (our RTU lost) is answered with it again */
	cm_pdata_keep(p, private_data, len);
	pv_ib_cm_state_set(p, PV_IB_CM_ESTABLISHED);
	return 0;
}

int
pv_ib_cm_send_rej(struct pv_ib_cm_id *id, uint16_t reason, const void *ari,
		  uint8_t ari_len, const void *private_data, uint8_t len)
{
	enum pv_ib_cm_state state;
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	if (id == NULL || !cm_pdata_ok(private_data, len, PV_CM_REJ_PRIVATE_DATA_SIZE) ||
	    !cm_pdata_ok(ari, ari_len, PV_CM_REJ_ARI_LENGTH))
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	state = id->state;
	switch (state) {
	case PV_IB_CM_REQ_SENT:
	case PV_IB_CM_MRA_REQ_RCVD:
	case PV_IB_CM_REQ_RCVD:
	case PV_IB_CM_MRA_REQ_SENT:
	case PV_IB_CM_REP_RCVD:
	case PV_IB_CM_MRA_REP_SENT:
		/* no connection yet on either side: nothing to wait for */
		pv_ib_cm_idle_reset(p);
		break;
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
		/* the peer may have made its QP ready already (IBA 12.9.7.2) */
		pv_ib_cm_timewait_enter(p);
		break;
	default:
		return -EINVAL;
	}
	pv_ib_cm_rej_fill(&msg, p, state, reason, ari, ari_len, private_data, len);
	return pv_ib_cm_msg_send(p->cm, &msg, &id->av);
}

int
pv_ib_cm_send_mra(struct pv_ib_cm_id *id, uint8_t service_timeout,
		  const void *private_data, uint8_t len)
{
	enum pv_ib_cm_state next;
	struct pv_cm_msg msg;
	struct cm_id_priv *p;
	uint8_t mraed;

	if (id == NULL || !cm_pdata_ok(private_data, len, PV_CM_MRA_PRIVATE_DATA_SIZE))
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	switch (id->state) {
	case PV_IB_CM_REQ_RCVD:
		next = PV_IB_CM_MRA_REQ_SENT;
		mraed = PV_CM_MSG_REQ;
		break;
	case PV_IB_CM_REP_RCVD:
		next = PV_IB_CM_MRA_REP_SENT;
		mraed = PV_CM_MSG_REP;
		break;
	default:
		return -EINVAL;
	}
	p->service_timeout = service_timeout & 0x1f;
	cm_pdata_keep(p, private_data, len);
	pv_ib_cm_state_set(p, next);
	/* delayed: only a repeated REQ/REP gets the MRA (rdma_cm's choice:
	 * a consumer that answers in time costs no MAD) */
	if (service_timeout & PV_IB_CM_MRA_FLAG_DELAY)
		return 0;
	pv_ib_cm_mra_fill(&msg, p, mraed);
	return pv_ib_cm_msg_send(p->cm, &msg, &id->av);
}

/* DREQ of an established connection, retried as the REQ/REP was */
void
pv_ib_cm_dreq_send(struct cm_id_priv *p, const void *pdata, uint8_t len)
{
	struct pv_cm_msg msg;

	p->tid = cm_tid_new(p);
	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_DREQ, p->tid);
	msg.dreq.local_comm_id = p->id.local_id;
	msg.dreq.remote_comm_id = p->id.remote_id;
	msg.dreq.remote_qpn = p->id.remote_qpn;
	if (len != 0)
		memcpy(msg.dreq.private_data, pdata, len);
	if (cm_msg_send_retx(p, &msg, PV_IB_CM_DREQ_SENT) != 0)
		pv_ib_cm_timewait_enter(p);	/* as Linux when it cannot send one */
}

int
pv_ib_cm_send_dreq(struct pv_ib_cm_id *id, const void *private_data, uint8_t len)
{
	if (id == NULL || !cm_pdata_ok(private_data, len, PV_CM_DREQ_PRIVATE_DATA_SIZE))
		return -EINVAL;
	if (id->state != PV_IB_CM_ESTABLISHED)
		return -EINVAL;
	pv_ib_cm_dreq_send(pv_ib_cm_priv(id), private_data, len);
	return 0;
}

int
pv_ib_cm_send_drep(struct pv_ib_cm_id *id, const void *private_data, uint8_t len)
{
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	if (id == NULL || !cm_pdata_ok(private_data, len, PV_CM_DREP_PRIVATE_DATA_SIZE))
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	if (id->state != PV_IB_CM_DREQ_RCVD)
		return -EINVAL;
	/* kept: a repeated DREQ (our DREP lost) is answered with it again */
	cm_pdata_keep(p, private_data, len);
	pv_ib_cm_timewait_enter(p);
	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_DREP, p->tid);
	msg.drep.local_comm_id = id->local_id;
	msg.drep.remote_comm_id = id->remote_id;
	if (len != 0)
		memcpy(msg.drep.private_data, private_data, len);
	return pv_ib_cm_msg_send(p->cm, &msg, &id->av);
}

int
pv_ib_cm_establish(struct pv_ib_cm_id *id)
{
	struct pv_ib_cm_event ev = { .type = PV_IB_CM_USER_ESTABLISHED };
	struct cm_id_priv *p;

	if (id == NULL)
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	switch (id->state) {
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
		break;
	case PV_IB_CM_ESTABLISHED:
		return -EISCONN;
	default:
		return -EINVAL;
	}
	/* the peer's traffic stands for its RTU: the REP needs no more tries */
	pv_ib_cm_timer_cancel(p);
	pv_ib_cm_state_set(p, PV_IB_CM_ESTABLISHED);
	pv_ib_cm_event_deliver(p, &ev);
	return 0;
}

int
pv_ib_cm_send_sidr_req(struct pv_ib_cm_id *id, const struct pv_cm_sidr_req *req,
		       const struct pv_ib_cm_av *av)
{
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	if (req == NULL)
		return -EINVAL;
	p = cm_exchange_start(id, av, req->service_id, &msg, PV_CM_ATTR_SIDR_REQ);
	if (p == NULL)
		return -EINVAL;
	/* rdma_cm's SIDR_REQ: the CM response time, max CM retries */
	p->conn_timeout_us = pv_ib_cm_time_us(p->cm->tun.cm_response_timeout);
	p->max_cm_retries = p->cm->tun.max_cm_retries;
	msg.sidr_req = *req;
	msg.sidr_req.request_id = id->local_id;
	return cm_msg_send_retx(p, &msg, PV_IB_CM_SIDR_REQ_SENT);
}

int
pv_ib_cm_send_sidr_rep(struct pv_ib_cm_id *id, const struct pv_cm_sidr_rep *rep)
{
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	if (id == NULL || rep == NULL)
		return -EINVAL;
	p = pv_ib_cm_priv(id);
	if (id->state != PV_IB_CM_SIDR_REQ_RCVD)
		return -EINVAL;
	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_SIDR_REP, p->tid);
	msg.sidr_rep = *rep;
	msg.sidr_rep.request_id = id->remote_id;
	msg.sidr_rep.service_id = id->service_id;
	pv_ib_cm_idle_reset(p);
	return pv_ib_cm_msg_send(p->cm, &msg, &id->av);
}

/* ---------------------------------------------------------------------- */
/* Timers                                                                  */
/* ---------------------------------------------------------------------- */

/* the MAD @p p sent got no answer in time: again, or give up */
static void
cm_retx_expired(struct cm_id_priv *p)
{
	struct pv_ib_cm_event ev;
	struct pv_ib_cm *cm = p->cm;

	if (p->out_state != p->id.state) {
		/* cannot happen: every state change cancels the timer */
		pv_ib_cm_timer_cancel(p);
		return;
	}
	if (p->retries_left > 0) {
		p->retries_left--;
		cm->stats.retries++;
		CM_LOG(DEBUG, "id 0x%08x: %s again, %u more", p->id.local_id,
		       pv_ib_cm_state_str(p->id.state), p->retries_left);
		pv_ib_cm_mad_send(cm, p->out, &p->id.av);
		pv_ib_cm_timer_set(p, CM_TIMER_RETX, p->out_timeout_us);
		return;
	}
	cm->stats.timeouts++;
	CM_LOG(WARNING, "id 0x%08x: no answer in %s", p->id.local_id,
	       pv_ib_cm_state_str(p->id.state));
	memset(&ev, 0, sizeof(ev));
	ev.status = -ETIMEDOUT;
	switch (p->id.state) {
	case PV_IB_CM_REQ_SENT:
	case PV_IB_CM_MRA_REQ_RCVD:
		/*
		 * The spec's REQ Sent state sends REJ "timeout" when its
		 * retries run out (IBA 12.9.7.1), so that a peer whose REPs
		 * got lost stops waiting; Linux sends it only when the id is
		 * destroyed (rdma_cm does so right after this error).
		 */
		cm_rej_timeout_send(p);
		pv_ib_cm_idle_reset(p);
		ev.type = PV_IB_CM_REQ_ERROR;
		break;
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
		pv_ib_cm_idle_reset(p);
		ev.type = PV_IB_CM_REP_ERROR;
		break;
	case PV_IB_CM_DREQ_SENT:
		pv_ib_cm_timewait_enter(p);
		ev.type = PV_IB_CM_DREQ_ERROR;
		break;
	case PV_IB_CM_SIDR_REQ_SENT:
		pv_ib_cm_idle_reset(p);
		ev.type = PV_IB_CM_SIDR_REQ_ERROR;
		break;
	default:
		pv_ib_cm_timer_cancel(p);
		return;
	}
	pv_ib_cm_event_deliver(p, &ev);
}

static void
cm_timewait_expired(struct cm_id_priv *p)
{
	struct pv_ib_cm_event ev = { .type = PV_IB_CM_TIMEWAIT_EXIT };

	if (p->destroyed) {
		pv_ib_cm_id_free(p);
		return;
	}
	pv_ib_cm_idle_reset(p);
	pv_ib_cm_event_deliver(p, &ev);
}

uint64_t
pv_ib_cm_timers(struct pv_ib_cm *cm)
{
	struct cm_id_priv *p, *due;
	uint64_t now, next;

	if (cm == NULL)
		return UINT64_MAX;
	/* one at a time, looking again after each: a handler may destroy
	 * any id, armed ones included */
	for (;;) {
		now = cm_now(cm);
		next = UINT64_MAX;
		due = NULL;
		TAILQ_FOREACH(p, &cm->timers, timer_link) {
			if (p->due_us <= now) {
				due = p;
				break;
			}
			next = RTE_MIN(next, p->due_us - now);
		}
		if (due == NULL)
			return next;
		if (due->timer == CM_TIMER_RETX)
			cm_retx_expired(due);
		else
			cm_timewait_expired(due);
	}
}

/* ---------------------------------------------------------------------- */
/* The CM                                                                  */
/* ---------------------------------------------------------------------- */

/* @p name's value when it is a decimal in [@p min, @p max]; else @p dflt,
 * said once per variable */
static unsigned long
cm_env_ulong(const char *name, unsigned long min, unsigned long max, unsigned long dflt,
	     unsigned int bit)
{
	static unsigned int warned;
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	if (s == NULL)
		return dflt;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < min || v > max) {
		if (!(__atomic_fetch_or(&warned, bit, __ATOMIC_RELAXED) & bit))
			CM_LOG(WARNING, "%s=\"%s\" ignored: not an integer in [%lu, %lu]", name,
			       s, min, max);
		return dflt;
	}
	return v;
}

void
pv_ib_cm_tunables_default(struct pv_ib_cm_tunables *t)
{
	if (t == NULL)
		return;
	/* Linux 6.1 cma.c: CMA_CM_RESPONSE_TIMEOUT, CMA_MAX_CM_RETRIES,
	 * CMA_IBOE_PACKET_LIFETIME (18 until 6.2 made it 16; the REQ retry
	 * interval of the cm_mra capture, 6.36 s, is 2 * 2^10 + 2^12 ms),
	 * CMA_CM_MRA_SETTING's timeout */
	t->cm_response_timeout = 20;
	t->max_cm_retries = 15;
	t->packet_life_time = 18;
	t->mra_service_timeout = 24;
	t->timewait_us = 0;
	t->cm_response_timeout = (uint8_t)cm_env_ulong(CM_ENV_RESPONSE_TIMEOUT, 0, 31,
						       t->cm_response_timeout, 1);
	t->max_cm_retries = (uint8_t)cm_env_ulong(CM_ENV_MAX_RETRIES, 0, 15,
						  t->max_cm_retries, 2);
	t->timewait_us = (uint64_t)cm_env_ulong(CM_ENV_TIMEWAIT_MS, 0, CM_TIMEWAIT_MS_MAX,
						0, 4) * 1000;
}

struct pv_ib_cm *
pv_ib_cm_create(const struct pv_ib_cm_transport *t, void *t_ctx, uint64_t ca_guid,
		const struct pv_ib_cm_tunables *tun)
{
	struct pv_ib_cm *cm;
	unsigned int i;

	if (t == NULL || t->send == NULL || t->now_us == NULL ||
	    (tun != NULL && (tun->cm_response_timeout > 31 || tun->max_cm_retries > 15 ||
			     tun->packet_life_time > 31 || tun->mra_service_timeout > 31))) {
		CM_LOG(ERR, "bad transport or tunables");
		errno = EINVAL;
		return NULL;
	}
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL) {
		CM_LOG(ERR, "no memory for a CM");
		errno = ENOMEM;
		return NULL;
	}
	cm->t = *t;
	cm->t_ctx = t_ctx;
	cm->ca_guid = ca_guid;
	if (tun != NULL)
		cm->tun = *tun;
	else
		pv_ib_cm_tunables_default(&cm->tun);
	cm->id_next = (uint32_t)rte_rand();
	cm->id_xor = (uint32_t)rte_rand();
	for (i = 0; i < CM_HASH_SIZE; i++) {
		LIST_INIT(&cm->local[i]);
		LIST_INIT(&cm->remote[i]);
		LIST_INIT(&cm->qpn[i]);
	}
	LIST_INIT(&cm->listeners);
	LIST_INIT(&cm->sidr_rcvd);
	TAILQ_INIT(&cm->timers);
	CM_LOG(INFO, "CA GUID 0x%016" PRIx64 ": response timeout %u, %u retries, "
	       "packet life time %u", ca_guid, cm->tun.cm_response_timeout,
	       cm->tun.max_cm_retries, cm->tun.packet_life_time);
	return cm;
}

void
pv_ib_cm_free(struct pv_ib_cm *cm)
{
	struct cm_id_priv *p;
	unsigned int i;

	if (cm == NULL)
		return;
	for (i = 0; i < CM_HASH_SIZE; i++)
		while ((p = LIST_FIRST(&cm->local[i])) != NULL)
			pv_ib_cm_id_free(p);
	free(cm);
}

void
pv_ib_cm_stats_get(const struct pv_ib_cm *cm, struct pv_ib_cm_stats *s)
{
	if (cm != NULL && s != NULL)
		*s = cm->stats;
}

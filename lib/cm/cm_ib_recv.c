/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * What a received MAD does to the IB CM of a port (pv_ib_cm_recv()): the
 * receive side of the state machines of cm_ib.c, with Linux 6.1's
 * cm_*_handler() of drivers/infiniband/core/cm.c as the model.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>

#include "cm_ib_priv.h"

/* ---------------------------------------------------------------------- */
/* Receiving: connection setup                                             */
/* ---------------------------------------------------------------------- */

/* the event of a received MAD to @p p's owner */
static void
cm_rx_deliver(struct cm_id_priv *p, enum pv_ib_cm_event_type type, const struct pv_cm_msg *rx,
	      const struct pv_ib_cm_av *src, struct pv_ib_cm_id *listen_id)
{
	struct pv_ib_cm_event ev = {
		.type = type,
		.msg = rx,
		.av = src,
		.listen_id = listen_id,
	};

	pv_ib_cm_event_deliver(p, &ev);
}

/*
 * A REJ the CM sends by itself to a MAD no id may answer (Linux
 * cm_issue_rej): the comm IDs are the received ones swapped, so a REQ (whose
 * second word is reserved) gets a local comm ID of 0, as the capture
 * cm_reject shows.
 */
static void
cm_rej_issue(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src,
	     uint16_t reason, uint8_t msg_rejected)
{
	struct pv_cm_msg msg;

	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_REJ, rx->hdr.tid);
	if (rx->hdr.attr_id == PV_CM_ATTR_REQ) {
		msg.rej.remote_comm_id = rx->req.local_comm_id;
	} else {
		msg.rej.remote_comm_id = rx->rep.local_comm_id;
		msg.rej.local_comm_id = rx->rep.remote_comm_id;
	}
	msg.rej.msg_rejected = msg_rejected;
	msg.rej.reason = reason;
	pv_ib_cm_msg_send(cm, &msg, src);
}

static struct cm_id_priv *
cm_listener_find(struct pv_ib_cm *cm, uint64_t service_id)
{
	struct cm_id_priv *l;

	LIST_FOREACH(l, &cm->listeners, list_link)
		if ((service_id & l->service_mask) == l->id.service_id)
			return l;
	return NULL;
}

/*
 * A REQ whose sender and comm ID we know already (Linux
 * cm_dup_req_handler): the answer is on its way unless the consumer asked
 * for a delayed MRA, which goes out now; TimeWait means the REQ belongs to a
 * connection that is over.
 */
static void
cm_req_dup(struct cm_id_priv *p, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct pv_cm_msg msg;

	p->cm->stats.duplicates++;
	switch (p->id.state) {
	case PV_IB_CM_MRA_REQ_SENT:
		pv_ib_cm_mra_fill(&msg, p, PV_CM_MSG_REQ);
		pv_ib_cm_msg_send(p->cm, &msg, src);
		break;
	case PV_IB_CM_TIMEWAIT:
		pv_ib_cm_rej_fill(&msg, p, PV_IB_CM_TIMEWAIT, PV_CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		msg.hdr.tid = rx->hdr.tid;
		pv_ib_cm_msg_send(p->cm, &msg, src);
		break;
	default:
		/* REQ_RCVD: the consumer is deciding; REP_SENT and later: the
		 * REP is retried by its own timer */
		break;
	}
}

static void
cm_req_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	const struct pv_cm_req *req = &rx->req;
	struct cm_id_priv *p, *l;

	p = pv_ib_cm_id_find_remote(cm, req->local_comm_id, req->local_ca_guid);
	if (p != NULL) {
		cm_req_dup(p, rx, src);
		return;
	}
	/* the peer's QP is in a connection we still hold: that one is stale
	 * (the peer lost it), so refuse this one and end that one (IBA
	 * 12.9.8.3.1, Linux cm_match_req) */
	p = pv_ib_cm_id_find_qpn(cm, req->local_qpn & 0xffffff, req->local_ca_guid);
	if (p != NULL) {
		cm->stats.stale++;
		CM_LOG(WARNING, "REQ from qpn 0x%06x: stale connection id 0x%08x (%s)",
		       req->local_qpn & 0xffffff, p->id.local_id, pv_ib_cm_state_str(p->id.state));
		cm_rej_issue(cm, rx, src, PV_CM_REJ_STALE_CONN, PV_CM_MSG_REQ);
		if (p->id.state == PV_IB_CM_ESTABLISHED)
			pv_ib_cm_dreq_send(p, NULL, 0);
		return;
	}
	l = cm_listener_find(cm, req->service_id);
	if (l == NULL) {
		cm->stats.unmatched++;
		CM_LOG(DEBUG, "REQ for service 0x%016" PRIx64 ": no listener", req->service_id);
		cm_rej_issue(cm, rx, src, PV_CM_REJ_INVALID_SERVICE_ID, PV_CM_MSG_REQ);
		return;
	}
	p = pv_ib_cm_id_alloc(cm, l->id.handler, l->id.context);
	if (p == NULL) {
		/* as Linux: no REJ, the peer's retry may find memory */
		CM_LOG(WARNING, "REQ 0x%08x: no memory for an id", req->local_comm_id);
		return;
	}
	p->id.service_id = req->service_id;
	p->id.remote_id = req->local_comm_id;
	p->id.remote_qpn = req->local_qpn & 0xffffff;
	p->id.remote_ca_guid = req->local_ca_guid;
	p->id.av = *src;
	p->tid = rx->hdr.tid;
	/* Linux cm_req_handler: our REP waits for the time the peer says it
	 * needs to answer, retried as often as it retries its REQ */
	p->conn_timeout_us = pv_ib_cm_time_us(req->local_cm_response_timeout & 0x1f);
	p->max_cm_retries = req->max_cm_retries & 0xf;
	p->ack_timeout = RTE_MAX(req->primary.local_ack_timeout & 0x1f, 1);
	pv_ib_cm_id_remote_insert(p);
	pv_ib_cm_state_set(p, PV_IB_CM_REQ_RCVD);
	cm_rx_deliver(p, PV_IB_CM_REQ_RECEIVED, rx, src, &l->id);
}

/* a REP for a connection that has its REP already: our RTU or MRA got lost */
static void
cm_rep_dup(struct cm_id_priv *p, const struct pv_ib_cm_av *src)
{
	struct pv_cm_msg msg;

	p->cm->stats.duplicates++;
	memset(&msg, 0, sizeof(msg));
	if (p->id.state == PV_IB_CM_ESTABLISHED) {
		pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_RTU, p->tid);
		msg.rtu.local_comm_id = p->id.local_id;
		msg.rtu.remote_comm_id = p->id.remote_id;
		memcpy(msg.rtu.private_data, p->pdata, p->pdata_len);
	} else if (p->id.state == PV_IB_CM_MRA_REP_SENT) {
		pv_ib_cm_mra_fill(&msg, p, PV_CM_MSG_REP);
	} else {
		return;
	}
	pv_ib_cm_msg_send(p->cm, &msg, src);
}

static void
cm_rep_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	const struct pv_cm_rep *rep = &rx->rep;
	struct cm_id_priv *p, *o;

	p = pv_ib_cm_id_find(cm, rep->remote_comm_id);
	if (p != NULL && p->id.remote_id != 0) {
		if (p->id.remote_id == rep->local_comm_id)
			cm_rep_dup(p, src);
		else
			cm->stats.unmatched++;
		return;
	}
	if (p == NULL || (p->id.state != PV_IB_CM_REQ_SENT &&
			  p->id.state != PV_IB_CM_MRA_REQ_RCVD)) {
		cm->stats.unmatched++;
		return;
	}
	if (pv_ib_cm_id_find_remote(cm, rep->local_comm_id, rep->local_ca_guid) != NULL) {
		/* another of our connections has that peer comm ID */
		cm->stats.duplicates++;
		return;
	}
	o = pv_ib_cm_id_find_qpn(cm, rep->local_qpn & 0xffffff, rep->local_ca_guid);
	if (o != NULL) {
		/* as for a REQ: the peer's QP is in a connection we hold */
		cm->stats.stale++;
		CM_LOG(WARNING, "REP from qpn 0x%06x: stale connection id 0x%08x",
		       rep->local_qpn & 0xffffff, o->id.local_id);
		cm_rej_issue(cm, rx, src, PV_CM_REJ_STALE_CONN, PV_CM_MSG_REP);
		if (o->id.state == PV_IB_CM_ESTABLISHED)
			pv_ib_cm_dreq_send(o, NULL, 0);
		return;
	}
	p->id.remote_id = rep->local_comm_id;
	p->id.remote_qpn = rep->local_qpn & 0xffffff;
	p->id.remote_ca_guid = rep->local_ca_guid;
	pv_ib_cm_id_remote_insert(p);
	/* the QP's ACK timeout, and our TimeWait, from the peer's ACK delay */
	p->ack_timeout = pv_ib_cm_ack_timeout(rep->target_ack_delay & 0x1f, p->ack_timeout - 1);
	pv_ib_cm_timer_cancel(p);
	pv_ib_cm_state_set(p, PV_IB_CM_REP_RCVD);
	cm_rx_deliver(p, PV_IB_CM_REP_RECEIVED, rx, src, NULL);
}

static void
cm_rtu_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct cm_id_priv *p;

	p = pv_ib_cm_id_lookup(cm, rx->rtu.remote_comm_id, rx->rtu.local_comm_id);
	if (p == NULL) {
		cm->stats.unmatched++;
		return;
	}
	if (p->id.state != PV_IB_CM_REP_SENT && p->id.state != PV_IB_CM_MRA_REP_RCVD) {
		/* a repeated RTU, or one a DREQ overtook */
		cm->stats.duplicates++;
		return;
	}
	pv_ib_cm_timer_cancel(p);
	pv_ib_cm_state_set(p, PV_IB_CM_ESTABLISHED);
	cm_rx_deliver(p, PV_IB_CM_RTU_RECEIVED, rx, src, NULL);
}

/* the id a REJ is for (Linux cm_acquire_rejected_id) */
static struct cm_id_priv *
cm_rej_find(struct pv_ib_cm *cm, const struct pv_cm_rej *rej)
{
	if (rej->reason == PV_CM_REJ_TIMEOUT && rej->reject_info_length >= 8) {
		rte_be64_t guid;

		/* the peer may not know our comm ID: its own and its CA GUID */
		memcpy(&guid, rej->ari, sizeof(guid));
		return pv_ib_cm_id_find_remote(cm, rej->local_comm_id, rte_be_to_cpu_64(guid));
	}
	if (rej->msg_rejected == PV_CM_MSG_REQ)
		return pv_ib_cm_id_lookup(cm, rej->remote_comm_id, 0);
	return pv_ib_cm_id_lookup(cm, rej->remote_comm_id, rej->local_comm_id);
}

static void
cm_rej_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct cm_id_priv *p;

	p = cm_rej_find(cm, &rx->rej);
	if (p == NULL) {
		cm->stats.unmatched++;
		return;
	}
	switch (p->id.state) {
	case PV_IB_CM_REQ_SENT:
	case PV_IB_CM_MRA_REQ_RCVD:
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
	case PV_IB_CM_REQ_RCVD:
	case PV_IB_CM_MRA_REQ_SENT:
		/* refused before either QP could be used, unless the peer says
		 * this is a connection it has seen end */
		if (rx->rej.reason == PV_CM_REJ_STALE_CONN)
			pv_ib_cm_timewait_enter(p);
		else
			pv_ib_cm_idle_reset(p);
		break;
	case PV_IB_CM_DREQ_SENT:
	case PV_IB_CM_REP_RCVD:
	case PV_IB_CM_MRA_REP_SENT:
	case PV_IB_CM_ESTABLISHED:
		/* our QP may be live already: wait out its packets */
		pv_ib_cm_timewait_enter(p);
		break;
	default:
		cm->stats.unmatched++;
		return;
	}
	CM_LOG(DEBUG, "id 0x%08x: REJ reason %u", p->id.local_id, rx->rej.reason);
	cm_rx_deliver(p, PV_IB_CM_REJ_RECEIVED, rx, src, NULL);
}

/* the id an MRA acknowledges a message of (Linux cm_acquire_mraed_id) */
static void
cm_mra_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	const struct pv_cm_mra *mra = &rx->mra;
	enum pv_ib_cm_state next;
	struct cm_id_priv *p;

	if (mra->msg_mraed == PV_CM_MSG_REQ)
		p = pv_ib_cm_id_lookup(cm, mra->remote_comm_id, 0);
	else
		p = pv_ib_cm_id_lookup(cm, mra->remote_comm_id, mra->local_comm_id);
	if (p == NULL) {
		cm->stats.unmatched++;
		return;
	}
	if (p->id.state == PV_IB_CM_REQ_SENT && mra->msg_mraed == PV_CM_MSG_REQ) {
		next = PV_IB_CM_MRA_REQ_RCVD;
	} else if (p->id.state == PV_IB_CM_REP_SENT && mra->msg_mraed == PV_CM_MSG_REP) {
		next = PV_IB_CM_MRA_REP_RCVD;
	} else {
		if (p->id.state == PV_IB_CM_MRA_REQ_RCVD || p->id.state == PV_IB_CM_MRA_REP_RCVD)
			cm->stats.duplicates++;
		else
			cm->stats.unmatched++;
		return;
	}
	/* the peer needs up to its service timeout, plus the way back (Linux
	 * cm_mra_handler); the MAD keeps its retries, each now that long */
	p->out_timeout_us = pv_ib_cm_time_us(mra->service_timeout & 0x1f) +
			    pv_ib_cm_time_us(p->ack_timeout);
	pv_ib_cm_timer_set(p, CM_TIMER_RETX, p->out_timeout_us);
	p->out_state = next;
	pv_ib_cm_state_set(p, next);
	cm_rx_deliver(p, PV_IB_CM_MRA_RECEIVED, rx, src, NULL);
}

/* ---------------------------------------------------------------------- */
/* Receiving: disconnection                                                */
/* ---------------------------------------------------------------------- */

static void
cm_drep_fill(struct pv_cm_msg *msg, const struct cm_id_priv *p, uint64_t tid)
{
	memset(msg, 0, sizeof(*msg));
	pv_ib_cm_hdr_fill(msg, PV_CM_ATTR_DREP, tid);
	msg->drep.local_comm_id = p->id.local_id;
	msg->drep.remote_comm_id = p->id.remote_id;
	memcpy(msg->drep.private_data, p->pdata, p->pdata_len);
}

static void
cm_dreq_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	const struct pv_cm_dreq *dreq = &rx->dreq;
	struct pv_cm_msg msg;
	struct cm_id_priv *p;

	p = pv_ib_cm_id_lookup(cm, dreq->remote_comm_id, dreq->local_comm_id);
	if (p == NULL || p->id.state == PV_IB_CM_IDLE) {
		/* over already (our DREP lost and TimeWait, shorter than the
		 * peer's DREQ timeout, ended): the peer only wants to hear it
		 * is over (Linux cm_issue_drep; Linux stays silent while the
		 * ended id still exists, and the peer's DREQ times out) */
		cm->stats.unmatched++;
		memset(&msg, 0, sizeof(msg));
		pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_DREP, rx->hdr.tid);
		msg.drep.local_comm_id = dreq->remote_comm_id;
		msg.drep.remote_comm_id = dreq->local_comm_id;
		pv_ib_cm_msg_send(cm, &msg, src);
		return;
	}
	if ((dreq->remote_qpn & 0xffffff) != p->id.local_qpn) {
		cm->stats.unmatched++;
		return;
	}
	switch (p->id.state) {
	case PV_IB_CM_REP_SENT:
	case PV_IB_CM_MRA_REP_RCVD:
	case PV_IB_CM_ESTABLISHED:
		/* from REP_SENT: the DREQ overtook the RTU; the peer is
		 * established and leaving */
		pv_ib_cm_timer_cancel(p);
		p->tid = rx->hdr.tid;
		pv_ib_cm_state_set(p, PV_IB_CM_DREQ_RCVD);
		break;
	case PV_IB_CM_DREQ_SENT:
		/*
		 * Crossing DREQs: both sides disconnect. The spec's DREQ
		 * Sent state answers the peer's DREQ with a DREP and goes to
		 * TimeWait (IBA 12.9.7.3); Linux instead waits for its
		 * consumer's DREP. We answer at once: neither side then
		 * depends on the other's consumer, and a Linux peer in DREQ
		 * Sent takes our DREP as the answer to its DREQ.
		 */
		p->tid = rx->hdr.tid;
		p->pdata_len = 0;
		pv_ib_cm_timewait_enter(p);
		cm_drep_fill(&msg, p, rx->hdr.tid);
		pv_ib_cm_msg_send(cm, &msg, src);
		break;
	case PV_IB_CM_TIMEWAIT:
		/* our DREP got lost: the same again */
		cm->stats.duplicates++;
		cm_drep_fill(&msg, p, rx->hdr.tid);
		pv_ib_cm_msg_send(cm, &msg, src);
		return;
	case PV_IB_CM_DREQ_RCVD:
		cm->stats.duplicates++;
		return;
	default:
		cm->stats.unmatched++;
		return;
	}
	cm_rx_deliver(p, PV_IB_CM_DREQ_RECEIVED, rx, src, NULL);
}

static void
cm_drep_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct cm_id_priv *p;

	p = pv_ib_cm_id_lookup(cm, rx->drep.remote_comm_id, rx->drep.local_comm_id);
	if (p == NULL) {
		cm->stats.unmatched++;
		return;
	}
	if (p->id.state != PV_IB_CM_DREQ_SENT && p->id.state != PV_IB_CM_DREQ_RCVD) {
		cm->stats.duplicates++;
		return;
	}
	pv_ib_cm_timewait_enter(p);
	cm_rx_deliver(p, PV_IB_CM_DREP_RECEIVED, rx, src, NULL);
}

/* ---------------------------------------------------------------------- */
/* Receiving: SIDR, LAP                                                    */
/* ---------------------------------------------------------------------- */

static void
cm_sidr_req_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	const struct pv_cm_sidr_req *req = &rx->sidr_req;
	struct cm_id_priv *p, *l;

	/* a repeated SIDR_REQ while the consumer is deciding */
	LIST_FOREACH(p, &cm->sidr_rcvd, list_link)
		if (p->id.remote_id == req->request_id &&
		    memcmp(p->id.av.dgid, src->dgid, sizeof(src->dgid)) == 0) {
			cm->stats.duplicates++;
			return;
		}
	l = cm_listener_find(cm, req->service_id);
	p = pv_ib_cm_id_alloc(cm, l != NULL ? l->id.handler : NULL, l != NULL ? l->id.context : NULL);
	if (p == NULL) {
		CM_LOG(WARNING, "SIDR_REQ 0x%08x: no memory for an id", req->request_id);
		return;
	}
	p->id.service_id = req->service_id;
	p->id.remote_id = req->request_id;
	p->id.av = *src;
	p->tid = rx->hdr.tid;
	pv_ib_cm_state_set(p, PV_IB_CM_SIDR_REQ_RCVD);
	if (l == NULL) {
		struct pv_cm_sidr_rep rep = { .status = PV_CM_SIDR_UNSUPPORTED };

		cm->stats.unmatched++;
		pv_ib_cm_send_sidr_rep(&p->id, &rep);
		pv_ib_cm_id_free(p);
		return;
	}
	LIST_INSERT_HEAD(&cm->sidr_rcvd, p, list_link);
	p->in_list = true;
	cm_rx_deliver(p, PV_IB_CM_SIDR_REQ_RECEIVED, rx, src, &l->id);
}

static void
cm_sidr_rep_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct cm_id_priv *p;

	p = pv_ib_cm_id_lookup(cm, rx->sidr_rep.request_id, 0);
	if (p == NULL || p->id.state != PV_IB_CM_SIDR_REQ_SENT) {
		cm->stats.unmatched++;
		return;
	}
	pv_ib_cm_idle_reset(p);
	cm_rx_deliver(p, PV_IB_CM_SIDR_REP_RECEIVED, rx, src, NULL);
}

/* alternate paths are not supported (nor by Linux over RoCE): every LAP
 * gets an APR saying so, the connection stays as it is */
static void
cm_lap_recv(struct pv_ib_cm *cm, const struct pv_cm_msg *rx, const struct pv_ib_cm_av *src)
{
	struct pv_cm_msg msg;

	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_APR, rx->hdr.tid);
	msg.apr.local_comm_id = rx->lap.remote_comm_id;
	msg.apr.remote_comm_id = rx->lap.local_comm_id;
	msg.apr.status = PV_CM_APR_UNSUPPORTED;
	pv_ib_cm_msg_send(cm, &msg, src);
}

/* ---------------------------------------------------------------------- */
/* Receiving: dispatch                                                     */
/* ---------------------------------------------------------------------- */

/* GetResp to a Get/Set of the CM class we do not serve: the request's
 * header with the method and status changed, no data (IBA 13.4.5, 13.4.7) */
static void
cm_mad_unsupported(struct pv_ib_cm *cm, const uint8_t *mad, const struct pv_ib_cm_av *src)
{
	uint8_t resp[PV_MAD_SIZE];
	rte_be16_t status = rte_cpu_to_be_16(PV_MAD_STATUS_METHOD_ATTR_UNSUPP);

	memset(resp, 0, sizeof(resp));
	memcpy(resp, mad, PV_MAD_HDR_SIZE);
	resp[3] = PV_MAD_METHOD_GET_RESP;	/* method, IBA table 146 */
	memcpy(resp + 4, &status, sizeof(status));
	CM_LOG(DEBUG, "tx GetResp attr 0x%04x status unsupported method/attribute",
	       (unsigned int)mad[16] << 8 | mad[17]);
	pv_ib_cm_mad_send(cm, resp, src);
}

/* ClassPortInfo of the CM class (IBA 13.4.8.1): no redirection, no traps;
 * RespTimeValue is our CM response time */
static void
cm_class_port_info(struct pv_ib_cm *cm, const struct pv_cm_msg *rx,
		   const struct pv_ib_cm_av *src)
{
	struct pv_cm_msg msg;

	memset(&msg, 0, sizeof(msg));
	pv_ib_cm_hdr_fill(&msg, PV_CM_ATTR_CLASS_PORT_INFO, rx->hdr.tid);
	msg.hdr.method = PV_MAD_METHOD_GET_RESP;
	msg.hdr.attr_mod = rx->hdr.attr_mod;
	msg.class_port_info[0] = PV_MAD_BASE_VERSION;
	msg.class_port_info[1] = PV_MAD_CM_CLASS_VERSION;
	/* bytes 4-7: CapabilityMask2 (27 bits) | RespTimeValue (5 bits) */
	msg.class_port_info[7] = cm->tun.cm_response_timeout & 0x1f;
	pv_ib_cm_msg_send(cm, &msg, src);
}

void
pv_ib_cm_recv(struct pv_ib_cm *cm, const uint8_t *mad, size_t len,
	      const struct pv_ib_cm_av *src)
{
	struct pv_cm_msg msg;
	int ret;

	if (cm == NULL || mad == NULL || src == NULL)
		return;
	cm->stats.mads_rx++;
	ret = pv_cm_mad_decode(mad, len, &msg);
	if (ret == -ENOMSG && len >= PV_MAD_SIZE &&
	    (mad[3] == PV_MAD_METHOD_GET || mad[3] == PV_MAD_METHOD_SET)) {
		cm_mad_unsupported(cm, mad, src);
		return;
	}
	if (ret != 0) {
		cm->stats.malformed++;
		CM_LOG(DEBUG, "rx: dropped, %s", strerror(-ret));
		return;
	}
	pv_ib_cm_msg_log("rx", &msg);
	if (msg.hdr.method != PV_MAD_METHOD_SEND) {
		/* CM messages are Sends (IBA 12.6.1); a Get/Set wants an answer */
		if (msg.hdr.attr_id == PV_CM_ATTR_CLASS_PORT_INFO &&
		    msg.hdr.method == PV_MAD_METHOD_GET)
			cm_class_port_info(cm, &msg, src);
		else if (msg.hdr.method == PV_MAD_METHOD_GET || msg.hdr.method == PV_MAD_METHOD_SET)
			cm_mad_unsupported(cm, mad, src);
		else
			cm->stats.malformed++;
		return;
	}
	switch (msg.hdr.attr_id) {
	case PV_CM_ATTR_REQ:
		cm_req_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_MRA:
		cm_mra_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_REJ:
		cm_rej_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_REP:
		cm_rep_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_RTU:
		cm_rtu_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_DREQ:
		cm_dreq_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_DREP:
		cm_drep_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_SIDR_REQ:
		cm_sidr_req_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_SIDR_REP:
		cm_sidr_rep_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_LAP:
		cm_lap_recv(cm, &msg, src);
		break;
	case PV_CM_ATTR_APR:
		/* we never send a LAP */
		cm->stats.unmatched++;
		break;
	default:
		/* ClassPortInfo sent as a Send */
		cm->stats.malformed++;
		break;
	}
}


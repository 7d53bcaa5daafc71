/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/cm/cm_ib.c: the IB CM state machine of a port, two of them (A, the
 * active side, and B, the passive side) joined by an in-memory wire.
 *
 * The wire routes each MAD by its destination GID, at once (no latency),
 * and can drop, duplicate or hold back the Nth MAD of a kind from a side;
 * held MADs go out when the test releases them, which reorders. Time is a
 * fake clock: ut_advance() steps it from one due timer to the next, so
 * retransmissions and timeouts happen at exactly the times the CM computed,
 * and the tests check those times. Each side's handler plays rdma_cm's part
 * (REQ -> REP, REP -> RTU, DREQ -> DREP ...) as the side's settings say,
 * and records the events. Every MAD sent is traced ("A>REQ B>REP ...", with
 * '*' dropped, '+' duplicated, '~' held) and kept decoded for the checks.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "cm_ib.h"
#include "ut_common.h"

#define UT_GUID_A	UINT64_C(0x505400fffe770012)
#define UT_GUID_B	UINT64_C(0x505400fffe770011)
#define UT_SID		UINT64_C(0x0000000001061d2f)	/* RDMA_PS_TCP, port 7471 */
#define UT_QPN_A	0x000023
#define UT_QPN_B	0x000022
#define UT_PSN_A	0x5a6f91
#define UT_PSN_B	0x995e7b
#define UT_ACK_DELAY	15	/* rxe's target ACK delay */
#define UT_LOCAL_ACK	19	/* rdma_cm's local ACK timeout over rxe */

#define UT_QLEN		64	/* MADs in flight per direction */
#define UT_TRACE	128
#define UT_EVENTS	64
#define UT_RULES	8

/* ---------------------------------------------------------------------- */
/* The wire                                                                */
/* ---------------------------------------------------------------------- */

enum ut_action {
	UT_DROP,
	UT_DUP,
	UT_HOLD,
};

struct ut_rule {
	int from;		/* 0 A, 1 B */
	uint16_t attr;		/* 0: any */
	int nth;		/* 1-based occurrence; 0: every one */
	enum ut_action action;
	int seen;
};

struct ut_mad {
	uint8_t mad[PV_MAD_SIZE];
	int to;
};

struct ut_queue {
	struct ut_mad m[UT_QLEN];
	unsigned int head, len;
};

struct ut_trace {
	int from;
	char mark;		/* 0, '*', '+', '~' */
	uint64_t t_us;
	int decoded;		/* msg valid */
	struct pv_cm_msg msg;
	uint8_t mad[PV_MAD_SIZE];
};

struct ut_event {
	struct pv_ib_cm_id *id;
	enum pv_ib_cm_event_type type;
	int status;
	int has_msg;
	struct pv_cm_msg msg;
	struct pv_ib_cm_av av;
	struct pv_ib_cm_id *listen_id;
	uint64_t t_us;
};

/* what a side's handler does */
enum ut_req_action {
	UT_REQ_REP,		/* send the REP at once */
	UT_REQ_NOTHING,		/* the test answers later */
	UT_REQ_MRA_DELAY,	/* rdma_cm: delayed MRA, REP later */
	UT_REQ_REJECT,		/* REJ consumer defined with private data */
	UT_REQ_FAIL,		/* return nonzero */
};

struct ut_side {
	int idx;
	const char *name;
	struct pv_ib_cm *cm;
	uint8_t gid[16];
	uint64_t guid;
	/* handler behaviour */
	enum ut_req_action on_req;
	int auto_rtu;
	int auto_drep;
	int auto_sidr_rep;
	int destroy_on_timewait_exit;
	/* handler record */
	struct ut_event ev[UT_EVENTS];
	unsigned int nb_ev;
	uint64_t ev_count[PV_IB_CM_SIDR_REP_RECEIVED + 1];
	struct pv_ib_cm_id *conn;	/* the last REQ/SIDR_REQ_RECEIVED id */
};

static struct {
	uint64_t now_us;
	struct ut_side side[2];
	struct ut_queue q[2];		/* q[i]: MADs to side i */
	struct ut_mad held[UT_QLEN];
	unsigned int nb_held;
	struct ut_rule rule[UT_RULES];
	unsigned int nb_rules;
	int drop_all[2];		/* everything from side i is lost */
	struct ut_trace trace[UT_TRACE];
	unsigned int nb_trace;
	int trace_off;
	unsigned int misrouted;
	uint64_t next_us;		/* after ut_settle(): the next timer */
} ut;

#define UT_A (&ut.side[0])
#define UT_B (&ut.side[1])

static uint64_t
ut_now(void *ctx)
{
	(void)ctx;
	return ut.now_us;
}

static void
ut_enqueue(int to, const uint8_t *mad)
{
	struct ut_queue *q = &ut.q[to];
	struct ut_mad *m;

	CU_ASSERT_FATAL(q->len < UT_QLEN);
	m = &q->m[(q->head + q->len++) % UT_QLEN];
	memcpy(m->mad, mad, PV_MAD_SIZE);
	m->to = to;
}

static uint16_t
ut_mad_attr(const uint8_t *mad)
{
	return (uint16_t)(mad[16] << 8 | mad[17]);
}

static struct ut_rule *
ut_rule_match(int from, uint16_t attr)
{
	struct ut_rule *r;
	unsigned int i;

	for (i = 0; i < ut.nb_rules; i++) {
		r = &ut.rule[i];
		if (r->from != from || (r->attr != 0 && r->attr != attr))
			continue;
		r->seen++;
		if (r->nth == 0 || r->nth == r->seen)
			return r;
	}
	return NULL;
}

/* the transport of side (intptr_t)ctx */
static int
ut_send(void *ctx, const uint8_t mad[PV_MAD_SIZE], const struct pv_ib_cm_av *av)
{
	int from = (int)(intptr_t)ctx, to;
	struct ut_trace *t = NULL;
	struct ut_rule *r;
	char mark = 0;

	for (to = 0; to < 2; to++)
		if (memcmp(av->dgid, ut.side[to].gid, 16) == 0)
			break;
	if (to == 2 || to == from ||
	    memcmp(av->sgid, ut.side[from].gid, 16) != 0) {
		ut.misrouted++;
		return 0;
	}
	r = ut_rule_match(from, ut_mad_attr(mad));
	if (ut.drop_all[from])
		mark = '*';
	else if (r != NULL)
		mark = r->action == UT_DROP ? '*' : r->action == UT_DUP ? '+' : '~';
	if (!ut.trace_off && ut.nb_trace < UT_TRACE) {
		t = &ut.trace[ut.nb_trace++];
		t->from = from;
		t->mark = mark;
		t->t_us = ut.now_us;
		memcpy(t->mad, mad, PV_MAD_SIZE);
		t->decoded = pv_cm_mad_decode(mad, PV_MAD_SIZE, &t->msg) == 0;
	}
	switch (mark) {
	case '*':
		break;
	case '+':
		ut_enqueue(to, mad);
		ut_enqueue(to, mad);
		break;
	case '~':
		CU_ASSERT_FATAL(ut.nb_held < UT_QLEN);
		memcpy(ut.held[ut.nb_held].mad, mad, PV_MAD_SIZE);
		ut.held[ut.nb_held++].to = to;
		break;
	default:
		ut_enqueue(to, mad);
		break;
	}
	return 0;
}

static const struct pv_ib_cm_transport ut_transport = {
	.send = ut_send,
	.now_us = ut_now,
};

/* the address of side @p from as the receiving side @p to sees it */
static void
ut_av(int from, int to, struct pv_ib_cm_av *av)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, ut.side[from].gid, 16);
	memcpy(av->sgid, ut.side[to].gid, 16);
	av->sgid_index = 1;
	av->hop_limit = 64;
}

/* deliver what is on the wire until nothing is */
static void
ut_pump(void)
{
	struct pv_ib_cm_av av;
	uint8_t mad[PV_MAD_SIZE];
	unsigned int n = 0;
	int to, busy;

	do {
		busy = 0;
		for (to = 0; to < 2; to++) {
			struct ut_queue *q = &ut.q[to];

			if (q->len == 0)
				continue;
			memcpy(mad, q->m[q->head].mad, PV_MAD_SIZE);
			q->head = (q->head + 1) % UT_QLEN;
			q->len--;
			ut_av(!to, to, &av);
			pv_ib_cm_recv(ut.side[to].cm, mad, PV_MAD_SIZE, &av);
			busy = 1;
		}
		CU_ASSERT_FATAL(++n < 100000);
	} while (busy);
}

/* the held MADs, in the order they were sent */
static void
ut_release(void)
{
	unsigned int i;

	for (i = 0; i < ut.nb_held; i++)
		ut_enqueue(ut.held[i].to, ut.held[i].mad);
	ut.nb_held = 0;
}

/* deliver and run due timers until quiet; ut.next_us: the next timer */
static void
ut_settle(void)
{
	uint64_t a, b;

	do {
		ut_pump();
		a = pv_ib_cm_timers(UT_A->cm);
		b = pv_ib_cm_timers(UT_B->cm);
	} while (ut.q[0].len != 0 || ut.q[1].len != 0);
	ut.next_us = a < b ? a : b;
}

/* let @p us pass, stopping at every timer on the way */
static void
ut_advance(uint64_t us)
{
	uint64_t end = ut.now_us + us;

	for (;;) {
		ut_settle();
		if (ut.next_us == UINT64_MAX || ut.now_us + ut.next_us > end)
			break;
		ut.now_us += ut.next_us;
	}
	ut.now_us = end;
	ut_settle();
}

static void
ut_rule_add(int from, uint16_t attr, int nth, enum ut_action action)
{
	CU_ASSERT_FATAL(ut.nb_rules < UT_RULES);
	ut.rule[ut.nb_rules++] = (struct ut_rule){ from, attr, nth, action, 0 };
}

static const char *
ut_attr_name(uint16_t attr)
{
	switch (attr) {
	case PV_CM_ATTR_CLASS_PORT_INFO: return "CPI";
	case PV_CM_ATTR_REQ: return "REQ";
	case PV_CM_ATTR_MRA: return "MRA";
	case PV_CM_ATTR_REJ: return "REJ";
	case PV_CM_ATTR_REP: return "REP";
	case PV_CM_ATTR_RTU: return "RTU";
	case PV_CM_ATTR_DREQ: return "DREQ";
	case PV_CM_ATTR_DREP: return "DREP";
	case PV_CM_ATTR_SIDR_REQ: return "SIDR_REQ";
	case PV_CM_ATTR_SIDR_REP: return "SIDR_REP";
	case PV_CM_ATTR_LAP: return "LAP";
	case PV_CM_ATTR_APR: return "APR";
	default: return "?";
	}
}

/* "A>REQ B>REP A>RTU": the MADs sent since the test began */
static const char *
ut_wire(void)
{
	static char buf[UT_TRACE * 16];
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ut.nb_trace; i++) {
		const struct ut_trace *t = &ut.trace[i];

		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%c>%s%s%.1s", i ? " " : "",
				      'A' + t->from, t->mad[3] == PV_MAD_METHOD_GET_RESP ?
				      "GetResp:" : "", ut_attr_name(ut_mad_attr(t->mad)),
				      t->mark ? &t->mark : "");
	}
	return buf;
}

#define UT_WIRE(s) do { \
	CU_ASSERT_STRING_EQUAL(ut_wire(), s); \
	if (strcmp(ut_wire(), s) != 0) \
		fprintf(stderr, "\n  wire: %s\n  want: %s\n", ut_wire(), s); \
} while (0)

/* the @p n-th (0-based) traced MAD of kind @p attr from side @p from */
static const struct ut_trace *
ut_traced(int from, uint16_t attr, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < ut.nb_trace; i++)
		if (ut.trace[i].from == from && ut_mad_attr(ut.trace[i].mad) == attr && n-- == 0)
			return &ut.trace[i];
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The consumers                                                           */
/* ---------------------------------------------------------------------- */

static uint8_t ut_pd_req[PV_CM_REQ_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_rep[PV_CM_REP_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_rtu[PV_CM_RTU_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_rej[PV_CM_REJ_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_dreq[PV_CM_DREQ_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_drep[PV_CM_DREP_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_sidr_req[PV_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
static uint8_t ut_pd_sidr_rep[PV_CM_SIDR_REP_PRIVATE_DATA_SIZE];

static void
ut_pattern(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static int
ut_send_rep_qpn(struct pv_ib_cm_id *id, uint32_t qpn)
{
	struct pv_cm_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.local_qpn = qpn;
	rep.starting_psn = UT_PSN_B;
	rep.responder_resources = 128;
	rep.initiator_depth = 128;
	rep.target_ack_delay = UT_ACK_DELAY;
	rep.rnr_retry_count = 7;
	memcpy(rep.private_data, ut_pd_rep, sizeof(rep.private_data));
	return pv_ib_cm_send_rep(id, &rep);
}

static int
ut_send_rep(struct pv_ib_cm_id *id)
{
	return ut_send_rep_qpn(id, UT_QPN_B);
}

static int
ut_send_sidr_rep(struct pv_ib_cm_id *id)
{
	struct pv_cm_sidr_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.status = PV_CM_SIDR_SUCCESS;
	rep.qpn = UT_QPN_B;
	rep.qkey = 0x01234567;
	memcpy(rep.private_data, ut_pd_sidr_rep, sizeof(rep.private_data));
	return pv_ib_cm_send_sidr_rep(id, &rep);
}

static int
ut_handler(struct pv_ib_cm_id *id, const struct pv_ib_cm_event *ev)
{
	struct ut_side *s = id->context;
	struct ut_event *e;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	s->ev_count[ev->type]++;
	if (s->nb_ev < UT_EVENTS) {
		e = &s->ev[s->nb_ev++];
		memset(e, 0, sizeof(*e));
		e->id = id;
		e->type = ev->type;
		e->status = ev->status;
		e->listen_id = ev->listen_id;
		e->t_us = ut.now_us;
		if (ev->msg != NULL) {
			e->has_msg = 1;
			e->msg = *ev->msg;
		}
		if (ev->av != NULL)
			e->av = *ev->av;
	}
	switch (ev->type) {
	case PV_IB_CM_REQ_RECEIVED:
		s->conn = id;
		switch (s->on_req) {
		case UT_REQ_REP:
			CU_ASSERT_EQUAL(ut_send_rep(id), 0);
			break;
		case UT_REQ_MRA_DELAY:
			CU_ASSERT_EQUAL(pv_ib_cm_send_mra(id, 24 | PV_IB_CM_MRA_FLAG_DELAY, NULL, 0),
					0);
			break;
		case UT_REQ_REJECT:
			CU_ASSERT_EQUAL(pv_ib_cm_send_rej(id, PV_CM_REJ_CONSUMER_DEFINED, NULL, 0,
							  ut_pd_rej, sizeof(ut_pd_rej)), 0);
			break;
		case UT_REQ_FAIL:
			s->conn = NULL;
			return 1;
		case UT_REQ_NOTHING:
			break;
		}
		break;
	case PV_IB_CM_REP_RECEIVED:
		if (s->auto_rtu)
			CU_ASSERT_EQUAL(pv_ib_cm_send_rtu(id, ut_pd_rtu, sizeof(ut_pd_rtu)), 0);
		break;
	case PV_IB_CM_DREQ_RECEIVED:
		if (s->auto_drep && id->state == PV_IB_CM_DREQ_RCVD)
			CU_ASSERT_EQUAL(pv_ib_cm_send_drep(id, ut_pd_drep, sizeof(ut_pd_drep)), 0);
		break;
	case PV_IB_CM_SIDR_REQ_RECEIVED:
		s->conn = id;
		if (s->auto_sidr_rep)
			CU_ASSERT_EQUAL(ut_send_sidr_rep(id), 0);
		break;
	case PV_IB_CM_TIMEWAIT_EXIT:
		if (s->destroy_on_timewait_exit)
			return 1;
		break;
	default:
		break;
	}
	return 0;
}

/* the last event of @p s, or of type @p type when it is not negative */
static const struct ut_event *
ut_last(const struct ut_side *s, int type)
{
	unsigned int i;

	for (i = s->nb_ev; i-- > 0;)
		if (type < 0 || s->ev[i].type == (enum pv_ib_cm_event_type)type)
			return &s->ev[i];
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Set-up                                                                  */
/* ---------------------------------------------------------------------- */

static struct pv_ib_cm_id *ut_listen_id;

static void
ut_tunables(struct pv_ib_cm_tunables *t)
{
	/* Linux rdma_cm's, whatever the environment says */
	memset(t, 0, sizeof(*t));
	t->cm_response_timeout = 20;
	t->max_cm_retries = 15;
	t->packet_life_time = 18;
	t->mra_service_timeout = 24;
}

static void
ut_init_tun(const struct pv_ib_cm_tunables *tun)
{
	int i;

	memset(&ut, 0, sizeof(ut));
	ut.now_us = 1000000;
	for (i = 0; i < 2; i++) {
		struct ut_side *s = &ut.side[i];
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		s->idx = i;
		s->name = i ? "B" : "A";
		memcpy(s->gid, v4, 12);
		s->gid[12] = 10;
		s->gid[13] = 77;
		s->gid[15] = (uint8_t)(12 - i);	/* A 10.77.0.12, B 10.77.0.11 */
		s->guid = i ? UT_GUID_B : UT_GUID_A;
		s->on_req = UT_REQ_REP;
		s->auto_rtu = 1;
		s->auto_drep = 1;
		s->auto_sidr_rep = 1;
		s->cm = pv_ib_cm_create(&ut_transport, (void *)(intptr_t)i, s->guid, tun);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->cm);
	}
	ut_pattern(ut_pd_req, sizeof(ut_pd_req), 1);
	ut_pattern(ut_pd_rep, sizeof(ut_pd_rep), 2);
	ut_pattern(ut_pd_rtu, sizeof(ut_pd_rtu), 3);
	ut_pattern(ut_pd_rej, sizeof(ut_pd_rej), 4);
	ut_pattern(ut_pd_dreq, sizeof(ut_pd_dreq), 5);
	ut_pattern(ut_pd_drep, sizeof(ut_pd_drep), 6);
	ut_pattern(ut_pd_sidr_req, sizeof(ut_pd_sidr_req), 7);
	ut_pattern(ut_pd_sidr_rep, sizeof(ut_pd_sidr_rep), 8);
	ut_listen_id = pv_ib_cm_create_id(UT_B->cm, ut_handler, UT_B);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ut_listen_id);
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_listen(ut_listen_id, UT_SID, UINT64_MAX), 0);
}

static void
ut_init(void)
{
	struct pv_ib_cm_tunables tun;

	ut_tunables(&tun);
	ut_init_tun(&tun);
}

static void
ut_fini(void)
{
	CU_ASSERT_EQUAL(ut.misrouted, 0);
	pv_ib_cm_free(UT_A->cm);
	pv_ib_cm_free(UT_B->cm);
	UT_A->cm = NULL;
	UT_B->cm = NULL;
}

static struct pv_ib_cm_stats
ut_stats(const struct ut_side *s)
{
	struct pv_ib_cm_stats st;

	pv_ib_cm_stats_get(s->cm, &st);
	return st;
}

/* a REQ as rdma_cm fills it */
static void
ut_req_fill(struct pv_cm_req *req, uint64_t sid, uint32_t qpn,
	    const struct pv_ib_cm_tunables *tun)
{
	memset(req, 0, sizeof(*req));
	req->service_id = sid;
	req->local_qpn = qpn;
	req->responder_resources = 128;
	req->initiator_depth = 128;
	req->remote_cm_response_timeout = tun->cm_response_timeout;
	req->transport_type = PV_CM_TRANSPORT_RC;
	req->starting_psn = UT_PSN_A;
	req->local_cm_response_timeout = tun->cm_response_timeout;
	req->retry_count = 7;
	req->pkey = 0xffff;
	req->path_mtu = 3;
	req->rnr_retry_count = 7;
	req->max_cm_retries = tun->max_cm_retries;
	req->primary.local_lid = 0xffff;
	req->primary.remote_lid = 0xffff;
	memcpy(req->primary.local_gid, UT_A->gid, 16);
	memcpy(req->primary.remote_gid, UT_B->gid, 16);
	req->primary.flow_label = 0x34445;
	req->primary.hop_limit = 64;
	req->primary.local_ack_timeout = UT_LOCAL_ACK;
	memcpy(req->private_data, ut_pd_req, sizeof(req->private_data));
}

/* a new id on A that sent a REQ for @p sid from @p qpn (nothing delivered) */
static struct pv_ib_cm_id *
ut_connect_start(uint64_t sid, uint32_t qpn)
{
	struct pv_ib_cm_tunables tun;
	struct pv_ib_cm_id *id;
	struct pv_ib_cm_av av;
	struct pv_cm_req req;

	ut_tunables(&tun);
	ut_req_fill(&req, sid, qpn, &tun);
	id = pv_ib_cm_create_id(UT_A->cm, ut_handler, UT_A);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	ut_av(1, 0, &av);
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_send_req(id, &req, &av), 0);
	CU_ASSERT_EQUAL(id->state, PV_IB_CM_REQ_SENT);
	return id;
}

/* A connected to B: A's id, B's in ut.side[1].conn */
static struct pv_ib_cm_id *
ut_connect(void)
{
	struct pv_ib_cm_id *id = ut_connect_start(UT_SID, UT_QPN_A);

	ut_settle();
	CU_ASSERT_EQUAL_FATAL(id->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(UT_B->conn);
	CU_ASSERT_EQUAL_FATAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	return id;
}

/* the TID A's CM starts exchanges of @p id with: Linux's layout */
static uint64_t
ut_tid(const struct pv_ib_cm_id *id)
{
	uint32_t l = id->local_id;

	return UINT64_C(2) << 32 | (uint64_t)((l >> 24) | ((l >> 8) & 0xff00) |
					      ((l << 8) & 0xff0000) | (l << 24));
}

/* ---------------------------------------------------------------------- */
/* Connection set-up and tear-down                                         */
/* ---------------------------------------------------------------------- */

/* the smallest rdma_cm exchange (capture cm_rdma_server): every field the
 * consumers exchange arrives byte for byte, every MAD carries the REQ's TID */
static void
test_connect_disconnect(void)
{
	const struct ut_event *e;
	struct pv_ib_cm_id *a, *b;
	struct pv_ib_cm_stats st;
	unsigned int i;

	ut_init();
	a = ut_connect_start(UT_SID, UT_QPN_A);
	CU_ASSERT_NOT_EQUAL(a->local_id, 0);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_ESTABLISHED);
	UT_WIRE("A>REQ B>REP A>RTU");

	e = ut_last(UT_B, PV_IB_CM_REQ_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_EQUAL(e->id, b);
	CU_ASSERT_PTR_EQUAL(e->listen_id, ut_listen_id);
	CU_ASSERT_EQUAL(e->msg.req.local_comm_id, a->local_id);
	CU_ASSERT_EQUAL(e->msg.req.service_id, UT_SID);
	CU_ASSERT_EQUAL(e->msg.req.local_ca_guid, UT_GUID_A);
	CU_ASSERT_EQUAL(e->msg.req.local_qpn, UT_QPN_A);
	CU_ASSERT_EQUAL(e->msg.req.starting_psn, UT_PSN_A);
	CU_ASSERT_EQUAL(memcmp(e->msg.req.private_data, ut_pd_req, sizeof(ut_pd_req)), 0);
	CU_ASSERT_EQUAL(memcmp(e->av.dgid, UT_A->gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(e->av.sgid, UT_B->gid, 16), 0);
	CU_ASSERT_EQUAL(b->remote_id, a->local_id);
	CU_ASSERT_EQUAL(b->remote_qpn, UT_QPN_A);
	CU_ASSERT_EQUAL(b->remote_ca_guid, UT_GUID_A);
	CU_ASSERT_EQUAL(b->local_qpn, UT_QPN_B);
	CU_ASSERT_EQUAL(b->service_id, UT_SID);
	CU_ASSERT_PTR_EQUAL(b->context, UT_B);
	CU_ASSERT(b->handler == ut_handler);
	CU_ASSERT_EQUAL(memcmp(b->av.dgid, UT_A->gid, 16), 0);

	e = ut_last(UT_A, PV_IB_CM_REP_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->msg.rep.local_comm_id, b->local_id);
	CU_ASSERT_EQUAL(e->msg.rep.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(e->msg.rep.local_ca_guid, UT_GUID_B);
	CU_ASSERT_EQUAL(e->msg.rep.local_qpn, UT_QPN_B);
	CU_ASSERT_EQUAL(e->msg.rep.starting_psn, UT_PSN_B);
	CU_ASSERT_EQUAL(memcmp(e->msg.rep.private_data, ut_pd_rep, sizeof(ut_pd_rep)), 0);
	CU_ASSERT_EQUAL(a->remote_id, b->local_id);
	CU_ASSERT_EQUAL(a->remote_qpn, UT_QPN_B);
	CU_ASSERT_EQUAL(a->remote_ca_guid, UT_GUID_B);

	e = ut_last(UT_B, PV_IB_CM_RTU_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->msg.rtu.local_comm_id, a->local_id);
	CU_ASSERT_EQUAL(e->msg.rtu.remote_comm_id, b->local_id);
	CU_ASSERT_EQUAL(memcmp(e->msg.rtu.private_data, ut_pd_rtu, sizeof(ut_pd_rtu)), 0);
	for (i = 0; i < ut.nb_trace; i++) {
		CU_ASSERT(ut.trace[i].decoded);
		CU_ASSERT_EQUAL(ut.trace[i].msg.hdr.tid, ut_tid(a));
		CU_ASSERT_EQUAL(ut.trace[i].msg.hdr.method, PV_MAD_METHOD_SEND);
		CU_ASSERT_EQUAL(ut.trace[i].msg.hdr.class_version, 2);
	}

	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, ut_pd_dreq, sizeof(ut_pd_dreq)), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_DREQ_SENT);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP");
	CU_ASSERT_EQUAL(ut.trace[3].msg.hdr.tid, ut_tid(a));
	CU_ASSERT_EQUAL(ut.trace[3].msg.dreq.remote_qpn, UT_QPN_B);
	CU_ASSERT_EQUAL(ut.trace[4].msg.hdr.tid, ut_tid(a));
	e = ut_last(UT_B, PV_IB_CM_DREQ_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(memcmp(e->msg.dreq.private_data, ut_pd_dreq, sizeof(ut_pd_dreq)), 0);
	e = ut_last(UT_A, PV_IB_CM_DREP_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->msg.drep.local_comm_id, b->local_id);
	CU_ASSERT_EQUAL(memcmp(e->msg.drep.private_data, ut_pd_drep, sizeof(ut_pd_drep)), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);

	ut_advance(10 * 1000000);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_TIMEWAIT_EXIT], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_TIMEWAIT_EXIT], 1);
	CU_ASSERT_EQUAL(ut.nb_trace, 5);
	st = ut_stats(UT_A);
	CU_ASSERT_EQUAL(st.mads_tx, 3);
	CU_ASSERT_EQUAL(st.mads_rx, 2);
	CU_ASSERT_EQUAL(st.retries + st.duplicates + st.unmatched + st.malformed, 0);
	pv_ib_cm_destroy_id(a);
	pv_ib_cm_destroy_id(b);
	pv_ib_cm_destroy_id(ut_listen_id);
	CU_ASSERT_EQUAL(ut_stats(UT_A).ids, 0);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 0);
	CU_ASSERT_EQUAL(ut.nb_trace, 5);	/* destroying IDLE ids sends nothing */
	ut_fini();
}

/* the passive side disconnects (capture cm_ucmatose): its DREQ carries its
 * own TID, which the DREP echoes */
static void
test_passive_disconnect(void)
{
	struct pv_ib_cm_id *a, *b;

	ut_init();
	a = ut_connect();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(b, NULL, 0), 0);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU B>DREQ A>DREP");
	CU_ASSERT_EQUAL(ut.trace[3].msg.hdr.tid, ut_tid(b));
	CU_ASSERT_EQUAL(ut.trace[3].msg.dreq.local_comm_id, b->local_id);
	CU_ASSERT_EQUAL(ut.trace[3].msg.dreq.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(ut.trace[3].msg.dreq.remote_qpn, UT_QPN_A);
	CU_ASSERT_EQUAL(ut.trace[4].msg.hdr.tid, ut_tid(b));
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);
	ut_fini();
}

/* two connections set up in parallel (capture cm_ucmatose) */
static void
test_two_connections_in_parallel(void)
{
	struct pv_ib_cm_id *a1, *a2, *b1, *b2;

	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a1 = ut_connect_start(UT_SID, UT_QPN_A);
	a2 = ut_connect_start(UT_SID, UT_QPN_A + 1);
	CU_ASSERT_NOT_EQUAL(a1->local_id, a2->local_id);
	ut_settle();
	CU_ASSERT_EQUAL_FATAL(UT_B->nb_ev, 2);
	b1 = UT_B->ev[0].id;
	b2 = UT_B->ev[1].id;
	CU_ASSERT_EQUAL(b1->remote_id, a1->local_id);
	CU_ASSERT_EQUAL(b2->remote_id, a2->local_id);
	CU_ASSERT_EQUAL(ut_send_rep_qpn(b1, UT_QPN_B), 0);
	ut_settle();
	CU_ASSERT_EQUAL(ut_send_rep_qpn(b2, UT_QPN_B + 1), 0);
	ut_settle();
	UT_WIRE("A>REQ A>REQ B>REP A>RTU B>REP A>RTU");
	CU_ASSERT_EQUAL(a1->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(a2->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(a1->remote_id, b1->local_id);
	CU_ASSERT_EQUAL(a2->remote_id, b2->local_id);
	CU_ASSERT_EQUAL(b1->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(b2->state, PV_IB_CM_ESTABLISHED);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Loss and duplication                                                    */
/* ---------------------------------------------------------------------- */

/* REQ timeout: 2 packet life times + the peer's response time, rounded as
 * Linux: 2 * 2^(18-8) + 2^(20-8) ms = 6144 ms (cm_mra capture: 6.36 s) */
#define UT_REQ_TIMEOUT_US	(UINT64_C(6144) * 1000)
/* REP timeout: the active side's response time, 2^(20-8) ms */
#define UT_REP_TIMEOUT_US	(UINT64_C(4096) * 1000)

static void
test_lost_req(void)
{
	struct pv_ib_cm_id *a;
	const struct ut_trace *t;
	uint64_t t0 = 0;

	ut_init();
	ut_rule_add(0, PV_CM_ATTR_REQ, 1, UT_DROP);
	t0 = ut.now_us;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_REQ_SENT);
	CU_ASSERT_EQUAL(ut.next_us, UT_REQ_TIMEOUT_US);
	ut_advance(UT_REQ_TIMEOUT_US - 1);
	CU_ASSERT_EQUAL(ut.nb_trace, 1);
	ut_advance(1);
	UT_WIRE("A>REQ* A>REQ B>REP A>RTU");
	t = ut_traced(0, PV_CM_ATTR_REQ, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->t_us - t0, UT_REQ_TIMEOUT_US);
	CU_ASSERT_EQUAL(memcmp(t->mad, ut.trace[0].mad, PV_MAD_SIZE), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(ut_stats(UT_A).retries, 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	ut_fini();
}

static void
test_lost_rep(void)
{
	struct pv_ib_cm_id *a;
	const struct ut_trace *t;

	ut_init();
	ut_rule_add(1, PV_CM_ATTR_REP, 1, UT_DROP);
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_REP_SENT);
	/* B's REP timer (4096 ms) runs out before A's REQ timer (6144 ms) */
	ut_advance(UT_REP_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP* B>REP A>RTU");
	t = ut_traced(1, PV_CM_ATTR_REP, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->t_us - ut.trace[0].t_us, UT_REP_TIMEOUT_US);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_REP_RECEIVED], 1);
	ut_fini();
}

/* the REP lost and the REQ repeated first: the repeated REQ finds the REP
 * on its way (REP_SENT: not answered, as Linux), the REP's retry connects */
static void
test_lost_rep_dup_req(void)
{
	struct pv_ib_cm_tunables tun;
	struct pv_ib_cm_id *a;
	struct pv_ib_cm_av av;
	struct pv_cm_req req;

	ut_init();
	ut_rule_add(1, PV_CM_ATTR_REP, 1, UT_DROP);
	ut_tunables(&tun);
	ut_req_fill(&req, UT_SID, UT_QPN_A, &tun);
	req.local_cm_response_timeout = 21;	/* B's REP retries after 8192 ms */
	a = pv_ib_cm_create_id(UT_A->cm, ut_handler, UT_A);
	ut_av(1, 0, &av);
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_send_req(a, &req, &av), 0);
	ut_advance(UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP* A>REQ");
	CU_ASSERT_EQUAL(ut_stats(UT_B).duplicates, 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_REP_SENT);
	ut_advance(UINT64_C(8192) * 1000 - UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP* A>REQ B>REP A>RTU");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	ut_fini();
}

/* the RTU lost: B repeats its REP, A (established) repeats its RTU with
 * the same private data */
static void
test_lost_rtu(void)
{
	struct pv_ib_cm_id *a;
	const struct ut_event *e;
	const struct ut_trace *t0, *t1;

	ut_init();
	ut_rule_add(0, PV_CM_ATTR_RTU, 1, UT_DROP);
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_REP_SENT);
	ut_advance(UT_REP_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP A>RTU* B>REP A>RTU");
	t0 = ut_traced(0, PV_CM_ATTR_RTU, 0);
	t1 = ut_traced(0, PV_CM_ATTR_RTU, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t1);
	CU_ASSERT_EQUAL(memcmp(t0->mad, t1->mad, PV_MAD_SIZE), 0);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	e = ut_last(UT_B, PV_IB_CM_RTU_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(memcmp(e->msg.rtu.private_data, ut_pd_rtu, sizeof(ut_pd_rtu)), 0);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_REP_RECEIVED], 1);
	CU_ASSERT_EQUAL(ut_stats(UT_A).duplicates, 1);
	ut_fini();
}

/* a duplicated REQ makes one connection */
static void
test_dup_req(void)
{
	ut_init();
	ut_rule_add(0, PV_CM_ATTR_REQ, 1, UT_DUP);
	ut_connect();
	UT_WIRE("A>REQ+ B>REP A>RTU");
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).duplicates, 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 2);	/* listener + connection */
	ut_fini();
}

/* duplicates of every MAD of a connection's life change nothing */
static void
test_dup_everything(void)
{
	struct pv_ib_cm_id *a;
	int from;

	ut_init();
	for (from = 0; from < 2; from++)
		ut_rule_add(from, 0, 0, UT_DUP);
	a = ut_connect();
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	/* a repeated DREQ in TimeWait gets the DREP again */
	UT_WIRE("A>REQ+ B>REP+ A>RTU+ A>RTU+ A>DREQ+ B>DREP+ B>DREP+");
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_REP_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_RTU_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_TIMEWAIT);
	ut_fini();
}

/*
 * The cm_mra capture: the server's consumer is slow, rdma_cm arms a delayed
 * MRA; the REQ's retry (6144 ms) gets the MRA (service timeout 24), which
 * stretches A's REQ timeout to 2^16 + 2^11 ms; the REP comes at 12049 ms.
 */
static void
test_mra_delayed(void)
{
	const struct ut_trace *t;
	struct pv_ib_cm_id *a, *b;
	uint64_t t0;

	ut_init();
	UT_B->on_req = UT_REQ_MRA_DELAY;
	t0 = ut.now_us;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_MRA_REQ_SENT);
	UT_WIRE("A>REQ");	/* delayed: no MRA yet */
	ut_advance(UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ A>REQ B>MRA");
	t = ut_traced(1, PV_CM_ATTR_MRA, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->msg.mra.msg_mraed, PV_CM_MSG_REQ);
	CU_ASSERT_EQUAL(t->msg.mra.service_timeout, 24);
	CU_ASSERT_EQUAL(t->msg.mra.local_comm_id, b->local_id);
	CU_ASSERT_EQUAL(t->msg.mra.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(t->msg.hdr.tid, ut_tid(a));
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_MRA_REQ_RCVD);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_MRA_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(ut.next_us, (UINT64_C(65536) + 2048) * 1000);
	ut_advance(UINT64_C(12049) * 1000 - (ut.now_us - t0));
	CU_ASSERT_EQUAL(ut_send_rep(b), 0);
	ut_settle();
	UT_WIRE("A>REQ A>REQ B>MRA B>REP A>RTU");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_ESTABLISHED);
	ut_fini();
}

/* after an MRA the REQ keeps its retries, each one MRA-long */
static void
test_mra_stretches_retries(void)
{
	struct pv_ib_cm_id *a, *b;
	uint64_t mra_us = (UINT64_C(65536) + 2048) * 1000;

	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(pv_ib_cm_send_mra(b, 24, NULL, 0), 0);	/* not delayed */
	ut_settle();
	UT_WIRE("A>REQ B>MRA");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_MRA_REQ_RCVD);
	ut_advance(mra_us - 1);
	UT_WIRE("A>REQ B>MRA");
	ut_advance(1);
	UT_WIRE("A>REQ B>MRA A>REQ B>MRA");	/* MRA_REQ_SENT answers again */
	CU_ASSERT_EQUAL(ut_stats(UT_A).duplicates, 1);	/* the second MRA */
	ut_advance(mra_us);
	UT_WIRE("A>REQ B>MRA A>REQ B>MRA A>REQ B>MRA");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_MRA_REQ_RCVD);
	ut_fini();
}

/* the peer never answers: REQ_ERROR after (retries + 1) timeouts, then a
 * REJ "timeout" carrying our CA GUID */
static void
test_req_timeout(void)
{
	struct pv_ib_cm_tunables tun;
	const struct ut_event *e;
	const struct ut_trace *t;
	struct pv_ib_cm_id *a;
	struct pv_ib_cm_av av;
	struct pv_cm_req req;
	uint64_t t0, timeout_us, guid;
	unsigned int i;

	memset(&tun, 0, sizeof(tun));
	tun.cm_response_timeout = 12;	/* 2^4 ms */
	tun.max_cm_retries = 3;
	tun.packet_life_time = 9;	/* 2^1 ms */
	tun.mra_service_timeout = 24;
	ut_init_tun(&tun);
	ut.drop_all[0] = 1;
	ut_req_fill(&req, UT_SID, UT_QPN_A, &tun);
	a = pv_ib_cm_create_id(UT_A->cm, ut_handler, UT_A);
	ut_av(1, 0, &av);
	t0 = ut.now_us;
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_send_req(a, &req, &av), 0);
	timeout_us = (2 * 2 + 16) * 1000;
	ut_advance(4 * timeout_us - 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_REQ_SENT);
	CU_ASSERT_EQUAL(UT_A->nb_ev, 0);
	ut_advance(1);
	UT_WIRE("A>REQ* A>REQ* A>REQ* A>REQ* A>REJ*");
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ut.trace[i].t_us - t0, i * timeout_us);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_REQ_ERROR);
	CU_ASSERT_EQUAL(e->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(e->t_us - t0, 4 * timeout_us);
	CU_ASSERT_FALSE(e->has_msg);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	t = ut_traced(0, PV_CM_ATTR_REJ, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->msg.rej.reason, PV_CM_REJ_TIMEOUT);
	CU_ASSERT_EQUAL(t->msg.rej.local_comm_id, a->local_id);
	CU_ASSERT_EQUAL(t->msg.rej.remote_comm_id, 0);
	CU_ASSERT_EQUAL(t->msg.rej.reject_info_length, 8);
	memcpy(&guid, t->msg.rej.ari, 8);
	CU_ASSERT_EQUAL(rte_be_to_cpu_64(guid), UT_GUID_A);
	CU_ASSERT_EQUAL(ut_stats(UT_A).retries, 3);
	CU_ASSERT_EQUAL(ut_stats(UT_A).timeouts, 1);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);
	/* the id can try again */
	ut.drop_all[0] = 0;
	CU_ASSERT_EQUAL(pv_ib_cm_send_req(a, &req, &av), 0);
	ut_settle();
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	ut_fini();
}

/* the passive side hears nothing after its REP: REP_ERROR */
static void
test_rep_timeout(void)
{
	const struct ut_event *e;
	struct pv_ib_cm_id *b;

	ut_init();
	ut_connect_start(UT_SID, UT_QPN_A);
	ut.drop_all[0] = 1;
	ut_settle();
	/* the REQ went out before drop_all: B's REP reached A, A's RTU got lost */
	b = UT_B->conn;
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_REP_SENT);
	ut.drop_all[1] = 1;
	ut_advance(16 * UT_REP_TIMEOUT_US);
	e = ut_last(UT_B, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_REP_ERROR);
	CU_ASSERT_EQUAL(e->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_stats(UT_B).retries, 15);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Rejection                                                               */
/* ---------------------------------------------------------------------- */

/* capture cm_reject: no listener, the CM answers REJ reason 8 itself with
 * local comm ID 0 and the REQ's TID */
static void
test_rej_no_listener(void)
{
	const struct ut_event *e;
	const struct ut_trace *t;
	struct pv_ib_cm_id *a;

	ut_init();
	a = ut_connect_start(UT_SID + 1, UT_QPN_A);
	ut_settle();
	UT_WIRE("A>REQ B>REJ");
	t = ut_traced(1, PV_CM_ATTR_REJ, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->msg.rej.local_comm_id, 0);
	CU_ASSERT_EQUAL(t->msg.rej.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(t->msg.rej.msg_rejected, PV_CM_MSG_REQ);
	CU_ASSERT_EQUAL(t->msg.rej.reject_info_length, 0);
	CU_ASSERT_EQUAL(t->msg.rej.reason, PV_CM_REJ_INVALID_SERVICE_ID);
	CU_ASSERT_EQUAL(t->msg.hdr.tid, ut.trace[0].msg.hdr.tid);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_REJ_RECEIVED);
	CU_ASSERT_EQUAL(e->msg.rej.reason, PV_CM_REJ_INVALID_SERVICE_ID);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);	/* no REQ retry left armed */
	CU_ASSERT_EQUAL(ut_stats(UT_B).unmatched, 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);	/* the listener only */
	CU_ASSERT_EQUAL(UT_B->nb_ev, 0);
	ut_fini();
}

/* the consumer rejects with private data (148 bytes arrive as sent) */
static void
test_consumer_reject(void)
{
	const struct ut_event *e;
	const struct ut_trace *t;
	struct pv_ib_cm_id *a;

	ut_init();
	UT_B->on_req = UT_REQ_REJECT;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	UT_WIRE("A>REQ B>REJ");
	t = ut_traced(1, PV_CM_ATTR_REJ, 0);
	CU_ASSERT_EQUAL(t->msg.rej.local_comm_id, 0);	/* from REQ_RCVD, as Linux */
	CU_ASSERT_EQUAL(t->msg.rej.msg_rejected, PV_CM_MSG_REQ);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_REJ_RECEIVED);
	CU_ASSERT_EQUAL(e->msg.rej.reason, PV_CM_REJ_CONSUMER_DEFINED);
	CU_ASSERT_EQUAL(memcmp(e->msg.rej.private_data, ut_pd_rej, sizeof(ut_pd_rej)), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_IDLE);
	pv_ib_cm_destroy_id(UT_B->conn);
	CU_ASSERT_EQUAL(ut.nb_trace, 2);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	ut_fini();
}

/* a handler returning nonzero on REQ_RECEIVED: REJ, id gone */
static void
test_handler_fails_req(void)
{
	struct pv_ib_cm_id *a;

	ut_init();
	UT_B->on_req = UT_REQ_FAIL;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	UT_WIRE("A>REQ B>REJ");
	CU_ASSERT_EQUAL(ut.trace[1].msg.rej.reason, PV_CM_REJ_CONSUMER_DEFINED);
	CU_ASSERT_EQUAL(ut.trace[1].msg.rej.local_comm_id, 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Disconnection                                                           */
/* ---------------------------------------------------------------------- */

/* both sides disconnect at once: each answers the other's DREQ with a
 * DREP and enters TimeWait */
static void
test_crossing_dreqs(void)
{
	struct pv_ib_cm_id *a, *b;

	ut_init();
	a = ut_connect();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(b, NULL, 0), 0);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREQ A>DREP B>DREP");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	/* each DREP echoes the DREQ it answers */
	CU_ASSERT_EQUAL(ut_traced(0, PV_CM_ATTR_DREP, 0)->msg.hdr.tid, ut_tid(b));
	CU_ASSERT_EQUAL(ut_traced(1, PV_CM_ATTR_DREP, 0)->msg.hdr.tid, ut_tid(a));
	/* the DREPs of the DREQs arrived in TimeWait */
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 0);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_C(2048) * 1000);	/* TimeWait, no DREQ retry */
	ut_advance(ut.next_us);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_TIMEWAIT_EXIT], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_TIMEWAIT_EXIT], 1);
	ut_fini();
}

static void
test_lost_dreq(void)
{
	struct pv_ib_cm_id *a;

	ut_init();
	a = ut_connect();
	ut_rule_add(0, PV_CM_ATTR_DREQ, 1, UT_DROP);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	CU_ASSERT_EQUAL(ut.next_us, UT_REQ_TIMEOUT_US);	/* the connection's timeout */
	ut_advance(UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ* A>DREQ B>DREP");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	ut_fini();
}

/* the DREP lost: A's DREQ retry finds B in TimeWait, which answers again;
 * or, TimeWait (2048 ms) being over before the retry (6144 ms), B's ended
 * id answers for the connection that is no more */
static void
test_lost_drep(void)
{
	struct pv_ib_cm_tunables tun;
	struct pv_ib_cm_id *a;

	ut_tunables(&tun);
	tun.timewait_us = 10 * 1000000;
	ut_init_tun(&tun);
	a = ut_connect();
	ut_rule_add(1, PV_CM_ATTR_DREP, 1, UT_DROP);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_advance(UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP* A>DREQ B>DREP");
	CU_ASSERT_EQUAL(memcmp(ut.trace[4].mad, ut.trace[6].mad, PV_MAD_SIZE), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).duplicates, 1);
	ut_fini();

	ut_init();
	a = ut_connect();
	ut_rule_add(1, PV_CM_ATTR_DREP, 1, UT_DROP);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_advance(UT_REQ_TIMEOUT_US);
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP* A>DREQ B>DREP");
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut.trace[6].msg.drep.local_comm_id, UT_B->conn->local_id);
	CU_ASSERT_EQUAL(ut.trace[6].msg.drep.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(ut.trace[6].msg.hdr.tid, ut_tid(a));
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	ut_fini();
}

/* the peer is gone: DREQ_ERROR after the retries, then TimeWait */
static void
test_dreq_timeout(void)
{
	const struct ut_event *e;
	struct pv_ib_cm_id *a;
	uint64_t t0;

	ut_init();
	a = ut_connect();
	ut.drop_all[0] = 1;
	t0 = ut.now_us;
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_advance(16 * UT_REQ_TIMEOUT_US - 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_DREQ_SENT);
	ut_advance(1);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_DREQ_ERROR);
	CU_ASSERT_EQUAL(e->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(e->t_us - t0, 16 * UT_REQ_TIMEOUT_US);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(ut_stats(UT_A).retries, 15);
	ut_advance(UINT64_C(2048) * 1000);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_last(UT_A, -1)->type, PV_IB_CM_TIMEWAIT_EXIT);
	ut_fini();
}

/* TimeWait lasts the local ACK timeout: A's from the peer's ACK delay and
 * the packet life time (20 and 18 give 21: 2^13 ms), B's the REQ's local ACK
 * timeout (19: 2^11 ms) */
static void
test_timewait_exit(void)
{
	struct pv_ib_cm_tunables tun;
	const struct ut_event *e;
	struct pv_ib_cm_id *a, *b;
	struct pv_cm_rep rep;
	uint64_t t0;

	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	memset(&rep, 0, sizeof(rep));
	rep.local_qpn = UT_QPN_B;
	rep.target_ack_delay = 20;
	CU_ASSERT_EQUAL(pv_ib_cm_send_rep(b, &rep), 0);
	ut_settle();
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	t0 = ut.now_us;
	ut_settle();
	ut_advance(UINT64_C(2048) * 1000 - 1);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);
	ut_advance(1);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_IDLE);
	e = ut_last(UT_B, PV_IB_CM_TIMEWAIT_EXIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->t_us - t0, UINT64_C(2048) * 1000);
	CU_ASSERT_FALSE(e->has_msg);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	ut_advance(UINT64_C(8192) * 1000 - (ut.now_us - t0));
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_last(UT_A, PV_IB_CM_TIMEWAIT_EXIT)->t_us - t0, UINT64_C(8192) * 1000);
	ut_fini();

	/* PV_CM_TIMEWAIT_MS's tunable: both sides 5 ms */
	ut_tunables(&tun);
	tun.timewait_us = 5000;
	ut_init_tun(&tun);
	a = ut_connect();
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	t0 = ut.now_us;
	ut_advance(5000);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_last(UT_A, -1)->t_us - t0, 5000);
	ut_fini();
}

/* an id destroyed in TimeWait: kept (its comm ID is not reused, a repeated
 * DREQ still gets its DREP), no handler call, freed when TimeWait ends */
static void
test_destroy_in_timewait(void)
{
	const struct ut_trace *dreq;
	struct pv_ib_cm_av av;
	struct pv_ib_cm_id *a, *b;
	uint32_t b_local;
	unsigned int i, n;

	ut_init();
	a = ut_connect();
	b = UT_B->conn;
	b_local = b->local_id;
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	n = UT_B->nb_ev;
	pv_ib_cm_destroy_id(b);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 2);
	dreq = ut_traced(0, PV_CM_ATTR_DREQ, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dreq);
	ut_av(0, 1, &av);
	pv_ib_cm_recv(UT_B->cm, dreq->mad, PV_MAD_SIZE, &av);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP B>DREP");
	CU_ASSERT_EQUAL(memcmp(ut.trace[4].mad, ut.trace[5].mad, PV_MAD_SIZE), 0);
	for (i = 0; i < 100; i++) {
		struct pv_ib_cm_id *x = pv_ib_cm_create_id(UT_B->cm, ut_handler, UT_B);

		CU_ASSERT_PTR_NOT_NULL_FATAL(x);
		CU_ASSERT_NOT_EQUAL(x->local_id, b_local);
		CU_ASSERT_NOT_EQUAL(x->local_id, 0);
		pv_ib_cm_destroy_id(x);
	}
	ut_advance(10 * 1000000);
	CU_ASSERT_EQUAL(UT_B->nb_ev, n);	/* no TIMEWAIT_EXIT for it */
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_TIMEWAIT_EXIT], 1);
	ut_fini();
}

/* destroying an id in each state tells the peer what it must know */
static void
test_destroy_states(void)
{
	const struct ut_trace *t;
	struct pv_ib_cm_id *a, *b;
	uint64_t guid;

	/* REQ_SENT: REJ timeout with our CA GUID; B finds it by that */
	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	pv_ib_cm_destroy_id(a);
	ut_settle();
	UT_WIRE("A>REQ A>REJ");
	t = ut_traced(0, PV_CM_ATTR_REJ, 0);
	CU_ASSERT_EQUAL(t->msg.rej.reason, PV_CM_REJ_TIMEOUT);
	memcpy(&guid, t->msg.rej.ari, 8);
	CU_ASSERT_EQUAL(rte_be_to_cpu_64(guid), UT_GUID_A);
	CU_ASSERT_EQUAL(ut_last(UT_B, -1)->type, PV_IB_CM_REJ_RECEIVED);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_stats(UT_A).ids, 0);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);
	ut_fini();

	/* REQ_RCVD: REJ consumer defined, local comm ID 0 */
	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	pv_ib_cm_destroy_id(UT_B->conn);
	ut_settle();
	UT_WIRE("A>REQ B>REJ");
	CU_ASSERT_EQUAL(ut.trace[1].msg.rej.reason, PV_CM_REJ_CONSUMER_DEFINED);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	ut_fini();

	/* REP_SENT: REJ, TimeWait (kept until it ends) */
	ut_init();
	ut_rule_add(0, PV_CM_ATTR_RTU, 1, UT_DROP);
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	pv_ib_cm_destroy_id(UT_B->conn);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU* B>REJ");
	CU_ASSERT_EQUAL(ut.trace[3].msg.rej.msg_rejected, PV_CM_MSG_OTHER);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);	/* REJ while established */
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 2);
	ut_advance(10 * 1000000);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	CU_ASSERT_EQUAL(ut.nb_trace, 4);	/* no REP retry after the destroy */
	ut_fini();

	/* ESTABLISHED: one DREQ, TimeWait; the peer's DREP changes nothing */
	ut_init();
	a = ut_connect();
	pv_ib_cm_destroy_id(a);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP");
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 0);
	CU_ASSERT_EQUAL(ut_stats(UT_A).ids, 1);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_C(2048) * 1000);	/* TimeWait, not a retry */
	ut_advance(ut.next_us);
	CU_ASSERT_EQUAL(ut_stats(UT_A).ids, 0);
	CU_ASSERT_EQUAL(ut.nb_trace, 5);
	ut_fini();

	/* DREQ_RCVD: the DREP */
	ut_init();
	UT_B->auto_drep = 0;
	a = ut_connect();
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_DREQ_RCVD);
	pv_ib_cm_destroy_id(UT_B->conn);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Stale connections, reordering                                           */
/* ---------------------------------------------------------------------- */

/* a new REQ from a QP B holds a connection with: REJ stale to it, DREQ to
 * the old connection (the peer lost it) */
static void
test_stale_req(void)
{
	const struct ut_trace *t;
	struct pv_ib_cm_id *a, *a2;

	ut_init();
	a = ut_connect();
	a2 = ut_connect_start(UT_SID, UT_QPN_A);	/* same QPN, new comm ID */
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>REQ B>REJ B>DREQ A>DREP");
	t = ut_traced(1, PV_CM_ATTR_REJ, 0);
	CU_ASSERT_EQUAL(t->msg.rej.reason, PV_CM_REJ_STALE_CONN);
	CU_ASSERT_EQUAL(t->msg.rej.msg_rejected, PV_CM_MSG_REQ);
	CU_ASSERT_EQUAL(t->msg.rej.remote_comm_id, a2->local_id);
	CU_ASSERT_EQUAL(t->msg.rej.local_comm_id, 0);
	CU_ASSERT_EQUAL(a2->state, PV_IB_CM_TIMEWAIT);	/* REJ stale: TimeWait */
	CU_ASSERT_EQUAL(ut_last(UT_A, PV_IB_CM_REJ_RECEIVED)->id, a2);
	CU_ASSERT_EQUAL(ut_last(UT_A, PV_IB_CM_DREQ_RECEIVED)->id, a);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).stale, 1);
	ut_fini();
}

/* a REQ of a connection in TimeWait (a very late duplicate): REJ stale;
 * once TimeWait is over the same REQ is a new connection */
static void
test_req_in_timewait(void)
{
	const struct ut_trace *req;
	struct pv_ib_cm_av av;
	struct pv_ib_cm_id *a;

	ut_init();
	a = ut_connect();
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	req = ut_traced(0, PV_CM_ATTR_REQ, 0);
	ut_av(0, 1, &av);
	pv_ib_cm_recv(UT_B->cm, req->mad, PV_MAD_SIZE, &av);
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP B>REJ");
	CU_ASSERT_EQUAL(ut.trace[5].msg.rej.reason, PV_CM_REJ_STALE_CONN);
	CU_ASSERT_EQUAL(ut.trace[5].msg.rej.local_comm_id, UT_B->conn->local_id);
	CU_ASSERT_EQUAL(ut.trace[5].msg.rej.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(ut.trace[5].msg.hdr.tid, ut_tid(a));
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1);
	/* A's id is in TimeWait too: the REJ is not for anything live */
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_REJ_RECEIVED], 0);
	ut_advance(10 * 1000000);
	pv_ib_cm_recv(UT_B->cm, req->mad, PV_MAD_SIZE, &av);
	ut_settle();
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 2);
	ut_fini();
}

/* the RTU overtaken by a DREQ: B (REP_SENT) takes the DREQ as the end of a
 * connection the peer had established, never reports ESTABLISHED, and
 * ignores the late RTU */
static void
test_reorder_dreq_before_rtu(void)
{
	struct pv_ib_cm_id *a, *b;

	ut_init();
	ut_rule_add(0, PV_CM_ATTR_RTU, 1, UT_HOLD);
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_REP_SENT);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	ut_release();
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU~ A>DREQ B>DREP");
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_RTU_RECEIVED], 0);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(ut_stats(UT_B).duplicates, 1);	/* the late RTU */
	ut_advance(10 * 1000000);
	CU_ASSERT_EQUAL(ut.nb_trace, 5);	/* the REP was not retried */
	ut_fini();
}

/* the MRA overtaken by the REP: the late MRA is for nothing any more */
static void
test_reorder_rep_before_mra(void)
{
	struct pv_ib_cm_id *a, *b;

	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	ut_rule_add(1, PV_CM_ATTR_MRA, 1, UT_HOLD);
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(pv_ib_cm_send_mra(b, 24, NULL, 0), 0);
	CU_ASSERT_EQUAL(ut_send_rep(b), 0);
	ut_settle();
	ut_release();
	ut_settle();
	UT_WIRE("A>REQ B>MRA~ B>REP A>RTU");
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_MRA_RECEIVED], 0);
	CU_ASSERT_EQUAL(ut_stats(UT_A).unmatched, 1);
	ut_fini();
}

/* the DREP overtaken by ... the DREQ's retry: no second DREP_RECEIVED */
static void
test_reorder_late_drep(void)
{
	struct pv_ib_cm_id *a;

	ut_init();
	a = ut_connect();
	ut_rule_add(1, PV_CM_ATTR_DREP, 1, UT_HOLD);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_advance(UT_REQ_TIMEOUT_US);
	ut_release();
	ut_settle();
	UT_WIRE("A>REQ B>REP A>RTU A>DREQ B>DREP~ A>DREQ B>DREP");
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	ut_fini();
}

/* the passive side's consumer sees traffic before the RTU (COMM_EST) */
static void
test_user_established(void)
{
	struct pv_ib_cm_id *b;

	ut_init();
	ut_rule_add(0, PV_CM_ATTR_RTU, 0, UT_DROP);
	ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_REP_SENT);
	CU_ASSERT_EQUAL(pv_ib_cm_establish(b), 0);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(ut_last(UT_B, -1)->type, PV_IB_CM_USER_ESTABLISHED);
	CU_ASSERT_EQUAL(pv_ib_cm_establish(b), -EISCONN);
	ut_settle();
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);	/* no REP retry */
	ut_advance(100 * 1000000);
	UT_WIRE("A>REQ B>REP A>RTU*");
	CU_ASSERT_EQUAL(pv_ib_cm_establish(ut_listen_id), -EINVAL);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Other MADs                                                              */
/* ---------------------------------------------------------------------- */

static void
ut_inject(int to, const struct pv_cm_msg *msg)
{
	struct pv_ib_cm_av av;
	uint8_t mad[PV_MAD_SIZE];

	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(msg, mad), 0);
	ut_av(!to, to, &av);
	pv_ib_cm_recv(ut.side[to].cm, mad, PV_MAD_SIZE, &av);
	ut_settle();
}

static void
ut_hdr(struct pv_cm_msg *msg, uint8_t method, uint16_t attr, uint64_t tid)
{
	memset(msg, 0, sizeof(*msg));
	msg->hdr.base_version = 1;
	msg->hdr.mgmt_class = PV_MAD_CLASS_CM;
	msg->hdr.class_version = 2;
	msg->hdr.method = method;
	msg->hdr.tid = tid;
	msg->hdr.attr_id = attr;
}

/* LAP: APR "unsupported", the connection stays */
static void
test_lap_apr_unsupported(void)
{
	const struct ut_trace *t;
	struct pv_cm_msg msg;
	struct pv_ib_cm_id *a;

	ut_init();
	a = ut_connect();
	ut_hdr(&msg, PV_MAD_METHOD_SEND, PV_CM_ATTR_LAP, 0x1234);
	msg.lap.local_comm_id = a->local_id;
	msg.lap.remote_comm_id = UT_B->conn->local_id;
	msg.lap.remote_qpn = UT_QPN_B;
	ut_inject(1, &msg);
	UT_WIRE("A>REQ B>REP A>RTU B>APR");
	t = &ut.trace[3];
	CU_ASSERT(t->decoded);
	CU_ASSERT_EQUAL(t->msg.hdr.tid, 0x1234);
	CU_ASSERT_EQUAL(t->msg.hdr.method, PV_MAD_METHOD_SEND);
	CU_ASSERT_EQUAL(t->msg.apr.local_comm_id, UT_B->conn->local_id);
	CU_ASSERT_EQUAL(t->msg.apr.remote_comm_id, a->local_id);
	CU_ASSERT_EQUAL(t->msg.apr.status, PV_CM_APR_UNSUPPORTED);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_ESTABLISHED);
	/* the APR reached A, which sends no LAP: dropped */
	CU_ASSERT_EQUAL(ut_stats(UT_A).unmatched, 1);
	CU_ASSERT_EQUAL(ut_stats(UT_A).mads_rx, 2);	/* REP, APR */
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_ESTABLISHED);
	ut_fini();
}

/* ClassPortInfo Get: GetResp; other Gets: GetResp "unsupported" */
static void
test_class_port_info(void)
{
	const struct ut_trace *t;
	struct pv_cm_msg msg;
	uint8_t mad[PV_MAD_SIZE];
	struct pv_ib_cm_av av;
	uint16_t status;

	ut_init();
	ut_hdr(&msg, PV_MAD_METHOD_GET, PV_CM_ATTR_CLASS_PORT_INFO, 0xabcdef);
	ut_inject(1, &msg);
	UT_WIRE("B>GetResp:CPI");
	t = &ut.trace[0];
	CU_ASSERT(t->decoded);
	CU_ASSERT_EQUAL(t->msg.hdr.method, PV_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(t->msg.hdr.status, 0);
	CU_ASSERT_EQUAL(t->msg.hdr.tid, 0xabcdef);
	CU_ASSERT_EQUAL(t->msg.class_port_info[0], 1);		/* base version */
	CU_ASSERT_EQUAL(t->msg.class_port_info[1], 2);		/* class version */
	CU_ASSERT_EQUAL(t->msg.class_port_info[7] & 0x1f, 20);	/* RespTimeValue */

	/* a Get of a CM message */
	ut_hdr(&msg, PV_MAD_METHOD_GET, PV_CM_ATTR_REQ, 0x77);
	ut_inject(1, &msg);
	UT_WIRE("B>GetResp:CPI B>GetResp:REQ");
	status = (uint16_t)(ut.trace[1].mad[4] << 8 | ut.trace[1].mad[5]);
	CU_ASSERT_EQUAL(status, PV_MAD_STATUS_METHOD_ATTR_UNSUPP);

	/* a Get of an attribute the CM class does not have */
	memset(mad, 0, sizeof(mad));
	memcpy(mad, ut.trace[0].mad, PV_MAD_HDR_SIZE);
	mad[3] = PV_MAD_METHOD_GET;
	mad[16] = 0x00;
	mad[17] = 0x42;
	ut_av(0, 1, &av);
	pv_ib_cm_recv(UT_B->cm, mad, PV_MAD_SIZE, &av);
	ut_settle();
	UT_WIRE("B>GetResp:CPI B>GetResp:REQ B>GetResp:?");
	CU_ASSERT_EQUAL(ut_mad_attr(ut.trace[2].mad), 0x42);
	status = (uint16_t)(ut.trace[2].mad[4] << 8 | ut.trace[2].mad[5]);
	CU_ASSERT_EQUAL(status, PV_MAD_STATUS_METHOD_ATTR_UNSUPP);
	CU_ASSERT_EQUAL(ut_stats(UT_B).malformed, 0);
	ut_fini();
}

/* what cannot be decoded, or is not a CM Send, is dropped and counted */
static void
test_malformed(void)
{
	struct pv_ib_cm_av av;
	uint8_t good[PV_MAD_SIZE], bad[PV_MAD_SIZE];
	struct pv_cm_msg msg;
	struct pv_ib_cm_id *a;

	ut_init();
	UT_B->on_req = UT_REQ_NOTHING;
	a = ut_connect_start(UT_SID, UT_QPN_A);
	ut_settle();
	CU_ASSERT_EQUAL_FATAL(ut.nb_trace, 1);
	memcpy(good, ut.trace[0].mad, PV_MAD_SIZE);
	ut_av(0, 1, &av);
	pv_ib_cm_recv(UT_B->cm, good, 100, &av);		/* truncated */
	memcpy(bad, good, PV_MAD_SIZE);
	bad[2] = 1;						/* class version 1 */
	pv_ib_cm_recv(UT_B->cm, bad, PV_MAD_SIZE, &av);
	memcpy(bad, good, PV_MAD_SIZE);
	bad[0] = 2;						/* base version 2 */
	pv_ib_cm_recv(UT_B->cm, bad, PV_MAD_SIZE, &av);
	memcpy(bad, good, PV_MAD_SIZE);
	bad[1] = 0x03;						/* SA class */
	pv_ib_cm_recv(UT_B->cm, bad, PV_MAD_SIZE, &av);
	memcpy(bad, good, PV_MAD_SIZE);
	bad[17] = 0x42;						/* no such attribute */
	pv_ib_cm_recv(UT_B->cm, bad, PV_MAD_SIZE, &av);
	memcpy(bad, good, PV_MAD_SIZE);
	bad[3] = PV_MAD_METHOD_GET_RESP;			/* a REQ GetResp */
	pv_ib_cm_recv(UT_B->cm, bad, PV_MAD_SIZE, &av);
	ut_hdr(&msg, PV_MAD_METHOD_SEND, PV_CM_ATTR_CLASS_PORT_INFO, 1);
	ut_inject(1, &msg);					/* ClassPortInfo Send */
	ut_settle();
	CU_ASSERT_EQUAL(ut_stats(UT_B).malformed, 7);
	CU_ASSERT_EQUAL(ut_stats(UT_B).mads_rx, 8);
	CU_ASSERT_EQUAL(ut.nb_trace, 1);			/* nothing answered */
	CU_ASSERT_EQUAL(UT_B->nb_ev, 1);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 2);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_REQ_SENT);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* SIDR                                                                    */
/* ---------------------------------------------------------------------- */

static struct pv_ib_cm_id *
ut_sidr_start(uint64_t sid)
{
	struct pv_ib_cm_id *id;
	struct pv_cm_sidr_req req;
	struct pv_ib_cm_av av;

	memset(&req, 0, sizeof(req));
	req.pkey = 0xffff;
	req.service_id = sid;
	memcpy(req.private_data, ut_pd_sidr_req, sizeof(req.private_data));
	id = pv_ib_cm_create_id(UT_A->cm, ut_handler, UT_A);
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	ut_av(1, 0, &av);
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_send_sidr_req(id, &req, &av), 0);
	CU_ASSERT_EQUAL(id->state, PV_IB_CM_SIDR_REQ_SENT);
	return id;
}

static void
test_sidr(void)
{
	const struct ut_event *e;
	struct pv_ib_cm_id *a;

	/* repeated while B's consumer decides: one request */
	ut_init();
	UT_B->auto_sidr_rep = 0;
	ut_rule_add(0, PV_CM_ATTR_SIDR_REQ, 1, UT_DUP);
	a = ut_sidr_start(UT_SID);
	ut_settle();
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_SIDR_REQ_RCVD);
	CU_ASSERT_EQUAL(ut_send_sidr_rep(UT_B->conn), 0);
	ut_settle();
	UT_WIRE("A>SIDR_REQ+ B>SIDR_REP");
	CU_ASSERT_EQUAL(ut.trace[0].msg.sidr_req.request_id, a->local_id);
	CU_ASSERT_EQUAL(ut.trace[0].msg.hdr.tid, ut_tid(a));
	CU_ASSERT_EQUAL(ut.trace[1].msg.hdr.tid, ut_tid(a));
	e = ut_last(UT_B, PV_IB_CM_SIDR_REQ_RECEIVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_EQUAL(e->listen_id, ut_listen_id);
	CU_ASSERT_EQUAL(memcmp(e->msg.sidr_req.private_data, ut_pd_sidr_req,
			       sizeof(ut_pd_sidr_req)), 0);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_SIDR_REQ_RECEIVED], 1);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_SIDR_REP_RECEIVED);
	CU_ASSERT_EQUAL(e->msg.sidr_rep.status, PV_CM_SIDR_SUCCESS);
	CU_ASSERT_EQUAL(e->msg.sidr_rep.qpn, UT_QPN_B);
	CU_ASSERT_EQUAL(e->msg.sidr_rep.qkey, 0x01234567);
	CU_ASSERT_EQUAL(e->msg.sidr_rep.service_id, UT_SID);
	CU_ASSERT_EQUAL(e->msg.sidr_rep.request_id, a->local_id);
	CU_ASSERT_EQUAL(memcmp(e->msg.sidr_rep.private_data, ut_pd_sidr_rep,
			       sizeof(ut_pd_sidr_rep)), 0);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(UT_B->conn->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut_stats(UT_B).duplicates, 1);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);
	ut_fini();

	/* no listener: SIDR_REP "service ID not supported" from the CM */
	ut_init();
	a = ut_sidr_start(UT_SID + 1);
	ut_settle();
	UT_WIRE("A>SIDR_REQ B>SIDR_REP");
	CU_ASSERT_EQUAL(ut.trace[1].msg.sidr_rep.status, PV_CM_SIDR_UNSUPPORTED);
	CU_ASSERT_EQUAL(ut_last(UT_A, -1)->type, PV_IB_CM_SIDR_REP_RECEIVED);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 1);
	ut_fini();

	/* the consumer lets go of the request: SIDR_REP "rejected" */
	ut_init();
	UT_B->auto_sidr_rep = 0;
	ut_sidr_start(UT_SID);
	ut_settle();
	pv_ib_cm_destroy_id(UT_B->conn);
	ut_settle();
	UT_WIRE("A>SIDR_REQ B>SIDR_REP");
	CU_ASSERT_EQUAL(ut.trace[1].msg.sidr_rep.status, PV_CM_SIDR_REJECT);
	ut_fini();
}

/* lost SIDR_REQs are repeated every CM response time, then SIDR_REQ_ERROR */
static void
test_sidr_timeout(void)
{
	const struct ut_event *e;
	struct pv_ib_cm_id *a;
	uint64_t t0;

	ut_init();
	ut.drop_all[0] = 1;
	t0 = ut.now_us;
	a = ut_sidr_start(UT_SID);
	ut_advance(16 * UT_REP_TIMEOUT_US - 1);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_SIDR_REQ_SENT);
	CU_ASSERT_EQUAL(ut.nb_trace, 16);
	ut_advance(1);
	e = ut_last(UT_A, -1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->type, PV_IB_CM_SIDR_REQ_ERROR);
	CU_ASSERT_EQUAL(e->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(e->t_us - t0, 16 * UT_REP_TIMEOUT_US);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_IDLE);
	CU_ASSERT_EQUAL(ut.nb_trace, 16);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Many connections                                                        */
/* ---------------------------------------------------------------------- */

/* 1000 connect/disconnect cycles, alternating who disconnects and how the
 * ids end, with a MAD lost now and then: every id is freed in the end */
static void
test_cycles(void)
{
	struct pv_ib_cm_id *a, *b;
	struct pv_ib_cm_stats sa, sb;
	unsigned int i;

	ut_init();
	ut.trace_off = 1;
	UT_A->destroy_on_timewait_exit = 1;
	for (i = 0; i < 1000; i++) {
		ut.nb_rules = 0;
		if (i % 7 == 3)
			ut_rule_add(i & 1, 0, 2, UT_DROP);
		a = ut_connect_start(UT_SID, UT_QPN_A + (i % 16));
		ut_advance(UT_REQ_TIMEOUT_US);
		b = UT_B->conn;
		CU_ASSERT_EQUAL_FATAL(a->state, PV_IB_CM_ESTABLISHED);
		CU_ASSERT_EQUAL_FATAL(b->state, PV_IB_CM_ESTABLISHED);
		switch (i % 4) {
		case 0:
			/* A disconnects; A's id goes on TimeWait's exit (the
			 * handler returns nonzero), B's is destroyed now */
			CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
			ut_settle();
			pv_ib_cm_destroy_id(b);
			break;
		case 1:
			/* B disconnects, both destroyed in TimeWait */
			CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(b, NULL, 0), 0);
			ut_settle();
			pv_ib_cm_destroy_id(a);
			pv_ib_cm_destroy_id(b);
			break;
		case 2:
			/* both destroyed while established */
			pv_ib_cm_destroy_id(b);
			ut_settle();
			pv_ib_cm_destroy_id(a);
			break;
		default:
			/* crossing DREQs */
			CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
			CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(b, NULL, 0), 0);
			ut_settle();
			pv_ib_cm_destroy_id(b);
			break;
		}
		UT_B->conn = NULL;
		ut_advance(UT_REQ_TIMEOUT_US);
	}
	ut.nb_rules = 0;
	ut_advance(100 * UT_REQ_TIMEOUT_US);
	sa = ut_stats(UT_A);
	sb = ut_stats(UT_B);
	CU_ASSERT_EQUAL(sa.ids, 0);
	CU_ASSERT_EQUAL(sb.ids, 1);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_REQ_RECEIVED], 1000);
	CU_ASSERT(sa.retries + sb.retries > 0);
	CU_ASSERT_EQUAL(sa.timeouts + sb.timeouts, 0);
	CU_ASSERT_EQUAL(sa.stale + sb.stale, 0);
	pv_ib_cm_destroy_id(ut_listen_id);
	CU_ASSERT_EQUAL(ut_stats(UT_B).ids, 0);
	CU_ASSERT_EQUAL(ut.next_us, UINT64_MAX);
	ut_fini();
}

/* pv_ib_cm_free() with ids in every kind of state frees them all (valgrind) */
static void
test_free_with_live_ids(void)
{
	ut_init();
	ut_connect();
	ut_connect_start(UT_SID, UT_QPN_A + 1);		/* REQ_SENT + REP_SENT... */
	ut_connect_start(UT_SID + 5, UT_QPN_A + 2);	/* rejected: IDLE */
	ut_sidr_start(UT_SID);
	ut_release();
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Against Linux's MADs (shared/data/rxe: rxe on kernel 6.1)               */
/* ---------------------------------------------------------------------- */

static const char *ut_data_dir;	/* argv[1]: the capture corpus */

/* the CM MADs of capture @p name (classic pcap; Ethernet, IPv4, UDP to
 * 4791, BTH UD SEND Only, DETH: the MAD at byte 62); -1 without it */
static int
ut_capture_mads(const char *name, uint8_t mads[][PV_MAD_SIZE], int max)
{
	uint8_t ghdr[24], rec[16], frame[2048];
	char path[1024];
	uint32_t incl;
	int n = 0;
	FILE *f;

	if (ut_data_dir == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", ut_data_dir, name);
	f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	if (fread(ghdr, 1, sizeof(ghdr), f) != sizeof(ghdr) ||
	    memcmp(ghdr, "\xd4\xc3\xb2\xa1", 4) != 0) {
		fclose(f);
		return -1;
	}
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		incl = rec[8] | rec[9] << 8 | rec[10] << 16 | (uint32_t)rec[11] << 24;
		if (incl > sizeof(frame) || fread(frame, 1, incl, f) != incl)
			break;
		if (incl >= 62 + PV_MAD_SIZE && frame[12] == 0x08 && frame[13] == 0x00 &&
		    frame[23] == 17 && (frame[36] << 8 | frame[37]) == 4791 &&
		    frame[42] == 0x64 && n < max)
			memcpy(mads[n++], frame + 62, PV_MAD_SIZE);
	}
	fclose(f);
	return n;
}

static int
ut_have_captures(void)
{
	uint8_t m[1][PV_MAD_SIZE];

	return ut_capture_mads("cm_reject.pcap", m, 1) == 1;
}

/* a comm ID at MAD byte @p off (the data starts at 24), big endian */
static void
ut_put_id(uint8_t *mad, unsigned int off, uint32_t id)
{
	mad[off] = (uint8_t)(id >> 24);
	mad[off + 1] = (uint8_t)(id >> 16);
	mad[off + 2] = (uint8_t)(id >> 8);
	mad[off + 3] = (uint8_t)id;
}

/* the lower TID half Linux makes of comm ID @p id: its bytes, reversed */
static void
ut_put_tid(uint8_t *mad, uint32_t id)
{
	mad[12] = (uint8_t)id;
	mad[13] = (uint8_t)(id >> 8);
	mad[14] = (uint8_t)(id >> 16);
	mad[15] = (uint8_t)(id >> 24);
}

static void
ut_recv_mad(int to, const uint8_t *mad)
{
	struct pv_ib_cm_av av;

	ut_av(!to, to, &av);
	pv_ib_cm_recv(ut.side[to].cm, mad, PV_MAD_SIZE, &av);
	ut_settle();
}

#define UT_SAME_MAD(got, want) do { \
	CU_ASSERT_EQUAL(memcmp(got, want, PV_MAD_SIZE), 0); \
	for (unsigned int k_ = 0; k_ < PV_MAD_SIZE; k_++) \
		if ((got)[k_] != (want)[k_]) { \
			fprintf(stderr, "\n  byte %u: 0x%02x, Linux 0x%02x", k_, \
				(got)[k_], (want)[k_]); \
			break; \
		} \
} while (0)

/* cm_reject: Linux's REQ for a port nobody listens on; our REJ is the
 * one vm1's kernel sent, byte for byte */
static void
test_capture_reject(void)
{
	uint8_t m[2][PV_MAD_SIZE];

	CU_ASSERT_EQUAL_FATAL(ut_capture_mads("cm_reject.pcap", m, 2), 2);
	ut_init();
	ut.drop_all[1] = 1;
	ut_recv_mad(1, m[0]);
	UT_WIRE("B>REJ*");
	UT_SAME_MAD(ut.trace[0].mad, m[1]);
	ut_fini();
}

/*
 * cm_mra, vm1's side: Linux's REQ, its retry, then the rest of vm2's MADs
 * (sent to our comm ID); what we send is what vm1 sent but for our comm ID
 * (and the TID of our own DREQ): the delayed MRA, the REP, the DREQ, the
 * DREP answering the crossing DREQ.
 */
static void
test_capture_passive(void)
{
	uint8_t m[8][PV_MAD_SIZE], want[PV_MAD_SIZE], in[PV_MAD_SIZE];
	struct pv_ib_cm_id *b;
	struct pv_cm_msg rep;

	CU_ASSERT_EQUAL_FATAL(ut_capture_mads("cm_mra.pcap", m, 8), 8);
	ut_init();
	ut.drop_all[1] = 1;
	UT_B->on_req = UT_REQ_MRA_DELAY;
	ut_recv_mad(1, m[0]);
	b = UT_B->conn;
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_MRA_REQ_SENT);
	CU_ASSERT_EQUAL(b->remote_id, 0x41a8f8c8);
	CU_ASSERT_EQUAL(b->remote_qpn, 0x000023);
	CU_ASSERT_EQUAL(ut.nb_trace, 0);
	ut_recv_mad(1, m[1]);
	UT_WIRE("B>MRA*");
	memcpy(want, m[2], PV_MAD_SIZE);
	ut_put_id(want, 24, b->local_id);
	UT_SAME_MAD(ut.trace[0].mad, want);

	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_decode(m[3], PV_MAD_SIZE, &rep), 0);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rep(b, &rep.rep), 0);
	ut_settle();
	memcpy(want, m[3], PV_MAD_SIZE);
	ut_put_id(want, 24, b->local_id);
	UT_SAME_MAD(ut.trace[1].mad, want);

	memcpy(in, m[4], PV_MAD_SIZE);		/* RTU */
	ut_put_id(in, 28, b->local_id);
	ut_recv_mad(1, in);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_RTU_RECEIVED], 1);

	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(b, NULL, 0), 0);
	ut_settle();
	memcpy(want, m[5], PV_MAD_SIZE);
	ut_put_id(want, 24, b->local_id);
	ut_put_tid(want, b->local_id);
	UT_SAME_MAD(ut.trace[2].mad, want);

	memcpy(in, m[6], PV_MAD_SIZE);		/* vm2's DREQ, crossing ours */
	ut_put_id(in, 28, b->local_id);
	ut_recv_mad(1, in);
	UT_WIRE("B>MRA* B>REP* B>DREQ* B>DREP*");
	memcpy(want, m[7], PV_MAD_SIZE);
	ut_put_id(want, 24, b->local_id);
	UT_SAME_MAD(ut.trace[3].mad, want);
	CU_ASSERT_EQUAL(b->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_B->ev_count[PV_IB_CM_DREQ_RECEIVED], 1);
	ut_fini();
}

/* cm_rdma_server, vm2's side: our REQ, RTU and DREQ are vm2's but for our
 * comm ID and the TID made of it */
static void
test_capture_active(void)
{
	uint8_t m[5][PV_MAD_SIZE], want[PV_MAD_SIZE], in[PV_MAD_SIZE];
	struct pv_ib_cm_id *a;
	struct pv_ib_cm_av av;
	struct pv_cm_msg req;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(ut_capture_mads("cm_rdma_server.pcap", m, 5), 5);
	ut_init();
	ut.drop_all[0] = 1;
	UT_A->auto_rtu = 0;
	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_decode(m[0], PV_MAD_SIZE, &req), 0);
	a = pv_ib_cm_create_id(UT_A->cm, ut_handler, UT_A);
	ut_av(1, 0, &av);
	CU_ASSERT_EQUAL_FATAL(pv_ib_cm_send_req(a, &req.req, &av), 0);
	ut_settle();
	memcpy(in, m[1], PV_MAD_SIZE);		/* REP */
	ut_put_id(in, 28, a->local_id);
	ut_recv_mad(0, in);
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_REP_RCVD);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rtu(a, NULL, 0), 0);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	ut_settle();
	memcpy(in, m[4], PV_MAD_SIZE);		/* DREP */
	ut_put_id(in, 28, a->local_id);
	ut_recv_mad(0, in);
	UT_WIRE("A>REQ* A>RTU* A>DREQ*");
	for (i = 0; i < 3; i++) {
		memcpy(want, m[i == 0 ? 0 : i + 1], PV_MAD_SIZE);
		ut_put_id(want, 24, a->local_id);
		ut_put_tid(want, a->local_id);
		UT_SAME_MAD(ut.trace[i].mad, want);
	}
	CU_ASSERT_EQUAL(a->state, PV_IB_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(UT_A->ev_count[PV_IB_CM_DREP_RECEIVED], 1);
	ut_fini();
}

/* ---------------------------------------------------------------------- */
/* Calls and their errors                                                  */
/* ---------------------------------------------------------------------- */

/* PV_CM_RESPONSE_TIMEOUT, PV_CM_MAX_RETRIES, PV_CM_TIMEWAIT_MS: decimals in
 * range or ignored (with one log line per variable) */
static void
test_tunables_env(void)
{
	static const struct {
		const char *rt, *mr, *tw;	/* NULL: unset */
		uint8_t rt_want, mr_want;
		uint64_t tw_want_us;
	} c[] = {
		{ NULL, NULL, NULL, 20, 15, 0 },
		{ "12", "3", "250", 12, 3, 250000 },
		{ "0", "0", "0", 0, 0, 0 },
		{ "31", "15", "3600000", 31, 15, UINT64_C(3600000000) },
		{ "32", "-1", "5ms", 20, 15, 0 },
		{ "", "16", " 5", 20, 15, 0 },
		{ "99999999999999999999999", "0x3", "3600001", 20, 15, 0 },
		{ "+5", "3 ", "-0", 20, 15, 0 },
	};
	struct pv_ib_cm_tunables t;
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		if (c[i].rt == NULL) {
			unsetenv("PV_CM_RESPONSE_TIMEOUT");
			unsetenv("PV_CM_MAX_RETRIES");
			unsetenv("PV_CM_TIMEWAIT_MS");
		} else {
			setenv("PV_CM_RESPONSE_TIMEOUT", c[i].rt, 1);
			setenv("PV_CM_MAX_RETRIES", c[i].mr, 1);
			setenv("PV_CM_TIMEWAIT_MS", c[i].tw, 1);
		}
		memset(&t, 0xff, sizeof(t));
		pv_ib_cm_tunables_default(&t);
		CU_ASSERT_EQUAL(t.cm_response_timeout, c[i].rt_want);
		CU_ASSERT_EQUAL(t.max_cm_retries, c[i].mr_want);
		CU_ASSERT_EQUAL(t.timewait_us, c[i].tw_want_us);
		CU_ASSERT_EQUAL(t.packet_life_time, 18);
		CU_ASSERT_EQUAL(t.mra_service_timeout, 24);
	}
	unsetenv("PV_CM_RESPONSE_TIMEOUT");
	unsetenv("PV_CM_MAX_RETRIES");
	unsetenv("PV_CM_TIMEWAIT_MS");
	pv_ib_cm_tunables_default(NULL);
}

static void
test_create_errors(void)
{
	struct pv_ib_cm_transport no_send = { .now_us = ut_now };
	struct pv_ib_cm_tunables tun;
	struct pv_ib_cm *cm;

	ut_tunables(&tun);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_ib_cm_create(NULL, NULL, 1, &tun));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_ib_cm_create(&no_send, NULL, 1, &tun));
	CU_ASSERT_EQUAL(errno, EINVAL);
	tun.max_cm_retries = 16;
	CU_ASSERT_PTR_NULL(pv_ib_cm_create(&ut_transport, NULL, 1, &tun));
	CU_ASSERT_EQUAL(errno, EINVAL);
	ut_tunables(&tun);
	tun.cm_response_timeout = 32;
	CU_ASSERT_PTR_NULL(pv_ib_cm_create(&ut_transport, NULL, 1, &tun));
	cm = pv_ib_cm_create(&ut_transport, NULL, 1, NULL);	/* the defaults */
	CU_ASSERT_PTR_NOT_NULL(cm);
	CU_ASSERT_PTR_NULL(pv_ib_cm_create_id(NULL, ut_handler, NULL));
	CU_ASSERT_EQUAL(pv_ib_cm_timers(cm), UINT64_MAX);
	CU_ASSERT_EQUAL(pv_ib_cm_timers(NULL), UINT64_MAX);
	pv_ib_cm_free(cm);
	pv_ib_cm_free(NULL);
	pv_ib_cm_destroy_id(NULL);
	CU_ASSERT_STRING_EQUAL(pv_ib_cm_state_str(PV_IB_CM_MRA_REP_RCVD), "MRA_REP_RCVD");
	CU_ASSERT_STRING_EQUAL(pv_ib_cm_state_str((enum pv_ib_cm_state)99), "unknown");
}

/* every call refuses the states it does not belong to, and bad arguments */
static void
test_call_errors(void)
{
	uint8_t big[PV_CM_RTU_PRIVATE_DATA_SIZE + 1] = { 0 };
	struct pv_ib_cm_tunables tun;
	struct pv_cm_sidr_req sreq;
	struct pv_cm_sidr_rep srep;
	struct pv_ib_cm_id *a, *b, *x;
	struct pv_ib_cm_av av;
	struct pv_cm_req req;
	struct pv_cm_rep rep;

	ut_init();
	ut_tunables(&tun);
	ut_req_fill(&req, UT_SID, UT_QPN_A, &tun);
	memset(&rep, 0, sizeof(rep));
	memset(&sreq, 0, sizeof(sreq));
	memset(&srep, 0, sizeof(srep));
	ut_av(1, 0, &av);
	x = pv_ib_cm_create_id(UT_B->cm, ut_handler, UT_B);
	CU_ASSERT_EQUAL(pv_ib_cm_listen(x, UT_SID, UINT64_MAX), -EBUSY);
	CU_ASSERT_EQUAL(pv_ib_cm_listen(x, UT_SID & ~UINT64_C(0xffff), ~UINT64_C(0xffff)),
			-EBUSY);	/* a range holding the listener's ID */
	CU_ASSERT_EQUAL(pv_ib_cm_listen(x, UT_SID + 1, 0), 0);	/* 0: exact */
	CU_ASSERT_EQUAL(pv_ib_cm_listen(x, UT_SID + 2, 0), -EINVAL);	/* not IDLE */
	CU_ASSERT_EQUAL(pv_ib_cm_listen(NULL, UT_SID, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_req(x, &req, &av), -EINVAL);

	a = ut_connect();
	b = UT_B->conn;
	CU_ASSERT_EQUAL(pv_ib_cm_send_req(a, &req, &av), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_req(NULL, &req, &av), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rep(a, &rep), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rep(b, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rtu(a, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_rej(a, PV_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0),
			-EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_mra(a, 24, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_drep(a, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_sidr_req(a, &sreq, &av), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_sidr_rep(a, &srep), -EINVAL);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, big, sizeof(big) - 4), -EINVAL);	/* > 220 */
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(ut.nb_trace, 3);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), 0);
	CU_ASSERT_EQUAL(pv_ib_cm_send_dreq(a, NULL, 0), -EINVAL);
	ut_settle();
	CU_ASSERT_EQUAL(pv_ib_cm_send_drep(b, NULL, 0), -EINVAL);	/* TimeWait */
	CU_ASSERT_EQUAL(pv_ib_cm_send_rej(b, 28, big, PV_CM_REJ_ARI_LENGTH + 1, NULL, 0),
			-EINVAL);
	ut_fini();
}

static const struct ut_case ut_cm_ib_cases[] = {
	{ "connect_disconnect", test_connect_disconnect, NULL },
	{ "passive_disconnect", test_passive_disconnect, NULL },
	{ "two_connections_in_parallel", test_two_connections_in_parallel, NULL },
	{ "lost_req", test_lost_req, NULL },
	{ "lost_rep", test_lost_rep, NULL },
	{ "lost_rep_dup_req", test_lost_rep_dup_req, NULL },
	{ "lost_rtu", test_lost_rtu, NULL },
	{ "dup_req", test_dup_req, NULL },
	{ "dup_everything", test_dup_everything, NULL },
	{ "mra_delayed", test_mra_delayed, NULL },
	{ "mra_stretches_retries", test_mra_stretches_retries, NULL },
	{ "req_timeout", test_req_timeout, NULL },
	{ "rep_timeout", test_rep_timeout, NULL },
	{ "rej_no_listener", test_rej_no_listener, NULL },
	{ "consumer_reject", test_consumer_reject, NULL },
	{ "handler_fails_req", test_handler_fails_req, NULL },
	{ "crossing_dreqs", test_crossing_dreqs, NULL },
	{ "lost_dreq", test_lost_dreq, NULL },
	{ "lost_drep", test_lost_drep, NULL },
	{ "dreq_timeout", test_dreq_timeout, NULL },
	{ "timewait_exit", test_timewait_exit, NULL },
	{ "destroy_in_timewait", test_destroy_in_timewait, NULL },
	{ "destroy_states", test_destroy_states, NULL },
	{ "stale_req", test_stale_req, NULL },
	{ "req_in_timewait", test_req_in_timewait, NULL },
	{ "reorder_dreq_before_rtu", test_reorder_dreq_before_rtu, NULL },
	{ "reorder_rep_before_mra", test_reorder_rep_before_mra, NULL },
	{ "reorder_late_drep", test_reorder_late_drep, NULL },
	{ "user_established", test_user_established, NULL },
	{ "lap_apr_unsupported", test_lap_apr_unsupported, NULL },
	{ "class_port_info", test_class_port_info, NULL },
	{ "malformed", test_malformed, NULL },
	{ "sidr", test_sidr, NULL },
	{ "sidr_timeout", test_sidr_timeout, NULL },
	{ "cycles", test_cycles, NULL },
	{ "free_with_live_ids", test_free_with_live_ids, NULL },
	{ "capture_reject", test_capture_reject, ut_have_captures },
	{ "capture_passive", test_capture_passive, ut_have_captures },
	{ "capture_active", test_capture_active, ut_have_captures },
	{ "tunables_env", test_tunables_env, NULL },
	{ "create_errors", test_create_errors, NULL },
	{ "call_errors", test_call_errors, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite ut_cm_ib_suite = { "cm_ib", NULL, NULL, ut_cm_ib_cases };

/* argv[1]: the directory of the rxe captures (without it, or them, the
 * capture cases are left out) */
int
main(int argc, char **argv)
{
	if (argc > 1)
		ut_data_dir = argv[1];
	return ut_cunit_run_one(&ut_cm_ib_suite);
}

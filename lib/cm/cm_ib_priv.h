/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The IB CM's internals, shared by cm_ib.c (ids, tables, timers, the
 * owner's calls) and cm_ib_recv.c (what a received MAD does). See cm_ib.c
 * for how the tables and timers are used.
 */

#ifndef PV_LIB_CM_CM_IB_PRIV_H
#define PV_LIB_CM_CM_IB_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_log.h>

#include "cm_ib.h"

/* lib/cm's log type, pv.cm (registered in cm_oob.c) */
extern int pv_cm_logtype;
#define RTE_LOGTYPE_PV_CM pv_cm_logtype
#define CM_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_CM, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* Upper half of the TIDs we start: Linux's CM on rxe shows 2 there (the
 * captures of shared/data/rxe); only we read it back, in our own logs. */
#define CM_TID_HI		2u

#define CM_HASH_BITS		10
#define CM_HASH_SIZE		(1u << CM_HASH_BITS)

/* the largest private data we keep for a re-send (MRA 222, RTU/DREP 224) */
#define CM_PDATA_MAX		PV_CM_RTU_PRIVATE_DATA_SIZE

enum cm_timer {
	CM_TIMER_NONE,
	CM_TIMER_RETX,		/* out[] waits for its answer */
	CM_TIMER_TIMEWAIT,	/* the end of TimeWait */
};

struct cm_id_priv {
	struct pv_ib_cm_id id;			/* what the owner sees */
	struct pv_ib_cm *cm;
	LIST_ENTRY(cm_id_priv) local_link;	/* cm->local: every id */
	LIST_ENTRY(cm_id_priv) remote_link;	/* cm->remote, while in_remote */
	LIST_ENTRY(cm_id_priv) qpn_link;	/* cm->qpn, while in_qpn */
	LIST_ENTRY(cm_id_priv) list_link;	/* cm->listeners or cm->sidr_rcvd */
	TAILQ_ENTRY(cm_id_priv) timer_link;	/* cm->timers, while timer armed */
	bool in_remote;
	bool in_qpn;
	bool in_list;
	bool destroyed;		/* the owner let go: no handler call again */
	enum cm_timer timer;
	uint64_t due_us;
	uint64_t service_mask;	/* LISTEN */
	uint64_t tid;		/* of the exchange the next answer belongs to */
	/* the MAD waiting for its answer, and how it is retried */
	uint8_t out[PV_MAD_SIZE];
	enum pv_ib_cm_state out_state;	/* the state it belongs to */
	uint64_t out_timeout_us;
	uint8_t retries_left;
	/* the connection's timing (Linux cm_id_private timeout_ms, av.timeout) */
	uint64_t conn_timeout_us;	/* REQ/REP and later DREQ retry interval */
	uint8_t max_cm_retries;
	uint8_t ack_timeout;		/* exponent: TimeWait, MRA slack */
	/* what a duplicate is answered with */
	uint8_t service_timeout;	/* of our MRA (5 bits) */
	uint8_t pdata_len;		/* of our last MRA, RTU or DREP */
	uint8_t pdata[CM_PDATA_MAX];
};

LIST_HEAD(cm_id_list, cm_id_priv);

struct pv_ib_cm {
	struct pv_ib_cm_transport t;
	void *t_ctx;
	uint64_t ca_guid;
	struct pv_ib_cm_tunables tun;
	uint32_t id_next;	/* local comm IDs: a counter ... */
	uint32_t id_xor;	/* ... xored with a random word (as Linux) */
	struct cm_id_list local[CM_HASH_SIZE];
	struct cm_id_list remote[CM_HASH_SIZE];
	struct cm_id_list qpn[CM_HASH_SIZE];
	struct cm_id_list listeners;
	struct cm_id_list sidr_rcvd;	/* SIDR_REQ_RCVD: duplicate SIDR_REQs */
	TAILQ_HEAD(, cm_id_priv) timers;
	struct pv_ib_cm_stats stats;
};

static inline struct cm_id_priv *
pv_ib_cm_priv(struct pv_ib_cm_id *id)
{
	return container_of(id, struct cm_id_priv, id);
}

/* 4.096 us * 2^x, which Linux (cm_convert_to_ms) rounds to 2^(x - 8) ms:
 * its peers time out by that, and so do we. */
static inline uint64_t
pv_ib_cm_time_us(unsigned int x)
{
	return UINT64_C(1000) << (x > 8 ? x - 8 : 0);
}

/*
 * Local ACK timeout exponent from the peer's ACK delay and the packet life
 * time: 4.096 us * 2^t must cover 2^ack_delay + 2 * 2^life (IBA 12.7.34,
 * 9.7.6.1.3). 2 * 2^life is 2^(life + 1); the larger of the two terms
 * decides, one more when the other is at least half of it.
 */
static inline uint8_t
pv_ib_cm_ack_timeout(uint8_t ack_delay, uint8_t life)
{
	unsigned int two_life = life + 1u, t;

	if (two_life >= ack_delay)
		t = two_life + (ack_delay + 1u >= two_life);
	else
		t = ack_delay + (two_life + 1u >= ack_delay);
	return (uint8_t)RTE_MIN(t, 31u);
}

/* tables (cm_ib.c) */
struct cm_id_priv *pv_ib_cm_id_find(struct pv_ib_cm *cm, uint32_t local_id);
/* @p local_id's id if its remote comm ID is @p remote_id (0: not known yet) */
struct cm_id_priv *pv_ib_cm_id_lookup(struct pv_ib_cm *cm, uint32_t local_id,
				      uint32_t remote_id);
struct cm_id_priv *pv_ib_cm_id_find_remote(struct pv_ib_cm *cm, uint32_t remote_id,
					   uint64_t ca_guid);
struct cm_id_priv *pv_ib_cm_id_find_qpn(struct pv_ib_cm *cm, uint32_t qpn, uint64_t ca_guid);
/* into the remote and QPN tables, by the id's remote_* fields */
void pv_ib_cm_id_remote_insert(struct cm_id_priv *p);
struct cm_id_priv *pv_ib_cm_id_alloc(struct pv_ib_cm *cm, pv_ib_cm_handler handler,
				     void *context);
void pv_ib_cm_id_free(struct cm_id_priv *p);

/* timers */
void pv_ib_cm_timer_set(struct cm_id_priv *p, enum cm_timer kind, uint64_t in_us);
void pv_ib_cm_timer_cancel(struct cm_id_priv *p);

/* sending */
void pv_ib_cm_hdr_fill(struct pv_cm_msg *msg, uint16_t attr_id, uint64_t tid);
int pv_ib_cm_msg_send(struct pv_ib_cm *cm, const struct pv_cm_msg *msg,
		      const struct pv_ib_cm_av *av);
void pv_ib_cm_mad_send(struct pv_ib_cm *cm, const uint8_t mad[PV_MAD_SIZE],
		       const struct pv_ib_cm_av *av);
void pv_ib_cm_msg_log(const char *dir, const struct pv_cm_msg *msg);
/* an MRA of @p p's message @p msg_mraed with its kept timeout and data */
void pv_ib_cm_mra_fill(struct pv_cm_msg *msg, const struct cm_id_priv *p, uint8_t msg_mraed);
/* a REJ of @p p leaving state @p state */
void pv_ib_cm_rej_fill(struct pv_cm_msg *msg, const struct cm_id_priv *p,
		       enum pv_ib_cm_state state, uint16_t reason, const void *ari,
		       uint8_t ari_len, const void *pdata, uint8_t len);
/* DREQ_SENT: a DREQ, retried */
void pv_ib_cm_dreq_send(struct cm_id_priv *p, const void *pdata, uint8_t len);

/* state changes */
void pv_ib_cm_state_set(struct cm_id_priv *p, enum pv_ib_cm_state s);
void pv_ib_cm_idle_reset(struct cm_id_priv *p);
void pv_ib_cm_timewait_enter(struct cm_id_priv *p);
/* the owner's handler; a nonzero return destroys @p p */
void pv_ib_cm_event_deliver(struct cm_id_priv *p, const struct pv_ib_cm_event *ev);

#endif /* PV_LIB_CM_CM_IB_PRIV_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce private definitions: device, PD, MR, CQ, QP and the engine state.
 * Private to drivers/softroce.
 *
 * Layout (one device = one ethdev port; one engine per RX/TX queue pair of
 * it, devarg queues=, struct sroce_eng):
 *   sroce_dev.c    probe, ethdev, open/close, query_*, stats, fault injection
 *   sroce_arp.c    neighbour layer: ARP responder and non-blocking resolver,
 *                  frames queued for unresolved neighbours, aging
 *   sroce_mr.c     PD, MR, lkey/rkey table and remote access checks
 *   sroce_cq.c     CQ ring, poll_cq, req_notify_cq
 *   sroce_qp.c     QP create/modify/query/destroy, post_send/post_recv, flush
 *   sroce_srq.c    shared receive queues: create/modify/query/destroy,
 *                  post_srq_recv, the limit event
 *   sroce_req.c    requester (segmentation, TX of WQEs; UC and UD complete
 *                  on transmission) and RC completer (ACK, NAK, READ/atomic
 *                  responses, retransmit and RNR timers)
 *   sroce_resp.c   responder (placement, rkey checks, ACK/NAK, READ and
 *                  atomic responses; receive WQEs from the RQ or an SRQ;
 *                  UC and UD receive)
 *   sroce_ud.c     address handles
 *   sroce_net.c    progress loop: RX burst, dispatch, TX burst, pcapng capture
 *   sroce_bg.c     thread-safe mode: the device's rte_service, run by the
 *                  progress thread when no application thread progresses
 *                  the device (hand-over, sleep hints)
 *   sroce_fp.h     per-packet inline helpers (queues, copies, frames)
 *
 * One path per direction: post_send, the requester and the responder are
 * each one static inline body taking const QP-type flags (enum sroce_qpf),
 * with a named wrapper per variant chosen at QP create.
 */

#ifndef PV_DRIVERS_SOFTROCE_SROCE_PRIV_H
#define PV_DRIVERS_SOFTROCE_SROCE_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "pv_rtc.h"
#include "pv_rtc_internal.h"
#include "pv_verbs.h"
#include "pv_verbs_driver.h"

#include "pv_sroce.h"
#include "sroce_wire.h"

/*
 * Debug builds (-O0, as the ASan build: --buildtype=debug) and builds with
 * RTE_ENABLE_ASSERT check the data path's threading rules and invariants;
 * optimized builds compile the checks out. (Debian's DPDK does not define
 * RTE_ENABLE_ASSERT, so RTE_ASSERT alone would be off in every build.)
 */
#if defined(RTE_ENABLE_ASSERT) || !defined(__OPTIMIZE__)
#define SROCE_DEBUG 1
#define SROCE_ASSERT(x) RTE_VERIFY(x)
#else
#define SROCE_ASSERT(x) do { } while (0)
#endif

extern int pv_sroce_logtype;
#define RTE_LOGTYPE_PV_SROCE pv_sroce_logtype
#define SROCE_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_SROCE, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define SROCE_DP_LOG(lvl, fmt, ...) \
	RTE_LOG_DP(lvl, PV_SROCE, fmt "\n", ##__VA_ARGS__)

/* limits reported by query_device (section "Limits" of softroce.rst) */
#define SROCE_MAX_DEVS		8
#define SROCE_MAX_QUEUES	16	/* ceiling of devarg queues= (engines) */
#define SROCE_STEER_RING	1024	/* frames steered to an engine, waiting */
#define SROCE_QPN_BASE		0x11	/* first QPN, as rxe */
#define SROCE_MAX_QP		65536	/* default and ceiling of devarg max_qp= */
#define SROCE_MAX_MR		((1u << 20) - 1)	/* default and ceiling of max_mr= */
/* memory windows: rkey bit 31 set, 12 index bits at bit 8 (see struct sroce_mw) */
#define SROCE_MW_KEY_BIT	0x80000000u
#define SROCE_MW_IDX_BITS	12
#define SROCE_MAX_MW		((1u << SROCE_MW_IDX_BITS) - 1)	/* index 0 unused */
#define SROCE_MAX_QP_WR		16384
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	256
#define SROCE_MAX_CQ		256
#define SROCE_MAX_CQE		65536
#define SROCE_MAX_SRQ		256
#define SROCE_SRQN_BASE		0x100	/* XRC SRQ numbers: base + slot */
#define SROCE_MAX_SRQ_WR	16384
#define SROCE_MAX_RD_ATOMIC	16
#define SROCE_MAX_MSG		0x80000000u
#define SROCE_MIN_ACK_TIMEOUT_US 4000	/* shortest local ACK timeout (rxe: a jiffy, HZ=250) */
#define SROCE_MAX_IP6		8	/* ip6= addresses of a device */
/* GID table, in rxe's order: 0 fe80::EUI-64, 1 ::ffff:a.b.c.d, then the ip6= ones */
#define SROCE_GID_LL		0
#define SROCE_GID_IPV4		1
#define SROCE_GID_TBL_LEN	(2 + SROCE_MAX_IP6)

/* engine tuning */
#define SROCE_RX_BURST		32
#define SROCE_TX_RING		1024	/* frames waiting for rte_eth_tx_burst */
#define SROCE_TX_BUDGET		256	/* frames one QP may queue per pass */
#define SROCE_WINDOW		512	/* unacknowledged packets per QP */
#define SROCE_ACK_EVERY		32	/* AckReq at least every N packets */
#define SROCE_MBUF_CACHE	512	/* the maximum: a 256-frame TX pass stays hot */
#define SROCE_NB_MBUF		8192
#define SROCE_NB_RXD		1024
#define SROCE_NB_TXD		1024
#define SROCE_FRAME_MAX		(SROCE_L2L4_HLEN_MAX + SROCE_BTH_LEN + SROCE_ATMETH_LEN + \
				 SROCE_IMM_LEN + 4096 + SROCE_ICRC_LEN)
/* data room: headroom + the largest RoCE frame at MTU 4096, rounded up */
#define SROCE_MBUF_DATA		(RTE_PKTMBUF_HEADROOM + 4352)
#define SROCE_HDR_TMPL_LEN	(SROCE_L2L4_HLEN + SROCE_BTH_LEN)	/* 54: Eth/IPv4/UDP/BTH */
/* room of a header template: Eth/802.1Q/IPv6/UDP/BTH is 78; copied whole */
#define SROCE_HDR_TMPL_MAX	80
#define SROCE_LO_RING		1024	/* loopback frames waiting for the RX pass */

#define SROCE_NEIGH_MAX		64	/* neighbour entries per device */
#define SROCE_NEIGH_QLEN	64	/* frames queued per unresolved neighbour */
#define SROCE_MAX_AH		65536	/* reported max_ah; AHs are not in a table */
#define SROCE_GRH_LEN		40	/* GRH area at the start of a UD receive buffer */

struct sroce_dev;
struct sroce_qp;

/** Neighbour states, as Linux's (NUD_*); sroce_arp.c says what each means. */
enum sroce_neigh_state {
	SROCE_NEIGH_FREE = 0,
	SROCE_NEIGH_INCOMPLETE,
	SROCE_NEIGH_REACHABLE,
	SROCE_NEIGH_STALE,
	SROCE_NEIGH_FAILED,
};

/**
 * Neighbour entry: IP address (16 bytes, network order; IPv4 as ::ffff:a.b.c.d)
 * -> MAC, and frames waiting for it. ARP resolves IPv4, NDP IPv6.
 */
struct sroce_neigh {
	uint8_t ip[16];
	struct rte_ether_addr mac;
	uint8_t state;			/* enum sroce_neigh_state */
	uint8_t probes;			/* requests sent by this resolution */
	uint16_t nq;			/* frames in q[] */
	uint64_t timer_tsc;		/* next retry (INCOMPLETE) or aging (REACHABLE, STALE) */
	uint64_t resolve_tsc;		/* when this resolution started */
	struct rte_mbuf *q[SROCE_NEIGH_QLEN];
};

#define SROCE_MR_CHUNK_SHIFT	12

/** 4096 key slots: a chunk of a device's MR table, allocated when first used. */
struct sroce_mr_chunk {
	struct sroce_mr *mr[1u << SROCE_MR_CHUNK_SHIFT];
	uint32_t last_key[1u << SROCE_MR_CHUNK_SHIFT];	/* a slot's previous key */
};

enum { SROCE_FAULT_TX, SROCE_FAULT_RX };

/** Random faults of one direction: generator and frames held back (sroce_net.c). */
struct sroce_fault_q {
	uint64_t rng;			/* xorshift64* state */
	uint64_t reorder_tsc;		/* fault.<dir>.reorder_us in TSC cycles */
	uint64_t delay_tsc;
	uint32_t n;			/* entries used in held[] */
	uint8_t on;			/* the direction has a fault */
	struct {
		struct rte_mbuf *m;
		uint64_t due_tsc;
	} held[PV_SROCE_FAULT_HOLD];
};

/**
 * An engine: one RX/TX queue pair of the port and the QPs it progresses
 * (devarg queues=N gives a device N of them, softroce.rst "Queues").
 * A QP belongs to the engine of its send CQ, a CQ to engine comp_vector %
 * queues; an engine's RX burst hands the frames of other engines' QPs to
 * their steering rings. Everything here is the engine's thread's (app
 * mode) or under @c lock (thread-safe mode).
 */
struct sroce_eng {
	struct sroce_dev *dev;
	uint16_t queue_id;		/* the port's RX and TX queue */
	uint16_t tx_head;		/* first frame of tx_ring not yet handed to the PMD */
	uint16_t tx_tail;		/* next free slot */
	uint16_t tx_seen;		/* tx_hook on: first frame not yet filtered/captured */
	uint16_t lo_head;		/* loopback: first frame not yet received */
	uint16_t lo_tail;		/* loopback: next free slot of lo_ring */
	uint8_t in_progress;		/* progress re-entry guard */
	uint8_t rx_cqe;			/* this pass completed an RC receive */
	uint8_t tx_held;		/* the last pass left its frames to this one */
	uint32_t nb_qps;		/* entries used in qps[] */
	struct sroce_qp **qps;		/* [max_qp + 1] QPs in RTR, RTS or ERR (+ QP1) */
	struct rte_ring *steer;		/* frames of our QPs another engine received (MP/SC) */
	rte_spinlock_t steer_lock;	/* ThreadSanitizer builds only: sroce_steer_*() */
	struct pv_sroce_stats stats;	/* summed over the engines by pv_sroce_stats_get() */
	/* debug builds: the thread driving the data path (sroce_owner_check()) */
	pthread_t owner;
	uint8_t owner_set;
	/*
	 * Thread-safe mode: every data-path verb takes the lock of the engine
	 * of its queue, control verbs take every engine's (sroce_dev_lock()).
	 * app_seq moves with the application's progress calls; the progress
	 * thread runs an engine (sroce_bg.c) once it stops moving.
	 */
	rte_spinlock_t lock;
	uint32_t app_seq;		/* bumped by application progress (atomic store) */
	uint32_t bg_seq;		/* app_seq at the service's last look */
	uint32_t bg_idle;		/* idle service passes in a row */
	struct rte_mbuf *tx_ring[SROCE_TX_RING];
	struct rte_mbuf *lo_ring[SROCE_LO_RING];	/* frames to our own addresses */
} __rte_cache_aligned;

/** A softroce device: one ethdev port, served by nb_eng engines. */
struct sroce_dev {
	struct pv_device ibdev;		/* must be first */
	/* hot, data path */
	uint16_t port_id;
	uint8_t verify_icrc;
	uint8_t tx_hook;		/* capture or TX fault injection: sroce_tx_hook() */
	uint8_t vlan_on;		/* devarg vlan=: frames carry an 802.1Q tag */
	uint16_t vid;			/* the VLAN ID of vlan=, 0 without it */
	uint16_t vlan_tci;		/* PCP << 13 | VID, the tag we send */
	uint16_t nb_eng;		/* devarg queues=, 1 .. SROCE_MAX_QUEUES */
	struct sroce_eng *eng;		/* [nb_eng] */
	struct rte_mempool *mp;
	rte_pcapng_t *pcapng;		/* capture file (pcap= devarg), NULL = off */
	struct sroce_qp **qp_tbl;	/* [max_qp] by qpn - SROCE_QPN_BASE */
	struct sroce_qp *gsi_qp;	/* QP1 (create_gsi_qp), NULL: none */
	uint32_t max_qp;		/* devarg max_qp=, sizes qps[] and qp_tbl[] */
	uint32_t qp_next;		/* qp_tbl[] slot to try first (cyclic allocation) */
	/* key slots by key & mr_mask, in chunks allocated on first use (sroce_mr.c) */
	struct sroce_mr_chunk **mr_dir;
	uint32_t mr_mask;		/* index bits of a key; the others are random */
	uint32_t max_mr;		/* devarg max_mr= (index 0 unused: key 0 invalid) */
	uint32_t mr_next;		/* next index to try */
	uint32_t nb_mr;
	struct sroce_mw *mw_tbl[SROCE_MAX_MW + 1];	/* by (rkey >> 8) & SROCE_MAX_MW */
	/* binds, invalidations and window accesses of several engines */
	rte_spinlock_t mw_lock;
	struct sroce_srq *xsrq[SROCE_MAX_SRQ];	/* XRC SRQs by srqn - SROCE_SRQN_BASE */
	uint32_t mw_next;		/* next window index to try */
	uint32_t mw_serial;		/* allocations so far */
	uint32_t nb_mw;
	uint32_t key_rnd_left;		/* unused words in key_rnd[] */
	uint32_t key_rnd[16];		/* getrandom() output for the next keys */
	uint32_t nb_cq;
	uint32_t nb_srq;
	uint32_t nb_ah;
	uint32_t next_pd;
	/* fault injection and capture: one engine only (queues=1) */
	struct pv_sroce_fault fault;
	uint64_t fault_tx_cnt, fault_rx_cnt;
	uint32_t fault_rng;		/* LCG state of the *_one_in drops */
	uint8_t fault_rx_on;		/* fault.rx has a nonzero field */
	struct sroce_fault_q fault_q[2];	/* SROCE_FAULT_TX, SROCE_FAULT_RX */
	/* identity */
	struct rte_ether_addr mac;
	uint32_t ip;			/* network order */
	uint32_t ip_host;		/* host order, as sroce_pkt.dip */
	uint16_t eth_mtu;
	enum pv_mtu active_mtu;
	union pv_gid gid[SROCE_GID_TBL_LEN];	/* entries [0, nb_gid) are valid */
	uint8_t nb_gid;
	uint8_t l3_off;			/* IP header offset of the frames we build: 14, 18 */
	/*
	 * Neighbours: any engine's RX (ARP, NDP) and TX (unresolved frames)
	 * and the control verbs use them, under neigh_lock when the device
	 * has several engines; engine 0 runs the timers.
	 */
	rte_spinlock_t neigh_lock;
	uint32_t arp_timeout_ms;	/* an unanswered resolution fails after it */
	uint64_t neigh_next_tsc;	/* pv_sroce_neigh_timers() due, UINT64_MAX: none */
	uint32_t neigh_evict;		/* next entry to consider for reuse */
	struct sroce_neigh neigh[SROCE_NEIGH_MAX];
	TAILQ_HEAD(, sroce_ah) ahs;	/* AHs: their templates follow the neighbour */
	struct rte_mempool *pcap_mp;	/* pcapng copies, freed by each write */
	uint64_t pcap_frames;		/* frames written to the capture */
	int port_started;
	int own_pool;
	int index;
	char port_name[RTE_ETH_NAME_MAX_LEN];
	/* link monitor on the control thread while a context is open (sroce_dev.c) */
	struct pv_rtc_ctrl_timer *link_timer;
	uint32_t nb_ctx;		/* open contexts, under the open lock */
	uint8_t link_up;		/* link state last seen; query_port reports it (atomic) */
	uint8_t lsc_intr;		/* the PMD raises LSC interrupts: configured on */
	uint8_t lsc_cb;			/* LSC callback registered */
	/* threads (softroce.rst "Threads and progress"); the engine locks: sroce_eng */
	enum pv_progress_mode progress_mode;
	uint8_t mt;			/* progress_mode == PV_PROGRESS_THREAD_SAFE */
	uint8_t bg_on;			/* service registered, source added */
	uint8_t bg_intr_armed;		/* RX interrupt enabled by the service (one engine) */
	uint32_t nb_qp_all;		/* QPs that exist (set_progress_mode: EBUSY) */
	struct pv_rtc_bg_source bg;	/* the progress thread's view of the service */
};

struct sroce_ctx {
	struct pv_context ibctx;	/* must be first */
	struct sroce_dev *dev;
};

struct sroce_pd {
	struct pv_pd ibpd;		/* must be first */
	struct sroce_dev *dev;
};

struct sroce_mr {
	struct pv_mr ibmr;		/* must be first */
	struct sroce_pd *pd;
	uint64_t start;		/* iova: first address WRs name (lkey and rkey) */
	uintptr_t vaddr;		/* where byte 0 is in this process */
	uint64_t length;
	uint32_t key;
	unsigned int access;
	uint32_t nb_mw;			/* memory windows bound to it: dereg is EBUSY */
};

/*
 * Memory windows (IBTA 10.6.7). A window's rkey is SROCE_MW_KEY_BIT |
 * random | index << 8 | key: bit 31 tells it from an MR key (whose bit 31
 * is always 0), the index finds its slot in dev->mw_tbl, the low 8 bits
 * are the consumer key a bind changes (pv_inc_rkey()). A bound window
 * points at its MR, which cannot be deregistered while windows are bound
 * to it (nb_mw), so the pointer never outlives the MR.
 */

enum sroce_mw_state {
	SROCE_MW_FREE = 0,		/* not bound: no access */
	SROCE_MW_VALID,			/* bound: remote access through rkey */
};

struct sroce_mw {
	struct pv_mw ibmw;		/* must be first */
	struct sroce_pd *pd;
	struct sroce_mr *mr;		/* bound MR, NULL when FREE */
	uint64_t addr;			/* window start in the MR's address space */
	uint64_t length;
	uint32_t rkey;
	uint32_t serial;		/* allocation number: a WQE names the window by it */
	uint32_t qpn;			/* type 2: the QP it is bound to */
	unsigned int access;		/* PV_ACCESS_REMOTE_* | PV_ACCESS_ZERO_BASED */
	uint8_t type;			/* enum pv_mw_type */
	uint8_t state;			/* enum sroce_mw_state */
};

/**
 * Where a template's frames go (a QP's path or an AH): the shape of the
 * prebuilt header, so that the fast path patches lengths at fixed offsets.
 */
struct sroce_path {
	uint8_t hdr_len;		/* template bytes up to the end of the BTH */
	uint8_t l3_off;			/* IP header offset: 14, 18 with a VLAN tag */
	uint8_t ip6;			/* IPv6 (else IPv4) */
	uint8_t dst[16];		/* destination IP, IPv4 as ::ffff:a.b.c.d */
};

/**
 * Address handle: the Ethernet[/802.1Q]/IP/UDP headers of a UD destination,
 * built (neighbour resolved) at create, with room for a BTH; the UDP source
 * port and the BTH are per QP/WR.
 */
struct sroce_ah {
	struct pv_ah ibah;		/* must be first */
	struct sroce_dev *dev;
	TAILQ_ENTRY(sroce_ah) next;	/* on dev->ahs */
	uint8_t hdr[SROCE_HDR_TMPL_MAX];	/* Eth/IP/UDP, lengths, checksum, sport 0 */
	uint32_t ip_sum;		/* IPv4: ones' complement header sum, tot_len 0 */
	struct sroce_path path;
};

struct sroce_cq {
	union {				/* must be first */
		struct pv_cq ibcq;
		struct pv_cq_ex ibcqx;	/* room for pv_create_cq_ex() */
	};
	struct sroce_dev *dev;
	struct sroce_eng *eng;		/* comp_vector % queues: writes its completions */
	struct pv_wc *ring;
	uint32_t mask;			/* ring entries - 1 */
	uint32_t prod;			/* free running */
	uint32_t cons;
	uint8_t solicited_only;		/* arming asked for solicited events only */
};

/** A local scatter/gather element resolved at post time. */
struct sroce_sge {
	uint8_t *addr;
	uint32_t length;
	uint32_t rsvd;
};

/**
 * QP-type flags of the fast-path bodies (post_send, requester, responder).
 * Each variant's wrapper passes a constant, so a flag costs nothing on the
 * paths that do not have it; RC is no flag. A new QP type is a new flag.
 */
enum sroce_qpf {
	SROCE_QPF_UC	= 1 << 0,	/* unreliable connected: no ACK, no READ/atomic */
	SROCE_QPF_UD	= 1 << 1,	/* datagram: one packet per message, AH per WR */
	SROCE_QPF_SRQ	= 1 << 2,	/* receive WQEs from the QP's SRQ */
	SROCE_QPF_XRC	= 1 << 3,	/* XRC: XRCETH in requests, 0xa0 opcodes */
};

/** A send work queue entry; followed by SGEs or inline bytes (stride). */
struct sroce_swqe {
	uint64_t wr_id;
	uint8_t opcode;			/* enum pv_wr_opcode */
	uint8_t inl;			/* data is inline after the header */
	uint8_t signaled;		/* completion wanted on success */
	uint8_t fence;
	uint8_t se;			/* solicited event */
	uint8_t rd_atomic;		/* READ or atomic */
	uint8_t local;			/* BIND_MW or LOCAL_INV: no packet */
	uint16_t num_sge;
	uint32_t length;		/* message bytes */
	uint32_t xrc_srqn;		/* XRC INI: the XRCETH of every packet */
	rte_be32_t imm;
	union {
		struct {		/* WRITE, READ */
			uint64_t raddr;
			uint32_t rkey;
		} rdma;
		struct {		/* CMP_AND_SWP, FETCH_AND_ADD */
			uint64_t raddr;
			uint32_t rkey;
			uint64_t compare_add;
			uint64_t swap;
		} atomic;
		struct {		/* UD SEND */
			const struct sroce_ah *ah;
			uint32_t remote_qpn;
			uint32_t qkey;	/* to send: the high bit already resolved */
		} ud;
		struct {		/* BIND_MW: checked when it executes */
			uint64_t addr;
			uint64_t length;
			uint32_t mw_idx;	/* window slot and allocation serial */
			uint32_t mw_serial;
			uint32_t rkey;		/* new rkey (its low 8 bits count) */
			uint32_t mr_key;	/* lkey of the MR, 0: unbind */
			uint32_t access;
		} bind;
		struct {		/* LOCAL_INV, SEND_WITH_INV */
			uint32_t rkey;
		} inv;
	};
	uint32_t first_psn;		/* assigned when the WQE starts on the wire */
	uint32_t last_psn;
	uint32_t npkts;			/* packets (READ: response packets) */
	uint32_t rd_off;		/* READ: bytes received */
	struct sroce_sge sge[];		/* or inline bytes */
};

/** A receive work queue entry; followed by its SGEs (stride). */
struct sroce_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;		/* sum of the SGE lengths */
	struct sroce_sge sge[];
};

/**
 * A shared receive queue: a ring of receive WQEs consumed in order by the
 * responders of every QP attached to it, all of one engine: the first QP
 * attached binds the SRQ to its engine (until then engine 0), whose
 * thread or lock it then goes with; no lock of its own.
 */
struct sroce_srq {
	struct pv_srq ibsrq;		/* must be first */
	struct sroce_dev *dev;
	struct sroce_eng *eng;		/* changed only under every engine lock */
	uint8_t eng_bound;		/* a QP bound eng (several engines) */
	struct sroce_pd *pd;
	uint8_t *rq;
	uint32_t stride;
	uint32_t mask;			/* ring entries - 1 */
	uint32_t pi;			/* posted (free running) */
	uint32_t ci;			/* taken by a responder */
	uint32_t limit;			/* armed srq_limit, 0 = disarmed */
	uint32_t max_sge;
	/* XRC SRQ: its domain, the CQ of its completions, its number */
	struct sroce_xrcd *xrcd;
	struct sroce_cq *cq;
	uint32_t srqn;			/* 0: a basic SRQ */
};

/** An XRC domain: the TGT QPs and XRC SRQs that may serve each other. */
struct sroce_xrcd {
	struct pv_xrcd ibxrcd;		/* must be first */
	struct sroce_dev *dev;
};

/** Cursor over an SGE list. */
struct sroce_cursor {
	uint32_t i;			/* current SGE */
	uint32_t off;			/* bytes used in it */
};

enum sroce_res_type {
	SROCE_RES_FREE = 0,
	SROCE_RES_READ,
	SROCE_RES_ATOMIC,
};

/** Responder resource of one READ or atomic request (max_dest_rd_atomic of them). */
struct sroce_res {
	uint8_t type;			/* enum sroce_res_type */
	uint8_t active;			/* responses still to transmit */
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t msn;
	/* READ: what was asked, checked again before each response packet
	 * (the MR may be deregistered meanwhile: ARCHITECTURE decision 6) */
	uint64_t va;
	uint32_t rkey;
	uint32_t len;			/* READ: requested bytes */
	uint64_t orig;			/* atomic: value before the operation */
	uint32_t start_psn;		/* PSN the current response stream began at */
	uint32_t cur_psn;		/* next response PSN */
	uint32_t cur_off;		/* bytes of base already sent */
};

/** Pending ACK or NAK of the responder (coalesced: the newest wins). */
enum sroce_pend {
	SROCE_PEND_NONE = 0,
	SROCE_PEND_ACK,
};

/* requester states: why the requester is not transmitting */
enum {
	SROCE_REQ_RNR_WAIT = 1 << 0,	/* waiting for the RNR timer */
};

/** Responder of a QP kind (RC on an RQ, RC on an SRQ, UC), chosen at create. */
typedef void (*sroce_resp_rx_fn)(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** Requester of a QP kind (RC, UC), chosen at create; @return frames queued. */
typedef int (*sroce_req_tx_fn)(struct sroce_qp *qp);

struct sroce_qp {
	union {				/* must be first */
		struct pv_qp ibqp;
		struct pv_qp_ex ibqpx;	/* room for the pv_wr_* API */
	};
	struct sroce_dev *dev;
	struct sroce_eng *eng;		/* its send CQ's engine, fixed at create */
	sroce_resp_rx_fn fp_resp_rx;
	sroce_req_tx_fn fp_req_tx;
	uint8_t transport;		/* SROCE_OP_RC, _UC or _UD: opcodes it accepts */
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_pd *pd;
	enum pv_qp_state state;		/* engine state (ibqp.state mirrors it) */
	uint8_t sig_all;
	uint8_t in_list;		/* in eng->qps[] */
	uint8_t flush_pending;		/* ERR: queues still to flush */
	uint8_t sq_err_status;		/* status of the WQE that failed (ERR) */
	uint8_t rq_err_status;		/* status of the receive WQE that failed */
	uint8_t gsi;			/* the GSI QP (QP1): dev->gsi_qp */

	/* send queue */
	uint8_t *sq;
	uint32_t sq_stride;
	uint32_t sq_mask;
	uint32_t sq_pi;			/* posted */
	uint32_t sq_ci;			/* oldest not completed */

	/* receive queue */
	uint8_t *rq;
	uint32_t rq_stride;
	uint32_t rq_mask;
	uint32_t rq_pi;
	uint32_t rq_ci;

	/* path */
	uint32_t mtu;			/* path MTU in bytes */
	uint32_t dqpn;
	uint16_t ud_sport;		/* UD: UDP source port of every frame */
	uint8_t hdr[SROCE_HDR_TMPL_MAX];	/* Eth[/802.1Q]/IPv4 or IPv6/UDP/BTH template */
	uint32_t ip_sum;		/* IPv4: ones' complement header sum, tot_len 0 */
	struct sroce_path path;

	/* requester */
	struct {
		uint32_t idx;		/* WQE being transmitted (free running) */
		uint32_t hw_idx;	/* one past the last WQE ever started */
		uint32_t psn;		/* next PSN to send */
		uint32_t hw_psn;	/* one past the highest PSN ever sent */
		uint32_t off;		/* bytes of that WQE sent */
		struct sroce_cursor cur;
		uint32_t noack;		/* packets since the last AckReq */
		uint32_t rd_inflight;	/* READ/atomic WQEs sent, not completed */
		uint32_t flags;		/* SROCE_REQ_* */
		uint64_t rnr_until;	/* TSC */
	} req;

	/* completer */
	struct {
		uint32_t psn;		/* oldest unacknowledged PSN */
		struct sroce_cursor cur;/* READ/atomic destination at sq_ci */
		uint64_t deadline;	/* retransmit timer (TSC), 0 = disarmed */
		uint8_t retry_left;
		uint8_t rnr_left;
		uint8_t stalled;	/* a completion waits for CQ space */
		uint8_t rd_retried;	/* READ/atomic resent from rd_retry_psn, no reply yet */
		uint32_t rd_retry_psn;
	} comp;

	/* responder */
	struct {
		uint32_t epsn;		/* expected PSN */
		uint32_t msn;
		uint8_t nak_sent;	/* PSN sequence NAK sent for epsn */
		uint8_t in_send;	/* inside a multi-packet SEND */
		uint8_t in_write;	/* inside a multi-packet WRITE */
		uint8_t pend;		/* enum sroce_pend */
		uint8_t pend_syn;	/* AETH syndrome */
		uint32_t pend_psn;
		uint32_t pend_msn;
		uint32_t rcv_len;	/* bytes placed in the current receive WQE */
		struct sroce_cursor rcur;
		/* current WRITE: no pointer is kept, each packet is checked
		 * again by rkey (the MR may be gone: ARCHITECTURE decision 6) */
		uint64_t wr_va;		/* next byte's remote address */
		uint32_t wr_rkey;
		uint32_t wr_resid;
		uint32_t wr_total;	/* DMA length of the current WRITE */
		uint8_t srq_held;	/* srq_wqe holds a WQE taken from the SRQ */
		uint8_t drop_msg;	/* UC: dropping until the next FIRST/ONLY */
		uint8_t last_wqe_ev;	/* SRQ: LAST_WQE_REACHED posted in this ERR */
		uint8_t res_head;	/* next resource to fill */
		uint8_t res_tx;		/* next resource with responses to send */
		uint8_t res_active;	/* resources with responses to send */
		uint8_t comm_est;	/* COMM_EST raised (RTR saw its first request) */
		struct sroce_res res[SROCE_MAX_RD_ATOMIC];
	} resp;

	/* shared receive queue (RC only), NULL: the QP's own RQ; an XRC TGT
	 * QP sets srq, rcq, scq and pd from each request's XRCETH */
	struct sroce_srq *srq;
	struct sroce_xrcd *xrcd;	/* XRC TGT: the domain its SRQs must be in */
	struct sroce_rwqe *srq_wqe;	/* the SRQ WQE the responder took, srq->stride bytes */

	/* attributes as set by modify_qp */
	struct pv_qp_attr attr;
	int attr_mask;			/* attributes ever set */
	uint64_t timeout_tsc;		/* local ACK timeout, 0 = infinite */
};

static inline struct sroce_ctx *
sroce_ctx(struct pv_context *c)
{
	return container_of(c, struct sroce_ctx, ibctx);
}

static inline struct sroce_dev *
sroce_dev_of(struct pv_context *c)
{
	return sroce_ctx(c)->dev;
}

/* parent domains (lib/verbs) resolve to the PD they extend */
static inline struct sroce_pd *
sroce_pd(struct pv_pd *p)
{
	return container_of(pv_pd_base(p), struct sroce_pd, ibpd);
}

static inline struct sroce_mr *
sroce_mr(struct pv_mr *m)
{
	return container_of(m, struct sroce_mr, ibmr);
}

static inline struct sroce_cq *
sroce_cq(struct pv_cq *c)
{
	return container_of(c, struct sroce_cq, ibcq);
}

static inline struct sroce_ah *
sroce_ah(struct pv_ah *a)
{
	return container_of(a, struct sroce_ah, ibah);
}

static inline struct sroce_qp *
sroce_qp(struct pv_qp *q)
{
	return container_of(q, struct sroce_qp, ibqp);
}

static inline struct sroce_srq *
sroce_srq(struct pv_srq *s)
{
	return container_of(s, struct sroce_srq, ibsrq);
}

static inline struct sroce_qp *
sroce_qp_lookup(const struct sroce_dev *dev, uint32_t qpn)
{
	uint32_t i = qpn - SROCE_QPN_BASE;

	if (unlikely(i >= dev->max_qp))
		return NULL;
	return dev->qp_tbl[i];
}

/**
 * Debug builds: assert that a data-path call (post_send, post_recv,
 * post_srq_recv, poll_cq, progress) comes from the device's owner thread,
 * the thread that drives it: the first to call one, until no QP of the
 * device is progressed any more. A no-op in optimized builds.
 */
static inline void
sroce_owner_check(struct sroce_eng *eng)
{
#ifdef SROCE_DEBUG
	pthread_t self = pthread_self();

	if (eng->dev->mt) {
		/* thread-safe mode: any thread, under the engine lock */
		RTE_VERIFY(rte_spinlock_is_locked(&eng->lock));
		return;
	}
	if (!eng->owner_set) {
		eng->owner = self;
		eng->owner_set = 1;
		return;
	}
	RTE_VERIFY(pthread_equal(eng->owner, self));
#else
	RTE_SET_USED(eng);
#endif
}

/*
 * mbufs change threads inside DPDK (a PMD's rings, the mempool), which is
 * not instrumented: under -fsanitize=thread say where, or ThreadSanitizer
 * sees every frame as a race between the thread that built it and the one
 * that reads or reuses it. Nothing at all in other builds.
 */
static inline void
sroce_mbuf_tsan_take(const struct rte_mbuf *m)
{
#ifdef __SANITIZE_THREAD__
	if (m != NULL)
		__tsan_acquire((void *)(uintptr_t)m);
#else
	RTE_SET_USED(m);
#endif
}

static inline void
sroce_mbuf_tsan_give(const struct rte_mbuf *m)
{
#ifdef __SANITIZE_THREAD__
	if (m != NULL)
		__tsan_release((void *)(uintptr_t)m);
#else
	RTE_SET_USED(m);
#endif
}

/** rte_pktmbuf_alloc(), the mbuf taken over from whichever thread freed it. */
static inline struct rte_mbuf *
sroce_mbuf_alloc(struct rte_mempool *mp)
{
	struct rte_mbuf *m = rte_mbuf_raw_alloc(mp);

	if (m != NULL) {
		sroce_mbuf_tsan_take(m);
		rte_pktmbuf_reset(m);
	}
	return m;
}

/** rte_pktmbuf_free(), handing the mbuf over to its next user. */
static inline void
sroce_mbuf_free(struct rte_mbuf *m)
{
	sroce_mbuf_tsan_give(m);
	rte_pktmbuf_free(m);
}

/** rte_pktmbuf_free_bulk() (NULL entries skipped), handing them over. */
static inline void
sroce_mbuf_free_bulk(struct rte_mbuf **pkts, unsigned int n)
{
#ifdef __SANITIZE_THREAD__
	unsigned int i;

	for (i = 0; i < n; i++)
		sroce_mbuf_tsan_give(pkts[i]);
#endif
	rte_pktmbuf_free_bulk(pkts, n);
}

/**
 * Thread-safe mode: take every engine's lock, in index order (control
 * verbs; the data path takes its engine's in its own _mt variants), so that
 * no engine runs while a QP, CQ, SRQ or MR changes. App mode: nothing.
 */
static inline void
sroce_dev_lock(struct sroce_dev *dev)
{
	uint16_t i;

	if (dev->mt)
		for (i = 0; i < dev->nb_eng; i++)
			pv_rtc_spin_lock(&dev->eng[i].lock);
}

static inline void
sroce_dev_unlock(struct sroce_dev *dev)
{
	uint16_t i;

	if (dev->mt)
		for (i = dev->nb_eng; i-- > 0;)
			pv_rtc_spin_unlock(&dev->eng[i].lock);
}

/* the neighbour table's lock, needed when several engines share it */
static inline void
sroce_neigh_lock(struct sroce_dev *dev)
{
	if (dev->nb_eng > 1)
		pv_rtc_spin_lock(&dev->neigh_lock);
}

static inline void
sroce_neigh_unlock(struct sroce_dev *dev)
{
	if (dev->nb_eng > 1)
		pv_rtc_spin_unlock(&dev->neigh_lock);
}

/* the memory windows' lock, needed when several engines bind and use them */
static inline void
sroce_mw_lock(const struct sroce_dev *dev)
{
	if (dev->nb_eng > 1)
		pv_rtc_spin_lock((rte_spinlock_t *)(uintptr_t)&dev->mw_lock);
}

static inline void
sroce_mw_unlock(const struct sroce_dev *dev)
{
	if (dev->nb_eng > 1)
		pv_rtc_spin_unlock((rte_spinlock_t *)(uintptr_t)&dev->mw_lock);
}

/**
 * An application progress call (poll_cq, pv_progress) in thread-safe mode,
 * under the engine lock: tell the background service to leave this engine
 * alone for a while. A plain store (the only writer holds the lock), read
 * atomically by it.
 */
static inline void
sroce_app_progressed(struct sroce_eng *eng)
{
	__atomic_store_n(&eng->app_seq, eng->app_seq + 1, __ATOMIC_RELAXED);
}

/*
 * The steering ring of an engine (queues=N). DPDK's generic ring orders its
 * head and tail with fences ThreadSanitizer does not model, so TSan builds
 * (and only they) serialise each ring's operations with a lock it sees.
 */
static inline void
sroce_steer_lock(struct sroce_eng *eng)
{
#ifdef __SANITIZE_THREAD__
	pv_rtc_spin_lock(&eng->steer_lock);
#else
	RTE_SET_USED(eng);
#endif
}

static inline void
sroce_steer_unlock(struct sroce_eng *eng)
{
#ifdef __SANITIZE_THREAD__
	pv_rtc_spin_unlock(&eng->steer_lock);
#else
	RTE_SET_USED(eng);
#endif
}

/** Hand @p m to engine @p to's steering ring. @return 0, or -ENOBUFS full */
static inline int
sroce_steer_put(struct sroce_eng *to, struct rte_mbuf *m)
{
	int ret;

	sroce_steer_lock(to);
	ret = rte_ring_mp_enqueue(to->steer, m);
	sroce_steer_unlock(to);
	return ret;
}

/** Up to @p n frames of @p eng's steering ring. @return how many */
static inline unsigned int
sroce_steer_take(struct sroce_eng *eng, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int got;

	sroce_steer_lock(eng);
	got = rte_ring_sc_dequeue_burst(eng->steer, (void **)pkts, n, NULL);
	sroce_steer_unlock(eng);
	return got;
}

/** Frames wait in @p eng's steering ring (none without one). */
static inline int
sroce_steer_pending(struct sroce_eng *eng)
{
	int ret;

	if (eng->steer == NULL)
		return 0;
	sroce_steer_lock(eng);
	ret = !rte_ring_empty(eng->steer);
	sroce_steer_unlock(eng);
	return ret;
}

/** The engine of an SRQ: the one its QPs are on (engine 0 before any). */
static inline struct sroce_eng *
sroce_srq_eng(const struct sroce_srq *srq)
{
	return __atomic_load_n(&srq->eng, __ATOMIC_ACQUIRE);
}

/* sroce_bg.c */
/**
 * Thread-safe mode, first context open: register the device's rte_service
 * and hand it to the progress thread. @return 0 or -errno.
 * Thread: any, under the open lock, not holding the device lock.
 */
int pv_sroce_bg_start(struct sroce_dev *dev);
/**
 * Undo pv_sroce_bg_start() (last close, mode change, removal); when it
 * returns the progress thread no longer touches @p dev. Idempotent.
 */
void pv_sroce_bg_stop(struct sroce_dev *dev);

/* sroce_mr.c */
/**
 * Allocate the key table of @p dev for @p max_mr MRs (1 .. SROCE_MAX_MR),
 * its dev->nb_eng engines (0 counts as 1; their steering rings are the
 * caller's) and its QP tables for @p max_qp QPs (1 .. SROCE_MAX_QP); logs
 * the memory at INFO. @return 0, -EINVAL out of range, -ENOMEM
 */
int pv_sroce_tables_init(struct sroce_dev *dev, uint32_t max_qp, uint32_t max_mr);
/** Free what pv_sroce_tables_init() allocated (idempotent). */
void pv_sroce_tables_fini(struct sroce_dev *dev);
struct pv_pd *pv_sroce_pd_alloc(struct pv_context *context);
int pv_sroce_pd_dealloc(struct pv_pd *pd);
struct pv_mr *pv_sroce_mr_reg(struct pv_pd *pd, void *addr, size_t length, int access);
/** pv_reg_mr_iova2(): keys address the region from @p iova (byte i of @p addr at iova + i). */
struct pv_mr *pv_sroce_mr_reg_iova(struct pv_pd *pd, void *addr, size_t length, uint64_t iova,
				   int access);
/**
 * rereg_mr op: PD, translation (the new buffer, iova = addr) and access
 * changed in place, the keys kept. 0, EBUSY windows bound, EINVAL above
 * 4 GiB - 1.
 */
int pv_sroce_mr_rereg(struct pv_mr *mr, int flags, struct pv_pd *pd, void *addr,
		      size_t length, int access);
int pv_sroce_mr_dereg(struct pv_mr *mr);
/**
 * Check a remote access of @p len bytes at @p va with @p rkey for @p access
 * (one PV_ACCESS_REMOTE_* bit) from QP @p qpn of @p pd; @p rkey may be an
 * MR's or a bound memory window's (type 2: bound to QP @p qpn).
 * @return the local address, or NULL (access violation).
 */
uint8_t *pv_sroce_mr_remote(const struct sroce_dev *dev, const struct sroce_pd *pd,
			    uint32_t qpn, uint32_t rkey, uint64_t va, uint32_t len,
			    unsigned int access);
/** alloc_mw op: an unbound window with a fresh rkey; NULL with errno ENOMEM. */
struct pv_mw *pv_sroce_mw_alloc(struct pv_pd *pd, enum pv_mw_type type);
/** dealloc_mw op: unbinds, frees the slot; 0. */
int pv_sroce_mw_dealloc(struct pv_mw *mw);
/** The slot index of @p mw, and its allocation serial in @p serial (for a WQE). */
uint32_t pv_sroce_mw_ref(const struct pv_mw *mw, uint32_t *serial);
/**
 * Execute a bind of a WQE (IBTA 10.6.7.2): window @p mw_idx / @p mw_serial to
 * [addr, addr + length) of the MR of lkey @p mr_key (0: unbind, type 1),
 * with @p access, new consumer key from @p rkey; for QP @p qpn of @p qp_pd.
 * @return PV_WC_SUCCESS, or PV_WC_MW_BIND_ERR (window or MR gone, PD
 *         mismatch, MR without MW_BIND, range outside the MR, type 2 not
 *         FREE or rkey index changed, ZERO_BASED on type 1).
 */
enum pv_wc_status pv_sroce_mw_bind(struct sroce_dev *dev, const struct sroce_pd *qp_pd,
				   uint32_t qpn, uint32_t mw_idx, uint32_t mw_serial,
				   uint32_t rkey, uint32_t mr_key, uint64_t addr,
				   uint64_t length, unsigned int access);
/**
 * Invalidate @p rkey for QP @p qpn of @p pd (LOCAL_INV, or a received
 * SEND_WITH_INV): a bound type 2 window of that QP goes back to FREE.
 * @return 0, or -EINVAL (not such a window: MRs cannot be invalidated).
 */
int pv_sroce_key_invalidate(struct sroce_dev *dev, const struct sroce_pd *pd, uint32_t qpn,
			    uint32_t rkey);
/** QP @p qpn is destroyed: its type 2 windows go back to FREE. */
void pv_sroce_mw_qp_gone(struct sroce_dev *dev, uint32_t qpn);
/**
 * Resolve a local SGE. @return 0 or -EINVAL (bad lkey, bounds, PD, or
 * missing LOCAL_WRITE when @p need_write).
 */
int pv_sroce_mr_local(const struct sroce_dev *dev, const struct sroce_pd *pd,
		      const struct pv_sge *sge, int need_write, struct sroce_sge *out);

/* sroce_cq.c */
struct pv_cq *pv_sroce_cq_create(struct pv_context *context, int cqe,
				 struct pv_comp_channel *channel, int comp_vector);
int pv_sroce_cq_destroy(struct pv_cq *cq);
int pv_sroce_cq_resize(struct pv_cq *cq, int cqe);
void pv_sroce_cq_event(struct sroce_cq *cq, int solicited);

/* sroce_qp.c */
struct pv_qp *pv_sroce_qp_create(struct pv_pd *pd, struct pv_qp_init_attr *attr);
/**
 * Create an XRC QP (or any other type): an INI QP (PV_QPT_XRC_SEND) needs
 * @p pd and a send CQ; a TGT QP (PV_QPT_XRC_RECV) @p xrcd and nothing else.
 * @return the QP, or NULL with errno EINVAL/ENOMEM/EOPNOTSUPP.
 */
struct pv_qp *pv_sroce_qp_create_xrc(struct pv_context *context, struct pv_pd *pd,
				     struct pv_qp_init_attr *attr, struct pv_xrcd *xrcd);
/**
 * create_gsi_qp op: the device's QP1, a UD QP (lib/verbs checked @p attr)
 * numbered 1, kept in dev->gsi_qp rather than in the QPN table.
 * @return the QP, or NULL with errno EBUSY (the device has one), EINVAL,
 *         ENOMEM.
 */
struct pv_qp *pv_sroce_qp_create_gsi(struct pv_pd *pd, struct pv_qp_init_attr *attr);
int pv_sroce_qp_modify(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask);
int pv_sroce_qp_query(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask);
int pv_sroce_qp_destroy(struct pv_qp *qp);
/** Move @p qp to ERR (engine-detected error); queues are flushed by progress. */
void pv_sroce_qp_error(struct sroce_qp *qp);
/** Flush what fits in the CQs; @return work done. */
int pv_sroce_qp_flush(struct sroce_qp *qp);

/* sroce_srq.c */
struct pv_srq *pv_sroce_srq_create(struct pv_pd *pd, struct pv_srq_init_attr *attr);
int pv_sroce_srq_modify(struct pv_srq *srq, struct pv_srq_attr *attr, int attr_mask);
int pv_sroce_srq_query(struct pv_srq *srq, struct pv_srq_attr *attr);
int pv_sroce_srq_destroy(struct pv_srq *srq);
/** create_srq_ex op: an XRC SRQ (numbered, in an XRCD, completing on a CQ). */
struct pv_srq *pv_sroce_srq_create_ex(struct pv_context *context,
				      struct pv_srq_init_attr_ex *attr);
/** get_srq_num op: 0, or EINVAL not an XRC SRQ. */
int pv_sroce_srq_num(struct pv_srq *srq, uint32_t *srq_num);
/** open_xrcd op: a domain of this process (lib/verbs refused fd >= 0). */
struct pv_xrcd *pv_sroce_xrcd_open(struct pv_context *context, struct pv_xrcd_init_attr *attr);
/** close_xrcd op: 0. */
int pv_sroce_xrcd_close(struct pv_xrcd *xrcd);
/** Post PV_EVENT_SRQ_LIMIT_REACHED and disarm (fewer than srq->limit WQEs left). */
void pv_sroce_srq_limit_fire(struct sroce_srq *srq);

/* sroce_req.c */
/** TSC cycles of an RNR timer code (IBTA vol. 1 table 45). */
uint64_t pv_sroce_rnr_tsc(uint8_t code);
/** RC requester: transmit what the SQ allows; @return frames queued. */
int pv_sroce_req_tx(struct sroce_qp *qp);
/**
 * UC requester: transmit what the SQ allows, completing each WQE when its
 * last packet is queued (no ACK, no retransmission); @return frames queued.
 */
int pv_sroce_req_tx_uc(struct sroce_qp *qp);
/**
 * UD requester: one SEND ONLY per WQE, completed when queued; a WQE longer
 * than the MTU completes without a packet (C10-93.1.1). @return frames queued.
 */
int pv_sroce_req_tx_ud(struct sroce_qp *qp);
/** XRC INI requester: the RC one with an XRCETH in every request. */
int pv_sroce_req_tx_xrc(struct sroce_qp *qp);
/** Handle an ACK, NAK, READ response or atomic ACK. */
void pv_sroce_comp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt);
/** Run the retransmit and RNR timers of @p qp at time @p now. */
int pv_sroce_req_timers(struct sroce_qp *qp, uint64_t now);
/** Complete successfully finished WQEs that were waiting for CQ space. */
int pv_sroce_comp_drain(struct sroce_qp *qp);

/* sroce_resp.c: one responder per QP kind (qp->fp_resp_rx) */
/** RC responder taking receive WQEs from the QP's own RQ. */
void pv_sroce_resp_rx(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** RC responder taking receive WQEs from the QP's SRQ. */
void pv_sroce_resp_rx_srq(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** UC responder: no ACK/NAK; a damaged message is dropped (IBTA 9.8.3). */
void pv_sroce_resp_rx_uc(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** UD responder on the QP's own RQ: Q_Key check, GRH area + payload. */
void pv_sroce_resp_rx_ud(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** UD responder on the QP's SRQ. */
void pv_sroce_resp_rx_ud_srq(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** XRC TGT responder: SRQ, CQ and PD from each request's XRCETH. */
void pv_sroce_resp_rx_xrc(struct sroce_qp *qp, struct sroce_pkt *pkt);
/** Send READ/atomic responses then a pending ACK/NAK; @return frames queued. */
int pv_sroce_resp_tx(struct sroce_qp *qp);

/* sroce_ud.c */
struct pv_ah *pv_sroce_ah_create(struct pv_pd *pd, struct pv_ah_attr *attr);
int pv_sroce_ah_destroy(struct pv_ah *ah);

/* sroce_arp.c */
/**
 * An ARP frame received (@p l3: offset of the ARP header, after any VLAN
 * tag): answer requests for us, learn the sender (RFC 826).
 */
void pv_sroce_arp_rx(struct sroce_eng *eng, struct rte_mbuf *m, uint32_t l3);
/**
 * An ICMPv6 frame received (@p l3: offset of the IPv6 header): neighbour
 * solicitations for our addresses are answered with a solicited, override
 * advertisement; solicitations and advertisements teach the sender's MAC
 * (RFC 4861 7.2.3-7.2.5). Anything else (or a bad hop limit, length or
 * checksum) is dropped and counted in rx_drop_other.
 */
void pv_sroce_ndp_rx(struct sroce_eng *eng, struct rte_mbuf *m, uint32_t l3);
/** Learn (or confirm) @p ip (16 bytes) at @p mac: REACHABLE, queued frames sent. */
void pv_sroce_neigh_learn(struct sroce_eng *eng, const uint8_t ip[16],
			  const struct rte_ether_addr *mac);
/**
 * The MAC of @p ip (16 bytes, IPv4 as ::ffff:a.b.c.d) for a header template,
 * without waiting. IPv6 multicast (ff00::/8) maps to 33:33:xx:xx:xx:xx at
 * once (RFC 2464 7); our own addresses give a zero MAC (loopback: frames
 * reach pv_sroce_neigh_tx(), which hands them to our own receive path).
 * @return 0 with *mac_p set (zero for our own address); -EAGAIN unknown: a
 *         resolution (ARP request or neighbour solicitation) started, *mac_p
 *         is zero (frames built from it wait in the neighbour's queue);
 *         -ENOSPC the table is full of unresolved entries (the first frame
 *         retries).
 * Thread: a control verb (every engine lock held in thread-safe mode): the
 * request leaves through engine 0.
 */
int pv_sroce_neigh_lookup(struct sroce_dev *dev, const uint8_t ip[16],
			  struct rte_ether_addr *mac_p);
/**
 * Send @p m, built with a zero destination MAC: to one of our own addresses
 * it goes to the loopback ring (received in the next RX pass; dropped and
 * counted in lo_drops when full), otherwise patched, or queued for its
 * neighbour; through engine @p eng (the sender's).
 */
void pv_sroce_neigh_tx(struct sroce_eng *eng, struct rte_mbuf *m);
/** @return non-zero when @p ip (16 bytes) is one of the GIDs of @p dev. */
int pv_sroce_addr_is_local(const struct sroce_dev *dev, const uint8_t ip[16]);
/**
 * Retries, failures and aging due at @p now; recomputes dev->neigh_next_tsc.
 * Engine 0 runs them.
 */
int pv_sroce_neigh_timers(struct sroce_eng *eng, uint64_t now);
/** Free the queued and looped-back frames (device teardown). */
void pv_sroce_neigh_fini(struct sroce_dev *dev);

/* sroce_net.c */
/**
 * Write the Ethernet header of a frame we send at @p p: @p dmac, our MAC, the
 * 802.1Q tag of vlan= if set (IEEE 802.1Q 9.6: TPID 0x8100, PCP, VID), then
 * @p ethertype. @return the offset of the L3 header (14 or 18).
 */
uint32_t pv_sroce_eth_hdr_put(const struct sroce_dev *dev, uint8_t *p, const uint8_t dmac[6],
			      uint16_t ethertype);
/**
 * Build the header template of a path: Ethernet (802.1Q tag when vlan= is
 * set), IPv4 or IPv6 from the GID at @p sgid_index to @p dgid, UDP to 4791
 * from @p sport (checksum 0, as rxe), and a BTH with the default P_Key and
 * @p dqpn. Lengths (and the IPv4 checksum) are patched per frame.
 * IPv4: TOS @p tclass, TTL @p hop_limit, DF, ID 0; IPv6: traffic class
 * @p tclass, flow label 0 (as rxe's prepare6), hop limit @p hop_limit.
 *
 * @param hdr      SROCE_HDR_TMPL_MAX bytes.
 * @param dmac     Destination MAC (zero: unresolved, or loopback).
 * @param path     Filled: template length, IP offset, family, destination.
 * @param ip_sum_p IPv4: ones' complement sum of the header without tot_len.
 * @return 0; -EINVAL @p sgid_index not a valid GID, or @p dgid of the other
 *         family (IPv4-mapped versus IPv6).
 */
int pv_sroce_hdr_build(const struct sroce_dev *dev, uint8_t *hdr,
		       const struct rte_ether_addr *dmac, uint8_t sgid_index,
		       const uint8_t dgid[16], uint8_t tclass, uint8_t hop_limit, uint16_t sport,
		       uint32_t dqpn, struct sroce_path *path, uint32_t *ip_sum_p);
/** @return non-zero when @p gid (16 bytes) is IPv4-mapped (::ffff:0:0/96). */
static inline int
sroce_gid_is_v4(const uint8_t *gid)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(gid, v4map, sizeof(v4map)) == 0;
}
/**
 * One pass of engine @p eng: its RX queue (frames of other engines' QPs
 * steered to them), its steering ring, its QPs, its TX queue.
 * @return units of work done.
 */
int pv_sroce_eng_progress(struct sroce_eng *eng);
/** Hand the frames queued on @p eng to the PMD; keeps what it refuses. */
void pv_sroce_tx_flush(struct sroce_eng *eng);
/** The counters of @p dev: the sum of its engines'. Under sroce_dev_lock(). */
void pv_sroce_stats_sum(const struct sroce_dev *dev, struct pv_sroce_stats *out);
/**
 * Write @p n frames to the capture file of @p dev (dev->pcapng != NULL) as
 * copies; the frames stay the caller's. A write error stops the capture.
 */
void pv_sroce_pcap_burst(struct sroce_dev *dev, struct rte_mbuf *const *pkts, uint16_t n,
			 enum rte_pcapng_direction dir);
/** Recompute dev->tx_hook after a change of capture or fault settings. */
void pv_sroce_tx_hook_update(struct sroce_dev *dev);
/** Seed the fault generators from dev->fault and make held frames due now. */
void pv_sroce_fault_reset(struct sroce_dev *dev);
/** Free the frames held by fault injection (device teardown). */
void pv_sroce_fault_free(struct sroce_dev *dev);
int pv_sroce_progress(struct pv_context *context);

#endif /* PV_DRIVERS_SOFTROCE_SROCE_PRIV_H */

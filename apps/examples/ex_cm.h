/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * What librdmacm's ucmatose and udaddy share, for pv-cmatose and pv-udaddy:
 * the options they have in common, one event channel carrying -c ids, each
 * id a "node" with its PD, CQs, QP and one buffer of -C send slots and -C
 * receive slots, address resolution as librdmacm's examples do it, the
 * server's listen and the client's resolve steps, CM events and completions
 * with an optional time limit, and the payload pattern of their -V check.
 * Each program supplies its event handler and its data phase (struct
 * ex_cm_ops) and calls ex_cm_main().
 */

#ifndef PV_APPS_EXAMPLES_EX_CM_H
#define PV_APPS_EXAMPLES_EX_CM_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include <pv_rdma_cma.h>
#include <pv_verbs.h>

#define EX_CM_GRH_LEN	40	/* struct ibv_grh, before a UD receive's payload */

/** One id of a run, with what it owns; a program's node struct starts with it. */
struct ex_cm_node {
	int index;
	int connected;
	struct pv_rdma_cm_id *id;
	struct pv_pd *pd;
	struct pv_cq *cq[2];	/* send, receive (the same CQ: cq[1] NULL) */
	struct pv_mr *mr;
	struct pv_ah *ah;	/* UD: the peer */
	uint8_t *buf;		/* count send slots of size bytes, then count
				 * receive slots of recv_len bytes */
};

struct ex_cm;

/** What a program adds to the common run. */
struct ex_cm_ops {
	const char *optstring;		/* getopt(3), the common letters included */
	const struct option *long_opts;	/* may be NULL */
	size_t node_size;		/* bytes of the program's node struct */
	/** One of the program's own options: 0, or -1 to stop. */
	int (*opt)(struct ex_cm *t, int op, const char *arg);
	/** Print the program's own option lines of the usage text. */
	void (*usage)(void);
	/*
	 * The CM events (ex_cm_events() handles the others): each returns 0
	 * to go on, else the run's status.
	 */
	/** Client: ROUTE_RESOLVED, time to make the node and connect. */
	int (*route_resolved)(struct ex_cm *t, struct ex_cm_node *n);
	/** Server: CONNECT_REQUEST on a new @p id. */
	int (*request)(struct ex_cm *t, struct pv_rdma_cm_id *id);
	/** ESTABLISHED. */
	int (*established)(struct ex_cm *t, struct ex_cm_node *n, struct pv_rdma_cm_event *ev);
	/** DISCONNECTED; NULL: ignored. */
	int (*disconnected)(struct ex_cm *t, struct ex_cm_node *n);
	/** Server, once @p listen listens: connect phase and data. */
	int (*server)(struct ex_cm *t, struct pv_rdma_cm_id *listen);
	/** Client, once every id's address resolution started. */
	int (*client)(struct ex_cm *t);
};

/** A run: the options librdmacm's examples share, and its state. */
struct ex_cm {
	const char *name;	/* "cmatose": prefix of the messages */
	const struct ex_cm_ops *ops;
	/* options */
	const char *dst;	/* -s; NULL: server */
	const char *src;	/* -b */
	const char *port;
	int conns;		/* -c */
	int count;		/* -C */
	int size;		/* -S */
	int tos_set;		/* -t */
	uint8_t tos;
	int ack_timeout_set;	/* cmatose's -a */
	uint8_t ack_timeout;
	int verify;		/* -V (pollverbs) */
	int timeout_s;		/* -T (pollverbs); 0: wait as long as it takes */
	struct pv_rdma_addrinfo hints;
	/* state */
	struct pv_rdma_addrinfo *rai;
	struct pv_rdma_event_channel *channel;
	void *nodes;		/* conns nodes of ops->node_size bytes */
	int next_node;		/* server: the node of the next request */
	int connects_left;
	size_t recv_room;	/* bytes before a received payload (UD: the GRH) */
	size_t recv_len;	/* bytes of a receive slot: recv_room + size */
};

/**
 * The whole program: pv_app_init() (role from -s, @p port for the built-in
 * EAL arguments), options, the event channel and nodes, ops->server or
 * ops->client, then the teardown and "test complete" / "return status N"
 * lines, as librdmacm's examples print them.
 *
 * @return The exit status: 0 on success, else 1.
 */
int ex_cm_main(struct ex_cm *t, const struct ex_cm_ops *ops, int argc, char **argv,
	       const char *port);

/** Node @p i of the run. */
struct ex_cm_node *ex_cm_node(const struct ex_cm *t, int i);

/**
 * Make @p n's PD, @p ncq CQs of @p cqe entries (2: send and receive, 1:
 * both on one), a QP of @p qp_type with -C send and receive WRs (at least
 * 1) on the id, and the registered buffer (send slots filled with the
 * pattern). Prints what failed.
 * @return 0 or a negative errno.
 */
int ex_cm_node_init(struct ex_cm *t, struct ex_cm_node *n, enum pv_qp_type qp_type, int ncq,
		    int cqe, int sq_sig_all);

/** Send slot @p i of @p n (size bytes). */
uint8_t *ex_cm_send_slot(const struct ex_cm *t, const struct ex_cm_node *n, int i);
/** Receive slot @p i of @p n (recv_len bytes). */
uint8_t *ex_cm_recv_slot(const struct ex_cm *t, const struct ex_cm_node *n, int i);

/** Post -C receives, one per receive slot, wr_id = the slot. 0 or -errno. */
int ex_cm_post_recvs(struct ex_cm *t, struct ex_cm_node *n);

/**
 * Post -C sends of -S bytes, one per send slot, wr_id = the slot, the rest
 * of each WR from @p tmpl (opcode, flags, immediate, UD fields).
 * @return 0 or -errno.
 */
int ex_cm_post_sends(struct ex_cm *t, struct ex_cm_node *n, const struct pv_send_wr *tmpl);

/**
 * CONNECT_REQUEST: the next node takes @p id; beyond -c the request is
 * rejected (-ENOMEM).
 * @return The node, or NULL.
 */
struct ex_cm_node *ex_cm_request_node(struct ex_cm *t, struct pv_rdma_cm_id *id);

/**
 * ROUTE_RESOLVED, once the node is ready (@p ret 0): connect with @p cp and
 * the address info's private data. When @p ret or the connect failed, the
 * connection is counted as done.
 * @return 0 or a negative errno.
 */
int ex_cm_connect(struct ex_cm *t, struct ex_cm_node *n, int ret, struct pv_rdma_conn_param *cp);

/**
 * CONNECT_REQUEST, once the node is ready (@p ret 0): accept with @p cp
 * (may be NULL). When @p ret or the accept failed, the request is rejected
 * and counted as done; the node keeps the id for the teardown.
 * @return 0 or a negative errno.
 */
int ex_cm_accept(struct ex_cm *t, struct ex_cm_node *n, int ret, struct pv_rdma_conn_param *cp);

/**
 * Handle events until *@p left drops to zero or one fails, each waiting at
 * most -T seconds: ADDR_RESOLVED (TOS and ACK timeout options, then the
 * route), the failures of a connection attempt ("<name>: event: <event>,
 * error: <status>", the status returned), the others through ops.
 * @return 0 or the failing status.
 */
int ex_cm_events(struct ex_cm *t, int *left, const char *phase);

/**
 * Resolve the addresses of a run as librdmacm's examples do: a passive side
 * (RAI_PASSIVE in @p hints) resolves @p src (NULL: the wildcard) and
 * @p port; an active side resolves @p dst and @p port, bound to @p src when
 * given. Prints the error.
 *
 * @param rai_p  Set on success; free with pv_rdma_freeaddrinfo().
 * @return 0, or -1.
 */
int ex_cm_addr_get(const char *src, const char *dst, const char *port,
		   const struct pv_rdma_addrinfo *hints, struct pv_rdma_addrinfo **rai_p);

/** What ex_cq_drain() calls for each completion: 0 to go on, < 0 to stop. */
typedef int (*ex_wc_check_fn)(void *arg, const struct pv_wc *wc);

/**
 * Poll @p cq until @p count completions came, each passed to @p check,
 * busy-polling as librdmacm's examples; at most @p timeout_s seconds
 * (0: as long as it takes).
 *
 * @return 0, -ETIMEDOUT (the number that came is printed under @p what),
 *         -EIO poll failure, or what @p check returned.
 */
int ex_cq_drain(struct pv_cq *cq, int count, int timeout_s, const char *what,
		ex_wc_check_fn check, void *arg);

/**
 * Check the pattern of the send slots (byte i of message n is n + i);
 * @p seq < 0: of any message (the first byte gives it: datagrams may come
 * in any order).
 *
 * @return -1 when it holds, else the offset of the first wrong byte.
 */
long ex_pattern_check(const uint8_t *buf, size_t len, long seq);

#endif /* PV_APPS_EXAMPLES_EX_CM_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Helpers shared by the applications and the tests (a static, non-installed
 * library, apps/common): EAL argument vectors for pv_init() and the
 * INIT -> RTR -> RTS bring-up of a QP from what its peer sent out of band.
 * Public API only (pv_verbs.h), so that an application linked against the
 * shared libpollverbs can use them.
 */

#ifndef PV_APPS_COMMON_PV_APP_H
#define PV_APPS_COMMON_PV_APP_H

#include <stddef.h>
#include <stdint.h>

#include "pv_verbs.h"

#define PV_APP_EAL_MAX_ARGS	16	/* arguments a struct pv_app_eal holds */
#define PV_APP_SERVER_IP	"10.99.0.1"
#define PV_APP_CLIENT_IP	"10.99.0.2"

/** An argument vector for pv_init(), its strings stored inside it. */
struct pv_app_eal {
	int argc;
	char *argv[PV_APP_EAL_MAX_ARGS + 1];	/* NULL terminated */
	char strings[1024];
	size_t used;				/* bytes of strings taken */
};

/**
 * Start @p e with argv[0] = @p prog.
 *
 * @param e     Vector to reset.
 * @param prog  Program name; copied.
 * Thread: any; @p e is the caller's.
 */
void pv_app_eal_init(struct pv_app_eal *e, const char *prog);

/**
 * Append one argument, printf-formatted, to @p e.
 *
 * @return 0, or -E2BIG when the vector (PV_APP_EAL_MAX_ARGS) or its string
 *         space is full; @p e is then unchanged.
 */
int pv_app_eal_add(struct pv_app_eal *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Fill @p e for softroce over net_memif between two processes on this
 * machine: the server (lcore 0, memif server, 10.99.0.1) and the client
 * (lcore 1, or 0 on a one-CPU machine; memif client, 10.99.0.2), meeting
 * on the memif socket /tmp/pv-<app>-<tcp_port>.sock, with 4352-byte memif
 * buffers (bsize) and softroce's Ethernet MTU at 9000: path MTU 4096, as
 * usertools/pv-demo.sh. Hugepages when hugetlbfs is mounted and 512 MiB are
 * free, else --no-huge -m 1024. The server removes a stale socket; the
 * client waits up to 30 s for it. Prints the arguments it chose.
 *
 * @param app  Short application name ("perf"), used in paths and prefixes.
 * @return 0, or -E2BIG (see pv_app_eal_add()).
 */
int pv_app_eal_default(struct pv_app_eal *e, const char *app, int server, uint16_t tcp_port,
		       const char *prog);

/**
 * pv_init() for an application that takes "[EAL and --pv-dev args] --
 * [options]", or only its options: with a "--" in @p argv, pv_init() gets
 * @p argv as it is; without one, the built-in arguments of
 * pv_app_eal_default() for @p app, @p server and @p port. On success
 * @p argc_p / @p argv_p describe the application's own arguments, argv[0]
 * first, ready for getopt(). Prints "pv-<app>: pv_init: <error>" on failure.
 *
 * @return 0, or the negative errno of pv_init() / pv_app_eal_default().
 * Thread: the main thread, once (as pv_init()).
 */
int pv_app_init(int *argc_p, char ***argv_p, const char *app, int server, uint16_t port);

/**
 * The argument of short option @p opt in @p argv, parsed as getopt(3) with
 * @p optstring would, without disturbing @p argv or getopt's state: to pick
 * the role and port before pv_app_init(). "--" ends the scan; an EAL
 * argument vector is skipped up to its "--".
 *
 * @return The argument (a string of @p argv), @p dflt when the option is
 *         absent; for an option without argument, "" when present.
 * Thread: any; not concurrently with getopt().
 */
const char *pv_app_opt_peek(int argc, char **argv, const char *optstring, int opt,
			    const char *dflt);

/**
 * Fill @p e for a one-process run over the mlx5 device model:
 * -l 0,1 --no-huge --no-pci -m 512 --file-prefix=pv-<app>-model-<pid>
 * --log-level=*:warning --pv-dev=mlx5_model, so that the model polls on
 * lcore 1 beside the application on lcore 0. On a one-CPU machine: -l 0
 * and --pv-dev=mlx5_model:lcore=none (the model runs from pv_progress()).
 * Prints the arguments it chose.
 *
 * @return 0, or -E2BIG (see pv_app_eal_add()).
 */
int pv_app_eal_model(struct pv_app_eal *e, const char *app, const char *prog);

/**
 * Wait until some process listens on the unix socket @p path (a memif
 * server), reading /proc/net/unix: connecting to find out would upset the
 * memif server, and a stale socket file proves nothing.
 *
 * @param timeout_ms  How long to wait, in milliseconds (polled every 100).
 * @return 0 when it listens, -ETIMEDOUT.
 * Thread: any; sleeps.
 */
int pv_app_sock_wait(const char *path, unsigned int timeout_ms);

/** What a QP is connected to: the peer's side, exchanged out of band. */
struct pv_app_qp_peer {
	uint32_t qpn;		/* the peer's QP number: our dest_qp_num */
	uint32_t psn;		/* the peer's first send PSN: our rq_psn */
	union pv_gid gid;	/* all zero: no GRH (LID-routed InfiniBand) */
	uint16_t lid;
};

/**
 * pv_modify_qp() or a stand-in for it (a test runs RTR on a helper thread
 * while it progresses the peer). Returns what pv_modify_qp() returns.
 */
typedef int (*pv_app_qp_modify_fn)(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask,
				   void *arg);

/**
 * The local side of a connection: every attribute of the three transitions
 * that is not the peer's. pv_app_qp_opts_init() sets the defaults of
 * rc_pingpong and perftest; change what differs.
 */
struct pv_app_qp_opts {
	const char *name;	/* prefix of error messages ("pv-perf"); NULL: "qp" */
	uint8_t port_num;	/* 1 */
	uint16_t pkey_index;	/* 0 */
	uint8_t sgid_index;	/* 0 */
	uint8_t hop_limit;	/* 64 */
	uint8_t sl;		/* 0 */
	enum pv_mtu mtu;	/* PV_MTU_1024 */
	unsigned int access;	/* qp_access_flags (RC, UC) at INIT: 0 */
	uint32_t qkey;		/* UD: 0x11111111, as ibv_ud_pingpong */
	uint32_t sq_psn;	/* our first send PSN (the peer's rq_psn): 0 */
	uint8_t timeout;	/* RC local ACK timeout exponent: 14 (67 ms) */
	uint8_t retry_cnt;	/* RC: 7 */
	uint8_t rnr_retry;	/* RC: 7 (infinite) */
	uint8_t min_rnr_timer;	/* RC: 12 (0.64 ms) */
	uint8_t max_rd_atomic;	/* RC: 1 */
	uint8_t max_dest_rd_atomic;	/* RC: 1 */
	pv_app_qp_modify_fn modify;	/* NULL: pv_modify_qp() */
	void *modify_arg;
};

/** Set @p o to the defaults listed in struct pv_app_qp_opts. Thread: any. */
void pv_app_qp_opts_init(struct pv_app_qp_opts *o);

/**
 * The attributes and mask that take @p qp to @p state towards @p peer, for
 * the QP's type: RC all of them; UC without RNR, retry, timeout and RDMA
 * READ/atomic resources (IBTA table 91); UD a Q_Key at INIT, nothing at RTR,
 * the send PSN at RTS. A GRH when @p peer's GID is not all zero.
 *
 * @param state   PV_QPS_INIT, PV_QPS_RTR or PV_QPS_RTS.
 * @param peer    Used for RTR only; may be NULL for INIT and RTS.
 * @param attr_p  Filled (zeroed first).
 * @return The attribute mask (> 0), or -EINVAL for another state, a QP type
 *         other than RC, UC, UD, or RTR without @p peer.
 * Thread: any (reads @p qp->qp_type only).
 */
int pv_app_qp_attr(const struct pv_qp *qp, enum pv_qp_state state,
		   const struct pv_app_qp_opts *o, const struct pv_app_qp_peer *peer,
		   struct pv_qp_attr *attr_p);

/**
 * Take @p qp to @p state (one transition) with pv_app_qp_attr()'s
 * attributes, through @p o->modify when set. On failure prints
 * "<name>: QP 0x<qpn> to <state>: <error>" on stderr.
 *
 * @return 0, or -EINVAL (see pv_app_qp_attr()), or the negated errno
 *         of the modify call.
 * Thread: as pv_modify_qp(); on softroce RTR may block on ARP until the
 *         peer's progress answers it.
 */
int pv_app_qp_modify(struct pv_qp *qp, enum pv_qp_state state, const struct pv_app_qp_opts *o,
		     const struct pv_app_qp_peer *peer);

/**
 * Connect @p qp to @p peer: INIT, RTR, RTS in turn (pv_app_qp_modify()),
 * stopping at the first that fails (it is named on stderr). @p qp must be
 * in RESET.
 *
 * @return 0, or the failed transition's negative errno.
 * Thread: as pv_app_qp_modify().
 */
int pv_app_qp_connect(struct pv_qp *qp, const struct pv_app_qp_opts *o,
		      const struct pv_app_qp_peer *peer);

/**
 * The pv_mtu of @p bytes (256, 512, 1024, 2048 or 4096).
 * @return The enum value, or 0 for any other size.
 */
enum pv_mtu pv_app_mtu_from_bytes(int bytes);

#endif /* PV_APPS_COMMON_PV_APP_H */

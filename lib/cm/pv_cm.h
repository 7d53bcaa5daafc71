/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * Connection setup helpers: the out-of-band TCP channel over which two
 * processes exchange QPN, PSN, GID, rkey and address before connecting a QP
 * (what perftest and ibv_rc_pingpong do by hand).
 */

#ifndef PV_LIB_CM_PV_CM_H
#define PV_LIB_CM_PV_CM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

/**
 * Listen on TCP @p port (all addresses) and accept one connection.
 * @param timeout_ms  Give up after this many milliseconds; < 0 waits forever.
 * @return Connected socket fd, or -errno (-ETIMEDOUT, -EADDRINUSE, ...).
 * Thread: any; blocks (control path).
 */
PV_EXPORT int pv_cm_oob_accept(uint16_t port, int timeout_ms);

/**
 * Connect to @p host (name or address) TCP @p port, retrying until
 * @p timeout_ms milliseconds have passed (< 0: forever).
 * @return Connected socket fd, or -errno (-ETIMEDOUT, -EHOSTUNREACH, ...).
 * Thread: any; blocks (control path).
 */
PV_EXPORT int pv_cm_oob_connect(const char *host, uint16_t port, int timeout_ms);

/** Write exactly @p len bytes; 0 or -errno (-EPIPE peer closed). */
PV_EXPORT int pv_cm_oob_send(int fd, const void *buf, size_t len);

/** Read exactly @p len bytes; 0, -ECONNRESET peer closed early, or -errno. */
PV_EXPORT int pv_cm_oob_recv(int fd, void *buf, size_t len);

/**
 * Progress callback run while an out-of-band read waits: on a poll-mode
 * driver nothing moves unless the queue owner keeps calling pv_progress(),
 * so a process waiting for its peer must keep its own queues going (the
 * peer may be waiting for this side's ACKs or read responses).
 * @return work done (> 0 busy, 0 idle) or -errno; a negative value aborts
 *         the wait with that value.
 */
typedef int (*pv_cm_progress_fn)(void *arg);

/**
 * Read exactly @p len bytes from @p fd, calling @p fn(@p arg) between
 * non-blocking reads. The socket is checked at most every
 * PV_CM_OOB_POLL_US microseconds while @p fn reports work, so a busy data
 * path is not slowed by a system call per progress call, and at most every
 * PV_CM_OOB_IDLE_POLL_US while it reports none.
 *
 * @param fn          May be NULL: then the read just polls the socket.
 * @param timeout_ms  Give up after this many milliseconds; < 0 waits forever.
 * @return 0; -ETIMEDOUT; -ECONNRESET peer closed early; fn's negative
 *         return; or -errno of recv().
 * Thread: the owner of the queues @p fn progresses; control path.
 */
PV_EXPORT int pv_cm_oob_recv_poll(int fd, void *buf, size_t len, pv_cm_progress_fn fn,
				  void *arg, int timeout_ms);

/** Interval between socket checks of pv_cm_oob_recv_poll() while busy. */
#define PV_CM_OOB_POLL_US 100
/** Interval between socket checks of pv_cm_oob_recv_poll() while idle. */
#define PV_CM_OOB_IDLE_POLL_US 10

/**
 * Barrier with the peer: send one token byte, then wait for the peer's
 * (pv_cm_oob_recv_poll() with @p fn). Both sides call it; neither returns
 * before both have entered it.
 * @return 0, -EPROTO the peer sent something else, or as pv_cm_oob_recv_poll()
 *         and pv_cm_oob_send().
 */
PV_EXPORT int pv_cm_oob_barrier(int fd, pv_cm_progress_fn fn, void *arg, int timeout_ms);

/* ---------------------------------------------------------------------- */
/* rc_pingpong's exchange: "LLLL:QQQQQQ:PPPPPP:GGGG...G" (libibverbs examples) */
/* ---------------------------------------------------------------------- */

/**
 * Bytes of one rc_pingpong address message, NUL included: sizeof of
 * "0000:000000:000000:00000000000000000000000000000000". ibv_rc_pingpong
 * writes and reads exactly this many bytes each way, then the client sends
 * "done" with its NUL (PV_CM_PP_DONE_LEN bytes).
 */
#define PV_CM_PP_MSG_LEN 52
#define PV_CM_PP_DONE_LEN 5
/** Characters of a wire GID (32 hex digits), without the NUL. */
#define PV_CM_WIRE_GID_LEN 32

/** One side's address as rc_pingpong exchanges it. */
struct pv_cm_pp_dest {
	uint16_t lid;		/**< 0 on RoCE */
	uint32_t qpn;		/**< 24 bits */
	uint32_t psn;		/**< 24 bits */
	uint8_t gid[16];	/**< raw GID bytes, network order; all zero: none */
};

/**
 * Format a raw GID as rc_pingpong's gid_to_wire_gid() does: 32 lowercase
 * hex digits, the 16 bytes in order (four big-endian 32-bit words).
 * @param wgid  At least PV_CM_WIRE_GID_LEN + 1 bytes; NUL terminated.
 * Thread: any.
 */
PV_EXPORT void pv_cm_gid_to_wire(const uint8_t gid[16], char *wgid);

/**
 * Parse a wire GID (wire_gid_to_gid()): exactly 32 hex digits, either case.
 * @return 0 with @p gid filled, -EINVAL NULL argument or not 32 hex digits
 *         (then @p gid is unchanged).
 */
PV_EXPORT int pv_cm_wire_to_gid(const char *wgid, uint8_t gid[16]);

/**
 * Encode @p dest as "%04x:%06x:%06x:<wire gid>" into @p msg, NUL padded to
 * PV_CM_PP_MSG_LEN bytes (the exact bytes ibv_rc_pingpong sends).
 * @return 0, -EINVAL NULL argument or qpn/psn wider than 24 bits.
 */
PV_EXPORT int pv_cm_pp_encode(const struct pv_cm_pp_dest *dest, char msg[PV_CM_PP_MSG_LEN]);

/**
 * Decode an rc_pingpong address message. Accepts what rc_pingpong's sscanf
 * accepts from a well-formed peer: three hex fields and a 32-digit GID,
 * separated by ':'; the text must be NUL terminated within @p len bytes.
 * @return 0 with *@p dest_p set; -EINVAL NULL argument, malformed text, a
 *         LID wider than 16 or a QPN/PSN wider than 24 bits.
 */
PV_EXPORT int pv_cm_pp_decode(const char *msg, size_t len, struct pv_cm_pp_dest *dest_p);

/* ---------------------------------------------------------------------- */
/* pollverbs' native connection message (pv-perf; binary, big endian)      */
/* ---------------------------------------------------------------------- */

/** Bytes of an encoded struct pv_cm_conn_info. */
#define PV_CM_CONN_MSG_LEN 64
/** Version written into, and required from, a connection message. */
#define PV_CM_CONN_VERSION 1

/** What one side tells the other to connect an RC QP and reach its buffer. */
struct pv_cm_conn_info {
	uint32_t qpn;		/**< 24 bits */
	uint32_t psn;		/**< 24 bits */
	uint32_t rkey;		/**< of the buffer at @c addr */
	uint16_t lid;		/**< 0 on RoCE */
	uint8_t out_reads;	/**< max outstanding RDMA reads the sender accepts */
	uint8_t mtu;		/**< enum pv_mtu value (1..5) the sender will use */
	uint64_t addr;		/**< virtual address of the remote buffer */
	uint64_t len;		/**< bytes of the remote buffer */
	uint8_t gid[16];	/**< raw GID bytes, network order */
};

/**
 * Encode @p info into exactly PV_CM_CONN_MSG_LEN bytes: "PVCM", version
 * (be16), lid (be16), qpn, psn, rkey (be32), out_reads, mtu, 2 zero bytes,
 * addr, len (be64), gid[16], 8 zero bytes.
 * @return 0, -EINVAL NULL argument or qpn/psn wider than 24 bits.
 */
PV_EXPORT int pv_cm_conn_encode(const struct pv_cm_conn_info *info,
				uint8_t msg[PV_CM_CONN_MSG_LEN]);

/**
 * Decode a connection message.
 * @return 0 with *@p info_p set; -EINVAL NULL argument or qpn/psn wider
 *         than 24 bits; -EPROTO wrong magic or version.
 */
PV_EXPORT int pv_cm_conn_decode(const uint8_t msg[PV_CM_CONN_MSG_LEN],
				struct pv_cm_conn_info *info_p);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_CM_PV_CM_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-perf's perftest-compatible out-of-band exchange (perf_proto.c): the
 * TCP conversation of the perftest tools, so that pv-perf and ib_*_bw /
 * ib_*_lat can measure each other. Private to apps/perf; it lived in lib/cm
 * until lib/cm became the home of the connection manager.
 */

#ifndef PV_APPS_PERF_PERF_PROTO_H
#define PV_APPS_PERF_PERF_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <pv_cm.h>

/*
 * The perftest tools (linux-rdma/perftest, Debian 12's 4.5+0.17, which calls
 * itself version 6.06) set up their QPs over one TCP connection (port 18515).
 * Everything is written by the client first and read back second; the
 * server reads first, then writes. In order, for the six RC tests with one
 * QP and a GID (-x N):
 *
 *  1. version: 16 bytes each way, a NUL-padded string ("6.06"); a peer
 *     below 5.70 is refused: pv_perftest_begin().
 *  2. sys data: page size then cache line size, each a big-endian int32;
 *     both keep the larger: pv_perftest_begin().
 *  3. MTU: 2 bytes each way, the enum ibv_mtu value as "%d" text plus NUL
 *     ("3\0" = 1024); both use the smaller: pv_perftest_begin().
 *  4. address handshakes, each a pv_perftest_dest message
 *     (PV_PERFTEST_DEST_LEN_GID bytes, see pv_perftest_dest_encode()).
 *     Every later synchronisation point of perftest is one more such
 *     handshake with the same content:
 *
 *     test        before RTR  after RTS  start  end
 *     write_bw    1           2          -      1, bw report, 1, "done"
 *     read_bw     1           2          -      1, bw report, 1, "done"
 *     send_bw     1           2          1      1, "done"
 *     write_lat   2           2          -      (none: the sockets close)
 *     read_lat    2           2          -      1, "done"
 *     send_lat    1           2          1      1, "done"
 *
 *     "before RTR": pv_perftest_exchange_dest() (the remote QPN, PSN,
 *     rkey, address and GID come out of the first one); "after RTS" and
 *     "start": pv_perftest_ready(), to be called once the QP is RTS and,
 *     for SEND tests, the receives are posted; "end": pv_perftest_finish().
 *     For write_bw, read_bw and read_lat the server (the passive side of
 *     the data transfer) calls pv_perftest_finish() right after
 *     pv_perftest_ready() and waits there, progressing its queues, until
 *     the client has finished the test and enters its own end handshake.
 *  5. bw report (write_bw, read_bw): five values, each exchanged on its
 *     own: size, iters (big-endian u64), bw_peak, bw_avg, msg_rate (IEEE
 *     doubles in big-endian byte order). The server prints the client's.
 *  6. "done": 5 bytes ("done" + NUL) written by both sides; never read by
 *     perftest.
 *
 * Without a GID (perftest without -x) the address message is the 59-byte
 * KEY format instead of the 108-byte one: see pv_perftest_dest_encode().
 *
 * perftest -R (--rdma_cm, 4.5's work_rdma_cm) holds the same conversation
 * over an RC connection of its own instead of TCP: a first rdma_cm
 * connection to the same port (18515), each message one SEND into a single
 * posted receive of 56 bytes, reposted as soon as it is read. What changes:
 *  - every address handshake is the 56-byte binary struct pingpong_dest
 *    (pv_perftest_dest_encode_cm());
 *  - two more handshakes, all zeros, come right after the MTU: one before
 *    and one after the second rdma_cm connection, which carries the test
 *    QP (pv_perftest_cm_sync());
 *  - no "done" at the end: the client disconnects both connections, the
 *    test one first.
 * In capture order (send_bw): 16, 4, 4, 2, then 7 x 56 bytes each way.
 */

/** TCP port the perftest tools listen on by default. */
#define PV_PERFTEST_PORT 18515
/** Bytes of the version string exchanged (perftest's MAX_VERSION). */
#define PV_PERFTEST_VERSION_LEN 16
/** Version pollverbs announces: the perftest 4.5-0.17 release's own. */
#define PV_PERFTEST_VERSION "6.06"
/** Address message without GID: "%04x:%04x:%06x:%06x:%08x:%016llx:%08x" + NUL. */
#define PV_PERFTEST_DEST_LEN 59
/** Address message with GID: 6 fields, 16 GID bytes, SRQN, each ':' ended, + NUL. */
#define PV_PERFTEST_DEST_LEN_GID 108
/** Address message of perftest -R: struct pingpong_dest, big-endian fields. */
#define PV_PERFTEST_DEST_LEN_CM 56
/** Bytes of the closing message ("done" with its NUL). */
#define PV_PERFTEST_DONE_LEN 5

/** One QP's address as perftest's struct pingpong_dest carries it. */
struct pv_perftest_dest {
	uint16_t lid;		/**< 0 on RoCE */
	uint32_t out_reads;	/**< RDMA reads the sender's responder accepts (16 bits on the wire) */
	uint32_t qpn;		/**< 24 bits */
	uint32_t psn;		/**< 24 bits */
	uint32_t rkey;		/**< of the buffer at @c vaddr */
	uint64_t vaddr;		/**< where the peer's RDMA WRITE/READ go */
	uint32_t srqn;		/**< 0 unless XRC/DC */
	uint8_t gid[16];	/**< raw GID bytes, network order */
};

/** Tests whose synchronisation sequence pv_perftest_* knows (RC only). */
enum pv_perftest_test {
	PV_PERFTEST_WRITE_BW,	/**< ib_write_bw */
	PV_PERFTEST_READ_BW,		/**< ib_read_bw */
	PV_PERFTEST_SEND_BW,		/**< ib_send_bw */
	PV_PERFTEST_WRITE_LAT,	/**< ib_write_lat */
	PV_PERFTEST_READ_LAT,	/**< ib_read_lat */
	PV_PERFTEST_SEND_LAT,	/**< ib_send_lat */
};

/** Which end of the TCP connection this process is. */
enum pv_perftest_role {
	PV_PERFTEST_SERVER,		/**< accepted: reads first */
	PV_PERFTEST_CLIENT,		/**< connected: writes first */
};

/** A bandwidth report (perftest's struct bw_report_data, one port). */
struct pv_perftest_bw_report {
	uint64_t size;		/**< message size, bytes */
	uint64_t iters;		/**< messages measured */
	double bw_peak;		/**< in the unit the peer prints: MiB/s (2^20 B/s) by default */
	double bw_avg;		/**< same unit as bw_peak */
	double msg_rate;	/**< millions of messages per second */
};

/**
 * Moves one message of the rdma_cm conversation (perftest -R): send @p len
 * bytes, or wait for the next message, which must be @p len bytes long.
 * @return 0 or a negative errno.
 */
typedef int (*pv_perftest_msg_fn)(void *arg, void *buf, size_t len);

/** State of one perftest-compatible session (fill the first block, zero the rest). */
struct pv_perftest {
	/* set by the caller */
	int fd;				/**< connected TCP socket (pv_cm_oob_*); -1 with rdma_cm */
	int rdma_cm;			/**< 1: perftest -R, messages through msg_send/msg_recv */
	pv_perftest_msg_fn msg_send;	/**< rdma_cm: post one SEND, wait for its completion */
	pv_perftest_msg_fn msg_recv;	/**< rdma_cm: wait for one message (progress included) */
	void *msg_arg;
	enum pv_perftest_role role;
	enum pv_perftest_test test;
	int use_gid;			/**< 1: 108-byte messages (perftest -x); 0: 59-byte */
	int timeout_ms;			/**< per read; < 0 waits forever */
	pv_cm_progress_fn progress;	/**< run while a read waits; may be NULL */
	void *progress_arg;
	struct pv_perftest_dest local; /**< this side's QP (set before exchange_dest) */
	/* results */
	char remote_version[PV_PERFTEST_VERSION_LEN + 1]; /**< NUL terminated */
	uint32_t cycle_buffer;		/**< max of both page sizes, bytes */
	uint32_t cache_line_size;	/**< max of both, bytes */
	int mtu;			/**< negotiated enum pv_mtu value */
	struct pv_perftest_dest remote; /**< the peer's QP */
	unsigned int handshakes;	/**< address handshakes done so far */
};

/**
 * Encode @p dest as perftest's ethernet_write_keys() does: with @p use_gid,
 * "%04x:%04x:%06x:%06x:%08x:%016llx:" then the 16 GID bytes as "%02x:"
 * then "%08x:" (the SRQN) and a NUL, PV_PERFTEST_DEST_LEN_GID bytes;
 * without, "%04x:%04x:%06x:%06x:%08x:%016llx:%08x" and a NUL,
 * PV_PERFTEST_DEST_LEN bytes.
 * @param msg  Room for the length returned.
 * @return Bytes to send (59 or 108); -EINVAL NULL argument, or a field too
 *         wide for its slot (out_reads > 0xffff, qpn or psn > 0xffffff),
 *         which would shift the fixed-size message; -ENOSPC @p len too small.
 * Thread: any.
 */
int pv_perftest_dest_encode(const struct pv_perftest_dest *dest, int use_gid, char *msg,
			    size_t len);

/**
 * Encode @p dest as perftest -R's rdma_write_keys(): struct pingpong_dest of
 * x86-64 with every field big-endian: lid, out_reads, qpn, psn, rkey (4
 * bytes each), 4 bytes of padding (zero here), vaddr (8), the 16 GID bytes,
 * srqn, gid_index (4 each).
 * @param msg  PV_PERFTEST_DEST_LEN_CM bytes.
 * @return PV_PERFTEST_DEST_LEN_CM; -EINVAL NULL argument.
 * Thread: any.
 */
int pv_perftest_dest_encode_cm(const struct pv_perftest_dest *dest, uint8_t *msg);

/**
 * Decode perftest -R's address message (what rdma_read_keys() reads: not
 * srqn, not gid_index, not the padding).
 * @return 0 with *@p dest_p set (srqn 0); -EINVAL NULL argument.
 * Thread: any.
 */
int pv_perftest_dest_decode_cm(const uint8_t *msg, struct pv_perftest_dest *dest_p);

/**
 * Decode a message produced by pv_perftest_dest_encode() or perftest.
 * Every field must be hex digits ended by ':' (the last, without GID, by
 * NUL) within @p len bytes.
 * @return 0 with *@p dest_p set; -EINVAL NULL argument, wrong length for
 *         @p use_gid, or malformed text (then *@p dest_p is unchanged).
 * Thread: any.
 */
int pv_perftest_dest_decode(const char *msg, size_t len, int use_gid,
			    struct pv_perftest_dest *dest_p);

/**
 * perftest's ctx_xchg_data(): the client writes @p len bytes of @p mine
 * then reads @p len bytes into @p theirs; the server reads then writes.
 * Reads run @p pt->progress while they wait. With pt->rdma_cm the bytes go
 * through pt->msg_send and pt->msg_recv (ctx_xchg_data_rdma()).
 * @return 0; -ETIMEDOUT after @p pt->timeout_ms; -ECONNRESET peer closed;
 *         progress's negative return; -errno of the socket.
 * Thread: the owner of the queues pt->progress drives; control path.
 */
int pv_perftest_xchg(struct pv_perftest *pt, const void *mine, void *theirs, size_t len);

/**
 * Steps 1-3: versions, sys data and MTU. @p local_mtu is this side's enum
 * pv_mtu (the port's active MTU, or what the user asked for).
 * @return 0 with pt->remote_version, cycle_buffer, cache_line_size and mtu
 *         set; -EPROTO the peer's version is below 5.70 or unparsable;
 *         -EINVAL bad @p pt or @p local_mtu; as pv_perftest_xchg().
 */
int pv_perftest_begin(struct pv_perftest *pt, int local_mtu);

/**
 * The handshakes before RTR (one or two, by test): sends pt->local and sets
 * pt->remote from the first reply; later replies must be identical.
 * @return 0; -EPROTO malformed or changing reply; as pv_perftest_xchg().
 */
int pv_perftest_exchange_dest(struct pv_perftest *pt);

/**
 * The handshakes between RTS and the start of traffic (two, plus one for
 * SEND tests). Call it with the QP in RTS and, for SEND tests, the receive
 * queue posted: the peer starts sending as soon as it returns.
 * @return as pv_perftest_exchange_dest().
 */
int pv_perftest_ready(struct pv_perftest *pt);

/**
 * One address handshake outside the fixed sequence (perftest's ctx_hand_shake
 * used as a barrier).
 * @return as pv_perftest_exchange_dest().
 */
int pv_perftest_sync(struct pv_perftest *pt);

/**
 * perftest -R's handshake around the test QP's rdma_cm connection: 56 zero
 * bytes each way (perftest's my_dest is still empty there), not checked
 * and not counted in pt->handshakes. Call it once before connecting (or,
 * on the server, listening for) the test QP and once after.
 * @return as pv_perftest_xchg(); -EINVAL not an rdma_cm session.
 */
int pv_perftest_cm_sync(struct pv_perftest *pt);

/**
 * The end of the test: the end handshake, for write_bw/read_bw the bw
 * reports, then "done" (half-closing the socket and reading the peer's
 * "done" or end of stream, best effort; not with rdma_cm). Nothing for
 * write_lat. The caller closes pt->fd (disconnects, with rdma_cm) afterwards.
 * @param local_report   This side's numbers (write_bw/read_bw); NULL sends
 *                       zeros (a server that measured nothing).
 * @param remote_report_p Set to the peer's numbers (write_bw/read_bw); may be
 *                       NULL. Untouched for the other tests.
 * @return 0; as pv_perftest_exchange_dest().
 */
int pv_perftest_finish(struct pv_perftest *pt,
		       const struct pv_perftest_bw_report *local_report,
		       struct pv_perftest_bw_report *remote_report_p);

#endif /* PV_APPS_PERF_PERF_PROTO_H */

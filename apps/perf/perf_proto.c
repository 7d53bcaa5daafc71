/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * perftest-compatible out-of-band exchange: the TCP conversation the perftest
 * tools (ib_write_bw and friends, 4.5-0.17 era, version string "6.06") hold
 * before, between and after their RDMA traffic when run with -x, over TCP or
 * (-R) as SENDs on an rdma_cm connection. The sequence per test is
 * documented in perf_proto.h; this file only reproduces the bytes. Control path: everything here may block.
 */

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_log.h>

#include "perf_proto.h"

/* pv.app.perf.proto (meson passes -DRTE_LOG_DEFAULT_LOGTYPE=pv.app.perf) */
RTE_LOG_REGISTER_SUFFIX(pv_perf_proto_logtype, proto, NOTICE);
#define RTE_LOGTYPE_PV_PERF_PROTO pv_perf_proto_logtype
#define PROTO_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_PERF_PROTO, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* the oldest peer whose exchange matches this file (perftest's own check) */
#define PROTO_MIN_REMOTE_VERSION 5.70
/* perftest sends its enum ibv_mtu as "%d" text in 2 bytes from 5.31 on */
#define PROTO_MTU_LEN 2
/* how often the socket is checked while the progress callback reports work */
#define PROTO_POLL_NS 100000
/* how long pv_perftest_finish() waits for the peer's "done" */
#define PROTO_DONE_WAIT_MS 2000

static const char proto_done[PV_PERFTEST_DONE_LEN] = "done";

/* handshakes per phase and test (see the table in perf_proto.h) */
struct proto_seq {
	const char *name;
	uint8_t before_rtr;
	uint8_t after_rts;	/* including the start barrier of SEND tests */
	uint8_t end_sync;	/* handshakes before the bw report */
	uint8_t bw_report;
	uint8_t close;		/* ctx_close_connection(): a handshake, then "done" */
};

static const struct proto_seq proto_seqs[] = {
	[PV_PERFTEST_WRITE_BW] = { "write_bw", 1, 2, 1, 1, 1 },
	[PV_PERFTEST_READ_BW] = { "read_bw", 1, 2, 1, 1, 1 },
	[PV_PERFTEST_SEND_BW] = { "send_bw", 1, 3, 0, 0, 1 },
	[PV_PERFTEST_WRITE_LAT] = { "write_lat", 2, 2, 0, 0, 0 },
	[PV_PERFTEST_READ_LAT] = { "read_lat", 2, 2, 0, 0, 1 },
	[PV_PERFTEST_SEND_LAT] = { "send_lat", 1, 3, 0, 0, 1 },
};

static int64_t
proto_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
proto_check(const struct pv_perftest *pt)
{
	if (pt == NULL ||
	    (pt->rdma_cm ? pt->msg_send == NULL || pt->msg_recv == NULL : pt->fd < 0) ||
	    (pt->role != PV_PERFTEST_SERVER && pt->role != PV_PERFTEST_CLIENT) ||
	    (unsigned int)pt->test >= RTE_DIM(proto_seqs))
		return -EINVAL;
	return 0;
}

/*
 * Read exactly len bytes. Without a progress callback this sleeps in poll();
 * with one, the callback runs back to back and the socket is looked at every
 * PROTO_POLL_NS, so the queues of a poll-mode driver keep moving (a peer
 * doing RDMA to us needs our ACKs and read responses before it will write).
 */
static int
proto_recv(const struct pv_perftest *pt, void *buf, size_t len)
{
	int64_t deadline = pt->timeout_ms < 0 ? INT64_MAX :
			   proto_now_ns() + (int64_t)pt->timeout_ms * 1000000;
	struct pollfd pfd = { .fd = pt->fd, .events = POLLIN };
	int64_t next_check = 0, now;
	char *p = buf;
	ssize_t n;
	int ret;

	while (len > 0) {
		now = proto_now_ns();
		if (pt->progress != NULL) {
			ret = pt->progress(pt->progress_arg);
			if (ret < 0)
				return ret;
			if (now < next_check && now < deadline)
				continue;
			next_check = now + PROTO_POLL_NS;
			ret = poll(&pfd, 1, 0);
		} else {
			int64_t left_ms = (deadline - now + 999999) / 1000000;

			ret = poll(&pfd, 1, pt->timeout_ms < 0 ? -1 :
				   (int)RTE_MAX(RTE_MIN(left_ms, (int64_t)INT32_MAX), 0));
		}
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0) {
			if (proto_now_ns() >= deadline)
				return -ETIMEDOUT;
			continue;
		}
		n = recv(pt->fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int
pv_perftest_xchg(struct pv_perftest *pt, const void *mine, void *theirs, size_t len)
{
	int ret;

	ret = proto_check(pt);
	if (ret < 0 || mine == NULL || theirs == NULL)
		return -EINVAL;
	if (pt->rdma_cm) {
		/* the peer reposts its one receive before it answers */
		if (pt->role == PV_PERFTEST_CLIENT) {
			ret = pt->msg_send(pt->msg_arg, (void *)(uintptr_t)mine, len);
			if (ret == 0)
				ret = pt->msg_recv(pt->msg_arg, theirs, len);
		} else {
			ret = pt->msg_recv(pt->msg_arg, theirs, len);
			if (ret == 0)
				ret = pt->msg_send(pt->msg_arg, (void *)(uintptr_t)mine, len);
		}
		return ret;
	}
	if (pt->role == PV_PERFTEST_CLIENT) {
		ret = pv_cm_oob_send(pt->fd, mine, len);
		if (ret == 0)
			ret = proto_recv(pt, theirs, len);
	} else {
		ret = proto_recv(pt, theirs, len);
		if (ret == 0)
			ret = pv_cm_oob_send(pt->fd, mine, len);
	}
	return ret;
}

int
pv_perftest_dest_encode(const struct pv_perftest_dest *dest, int use_gid, char *msg,
			size_t len)
{
	size_t want = use_gid ? PV_PERFTEST_DEST_LEN_GID : PV_PERFTEST_DEST_LEN;
	char text[PV_PERFTEST_DEST_LEN_GID + 16];
	const uint8_t *g;
	int n;

	if (dest == NULL || msg == NULL || dest->out_reads > 0xffff || dest->qpn > 0xffffff ||
	    dest->psn > 0xffffff)
		return -EINVAL;
	if (len < want)
		return -ENOSPC;
	g = dest->gid;
	if (use_gid)
		n = snprintf(text, sizeof(text),
			     "%04x:%04x:%06x:%06x:%08x:%016llx:"
			     "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:"
			     "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%08x:",
			     dest->lid, dest->out_reads, dest->qpn, dest->psn, dest->rkey,
			     (unsigned long long)dest->vaddr, g[0], g[1], g[2], g[3], g[4], g[5],
			     g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15],
			     dest->srqn);
	else
		n = snprintf(text, sizeof(text), "%04x:%04x:%06x:%06x:%08x:%016llx:%08x",
			     dest->lid, dest->out_reads, dest->qpn, dest->psn, dest->rkey,
			     (unsigned long long)dest->vaddr, dest->srqn);
	/* every field is at its minimum width once the checks above passed */
	if (n != (int)want - 1)
		return -EINVAL;
	memcpy(msg, text, want - 1);
	msg[want - 1] = '\0';
	return (int)want;
}

/* Parse hex digits up to @p end (':' or '\0'); max_digits bounds the value. */
static int
proto_hex_field(const char **pp, const char *limit, char end, unsigned int max_digits,
		uint64_t *val_p)
{
	const char *p = *pp;
	uint64_t v = 0;
	unsigned int digits = 0;
	int d;

	while (p < limit && *p != end) {
		char c = *p;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		if (++digits > max_digits)
			return -EINVAL;
		v = v << 4 | (unsigned int)d;
		p++;
	}
	if (digits == 0 || p >= limit)
		return -EINVAL;
	*pp = p + 1;
	*val_p = v;
	return 0;
}

int
pv_perftest_dest_decode(const char *msg, size_t len, int use_gid,
			struct pv_perftest_dest *dest_p)
{
	/* digits allowed per field: lid, out_reads, qpn, psn, rkey, vaddr */
	static const unsigned int widths[6] = { 4, 4, 6, 6, 8, 16 };
	size_t want = use_gid ? PV_PERFTEST_DEST_LEN_GID : PV_PERFTEST_DEST_LEN;
	struct pv_perftest_dest d;
	const char *p = msg, *limit;
	uint64_t v[6], x;
	unsigned int i;

	if (msg == NULL || dest_p == NULL || len != want)
		return -EINVAL;
	limit = msg + len;
	for (i = 0; i < RTE_DIM(widths); i++)
		if (proto_hex_field(&p, limit, ':', widths[i], &v[i]) < 0)
			return -EINVAL;
	memset(&d, 0, sizeof(d));
	d.lid = (uint16_t)v[0];
	d.out_reads = (uint32_t)v[1];
	d.qpn = (uint32_t)v[2];
	d.psn = (uint32_t)v[3];
	d.rkey = (uint32_t)v[4];
	d.vaddr = v[5];
	if (use_gid) {
		for (i = 0; i < 16; i++) {
			if (proto_hex_field(&p, limit, ':', 2, &x) < 0)
				return -EINVAL;
			d.gid[i] = (uint8_t)x;
		}
		if (proto_hex_field(&p, limit, ':', 8, &x) < 0)
			return -EINVAL;
	} else {
		if (proto_hex_field(&p, limit, '\0', 8, &x) < 0)
			return -EINVAL;
	}
	d.srqn = (uint32_t)x;
	/* what follows the text must be the NUL of a fixed-size message */
	if (use_gid && (p >= limit || *p != '\0'))
		return -EINVAL;
	*dest_p = d;
	return 0;
}

static void
proto_put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t
proto_get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

/* offsets in perftest's struct pingpong_dest (x86-64 layout) */
enum {
	PROTO_CM_LID = 0,
	PROTO_CM_OUT_READS = 4,
	PROTO_CM_QPN = 8,
	PROTO_CM_PSN = 12,
	PROTO_CM_RKEY = 16,
	PROTO_CM_VADDR = 24,	/* after 4 bytes of padding */
	PROTO_CM_GID = 32,
	PROTO_CM_SRQN = 48,
	PROTO_CM_GID_INDEX = 52,
};

int
pv_perftest_dest_encode_cm(const struct pv_perftest_dest *dest, uint8_t *msg)
{
	uint64_t vaddr;

	if (dest == NULL || msg == NULL)
		return -EINVAL;
	memset(msg, 0, PV_PERFTEST_DEST_LEN_CM);
	proto_put_be32(msg + PROTO_CM_LID, dest->lid);
	proto_put_be32(msg + PROTO_CM_OUT_READS, dest->out_reads);
	proto_put_be32(msg + PROTO_CM_QPN, dest->qpn);
	proto_put_be32(msg + PROTO_CM_PSN, dest->psn);
	proto_put_be32(msg + PROTO_CM_RKEY, dest->rkey);
	vaddr = htobe64(dest->vaddr);
	memcpy(msg + PROTO_CM_VADDR, &vaddr, sizeof(vaddr));
	memcpy(msg + PROTO_CM_GID, dest->gid, sizeof(dest->gid));
	proto_put_be32(msg + PROTO_CM_SRQN, dest->srqn);
	/* gid_index: perftest copies it to rem_dest but never reads it */
	return PV_PERFTEST_DEST_LEN_CM;
}

int
pv_perftest_dest_decode_cm(const uint8_t *msg, struct pv_perftest_dest *dest_p)
{
	struct pv_perftest_dest d;
	uint64_t vaddr;

	if (msg == NULL || dest_p == NULL)
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	d.lid = (uint16_t)proto_get_be32(msg + PROTO_CM_LID);
	d.out_reads = proto_get_be32(msg + PROTO_CM_OUT_READS);
	d.qpn = proto_get_be32(msg + PROTO_CM_QPN);
	d.psn = proto_get_be32(msg + PROTO_CM_PSN);
	d.rkey = proto_get_be32(msg + PROTO_CM_RKEY);
	memcpy(&vaddr, msg + PROTO_CM_VADDR, sizeof(vaddr));
	d.vaddr = be64toh(vaddr);
	memcpy(d.gid, msg + PROTO_CM_GID, sizeof(d.gid));
	*dest_p = d;
	return 0;
}

int
pv_perftest_begin(struct pv_perftest *pt, int local_mtu)
{
	char mine_v[PV_PERFTEST_VERSION_LEN] = PV_PERFTEST_VERSION;
	char theirs_v[PV_PERFTEST_VERSION_LEN];
	char mine_mtu[PROTO_MTU_LEN + 1], theirs_mtu[PROTO_MTU_LEN + 1];
	uint32_t mine_u32, theirs_u32;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	uint32_t line = (uint32_t)sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	char *end;
	double rv;
	long rm;
	int ret;

	ret = proto_check(pt);
	if (ret < 0 || local_mtu < 1 || local_mtu > 5)
		return -EINVAL;
	if (line == 0 || line > 4096)
		line = 64;

	/* 1. versions: a NUL-padded 16-byte string each way */
	ret = pv_perftest_xchg(pt, mine_v, theirs_v, sizeof(theirs_v));
	if (ret < 0)
		goto err_io;
	memcpy(pt->remote_version, theirs_v, sizeof(theirs_v));
	pt->remote_version[PV_PERFTEST_VERSION_LEN] = '\0';
	rv = strtod(pt->remote_version, &end);
	if (end == pt->remote_version || rv < PROTO_MIN_REMOTE_VERSION) {
		PROTO_LOG(ERR, "peer perftest version \"%s\" is older than %.2f",
			  pt->remote_version, PROTO_MIN_REMOTE_VERSION);
		return -EPROTO;
	}

	/* 2. sys data: page size and cache line, big-endian int32, keep the max */
	mine_u32 = htobe32(page);
	ret = pv_perftest_xchg(pt, &mine_u32, &theirs_u32, sizeof(theirs_u32));
	if (ret < 0)
		goto err_io;
	pt->cycle_buffer = RTE_MAX(page, be32toh(theirs_u32));
	mine_u32 = htobe32(line);
	ret = pv_perftest_xchg(pt, &mine_u32, &theirs_u32, sizeof(theirs_u32));
	if (ret < 0)
		goto err_io;
	pt->cache_line_size = RTE_MAX(line, be32toh(theirs_u32));

	/* 3. MTU: the enum value as "%d" text in 2 bytes; both keep the smaller */
	snprintf(mine_mtu, sizeof(mine_mtu), "%d", local_mtu);
	ret = pv_perftest_xchg(pt, mine_mtu, theirs_mtu, PROTO_MTU_LEN);
	if (ret < 0)
		goto err_io;
	theirs_mtu[PROTO_MTU_LEN] = '\0';
	rm = strtol(theirs_mtu, NULL, 10);
	/* perftest ignores an invalid remote value, so do we */
	pt->mtu = (rm >= 1 && rm <= 5 && rm < local_mtu) ? (int)rm : local_mtu;
	pt->handshakes = 0;
	PROTO_LOG(DEBUG, "%s: peer version %s, page %u, cache line %u, mtu %d",
		  proto_seqs[pt->test].name, pt->remote_version, pt->cycle_buffer,
		  pt->cache_line_size, pt->mtu);
	return 0;

err_io:
	PROTO_LOG(ERR, "%s: exchange with peer failed: %s", proto_seqs[pt->test].name,
		  strerror(-ret));
	return ret;
}

/* One ctx_hand_shake(): our address out, theirs in (client writes first). */
static int
proto_handshake(struct pv_perftest *pt)
{
	char mine[PV_PERFTEST_DEST_LEN_GID], theirs[PV_PERFTEST_DEST_LEN_GID];
	struct pv_perftest_dest rd;
	int len, ret;

	if (pt->rdma_cm)
		len = pv_perftest_dest_encode_cm(&pt->local, (uint8_t *)mine);
	else
		len = pv_perftest_dest_encode(&pt->local, pt->use_gid, mine, sizeof(mine));
	if (len < 0) {
		PROTO_LOG(ERR, "local address does not fit perftest's format (qpn 0x%x psn 0x%x)",
			  pt->local.qpn, pt->local.psn);
		return len;
	}
	ret = pv_perftest_xchg(pt, mine, theirs, (size_t)len);
	if (ret < 0) {
		PROTO_LOG(ERR, "%s: handshake %u: %s", proto_seqs[pt->test].name,
			  pt->handshakes + 1, strerror(-ret));
		return ret;
	}
	if (pt->rdma_cm)
		ret = pv_perftest_dest_decode_cm((const uint8_t *)theirs, &rd);
	else
		ret = pv_perftest_dest_decode(theirs, (size_t)len, pt->use_gid, &rd);
	if (ret < 0) {
		PROTO_LOG(ERR, "%s: handshake %u: malformed peer message \"%.*s\"",
			  proto_seqs[pt->test].name, pt->handshakes + 1, len, theirs);
		return -EPROTO;
	}
	if (pt->handshakes == 0) {
		pt->remote = rd;
	} else if (memcmp(&rd, &pt->remote, sizeof(rd)) != 0) {
		/* perftest resends the same address at every barrier */
		PROTO_LOG(ERR, "%s: handshake %u: peer address changed (qpn 0x%x psn 0x%x -> "
			  "qpn 0x%x psn 0x%x)", proto_seqs[pt->test].name, pt->handshakes + 1,
			  pt->remote.qpn, pt->remote.psn, rd.qpn, rd.psn);
		return -EPROTO;
	}
	pt->handshakes++;
	return 0;
}

static int
proto_handshakes(struct pv_perftest *pt, unsigned int count)
{
	int ret = 0;

	while (count-- > 0 && ret == 0)
		ret = proto_handshake(pt);
	return ret;
}

int
pv_perftest_exchange_dest(struct pv_perftest *pt)
{
	int ret = proto_check(pt);

	if (ret < 0)
		return ret;
	return proto_handshakes(pt, proto_seqs[pt->test].before_rtr);
}

int
pv_perftest_ready(struct pv_perftest *pt)
{
	int ret = proto_check(pt);

	if (ret < 0)
		return ret;
	return proto_handshakes(pt, proto_seqs[pt->test].after_rts);
}

int
pv_perftest_sync(struct pv_perftest *pt)
{
	int ret = proto_check(pt);

	if (ret < 0)
		return ret;
	return proto_handshake(pt);
}

int
pv_perftest_cm_sync(struct pv_perftest *pt)
{
	uint8_t mine[PV_PERFTEST_DEST_LEN_CM] = { 0 }, theirs[PV_PERFTEST_DEST_LEN_CM];
	int ret = proto_check(pt);

	if (ret < 0 || !pt->rdma_cm)
		return -EINVAL;
	ret = pv_perftest_xchg(pt, mine, theirs, sizeof(theirs));
	if (ret < 0)
		PROTO_LOG(ERR, "%s: handshake around the test connection: %s",
			  proto_seqs[pt->test].name, strerror(-ret));
	return ret;
}

static uint64_t
proto_double_to_be(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return htobe64(u);
}

static double
proto_be_to_double(uint64_t be)
{
	uint64_t u = be64toh(be);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* xchg_bw_reports(): five 8-byte values, each exchanged on its own */
static int
proto_bw_reports(struct pv_perftest *pt, const struct pv_perftest_bw_report *mine,
		 struct pv_perftest_bw_report *theirs_p)
{
	static const struct pv_perftest_bw_report zero;
	uint64_t out[5], in[5];
	unsigned int i;
	int ret;

	if (mine == NULL)
		mine = &zero;
	out[0] = htobe64(mine->size);
	out[1] = htobe64(mine->iters);
	out[2] = proto_double_to_be(mine->bw_peak);
	out[3] = proto_double_to_be(mine->bw_avg);
	out[4] = proto_double_to_be(mine->msg_rate);
	for (i = 0; i < RTE_DIM(out); i++) {
		ret = pv_perftest_xchg(pt, &out[i], &in[i], sizeof(in[i]));
		if (ret < 0)
			return ret;
	}
	if (theirs_p != NULL) {
		theirs_p->size = be64toh(in[0]);
		theirs_p->iters = be64toh(in[1]);
		theirs_p->bw_peak = proto_be_to_double(in[2]);
		theirs_p->bw_avg = proto_be_to_double(in[3]);
		theirs_p->msg_rate = proto_be_to_double(in[4]);
	}
	return 0;
}

/* Best effort: read the peer's "done" or its end of stream so close() sends FIN, not RST. */
static void
proto_drain(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[PV_PERFTEST_DONE_LEN];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(buf) && poll(&pfd, 1, PROTO_DONE_WAIT_MS) > 0) {
		n = recv(fd, buf + got, sizeof(buf) - got, MSG_DONTWAIT);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
}

int
pv_perftest_finish(struct pv_perftest *pt,
		   const struct pv_perftest_bw_report *local_report,
		   struct pv_perftest_bw_report *remote_report_p)
{
	const struct proto_seq *seq;
	int ret = proto_check(pt);

	if (ret < 0)
		return ret;
	seq = &proto_seqs[pt->test];
	if (!seq->close)
		return 0;
	ret = proto_handshakes(pt, seq->end_sync);
	if (ret == 0 && seq->bw_report) {
		ret = proto_bw_reports(pt, local_report, remote_report_p);
		if (ret < 0)
			PROTO_LOG(ERR, "%s: bw report exchange: %s", seq->name, strerror(-ret));
	}
	/* ctx_close_connection(): one more handshake, then "done" */
	if (ret == 0)
		ret = proto_handshake(pt);
	if (ret < 0 || pt->rdma_cm)
		return ret;	/* -R: no "done"; the client disconnects */
	ret = pv_cm_oob_send(pt->fd, proto_done, sizeof(proto_done));
	if (ret < 0)
		return ret;
	shutdown(pt->fd, SHUT_WR);
	proto_drain(pt->fd);
	return 0;
}

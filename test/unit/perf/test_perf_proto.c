/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of apps/perf/perf_proto.c: the address message byte for byte
 * against perftest's formats, and every test's whole TCP conversation over a
 * socketpair, with the other end played either by a script that writes and
 * expects the exact bytes perftest 4.5-0.17 would, or by the API itself.
 */

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_common.h>

#include <CUnit/Basic.h>

#include "perf_proto.h"
#include "ut_common.h"

#define UT_TIMEOUT_MS 5000

/* ------------------------------------------------------------------ */
/* fixtures                                                             */
/* ------------------------------------------------------------------ */

static const struct pv_perftest_dest ut_dest_a = {
	.lid = 0,
	.out_reads = 0x10,
	.qpn = 0x11,
	.psn = 0x973a2b,
	.rkey = 0x1a2b3c4d,
	.vaddr = 0x55d0c8a01000ULL,
	.srqn = 0,
	.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 11 },
};

static const struct pv_perftest_dest ut_dest_b = {
	.lid = 0x1234,
	.out_reads = 1,
	.qpn = 0xabcdef,
	.psn = 0x000001,
	.rkey = 0xffffffff,
	.vaddr = 0xffffffffffffffffULL,
	.srqn = 0x89abcdef,
	.gid = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x77, 0, 0x12 },
};

/* The message exactly as perftest's KEY_PRINT_FMT_GID / KEY_PRINT_FMT make it. */
static size_t
ut_perftest_msg(const struct pv_perftest_dest *d, int use_gid, char *out)
{
	const uint8_t *g = d->gid;
	size_t size = use_gid ? 108 : 59;

	memset(out, 0, size);
	if (use_gid)
		snprintf(out, size,
			 "%04x:%04x:%06x:%06x:%08x:%016llx:%02x:%02x:%02x:%02x:%02x:%02x:"
			 "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%08x:",
			 d->lid, d->out_reads, d->qpn, d->psn, d->rkey,
			 (unsigned long long)d->vaddr, g[0], g[1], g[2], g[3], g[4], g[5], g[6],
			 g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15], d->srqn);
	else
		snprintf(out, size, "%04x:%04x:%06x:%06x:%08x:%016llx:%08x", d->lid,
			 d->out_reads, d->qpn, d->psn, d->rkey, (unsigned long long)d->vaddr,
			 d->srqn);
	return size;
}

/* ------------------------------------------------------------------ */
/* encode / decode                                                      */
/* ------------------------------------------------------------------ */

static void
test_encode_gid_matches_perftest(void)
{
	char msg[128], ref[128];
	int n;

	n = pv_perftest_dest_encode(&ut_dest_a, 1, msg, sizeof(msg));
	CU_ASSERT_EQUAL(n, PV_PERFTEST_DEST_LEN_GID);
	CU_ASSERT_EQUAL(ut_perftest_msg(&ut_dest_a, 1, ref), PV_PERFTEST_DEST_LEN_GID);
	CU_ASSERT_EQUAL(memcmp(msg, ref, PV_PERFTEST_DEST_LEN_GID), 0);
	/* and a literal, so a change of both sides at once is caught too */
	CU_ASSERT_STRING_EQUAL(msg, "0000:0010:000011:973a2b:1a2b3c4d:000055d0c8a01000:"
			       "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:0b:00000000:");
	CU_ASSERT_EQUAL(msg[107], '\0');

	n = pv_perftest_dest_encode(&ut_dest_b, 1, msg, PV_PERFTEST_DEST_LEN_GID);
	CU_ASSERT_EQUAL(n, PV_PERFTEST_DEST_LEN_GID);
	ut_perftest_msg(&ut_dest_b, 1, ref);
	CU_ASSERT_EQUAL(memcmp(msg, ref, PV_PERFTEST_DEST_LEN_GID), 0);
}

static void
test_encode_nogid_matches_perftest(void)
{
	char msg[64], ref[64];
	int n;

	n = pv_perftest_dest_encode(&ut_dest_b, 0, msg, sizeof(msg));
	CU_ASSERT_EQUAL(n, PV_PERFTEST_DEST_LEN);
	ut_perftest_msg(&ut_dest_b, 0, ref);
	CU_ASSERT_EQUAL(memcmp(msg, ref, PV_PERFTEST_DEST_LEN), 0);
	CU_ASSERT_STRING_EQUAL(msg, "1234:0001:abcdef:000001:ffffffff:ffffffffffffffff:89abcdef");
}

static void
test_encode_errors(void)
{
	struct pv_perftest_dest d = ut_dest_a;
	char msg[128];

	CU_ASSERT_EQUAL(pv_perftest_dest_encode(NULL, 1, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 1, NULL, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 1, msg, 107), -ENOSPC);
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 0, msg, 58), -ENOSPC);
	d.qpn = 0x1000000;
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 1, msg, sizeof(msg)), -EINVAL);
	d = ut_dest_a;
	d.psn = 0x1000000;
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 1, msg, sizeof(msg)), -EINVAL);
	d = ut_dest_a;
	d.out_reads = 0x10000;
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 0, msg, sizeof(msg)), -EINVAL);
}

static void
test_decode_round_trip(void)
{
	struct pv_perftest_dest out;
	char msg[128];
	int g;

	for (g = 0; g <= 1; g++) {
		const struct pv_perftest_dest *src[2] = { &ut_dest_a, &ut_dest_b };
		int i;

		for (i = 0; i < 2; i++) {
			int n = pv_perftest_dest_encode(src[i], g, msg, sizeof(msg));

			memset(&out, 0x5a, sizeof(out));
			CU_ASSERT_EQUAL(pv_perftest_dest_decode(msg, n, g, &out), 0);
			CU_ASSERT_EQUAL(out.lid, src[i]->lid);
			CU_ASSERT_EQUAL(out.out_reads, src[i]->out_reads);
			CU_ASSERT_EQUAL(out.qpn, src[i]->qpn);
			CU_ASSERT_EQUAL(out.psn, src[i]->psn);
			CU_ASSERT_EQUAL(out.rkey, src[i]->rkey);
			CU_ASSERT_EQUAL(out.vaddr, src[i]->vaddr);
			CU_ASSERT_EQUAL(out.srqn, src[i]->srqn);
			if (g)
				CU_ASSERT_EQUAL(memcmp(out.gid, src[i]->gid, 16), 0);
		}
	}
	/* perftest prints lower case; upper case is accepted too ("0001" -> "000A") */
	ut_perftest_msg(&ut_dest_b, 0, msg);
	msg[8] = 'A';
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(msg, 59, 0, &out), 0);
	CU_ASSERT_EQUAL(out.out_reads, 0xa);
}

/* bytes ib_write_bw 4.5+0.17 (Debian 12) sent from 10.77.0.12 to rxe in the lab */
static const char ut_captured[PV_PERFTEST_DEST_LEN_GID] =
	"0000:0001:000011:efdb4e:0000026e:000055feca69b000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:0c:00000000:";

static void
test_decode_captured_perftest(void)
{
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 12 };
	struct pv_perftest_dest d;
	char again[PV_PERFTEST_DEST_LEN_GID];

	CU_ASSERT_EQUAL(pv_perftest_dest_decode(ut_captured, sizeof(ut_captured), 1, &d), 0);
	CU_ASSERT_EQUAL(d.lid, 0);
	CU_ASSERT_EQUAL(d.out_reads, 1);
	CU_ASSERT_EQUAL(d.qpn, 0x11);
	CU_ASSERT_EQUAL(d.psn, 0xefdb4e);
	CU_ASSERT_EQUAL(d.rkey, 0x26e);
	CU_ASSERT_EQUAL(d.vaddr, 0x55feca69b000ULL);
	CU_ASSERT_EQUAL(d.srqn, 0);
	CU_ASSERT_EQUAL(memcmp(d.gid, gid, 16), 0);
	CU_ASSERT_EQUAL(pv_perftest_dest_encode(&d, 1, again, sizeof(again)),
			PV_PERFTEST_DEST_LEN_GID);
	CU_ASSERT_EQUAL(memcmp(again, ut_captured, sizeof(again)), 0);
}

static void
test_decode_errors(void)
{
	struct pv_perftest_dest out, keep;
	char msg[128], bad[128];

	pv_perftest_dest_encode(&ut_dest_a, 1, msg, sizeof(msg));
	memset(&keep, 0x77, sizeof(keep));
	out = keep;
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(NULL, 108, 1, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(msg, 108, 1, NULL), -EINVAL);
	/* a GID message read as the short format, and a short read */
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(msg, 108, 0, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(msg, 107, 1, &out), -EINVAL);
	/* not hex */
	memcpy(bad, msg, 108);
	bad[10] = 'g';
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(bad, 108, 1, &out), -EINVAL);
	/* a separator missing: the qpn field grows past its 6 digits */
	memcpy(bad, msg, 108);
	bad[16] = '0';
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(bad, 108, 1, &out), -EINVAL);
	/* empty field */
	memcpy(bad, "0000::", 6);
	memcpy(bad + 6, msg + 6, 102);
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(bad, 108, 1, &out), -EINVAL);
	/* no NUL at the end */
	memcpy(bad, msg, 108);
	bad[107] = 'x';
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(bad, 108, 1, &out), -EINVAL);
	/* the short format without its terminating NUL */
	pv_perftest_dest_encode(&ut_dest_a, 0, bad, sizeof(bad));
	bad[58] = '0';
	CU_ASSERT_EQUAL(pv_perftest_dest_decode(bad, 59, 0, &out), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&out, &keep, sizeof(out)), 0);
}

/* ------------------------------------------------------------------ */
/* conversations                                                        */
/* ------------------------------------------------------------------ */

/* handshakes per test, as read from perftest's mains (see apps/perf/perf_proto.h) */
struct ut_seq {
	int before, after, end_sync, report, close;
};

static const struct ut_seq ut_seqs[] = {
	[PV_PERFTEST_WRITE_BW] = { 1, 2, 1, 1, 1 },
	[PV_PERFTEST_READ_BW] = { 1, 2, 1, 1, 1 },
	[PV_PERFTEST_SEND_BW] = { 1, 3, 0, 0, 1 },
	[PV_PERFTEST_WRITE_LAT] = { 2, 2, 0, 0, 0 },
	[PV_PERFTEST_READ_LAT] = { 2, 2, 0, 0, 1 },
	[PV_PERFTEST_SEND_LAT] = { 1, 3, 0, 0, 1 },
};

/* the script's side: a perftest process, reduced to its socket calls */
struct ut_script {
	int fd;
	int is_client;		/* perftest's role: client writes first */
	enum pv_perftest_test test;
	int use_gid;
	int mtu;		/* what perftest announces */
	int api_mtu;		/* what the API side is expected to announce */
	const char *version;	/* what perftest announces */
	int stop_after_version;
	int change_dest_at;	/* handshake number (1-based) that differs; 0: none */
	int errors;		/* mismatches seen; 0 when all bytes were as expected */
};

static int
ut_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* perftest's ctx_xchg_data(), checking the bytes received against @p expect */
static void
ut_script_xchg(struct ut_script *s, const void *mine, const void *expect, size_t len)
{
	char got[256];

	if (s->is_client) {
		if (write(s->fd, mine, len) != (ssize_t)len)
			s->errors++;
		if (ut_read_full(s->fd, got, len) < 0 || memcmp(got, expect, len) != 0)
			s->errors++;
	} else {
		if (ut_read_full(s->fd, got, len) < 0 || memcmp(got, expect, len) != 0)
			s->errors++;
		if (write(s->fd, mine, len) != (ssize_t)len)
			s->errors++;
	}
}

static void
ut_script_handshakes(struct ut_script *s, int count, int *done)
{
	char mine[128], theirs[128];
	size_t len;

	while (count-- > 0) {
		struct pv_perftest_dest d = ut_dest_b;

		if (++*done == s->change_dest_at)
			d.psn ^= 1;
		len = ut_perftest_msg(&d, s->use_gid, mine);
		ut_perftest_msg(&ut_dest_a, s->use_gid, theirs);
		ut_script_xchg(s, mine, theirs, len);
		if (*done == s->change_dest_at)
			return;	/* the API side stops reading here */
	}
}

static uint64_t
ut_be_double(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return htobe64(u);
}

/* what the script reports (perftest's my_bw_rep) and expects from the API */
static const struct pv_perftest_bw_report ut_rep_script = {
	.size = 65536, .iters = 500, .bw_peak = 13.5, .bw_avg = 12.75, .msg_rate = 0.000204,
};
static const struct pv_perftest_bw_report ut_rep_api = {
	.size = 4096, .iters = 3000, .bw_peak = 99.25, .bw_avg = 42.5, .msg_rate = 0.0108,
};

static void *
ut_script_run(void *arg)
{
	struct ut_script *s = arg;
	const struct ut_seq *q = &ut_seqs[s->test];
	char ver[16] = { 0 }, ver_api[16] = { 0 };
	uint32_t page = htobe32((uint32_t)sysconf(_SC_PAGESIZE)), line = htobe32(64);
	long l1 = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	uint32_t line_api = htobe32(l1 > 0 && l1 <= 4096 ? (uint32_t)l1 : 64);
	char mtu[2], mtu_api[2];
	int done = 0;

	/* fixed 16-byte fields, NUL padded, not necessarily terminated */
	memcpy(ver, s->version, strnlen(s->version, sizeof(ver)));
	RTE_BUILD_BUG_ON(sizeof(PV_PERFTEST_VERSION) > sizeof(ver_api));
	memcpy(ver_api, PV_PERFTEST_VERSION, sizeof(PV_PERFTEST_VERSION) - 1);
	ut_script_xchg(s, ver, ver_api, 16);
	if (s->stop_after_version)
		return NULL;
	ut_script_xchg(s, &page, &page, 4);
	ut_script_xchg(s, &line, &line_api, 4);
	mtu[0] = (char)('0' + s->mtu);
	mtu[1] = '\0';
	mtu_api[0] = (char)('0' + s->api_mtu);
	mtu_api[1] = '\0';
	ut_script_xchg(s, mtu, mtu_api, 2);
	ut_script_handshakes(s, q->before, &done);
	if (s->change_dest_at && done >= s->change_dest_at)
		return NULL;
	ut_script_handshakes(s, q->after, &done);
	if (s->change_dest_at && done >= s->change_dest_at)
		return NULL;
	ut_script_handshakes(s, q->end_sync, &done);
	if (q->report) {
		uint64_t mine[5] = {
			htobe64(ut_rep_script.size), htobe64(ut_rep_script.iters),
			ut_be_double(ut_rep_script.bw_peak), ut_be_double(ut_rep_script.bw_avg),
			ut_be_double(ut_rep_script.msg_rate),
		};
		uint64_t expect[5] = {
			htobe64(ut_rep_api.size), htobe64(ut_rep_api.iters),
			ut_be_double(ut_rep_api.bw_peak), ut_be_double(ut_rep_api.bw_avg),
			ut_be_double(ut_rep_api.msg_rate),
		};
		int i;

		for (i = 0; i < 5; i++)
			ut_script_xchg(s, &mine[i], &expect[i], 8);
	}
	if (q->close) {
		char got[5];

		ut_script_handshakes(s, 1, &done);
		/* both write "done"; perftest never reads the peer's, we check ours */
		if (write(s->fd, "done", 5) != 5)
			s->errors++;
		if (ut_read_full(s->fd, got, 5) < 0 || memcmp(got, "done", 5) != 0)
			s->errors++;
	}
	/* nothing more may come from the API side */
	{
		char c;

		shutdown(s->fd, SHUT_WR);
		if (read(s->fd, &c, 1) != 0)
			s->errors++;
	}
	return NULL;
}

static int ut_progress_calls;

static int
ut_progress(void *arg)
{
	(void)arg;
	ut_progress_calls++;
	return 0;
}

/* The API's full sequence as pv-perf would run it; returns the first error. */
static int
ut_api_run(struct pv_perftest *pt, int local_mtu, struct pv_perftest_bw_report *rep_p)
{
	int ret;

	ret = pv_perftest_begin(pt, local_mtu);
	if (ret == 0)
		ret = pv_perftest_exchange_dest(pt);
	if (ret == 0)
		ret = pv_perftest_ready(pt);
	if (ret == 0)
		ret = pv_perftest_finish(pt, &ut_rep_api, rep_p);
	return ret;
}

static void
ut_conversation(enum pv_perftest_test test, int api_is_client, int use_gid)
{
	struct pv_perftest pt = { 0 };
	struct pv_perftest_bw_report rep = { 0 };
	struct ut_script s = { 0 };
	pthread_t th;
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	s.fd = sv[1];
	s.is_client = !api_is_client;
	s.test = test;
	s.use_gid = use_gid;
	s.mtu = 5;
	s.api_mtu = 3;
	s.version = "6.06";
	pt.fd = sv[0];
	pt.role = api_is_client ? PV_PERFTEST_CLIENT : PV_PERFTEST_SERVER;
	pt.test = test;
	pt.use_gid = use_gid;
	pt.timeout_ms = UT_TIMEOUT_MS;
	pt.progress = ut_progress;
	pt.local = ut_dest_a;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_script_run, &s) == 0);
	CU_ASSERT_EQUAL(ut_api_run(&pt, 3, &rep), 0);
	if (ut_seqs[test].close == 0)
		shutdown(pt.fd, SHUT_WR);	/* write_lat: the process just exits */
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(s.errors, 0);
	CU_ASSERT_STRING_EQUAL(pt.remote_version, "6.06");
	CU_ASSERT_EQUAL(pt.mtu, 3);
	CU_ASSERT_EQUAL(pt.cycle_buffer, (uint32_t)sysconf(_SC_PAGESIZE));
	CU_ASSERT(pt.cache_line_size >= 64);
	CU_ASSERT_EQUAL(pt.remote.qpn, ut_dest_b.qpn);
	CU_ASSERT_EQUAL(pt.remote.psn, ut_dest_b.psn);
	CU_ASSERT_EQUAL(pt.remote.rkey, ut_dest_b.rkey);
	CU_ASSERT_EQUAL(pt.remote.vaddr, ut_dest_b.vaddr);
	if (use_gid)
		CU_ASSERT_EQUAL(memcmp(pt.remote.gid, ut_dest_b.gid, 16), 0);
	CU_ASSERT_EQUAL(pt.handshakes, (unsigned int)(ut_seqs[test].before +
			ut_seqs[test].after + ut_seqs[test].end_sync + ut_seqs[test].close));
	if (ut_seqs[test].report) {
		CU_ASSERT_EQUAL(rep.size, ut_rep_script.size);
		CU_ASSERT_EQUAL(rep.iters, ut_rep_script.iters);
		CU_ASSERT_EQUAL(rep.bw_peak, ut_rep_script.bw_peak);
		CU_ASSERT_EQUAL(rep.bw_avg, ut_rep_script.bw_avg);
		CU_ASSERT_EQUAL(rep.msg_rate, ut_rep_script.msg_rate);
	}
	close(sv[0]);
	close(sv[1]);
}

static void
test_script_all_tests_both_roles(void)
{
	int t, c;

	for (t = PV_PERFTEST_WRITE_BW; t <= PV_PERFTEST_SEND_LAT; t++)
		for (c = 0; c <= 1; c++)
			ut_conversation((enum pv_perftest_test)t, c, 1);
	/* the short (no -x) format once per role */
	ut_conversation(PV_PERFTEST_WRITE_BW, 0, 0);
	ut_conversation(PV_PERFTEST_SEND_LAT, 1, 0);
	CU_ASSERT(ut_progress_calls > 0);
}

struct ut_api_side {
	struct pv_perftest pt;
	int mtu;
	int ret;
	struct pv_perftest_bw_report rep;
};

static void *
ut_api_thread(void *arg)
{
	struct ut_api_side *a = arg;

	a->ret = ut_api_run(&a->pt, a->mtu, &a->rep);
	return NULL;
}

static void
test_api_against_api(void)
{
	int t;

	for (t = PV_PERFTEST_WRITE_BW; t <= PV_PERFTEST_SEND_LAT; t++) {
		struct ut_api_side srv = { 0 }, cli = { 0 };
		pthread_t th;
		int sv[2];

		CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
		srv.pt = (struct pv_perftest){ .fd = sv[0], .role = PV_PERFTEST_SERVER,
			.test = t, .use_gid = 1, .timeout_ms = UT_TIMEOUT_MS, .local = ut_dest_a };
		cli.pt = (struct pv_perftest){ .fd = sv[1], .role = PV_PERFTEST_CLIENT,
			.test = t, .use_gid = 1, .timeout_ms = UT_TIMEOUT_MS, .local = ut_dest_b };
		srv.mtu = 5;
		cli.mtu = 4;
		CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_api_thread, &srv) == 0);
		ut_api_thread(&cli);
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(srv.ret, 0);
		CU_ASSERT_EQUAL(cli.ret, 0);
		CU_ASSERT_EQUAL(srv.pt.mtu, 4);
		CU_ASSERT_EQUAL(cli.pt.mtu, 4);
		CU_ASSERT_EQUAL(memcmp(&srv.pt.remote, &ut_dest_b, sizeof(ut_dest_b)), 0);
		CU_ASSERT_EQUAL(memcmp(&cli.pt.remote, &ut_dest_a, sizeof(ut_dest_a)), 0);
		CU_ASSERT_EQUAL(srv.pt.handshakes, cli.pt.handshakes);
		if (ut_seqs[t].report) {
			CU_ASSERT_EQUAL(srv.rep.iters, ut_rep_api.iters);
			CU_ASSERT_EQUAL(cli.rep.bw_avg, ut_rep_api.bw_avg);
		}
		close(sv[0]);
		close(sv[1]);
	}
}

/* ------------------------------------------------------------------ */
/* errors                                                               */
/* ------------------------------------------------------------------ */

static void
test_old_version_refused(void)
{
	struct pv_perftest pt = { 0 };
	struct ut_script s = { 0 };
	pthread_t th;
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	s = (struct ut_script){ .fd = sv[1], .is_client = 1, .version = "5.60",
				.stop_after_version = 1, .use_gid = 1 };
	pt = (struct pv_perftest){ .fd = sv[0], .role = PV_PERFTEST_SERVER,
				      .use_gid = 1, .timeout_ms = UT_TIMEOUT_MS };
	CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_script_run, &s) == 0);
	CU_ASSERT_EQUAL(pv_perftest_begin(&pt, 3), -EPROTO);
	pthread_join(th, NULL);
	CU_ASSERT_STRING_EQUAL(pt.remote_version, "5.60");
	close(sv[0]);
	close(sv[1]);
}

static void
test_changed_address_refused(void)
{
	struct pv_perftest pt = { 0 };
	struct ut_script s = { 0 };
	pthread_t th;
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	s = (struct ut_script){ .fd = sv[1], .is_client = 0, .version = "6.06", .mtu = 3,
				.api_mtu = 3, .use_gid = 1, .test = PV_PERFTEST_WRITE_BW,
				.change_dest_at = 2 };
	pt = (struct pv_perftest){ .fd = sv[0], .role = PV_PERFTEST_CLIENT,
				      .test = PV_PERFTEST_WRITE_BW, .use_gid = 1,
				      .timeout_ms = UT_TIMEOUT_MS, .local = ut_dest_a };
	CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_script_run, &s) == 0);
	CU_ASSERT_EQUAL(pv_perftest_begin(&pt, 3), 0);
	CU_ASSERT_EQUAL(pv_perftest_exchange_dest(&pt), 0);
	CU_ASSERT_EQUAL(pv_perftest_ready(&pt), -EPROTO);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(s.errors, 0);
	close(sv[0]);
	close(sv[1]);
}

static int
ut_progress_fail(void *arg)
{
	int *calls = arg;

	return ++*calls == 3 ? -ENOTCONN : 1;
}

static void
test_io_errors(void)
{
	struct pv_perftest pt = { 0 };
	char buf[4] = { 0 };
	int sv[2], calls = 0;

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	pt = (struct pv_perftest){ .fd = sv[0], .role = PV_PERFTEST_SERVER,
				      .use_gid = 1, .timeout_ms = 100 };
	/* silent peer */
	CU_ASSERT_EQUAL(pv_perftest_xchg(&pt, buf, buf, sizeof(buf)), -ETIMEDOUT);
	/* progress callback failure aborts the wait with its value */
	pt.timeout_ms = -1;
	pt.progress = ut_progress_fail;
	pt.progress_arg = &calls;
	CU_ASSERT_EQUAL(pv_perftest_xchg(&pt, buf, buf, sizeof(buf)), -ENOTCONN);
	CU_ASSERT_EQUAL(calls, 3);
	/* busy progress still times out */
	pt.progress = ut_progress;
	pt.timeout_ms = 50;
	CU_ASSERT_EQUAL(pv_perftest_sync(&pt), -ETIMEDOUT);
	/* peer gone */
	close(sv[1]);
	pt.progress = NULL;
	pt.timeout_ms = 1000;
	CU_ASSERT_EQUAL(pv_perftest_xchg(&pt, buf, buf, sizeof(buf)), -ECONNRESET);
	close(sv[0]);
}

static void
test_invalid_arguments(void)
{
	struct pv_perftest pt = { .fd = -1 };
	char buf[4];

	CU_ASSERT_EQUAL(pv_perftest_begin(NULL, 3), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_begin(&pt, 3), -EINVAL);
	pt.fd = 0;
	CU_ASSERT_EQUAL(pv_perftest_begin(&pt, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_begin(&pt, 6), -EINVAL);
	pt.role = (enum pv_perftest_role)7;
	CU_ASSERT_EQUAL(pv_perftest_exchange_dest(&pt), -EINVAL);
	pt.role = PV_PERFTEST_CLIENT;
	pt.test = (enum pv_perftest_test)42;
	CU_ASSERT_EQUAL(pv_perftest_ready(&pt), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_sync(&pt), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_finish(&pt, NULL, NULL), -EINVAL);
	pt.test = PV_PERFTEST_WRITE_BW;
	CU_ASSERT_EQUAL(pv_perftest_xchg(&pt, NULL, buf, 4), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_xchg(&pt, buf, NULL, 4), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_xchg(NULL, buf, buf, 4), -EINVAL);
	/* a local address that does not fit is refused before anything is sent */
	pt.local.qpn = 0x1000000;
	CU_ASSERT_EQUAL(pv_perftest_sync(&pt), -EINVAL);
}

/* ------------------------------------------------------------------ */
/* peer mode: the TCP exchange alone against a real perftest            */
/* ------------------------------------------------------------------ */

/*
 * test_perf_proto --peer HOST|--listen --test write_bw [--mtu 3] [--port N]
 *                  [--gid-ip A.B.C.D] [--no-gid]
 * runs the whole exchange of one test against a real perftest process (no
 * RDMA; the address sent is a made-up QP at ::ffff:A.B.C.D, 10.77.0.100 by
 * default; rxe needs a neighbour entry for it to reach RTR). As the client
 * of ib_write_bw/ib_read_bw the server's side completes and prints our report;
 * used by usertools/pv-interop.sh to check the bytes against perftest itself.
 */
static int
ut_peer_main(int argc, char **argv)
{
	static const char *const names[] = { "write_bw", "read_bw", "send_bw",
					     "write_lat", "read_lat", "send_lat" };
	static const struct pv_perftest_bw_report rep = {
		.size = 4096, .iters = 1000, .bw_peak = 123.5, .bw_avg = 100.25, .msg_rate = 0.0257,
	};
	struct pv_perftest pt = {
		.test = PV_PERFTEST_WRITE_BW, .use_gid = 1, .timeout_ms = 60000,
		.local = { .out_reads = 1, .qpn = 0x1234, .psn = 0xabcdef, .rkey = 0x5678,
			   .vaddr = 0x7f0000001000ULL,
			   .gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 100 } },
	};
	struct pv_perftest_bw_report theirs = { 0 };
	const char *host = NULL;
	int port = PV_PERFTEST_PORT, mtu = 3, listen_mode = 0, i, ret;
	unsigned int t;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc) {
			host = argv[++i];
		} else if (strcmp(argv[i], "--listen") == 0) {
			listen_mode = 1;
		} else if (strcmp(argv[i], "--gid-ip") == 0 && i + 1 < argc) {
			unsigned int a, b, c, d;

			if (sscanf(argv[++i], "%u.%u.%u.%u", &a, &b, &c, &d) != 4)
				return 2;
			pt.local.gid[12] = (uint8_t)a;
			pt.local.gid[13] = (uint8_t)b;
			pt.local.gid[14] = (uint8_t)c;
			pt.local.gid[15] = (uint8_t)d;
		} else if (strcmp(argv[i], "--no-gid") == 0) {
			pt.use_gid = 0;
		} else if (strcmp(argv[i], "--mtu") == 0 && i + 1 < argc) {
			mtu = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
			port = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--test") == 0 && i + 1 < argc) {
			i++;
			for (t = 0; t < 6 && strcmp(argv[i], names[t]) != 0; t++)
				;
			if (t == 6)
				return 2;
			pt.test = (enum pv_perftest_test)t;
		} else {
			fprintf(stderr, "usage: %s --peer HOST|--listen [--test NAME] [--mtu N] "
				"[--port N] [--gid-ip A.B.C.D] [--no-gid]\n", argv[0]);
			return 2;
		}
	}
	pt.role = listen_mode ? PV_PERFTEST_SERVER : PV_PERFTEST_CLIENT;
	pt.fd = listen_mode ? pv_cm_oob_accept((uint16_t)port, 60000) :
			      pv_cm_oob_connect(host, (uint16_t)port, 30000);
	if (pt.fd < 0) {
		fprintf(stderr, "connect: %s\n", strerror(-pt.fd));
		return 1;
	}
	ret = pv_perftest_begin(&pt, mtu);
	if (ret == 0) {
		printf("peer version %s page %u cache line %u mtu %d\n", pt.remote_version,
		       pt.cycle_buffer, pt.cache_line_size, pt.mtu);
		ret = pv_perftest_exchange_dest(&pt);
	}
	if (ret == 0) {
		printf("remote lid 0x%04x out_reads %u qpn 0x%06x psn 0x%06x rkey 0x%08x "
		       "vaddr 0x%016llx gid %02x%02x...%u.%u.%u.%u\n", pt.remote.lid,
		       pt.remote.out_reads, pt.remote.qpn, pt.remote.psn, pt.remote.rkey,
		       (unsigned long long)pt.remote.vaddr, pt.remote.gid[0], pt.remote.gid[1],
		       pt.remote.gid[12], pt.remote.gid[13], pt.remote.gid[14], pt.remote.gid[15]);
		ret = pv_perftest_ready(&pt);
	}
	/* as the active side of a bw test, report at once: the peer prints it */
	if (ret == 0 && (!listen_mode || pt.test == PV_PERFTEST_WRITE_LAT))
		ret = pv_perftest_finish(&pt, &rep, &theirs);
	if (ret == 0)
		printf("exchange %s as %s: ok (%u handshakes)\n", names[pt.test],
		       listen_mode ? "server" : "client", pt.handshakes);
	else
		printf("exchange %s as %s: %s after %u handshakes\n", names[pt.test],
		       listen_mode ? "server" : "client", strerror(-ret), pt.handshakes);
	close(pt.fd);
	return ret == 0 ? 0 : 1;
}

/*
 * perftest -R's address message: frame 31 of cm_perftest.pcap (vm2's
 * ib_send_bw -R, MANIFEST.md entry cm_perftest), and frame 43, the same
 * with garbage in the padding after rkey.
 */
static void
test_cm_dest_captured(void)
{
	static const uint8_t frame31[PV_PERFTEST_DEST_LEN_CM] = {
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x17, 0, 0xf0, 0xa6, 0x66,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xa2, 0xef, 0xc7, 0x50, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x0a, 0x4d, 0, 0x0c,
		0, 0, 0, 0, 0, 0, 0, 1,
	};
	uint8_t frame43[PV_PERFTEST_DEST_LEN_CM], out[PV_PERFTEST_DEST_LEN_CM];
	struct pv_perftest_dest d, d43;

	CU_ASSERT_EQUAL(pv_perftest_dest_decode_cm(frame31, &d), 0);
	CU_ASSERT_EQUAL(d.lid, 0);
	CU_ASSERT_EQUAL(d.out_reads, 1);
	CU_ASSERT_EQUAL(d.qpn, 0x17);
	CU_ASSERT_EQUAL(d.psn, 0xf0a666);
	CU_ASSERT_EQUAL(d.rkey, 0);
	CU_ASSERT_EQUAL(d.vaddr, 0x7fa2efc75000ULL);
	CU_ASSERT_EQUAL(memcmp(d.gid, frame31 + 32, 16), 0);
	memcpy(frame43, frame31, sizeof(frame43));
	frame43[22] = 0xff;
	frame43[23] = 0x7f;
	CU_ASSERT_EQUAL(pv_perftest_dest_decode_cm(frame43, &d43), 0);
	CU_ASSERT_EQUAL(memcmp(&d, &d43, sizeof(d)), 0);
	/* ours: the same bytes but gid_index (perftest's own, never read) */
	CU_ASSERT_EQUAL(pv_perftest_dest_encode_cm(&d, out), PV_PERFTEST_DEST_LEN_CM);
	CU_ASSERT_EQUAL(memcmp(out, frame31, 52), 0);
	CU_ASSERT_EQUAL(pv_perftest_dest_encode_cm(NULL, out), -EINVAL);
	CU_ASSERT_EQUAL(pv_perftest_dest_decode_cm(NULL, &d), -EINVAL);
}

static const struct ut_case ut_perf_proto_cases[] = {
	{ "cm_dest_captured", test_cm_dest_captured },
	{ "encode_gid_matches_perftest", test_encode_gid_matches_perftest },
	{ "encode_nogid_matches_perftest", test_encode_nogid_matches_perftest },
	{ "encode_errors", test_encode_errors },
	{ "decode_round_trip", test_decode_round_trip },
	{ "decode_captured_perftest", test_decode_captured_perftest },
	{ "decode_errors", test_decode_errors },
	{ "script_all_tests_both_roles", test_script_all_tests_both_roles },
	{ "api_against_api", test_api_against_api },
	{ "old_version_refused", test_old_version_refused },
	{ "changed_address_refused", test_changed_address_refused },
	{ "io_errors", test_io_errors },
	{ "invalid_arguments", test_invalid_arguments },
	{ NULL, NULL },
};

static const struct ut_suite ut_perf_proto_suite = {
	"perf_proto", NULL, NULL, ut_perf_proto_cases,
};

int
main(int argc, char **argv)
{
	if (argc > 1)
		return ut_peer_main(argc, argv);
	return ut_cunit_run_one(&ut_perf_proto_suite);
}

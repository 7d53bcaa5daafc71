/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce capture (pcap= devarg, librte_pcapng): two devices in one process
 * over crossed net_ring ports, each capturing to its own pcapng file. The
 * rings are small, so the PMD refuses part of most TX bursts: every frame
 * must still appear exactly once per file. The files are then read back
 * with libpcap (count, timestamps), decoded by pv-roce-decode (ICRC and
 * headers of every frame) and, when installed, by tshark (no malformed
 * frame).
 *
 * usage: test_sroce_pcap PV_ROCE_DECODE
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <pcap/pcap.h>
#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_sroce.h"

#define DEPTH 64
#define BIG (256u * 1024)
#define RING_SLOTS 64		/* small: the ring PMD refuses part of a burst */

static const char *decoder;
static char dir[128], file[2][192];
static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static uint8_t *lbuf, *rbuf;
static struct pv_mr *lmr, *rmr;
static struct ut_buf *lb, *rb;
static struct ut_pair pair;
static time_t t_start;

static int
connect_pair(void)
{
	int ret;

	ret = ut_pair_rtr(&pair, pd, cq, DEPTH, &ut_qp_defaults, &ut_qp_defaults, 0x100, 0x200,
			  PV_MTU_1024);
	return ret ? ret : ut_pair_rts(&pair, &ut_qp_defaults, &ut_qp_defaults);
}

/* post one signalled WR on pair.qa and wait for its completion */
static void
run_one(enum pv_wr_opcode op, uint32_t len, uint32_t roff)
{
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(ut_post_send1(pair.qa, op, len, lbuf, len, lmr->lkey,
					    (uintptr_t)rbuf + roff, rmr->rkey, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 5000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, len);
}

static void
test_traffic(void)
{
	static const uint32_t sizes[] = { 1, 8, 1023, 1024, 1025, 4096, 65536, BIG };
	struct pv_wc wc;
	uint64_t *res;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(connect_pair(), 0);
	ut_fill(lbuf, BIG, 7);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		/* SEND: the receive completes on B */
		CU_ASSERT_EQUAL_FATAL(ut_post_recv1(pair.qb, 1, rbuf, BIG, rmr->lkey), 0);
		run_one(PV_WR_SEND, sizes[i], 0);
		CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 5000), 1);
		CU_ASSERT_EQUAL(wc.byte_len, sizes[i]);
		CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, sizes[i]), 0);
		memset(rbuf, 0, sizes[i]);
		run_one(PV_WR_RDMA_WRITE, sizes[i], 0);
		CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, sizes[i]), 0);
		memset(lbuf, 0, sizes[i]);
		run_one(PV_WR_RDMA_READ, sizes[i], 0);
		CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, sizes[i]), 0);
	}
	/* WRITE_WITH_IMM consumes a receive */
	CU_ASSERT_EQUAL_FATAL(ut_post_recv1(pair.qb, 2, rbuf, 16, rmr->lkey), 0);
	run_one(PV_WR_RDMA_WRITE_WITH_IMM, 4000, 64);
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 5000), 1);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV_RDMA_WITH_IMM);
	/* one atomic: 8 bytes back into lbuf */
	res = (uint64_t *)(rbuf + 128);
	*res = 41;
	{
		struct pv_sge sge = { .addr = (uintptr_t)lbuf, .length = 8, .lkey = lmr->lkey };
		struct pv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 8;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
		wr.send_flags = PV_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = (uintptr_t)res;
		wr.wr.atomic.rkey = rmr->rkey;
		wr.wr.atomic.compare_add = 1;
		CU_ASSERT_EQUAL_FATAL(pv_post_send(pair.qa, &wr, &bad), 0);
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 5000), 1);
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(*(uint64_t *)lbuf, 41);
		CU_ASSERT_EQUAL(*res, 42);
	}
	/* let the last ACKs arrive, so both sides saw everything sent */
	ut_spin(20);
}

/* frames in a capture file; checks the time stamps are near now, in order */
static long
pcap_count(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct timeval prev = { 0, 0 };
	long n = 0, bad_time = 0;
	pcap_t *p;

	p = pcap_open_offline(path, err);
	if (p == NULL) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	CU_ASSERT_EQUAL(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &h, &data) == 1) {
		if (h->ts.tv_sec < t_start - 5 || h->ts.tv_sec > time(NULL) + 5 ||
		    timercmp(&h->ts, &prev, <))
			bad_time++;
		CU_ASSERT(h->caplen == h->len);
		prev = h->ts;
		n++;
	}
	pcap_close(p);
	CU_ASSERT_EQUAL(bad_time, 0);
	return n;
}

/* run @p cmd, count its output lines; @p line = its last line containing @p key */
static int
run_capture(const char *cmd, const char *key, char *line, size_t size, int *nlines_p)
{
	FILE *f = popen(cmd, "r");
	char buf[512];
	int n = 0;

	line[0] = '\0';
	if (f == NULL)
		return -1;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		n++;
		if (key != NULL && strstr(buf, key) != NULL) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(line, size, "%s", buf);
		}
	}
	*nlines_p = n;
	return pclose(f);
}

static void
test_files(void)
{
	struct pv_sroce_stats st[2];
	char cmd[512], line[512];
	int i, nlines, have_tshark;

	/* every RoCE frame either side sent, once (ring: A receives all B sent) */
	CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[0], &st[0]), 0);
	CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[1], &st[1]), 0);
	CU_ASSERT(st[0].tx_pkts > 256 * 2);
	CU_ASSERT_EQUAL(st[0].retransmits + st[1].retransmits, 0);
	for (i = 0; i < 2; i++) {
		long want = (long)(st[0].tx_pkts + st[1].tx_pkts);
		long got = pcap_count(file[i]);

		printf("\n    %s: %ld frames (sent %" PRIu64 " + %" PRIu64 ")", file[i], got,
		       st[0].tx_pkts, st[1].tx_pkts);
		CU_ASSERT_EQUAL(got, want);
	}
	/* pv-roce-decode: every RoCE frame parses and its ICRC is right */
	for (i = 0; i < 2; i++) {
		long frames = -1, roce = -1, ok = -1, bad = -1, malformed = -1;

		snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>&1", decoder, file[i]);
		CU_ASSERT_EQUAL(run_capture(cmd, "frames ", line, sizeof(line), &nlines), 0);
		printf("\n    pv-roce-decode: %s", line);
		CU_ASSERT_EQUAL(sscanf(line, "frames %ld, roce %ld, icrc_ok %ld, icrc_bad %ld, "
				       "malformed %ld", &frames, &roce, &ok, &bad, &malformed), 5);
		CU_ASSERT_EQUAL(frames, (long)(st[0].tx_pkts + st[1].tx_pkts));
		CU_ASSERT_EQUAL(roce, frames - (long)(st[0].arp_tx + st[1].arp_tx));
		CU_ASSERT_EQUAL(ok, roce);
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(malformed, 0);
	}
	/* tshark, when installed: RoCE everywhere, nothing malformed. Its
	 * RPC-over-RDMA heuristic misreads tiny SENDs: disabled. */
	have_tshark = system("command -v tshark >/dev/null 2>&1") == 0;
	if (!have_tshark) {
		printf("\n    tshark not installed: not checked");
		return;
	}
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "tshark -r '%s' --disable-protocol rpcordma "
			 "-Y _ws.malformed 2>/dev/null", file[i]);
		CU_ASSERT_EQUAL(run_capture(cmd, NULL, line, sizeof(line), &nlines), 0);
		CU_ASSERT_EQUAL(nlines, 0);
		snprintf(cmd, sizeof(cmd), "tshark -r '%s' --disable-protocol rpcordma "
			 "-Y 'infiniband.bth' 2>/dev/null", file[i]);
		CU_ASSERT_EQUAL(run_capture(cmd, NULL, line, sizeof(line), &nlines), 0);
		printf("\n    tshark: %d InfiniBand (RRoCE) frames, 0 malformed", nlines);
		CU_ASSERT_EQUAL(nlines, (int)(st[0].tx_pkts + st[1].tx_pkts -
					      st[0].arp_tx - st[1].arp_tx));
	}
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 0) != 0)
		return -1;
	if (ut_buf_pair_alloc(pd, BIG, &lb, &rb) != 0)
		return -1;
	lbuf = lb->addr;
	lmr = lb->mr;
	rbuf = rb->addr;
	rmr = rb->mr;
	return 0;
}

static int
suite_clean(void)
{
	size_t bad;

	if (pair.qa != NULL)
		pv_destroy_qp(pair.qa);
	if (pair.qb != NULL)
		pv_destroy_qp(pair.qb);
	/* nonzero: a canary changed, the suite fails */
	bad = ut_buf_free(lb) + ut_buf_free(rb);
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_pcap_cases[] = {
	{ "traffic", test_traffic },
	{ "files", test_files },
	{ NULL, NULL },
};

static const struct ut_suite sroce_pcap_suite = {
	.name = "sroce_pcap",
	.init = suite_init,
	.fini = suite_clean,
	.cases = sroce_pcap_cases,
};

int
main(int argc, char **argv)
{
	char dev[2][256];
	int ret, fails, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PV_ROCE_DECODE\n", argv[0]);
		return 1;
	}
	decoder = argv[1];
	t_start = time(NULL);
	snprintf(dir, sizeof(dir), "/tmp/ut_sroce_pcap_%d", (int)getpid());
	if (mkdir(dir, 0755) != 0)
		return 1;
	for (i = 0; i < 2; i++) {
		snprintf(file[i], sizeof(file[i]), "%s/%c.pcapng", dir, 'a' + i);
		snprintf(dev[i], sizeof(dev[i]), "ip=10.0.0.%d,pcap=%s", i + 1, file[i]);
	}
	ret = ut_ring_pair_init("test_sroce_pcap", 256, "sroce_pc", RING_SLOTS, dev[0], dev[1]);
	if (ret != 0)
		return ret;
	fails = ut_cunit_run_one(&sroce_pcap_suite);
	pv_cleanup();
	if (fails == 0) {
		for (i = 0; i < 2; i++)
			unlink(file[i]);
		rmdir(dir);
	} else {
		printf("captures kept in %s\n", dir);
	}
	return fails != 0;
}

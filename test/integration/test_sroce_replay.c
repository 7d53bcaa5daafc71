/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Replay of real Linux rxe traffic (../shared/data/rxe, see its MANIFEST.md)
 * against softroce's RC state machine, and its UC one (uc_send: UC QPs on
 * both sides, no ACKs; a receive is posted before every peer SEND).
 *
 * Each capture holds a conversation between vm1 (10.77.0.11, the server) and
 * vm2 (10.77.0.12, the client). A softroce device with the same IP and MAC
 * plays one side ("X"), on a net_ring port whose rings belong to the test:
 * the test injects the other side's frames, in capture order, and collects
 * what softroce transmits. Every capture is replayed twice, once as vm1 and
 * once as vm2, so both the responder and the requester of every exchange are
 * softroce once.
 *
 * - The softroce QP gets the captured QPN (lower QPNs are taken by
 *   placeholder QPs while it is created), the captured PSNs, path MTU and
 *   min_rnr_timer. Injected frames are the captured bytes, with the ICRC rxe
 *   computed, except that the va and rkey of RETH/AtomicETH headers (the
 *   peer's view of X's memory) are rewritten to a buffer registered here
 *   (rxe's addresses are not mappable here: under ASan they fall in the
 *   shadow gap), and then the ICRC is recomputed.
 * - A message X sent is posted as a work request when the capture reaches
 *   its first packet (SEND/WRITE payload = the captured bytes, WRITE/READ/
 *   atomic remote address and rkey = the captured ones).
 * - A receive is posted just before a SEND that rxe accepted (not before one
 *   it answered with an RNR NAK or dropped behind a PSN gap): the captured
 *   application had posted one by then.
 * - Every frame X sent in the capture is matched with a frame softroce sent,
 *   requests and responses as two ordered streams, and compared byte for byte
 *   from the Ethernet header to the end of the pad, except the IPv4
 *   identification and header checksum (rxe counts IDs, softroce sends 0 with
 *   DF) and the ICRC (checked for validity instead, as is the IPv4 checksum).
 *   Softroce may set AckReq on more packets than rxe (it asks every 32
 *   packets of a long message, rxe every 128): counted, not an error; a
 *   missing AckReq is one.
 * - Afterwards: every work request completed successfully with the right
 *   opcode and length, READ data and atomic original values equal the
 *   captured responses, every receive completion has the captured length and
 *   bytes, and X's target memory holds exactly what the captured WRITEs and
 *   atomics put there (nothing else touched).
 *
 * Documented differences (not errors, counted and printed):
 * - rxe follows an RNR NAK with a PSN sequence error NAK for the same PSN
 *   when the next packet of the burst arrives; softroce stays silent after an
 *   RNR NAK until the retry (both make the requester resume at that PSN).
 * - In the loss captures frames were dropped (netem) before the capture
 *   point: a side that lost frames on its way out may send frames absent from
 *   the capture; those are skipped (a skipped request must still equal rxe's
 *   frame with its opcode and PSN), but each captured frame must still
 *   appear in the same order and be byte-identical.
 *
 * The captures of the connection manager (cm_*, nvmf_connect_io) are replayed
 * for their CM MADs only (UD SEND Only from QP1 to QP1; their RC frames are
 * left out) between a softroce GSI QP (pv_verbs_create_gsi_qp(), sq_psn the
 * side's first captured PSN) and the injected peer: each MAD X sent is posted
 * (256 bytes to QP 1, Q_Key 0x80010000) and its frame compared byte for byte
 * as above (UDP source port 55410, P_Key 0xffff, AckReq, PSN, DETH Q_Key and
 * source QP 1); each MAD of the peer is received with src_qp 1, its 256
 * bytes and the IPv4 header in the GRH area.
 *
 * usage: test_sroce_replay DATA_DIR   (exit 77 when DATA_DIR is missing)
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <pcap/pcap.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_verbs_driver.h"
#include "sroce_wire.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define RP_MAX_FRAMES	2048
#define RP_MAX_OUT	8192
#define RP_MAX_DIFFS	8		/* reported per replay */
#define RP_WAIT_MS	1500		/* for a frame the capture says X sent */
#define RP_MAX_REGION	(16u << 20)
#define RP_SENTINEL	0xee

/* the two sides, as MANIFEST.md documents them */
enum { VM1 = 0, VM2 = 1 };
static const char *const rp_ip_str[2] = { "10.77.0.11", "10.77.0.12" };
static const uint8_t rp_mac[2][6] = {
	{ 0x52, 0x54, 0x00, 0x77, 0x00, 0x11 },
	{ 0x52, 0x54, 0x00, 0x77, 0x00, 0x12 },
};

/* per-capture options */
enum {
	RP_INLINE = 1 << 0,	/* X posts its SENDs inline */
	RP_LOSS_VM1 = 1 << 1,	/* vm1's egress lost frames before the capture point */
	RP_LOSS_VM2 = 1 << 2,
	RP_UC = 1 << 3,		/* UC QPs (ibv_uc_pingpong) */
	RP_CM = 1 << 4,		/* only the CM MADs: UD SEND Only from QP1 to QP1 */
};

struct rp_case {
	const char *name;
	enum pv_mtu mtu;
	unsigned int flags;
};

static const struct rp_case rp_cases[] = {
	{ "rc_send_256", PV_MTU_1024, 0 },
	{ "rc_send_1024", PV_MTU_1024, 0 },
	{ "rc_send_1027", PV_MTU_1024, 0 },
	{ "rc_send_4100", PV_MTU_1024, 0 },
	{ "rc_send_inline", PV_MTU_1024, RP_INLINE },
	{ "rc_mtu4096", PV_MTU_4096, 0 },
	{ "rc_write_64", PV_MTU_1024, 0 },
	{ "rc_write_4096", PV_MTU_1024, 0 },
	{ "rc_write_65536", PV_MTU_1024, 0 },
	{ "rc_read_64", PV_MTU_1024, 0 },
	{ "rc_read_4096", PV_MTU_1024, 0 },
	{ "rc_read_65536", PV_MTU_1024, 0 },
	{ "rc_atomic_fa", PV_MTU_1024, 0 },
	{ "rc_rnr", PV_MTU_1024, 0 },
	{ "rc_loss", PV_MTU_1024, RP_LOSS_VM2 },
	{ "rc_loss_bidir", PV_MTU_1024, RP_LOSS_VM1 | RP_LOSS_VM2 },
	{ "uc_send", PV_MTU_1024, RP_UC },
};

/* the captures with CM MADs, replayed between GSI QPs (their RC frames left out) */
static const struct rp_case rp_cm_cases[] = {
	{ "cm_rdma_server", PV_MTU_1024, RP_CM },
	{ "cm_reject", PV_MTU_1024, RP_CM },
	{ "cm_mra", PV_MTU_1024, RP_CM },
	{ "cm_ucmatose", PV_MTU_1024, RP_CM },
	{ "cm_perftest", PV_MTU_1024, RP_CM },
	{ "nvmf_connect_io", PV_MTU_1024, RP_CM },
};

/** A captured frame. */
struct rp_frame {
	uint8_t *data;
	uint32_t len;
	struct sroce_pkt pkt;	/* pkt.frame == data */
	int no;			/* frame number in the capture, from 1 */
	uint8_t side;		/* sender */
	uint8_t req;		/* a request (else a response) */
	int32_t msg;		/* requests: message index in the sender's table */
};

/** A message (one work request) of a side, from its first transmission. */
struct rp_msg {
	uint8_t op;		/* opcode of its first packet */
	uint32_t first_psn;
	uint32_t npkts;		/* PSNs it takes (READ: response packets) */
	uint32_t len;		/* bytes */
	uint64_t va;		/* RETH / AtomicETH */
	uint32_t rkey;
	uint64_t swap_add, compare;
	uint8_t *data;		/* SEND/WRITE payload; READ: the captured response data */
	uint64_t orig;		/* atomic: original value of the captured ATOMIC ACK */
	uint32_t resp_bytes;	/* READ: captured response bytes found */
	int has_orig;
	uint32_t lbuf_off;	/* requester side: its local buffer in the replay */
	uint8_t recv_posted;	/* responder side: a receive was posted for it */
};

struct rp_cap {
	const struct rp_case *c;
	struct rp_frame *f;
	int n;
	uint32_t mtu;
	uint32_t qpn[2];	/* QPN of each side */
	uint32_t psn0[2];	/* first request PSN each side sent */
	int has_req[2];
	int rnr_timer[2];	/* timer code of the side's RNR NAKs, -1 none */
	struct rp_msg *msg[2];
	int nmsg[2];
};

/** A frame softroce transmitted. */
struct rp_out {
	uint8_t *data;
	uint32_t len;
	struct sroce_pkt pkt;
	uint8_t req;
	uint8_t used;
	int parse_ret;
};

/** One replay: capture, side X played by softroce, its objects and results. */
struct rp_run {
	struct rp_cap *cap;
	int x;			/* side played by softroce */
	int peer;
	struct pv_context *ctx;
	struct pv_pd *pd;
	struct pv_cq *scq, *rcq;
	struct pv_qp *qp;
	struct pv_mr *lmr, *rmr;
	uint8_t *lbuf;			/* local buffers (send, READ, atomic, receive) */
	uint8_t *rbuf, *rimg;		/* target region and its expected image */
	size_t lbuf_len, rlen;
	uint64_t rbase;		/* captured va mapped to rbuf[0] */
	int nposted;		/* X messages posted */
	int nrecv_posted;
	struct rp_out *out;
	int nout;
	int diffs;		/* mismatches reported */
	/* statistics for the report line */
	int compared, lost_skipped, quirk_skipped, extra_ackreq, rewritten, injected;
	int qpn_rewrite;	/* softroce did not give the captured QPN */
	/* a PSN sequence NAK was injected: the next request must resend from it */
	int nak_pending, nak_mark, nak_resends;
	uint32_t nak_psn;
};

static const char *rp_data_dir;
static struct pv_context *rp_ctx[2];
static struct rte_ring *rp_rx_ring[2], *rp_tx_ring[2];	/* softroce's RX (we inject), TX */
static struct rte_mempool *rp_mp;

/* ---------------------------------------------------------------------- */
/* Capture loading                                                        */
/* ---------------------------------------------------------------------- */

static int
rp_side_of(const struct sroce_pkt *pkt)
{
	char ip[INET_ADDRSTRLEN];
	uint32_t a = htonl(pkt->sip);

	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	if (strcmp(ip, rp_ip_str[VM1]) == 0 && memcmp(pkt->smac, rp_mac[VM1], 6) == 0)
		return VM1;
	if (strcmp(ip, rp_ip_str[VM2]) == 0 && memcmp(pkt->smac, rp_mac[VM2], 6) == 0)
		return VM2;
	return -1;
}

/* first request frame of @p side with @p psn, or NULL */
static struct rp_frame *
rp_first_req(struct rp_cap *cap, int side, uint32_t psn)
{
	int i;

	for (i = 0; i < cap->n; i++)
		if (cap->f[i].side == side && cap->f[i].req && cap->f[i].pkt.psn == psn)
			return &cap->f[i];
	return NULL;
}

static const uint8_t *
rp_payload(const struct rp_frame *fr)
{
	return fr->data + fr->pkt.payload_off;
}

/* the messages of @p side, walking its PSNs from the first one; @return 0 or -1 */
static int
rp_msgs_build(struct rp_cap *cap, int side)
{
	uint32_t psn = cap->psn0[side];
	struct rp_msg *tbl = calloc(RP_MAX_FRAMES, sizeof(*tbl));
	int n = 0, i;

	if (tbl == NULL)
		return -1;
	cap->msg[side] = tbl;
	if (!cap->has_req[side])
		return 0;
	for (;;) {
		struct rp_frame *fr = rp_first_req(cap, side, psn);
		struct rp_msg *m;
		uint16_t flags;

		if (fr == NULL)
			break;
		if (n == RP_MAX_FRAMES)
			return -1;
		m = &tbl[n];
		m->op = fr->pkt.opcode;
		m->first_psn = psn;
		flags = pv_sroce_opcode_info[m->op].flags;
		if (m->op == SROCE_OP_RC_READ_REQ) {
			m->len = fr->pkt.dma_len;
			m->va = fr->pkt.va;
			m->rkey = fr->pkt.rkey;
			m->npkts = m->len == 0 ? 1 : (m->len + cap->mtu - 1) / cap->mtu;
			m->data = calloc(1, m->len + 1);
		} else if (flags & SROCE_OPF_ATOMIC) {
			m->len = 8;
			m->va = fr->pkt.va;
			m->rkey = fr->pkt.rkey;
			m->swap_add = fr->pkt.swap_add;
			m->compare = fr->pkt.compare;
			m->npkts = 1;
		} else if (flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) {
			uint32_t q = psn, cap_bytes = 0;

			/* SEND/WRITE: the first occurrence of each PSN up to LAST */
			for (;;) {
				struct rp_frame *p = rp_first_req(cap, side, q);
				uint16_t pf;
				uint8_t *d;

				if (p == NULL)
					return -1;
				pf = pv_sroce_opcode_info[p->pkt.opcode].flags;
				if (m->len + p->pkt.payload_len > cap_bytes) {
					cap_bytes = (m->len + p->pkt.payload_len) * 2 + 64;
					d = realloc(m->data, cap_bytes);
					if (d == NULL)
						return -1;
					m->data = d;
				}
				memcpy(m->data + m->len, rp_payload(p), p->pkt.payload_len);
				m->len += p->pkt.payload_len;
				q = sroce_psn_add(q, 1);
				if (pf & (SROCE_OPF_LAST | SROCE_OPF_ONLY))
					break;
			}
			m->npkts = (uint32_t)sroce_psn_diff(q, psn);
			if (flags & SROCE_OPF_WRITE) {
				m->va = fr->pkt.va;
				m->rkey = fr->pkt.rkey;
				if (fr->pkt.dma_len != m->len)
					return -1;
			}
		} else {
			return -1;	/* the capture starts inside a message */
		}
		for (i = 0; i < cap->n; i++) {
			struct rp_frame *f = &cap->f[i];

			if (f->side == side && f->req &&
			    sroce_psn_diff(f->pkt.psn, psn) >= 0 &&
			    sroce_psn_diff(f->pkt.psn, psn) < (int32_t)m->npkts)
				f->msg = n;
		}
		psn = sroce_psn_add(psn, m->npkts);
		n++;
	}
	cap->nmsg[side] = n;
	/* READ data and atomic original values: the other side's responses */
	for (i = 0; i < cap->n; i++) {
		struct rp_frame *f = &cap->f[i];
		int k;

		if (f->side == side || f->req)
			continue;
		for (k = 0; k < n; k++) {
			struct rp_msg *m = &tbl[k];
			int32_t d = sroce_psn_diff(f->pkt.psn, m->first_psn);

			if (d < 0 || d >= (int32_t)m->npkts)
				continue;
			if (m->op == SROCE_OP_RC_READ_REQ &&
			    (pv_sroce_opcode_info[f->pkt.opcode].flags & SROCE_OPF_READ)) {
				uint32_t off = (uint32_t)d * cap->mtu;

				if (off + f->pkt.payload_len > m->len)
					return -1;
				/* a retransmitted response must carry the same bytes */
				if (m->resp_bytes > off &&
				    memcmp(m->data + off, rp_payload(f), f->pkt.payload_len) != 0)
					return -1;
				memcpy(m->data + off, rp_payload(f), f->pkt.payload_len);
				if (off + f->pkt.payload_len > m->resp_bytes)
					m->resp_bytes = off + f->pkt.payload_len;
			} else if (f->pkt.opcode == SROCE_OP_RC_ATOMIC_ACK && d == 0 &&
				   !m->has_orig) {
				m->orig = f->pkt.atomic_orig;
				m->has_orig = 1;
			}
		}
	}
	return 0;
}

static void
rp_cap_free(struct rp_cap *cap)
{
	int i, s;

	for (s = 0; s < 2; s++) {
		for (i = 0; cap->msg[s] != NULL && i < cap->nmsg[s]; i++)
			free(cap->msg[s][i].data);
		free(cap->msg[s]);
	}
	for (i = 0; i < cap->n; i++)
		free(cap->f[i].data);
	free(cap->f);
	memset(cap, 0, sizeof(*cap));
}

static int
rp_cap_load(const struct rp_case *c, struct rp_cap *cap)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *bytes;
	pcap_t *p;
	int i, s, nread = 0;

	memset(cap, 0, sizeof(*cap));
	cap->c = c;
	cap->mtu = pv_mtu_to_bytes(c->mtu);
	cap->rnr_timer[0] = cap->rnr_timer[1] = -1;
	cap->f = calloc(RP_MAX_FRAMES, sizeof(*cap->f));
	if (cap->f == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.pcap", rp_data_dir, c->name);
	p = pcap_open_offline(path, err);
	if (p == NULL) {
		printf("  %s: %s\n", path, err);
		return -1;
	}
	while (pcap_next_ex(p, &h, &bytes) == 1 && cap->n < RP_MAX_FRAMES) {
		struct rp_frame *fr = &cap->f[cap->n];
		int ret;

		fr->data = malloc(h->caplen);
		if (fr->data == NULL)
			break;
		memcpy(fr->data, bytes, h->caplen);
		fr->len = h->caplen;
		fr->no = ++nread;
		cap->n++;
		/* rxe's frames must pass softroce's parser, ICRC included */
		ret = pv_sroce_pkt_parse(fr->data, fr->len, 1, &fr->pkt);
		if (ret != 0) {
			printf("  %s frame %d: parse: %s\n", c->name, fr->no, strerror(-ret));
			pcap_close(p);
			return -1;
		}
		ret = rp_side_of(&fr->pkt);
		if (ret < 0) {
			printf("  %s frame %d: not from vm1 or vm2\n", c->name, fr->no);
			pcap_close(p);
			return -1;
		}
		fr->side = (uint8_t)ret;
		if ((c->flags & RP_CM) && (fr->pkt.opcode != SROCE_OP_UD_SEND_ONLY ||
					   fr->pkt.dqpn != 1 || fr->pkt.sqpn != 1)) {
			free(fr->data);
			fr->data = NULL;
			cap->n--;
			continue;
		}
		fr->req = (pv_sroce_opcode_info[fr->pkt.opcode].flags & SROCE_OPF_REQ) != 0;
		fr->msg = -1;
		/* the QPN a side owns is the destination of frames sent to it */
		cap->qpn[1 - fr->side] = fr->pkt.dqpn;
		/* the first PSN: the lowest (its frame may have been lost) */
		if (fr->req && (!cap->has_req[fr->side] ||
				sroce_psn_before(fr->pkt.psn, cap->psn0[fr->side]))) {
			cap->has_req[fr->side] = 1;
			cap->psn0[fr->side] = fr->pkt.psn;
		}
		if (fr->pkt.opcode == SROCE_OP_RC_ACK &&
		    (fr->pkt.aeth_syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_RNR_NAK)
			cap->rnr_timer[fr->side] = fr->pkt.aeth_syndrome & SROCE_AETH_VALUE_MASK;
	}
	pcap_close(p);
	if (c->flags & RP_CM)
		return cap->n > 0 ? 0 : -1;
	for (s = 0; s < 2; s++)
		if (rp_msgs_build(cap, s) != 0) {
			printf("  %s: message structure of %s not understood\n", c->name,
			       rp_ip_str[s]);
			return -1;
		}
	for (i = 0; i < cap->nmsg[VM1] + cap->nmsg[VM2]; i++) {
		int side = i < cap->nmsg[VM1] ? VM1 : VM2;
		struct rp_msg *m = &cap->msg[side][side == VM1 ? i : i - cap->nmsg[VM1]];

		if (m->op == SROCE_OP_RC_READ_REQ && m->resp_bytes != m->len) {
			printf("  %s: READ at psn %u: %u of %u response bytes captured\n",
			       c->name, m->first_psn, m->resp_bytes, m->len);
			return -1;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Frame I/O on the ring port                                             */
/* ---------------------------------------------------------------------- */

static int
rp_inject(struct rp_run *r, const uint8_t *data, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rp_mp);
	char *d;

	if (m == NULL)
		return -ENOMEM;
	d = rte_pktmbuf_append(m, (uint16_t)len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	memcpy(d, data, len);
	if (rte_ring_enqueue(rp_rx_ring[r->x], m) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	r->injected++;
	return 0;
}

static void
rp_report(struct rp_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* go-back-N on a sequence NAK: the first request after it has the NAKed PSN */
static void
rp_nak_check(struct rp_run *r)
{
	int i;

	for (i = r->nak_mark; i < r->nout; i++) {
		const struct rp_out *o = &r->out[i];

		if (!o->req || o->parse_ret != 0)
			continue;
		if (o->pkt.psn != r->nak_psn)
			rp_report(r, "after the PSN sequence NAK for psn %u softroce resent from "
				  "psn %u (opcode 0x%02x)", r->nak_psn, o->pkt.psn, o->pkt.opcode);
		else
			r->nak_resends++;
		r->nak_pending = 0;
		return;
	}
}

/* move what softroce transmitted into r->out (ARP frames are dropped) */
static void
rp_drain(struct rp_run *r)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = rte_ring_dequeue_burst(rp_tx_ring[r->x], (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[i]);
			struct rp_out *o;

			if (len >= 14 && p[12] == 0x08 && p[13] == 0x06) {
				rte_pktmbuf_free(m[i]);
				continue;
			}
			if (r->nout == RP_MAX_OUT) {
				rte_pktmbuf_free(m[i]);
				continue;
			}
			o = &r->out[r->nout++];
			o->data = malloc(len);
			if (o->data != NULL)
				memcpy(o->data, p, len);
			o->len = len;
			/* softroce's ICRC and IPv4 checksum must be valid */
			o->parse_ret = o->data == NULL ? -ENOMEM :
				       pv_sroce_pkt_parse(o->data, len, 1, &o->pkt);
			o->req = o->parse_ret == 0 &&
				 (pv_sroce_opcode_info[o->pkt.opcode].flags & SROCE_OPF_REQ);
			rte_pktmbuf_free(m[i]);
		}
	}
	if (r->nak_pending)
		rp_nak_check(r);
}

/* progress until softroce is idle, then collect its frames */
static void
rp_settle(struct rp_run *r)
{
	int i, idle = 0;

	for (i = 0; i < 64 && idle < 2; i++)
		idle = pv_progress(r->ctx) == 0 ? idle + 1 : 0;
	rp_drain(r);
}

static void
rp_report(struct rp_run *r, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "%s as %s: ", r->cap->c->name, r->x == VM1 ? "vm1" : "vm2");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	r->diffs++;
	if (r->diffs <= RP_MAX_DIFFS)
		printf("  MISMATCH %s\n", msg);
	CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
}

/* ---------------------------------------------------------------------- */
/* Frame comparison                                                       */
/* ---------------------------------------------------------------------- */

/* name of the field at byte @p off of a frame parsed as @p pkt */
static const char *
rp_field(const struct sroce_pkt *pkt, uint32_t off, uint32_t *rel_p)
{
	static const struct {
		uint16_t end;
		const char *name;
	} hdr[] = {
		{ 6, "eth dst" }, { 12, "eth src" }, { 14, "ethertype" },
		{ 15, "ip version/ihl" }, { 16, "ip tos" }, { 18, "ip total length" },
		{ 20, "ip id" }, { 22, "ip flags/fragment" }, { 23, "ip ttl" },
		{ 24, "ip protocol" }, { 26, "ip checksum" }, { 30, "ip src" }, { 34, "ip dst" },
		{ 36, "udp sport" }, { 38, "udp dport" }, { 40, "udp length" },
		{ 42, "udp checksum" }, { 43, "bth opcode" }, { 44, "bth se/m/padcnt/tver" },
		{ 46, "bth pkey" }, { 47, "bth fecn/becn/resv8a" }, { 50, "bth dest qpn" },
		{ 51, "bth ackreq/resv7" }, { 54, "bth psn" },
	};
	uint16_t hdrs = pv_sroce_opcode_info[pkt->opcode].hdrs;
	uint32_t o = SROCE_L2L4_HLEN + SROCE_BTH_LEN;
	unsigned int i;

	*rel_p = 0;
	for (i = 0; i < RTE_DIM(hdr); i++)
		if (off < hdr[i].end)
			return hdr[i].name;
	if (hdrs & SROCE_HDR_RETH) {
		if (off < o + 8)
			return "reth va";
		if (off < o + 12)
			return "reth rkey";
		if (off < o + 16)
			return "reth dma length";
		o += SROCE_RETH_LEN;
	}
	if (hdrs & SROCE_HDR_ATMETH) {
		if (off < o + 8)
			return "atomiceth va";
		if (off < o + 12)
			return "atomiceth rkey";
		if (off < o + 20)
			return "atomiceth swap/add";
		if (off < o + 28)
			return "atomiceth compare";
		o += SROCE_ATMETH_LEN;
	}
	if (hdrs & SROCE_HDR_AETH) {
		if (off < o + 1)
			return "aeth syndrome";
		if (off < o + 4)
			return "aeth msn";
		o += SROCE_AETH_LEN;
	}
	if (hdrs & SROCE_HDR_ATMACK) {
		if (off < o + 8)
			return "atomicacketh original value";
		o += SROCE_ATMACK_LEN;
	}
	if (hdrs & (SROCE_HDR_IMM | SROCE_HDR_IETH)) {
		if (off < o + 4)
			return "immdt/ieth";
		o += 4;
	}
	if (off < o + pkt->payload_len) {
		*rel_p = off - o;
		return "payload byte";
	}
	return "pad";
}

/*
 * Compare a frame softroce sent with the one rxe sent. @return 0 equal (as
 * defined at the top of the file), -1 different (reported).
 */
static int
rp_compare(struct rp_run *r, const struct rp_frame *e, struct rp_out *g)
{
	const struct sroce_pkt *ep = &e->pkt, *gp = &g->pkt;
	uint32_t elen = ep->frame_len - SROCE_ICRC_LEN, i, rel;
	const char *what = e->req ? "request" : "response";

	r->compared++;
	if (g->parse_ret != 0) {
		rp_report(r, "frame %d (%s, opcode 0x%02x psn %u): softroce's frame does not "
			  "parse: %s", e->no, what, ep->opcode, ep->psn, strerror(-g->parse_ret));
		return -1;
	}
	if (gp->frame_len != ep->frame_len || g->len != gp->frame_len) {
		rp_report(r, "frame %d (%s, opcode 0x%02x psn %u): length: expected %u got %u "
			  "(got opcode 0x%02x psn %u)", e->no, what, ep->opcode, ep->psn,
			  ep->frame_len, gp->frame_len, gp->opcode, gp->psn);
		return -1;
	}
	for (i = 0; i < elen; i++) {
		uint8_t a = e->data[i], b = g->data[i];

		if (i == 18 || i == 19 || i == 24 || i == 25)
			continue;	/* IPv4 identification and checksum */
		if (i == 50 && (a ^ b) == 0x80) {
			/* AckReq: an extra one is allowed on FIRST/MIDDLE packets */
			uint16_t fl = pv_sroce_opcode_info[ep->opcode].flags;

			if ((b & 0x80) && (fl & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))) {
				r->extra_ackreq++;
				continue;
			}
		}
		if (a != b) {
			const char *f = rp_field(ep, i, &rel);

			if (strcmp(f, "payload byte") == 0)
				rp_report(r, "frame %d (%s, opcode 0x%02x psn %u): "
					  "payload byte %u: "
					  "expected 0x%02x got 0x%02x", e->no, what, ep->opcode,
					  ep->psn, rel, a, b);
			else
				rp_report(r, "frame %d (%s, opcode 0x%02x psn %u): %s (byte %u): "
					  "expected 0x%02x got 0x%02x", e->no, what, ep->opcode,
					  ep->psn, f, i, a, b);
			return -1;
		}
	}
	return 0;
}

/* the key a lossy stream is matched on: opcode, PSN, AETH syndrome */
static int
rp_same_key(const struct sroce_pkt *a, const struct sroce_pkt *b)
{
	if (a->opcode != b->opcode || a->psn != b->psn)
		return 0;
	if (pv_sroce_opcode_info[a->opcode].hdrs & SROCE_HDR_AETH)
		return a->aeth_syndrome == b->aeth_syndrome;
	return 1;
}

enum { RP_OK = 0, RP_FAIL = -1, RP_SKIPPED = 1 };

/*
 * A request of X the capture lacks at this point (lost before the capture
 * point) must still equal the frame rxe sent with that opcode and PSN:
 * every PSN reached the peer at least once and a resent packet is the same.
 */
static void
rp_lost_check(struct rp_run *r, struct rp_out *o)
{
	const struct rp_cap *cap = r->cap;
	int j;

	o->used = 1;
	r->lost_skipped++;
	if (!o->req)
		return;
	for (j = 0; j < cap->n; j++) {
		const struct rp_frame *f = &cap->f[j];

		if (f->side == r->x && f->req && o->parse_ret == 0 &&
		    rp_same_key(&f->pkt, &o->pkt)) {
			(void)rp_compare(r, f, o);
			r->compared--;
			return;
		}
	}
	rp_report(r, "softroce sent a request rxe never sent: opcode 0x%02x psn %u",
		  o->pkt.opcode, o->pkt.psn);
}

/*
 * Match captured frame @p idx (sent by X) with the next frame of the same
 * class (request/response) softroce sent. @p lossy: softroce frames before
 * the match may be skipped (lost before the capture point). @p optional:
 * skip the captured frame when softroce did not send it.
 */
static int
rp_expect(struct rp_run *r, int idx, int lossy, int optional)
{
	const struct rp_frame *e = &r->cap->f[idx];
	uint64_t deadline = ut_now_ms() + (optional ? 2 : RP_WAIT_MS);
	int i;

	for (;;) {
		rp_drain(r);
		for (i = 0; i < r->nout; i++) {
			struct rp_out *o = &r->out[i];
			int k;

			if (o->used || o->req != e->req)
				continue;
			if (o->parse_ret == 0 && !rp_same_key(&o->pkt, &e->pkt)) {
				if (optional)
					return RP_SKIPPED;
				if (lossy)
					continue;
			}
			if (lossy)
				for (k = 0; k < i; k++)
					if (!r->out[k].used && r->out[k].req == e->req)
						rp_lost_check(r, &r->out[k]);
			o->used = 1;
			return rp_compare(r, e, o) == 0 ? RP_OK : RP_FAIL;
		}
		if (ut_now_ms() > deadline)
			break;
		pv_progress(r->ctx);
	}
	if (optional)
		return RP_SKIPPED;
	rp_report(r, "frame %d (%s, opcode 0x%02x psn %u): softroce sent no such frame within "
		  "%u ms", e->no, e->req ? "request" : "response", e->pkt.opcode, e->pkt.psn,
		  RP_WAIT_MS);
	return RP_FAIL;
}

/* ---------------------------------------------------------------------- */
/* Replay                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * Create an RC QP with the captured QPN: softroce hands QPNs out cyclically
 * (as rxe), so creating and destroying walks the numbers until the wanted
 * one comes round (at most the device's max_qp tries).
 */
static struct pv_qp *
rp_qp_create(struct rp_run *r, uint32_t want)
{
	struct pv_device_attr da;
	struct pv_qp_init_attr ia;
	struct pv_qp *qp = NULL;
	int tries;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = r->scq;
	ia.recv_cq = r->rcq;
	ia.qp_type = r->cap->c->flags & RP_UC ? PV_QPT_UC : PV_QPT_RC;
	ia.cap.max_send_wr = 256;
	ia.cap.max_recv_wr = 256;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 64;
	tries = pv_query_device(r->pd->context, &da) == 0 ? da.max_qp + 1 : 1;
	while (tries-- > 0) {
		qp = pv_create_qp(r->pd, &ia);
		if (qp == NULL || qp->qp_num == want || tries == 0)
			break;
		pv_destroy_qp(qp);
		qp = NULL;
	}
	if (qp != NULL && qp->qp_num != want)
		r->qpn_rewrite = 1;
	return qp;
}

static int
rp_qp_connect(struct rp_run *r)
{
	struct rp_cap *cap = r->cap;
	int uc = (cap->c->flags & RP_UC) != 0;
	struct pv_app_qp_peer peer = {
		.qpn = cap->qpn[r->peer],
		.psn = cap->psn0[r->peer],
	};
	struct pv_app_qp_opts o;

	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_replay";
	o.sgid_index = 1;
	o.mtu = cap->c->mtu;
	o.access = uc ? PV_ACCESS_REMOTE_WRITE : PV_ACCESS_REMOTE_WRITE |
		   PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC;
	o.max_dest_rd_atomic = 16;
	o.max_rd_atomic = 16;
	/* what the captured application asked for (perftest and rc_pingpong: 12) */
	o.min_rnr_timer = cap->rnr_timer[r->x] >= 0 ? cap->rnr_timer[r->x] : 12;
	o.sq_psn = cap->psn0[r->x];
	/* perftest's default, 14 (67 ms), where the capture has timeouts; else
	 * 18 (1.1 s): a descheduled test must not see spurious retransmissions */
	o.timeout = cap->c->flags & (RP_LOSS_VM1 | RP_LOSS_VM2) ? 14 : 18;
	/* the peer's IPv4-mapped GID */
	if (ut_gid_ipv4(rp_ip_str[r->peer], &peer.gid) != 0)
		return EINVAL;
	return -pv_app_qp_connect(r->qp, &o, &peer);
}

/* the peer's ARP request for X's address: softroce learns the peer's MAC */
static void
rp_arp_prime(struct rp_run *r)
{
	uint8_t f[60];
	uint32_t sip, tip;

	memset(f, 0, sizeof(f));
	memset(f, 0xff, 6);
	memcpy(f + 6, rp_mac[r->peer], 6);
	f[12] = 0x08;
	f[13] = 0x06;
	f[15] = 1;		/* Ethernet */
	f[16] = 0x08;		/* IPv4 */
	f[18] = 6;
	f[19] = 4;
	f[21] = 1;		/* request */
	memcpy(f + 22, rp_mac[r->peer], 6);
	inet_pton(AF_INET, rp_ip_str[r->peer], &sip);
	inet_pton(AF_INET, rp_ip_str[r->x], &tip);
	memcpy(f + 28, &sip, 4);
	memcpy(f + 38, &tip, 4);
	CU_ASSERT_EQUAL(rp_inject(r, f, sizeof(f)), 0);
	rp_settle(r);
}

/* lay out X's memory: local buffers of its messages and receive buffers,
 * the target region the peer's RETH/AtomicETH address */
static int
rp_mem_setup(struct rp_run *r)
{
	struct rp_cap *cap = r->cap;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t off = 0;
	int k;

	for (k = 0; k < cap->nmsg[r->x]; k++) {
		cap->msg[r->x][k].lbuf_off = off;
		off += RTE_ALIGN_CEIL(cap->msg[r->x][k].len + 64, 64);
	}
	for (k = 0; k < cap->nmsg[r->peer]; k++) {
		struct rp_msg *m = &cap->msg[r->peer][k];
		uint16_t fl = pv_sroce_opcode_info[m->op].flags;

		m->recv_posted = 0;
		if (fl & SROCE_OPF_SEND) {
			m->lbuf_off = off;
			off += RTE_ALIGN_CEIL(m->len + 64, 64);
		} else if (m->len > 0) {
			lo = RTE_MIN(lo, m->va);
			hi = RTE_MAX(hi, m->va + m->len);
		}
	}
	r->lbuf_len = off + 64;
	r->lbuf = aligned_alloc(4096, RTE_ALIGN_CEIL(r->lbuf_len, 4096));
	if (r->lbuf == NULL)
		return -1;
	memset(r->lbuf, RP_SENTINEL, r->lbuf_len);
	r->lmr = pv_reg_mr(r->pd, r->lbuf, r->lbuf_len, PV_ACCESS_LOCAL_WRITE);
	if (r->lmr == NULL)
		return -1;
	if (hi == 0)
		return 0;
	/* keep the page offset of the captured addresses (atomics need 8-byte alignment) */
	r->rbase = lo & ~(uint64_t)4095;
	r->rlen = hi - r->rbase;
	if (r->rlen > RP_MAX_REGION)
		return -1;
	r->rbuf = aligned_alloc(4096, RTE_ALIGN_CEIL(r->rlen, 4096));
	r->rimg = malloc(r->rlen);
	if (r->rbuf == NULL || r->rimg == NULL)
		return -1;
	memset(r->rbuf, RP_SENTINEL, r->rlen);
	/* READ source data: what rxe answered */
	for (k = 0; k < cap->nmsg[r->peer]; k++) {
		struct rp_msg *m = &cap->msg[r->peer][k];

		if (m->op == SROCE_OP_RC_READ_REQ)
			memcpy(r->rbuf + (m->va - r->rbase), m->data, m->len);
	}
	/* atomic targets: the original value rxe returned first */
	for (k = cap->nmsg[r->peer] - 1; k >= 0; k--) {
		struct rp_msg *m = &cap->msg[r->peer][k];

		if ((pv_sroce_opcode_info[m->op].flags & SROCE_OPF_ATOMIC) && m->has_orig)
			memcpy(r->rbuf + (m->va - r->rbase), &m->orig, 8);
	}
	/* the expected image: WRITE payloads and atomic results applied in order */
	memcpy(r->rimg, r->rbuf, r->rlen);
	for (k = 0; k < cap->nmsg[r->peer]; k++) {
		struct rp_msg *m = &cap->msg[r->peer][k];
		uint64_t v;

		if (pv_sroce_opcode_info[m->op].flags & SROCE_OPF_WRITE) {
			memcpy(r->rimg + (m->va - r->rbase), m->data, m->len);
		} else if (pv_sroce_opcode_info[m->op].flags & SROCE_OPF_ATOMIC) {
			memcpy(&v, r->rimg + (m->va - r->rbase), 8);
			if (m->op == SROCE_OP_RC_FETCH_ADD)
				v += m->swap_add;
			else if (v == m->compare)
				v = m->swap_add;
			memcpy(r->rimg + (m->va - r->rbase), &v, 8);
		}
	}
	r->rmr = pv_reg_mr(r->pd, r->rbuf, r->rlen, PV_ACCESS_LOCAL_WRITE |
			   PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			   PV_ACCESS_REMOTE_ATOMIC);
	return r->rmr != NULL ? 0 : -1;
}

/* a peer request as X receives it: QPN, va and rkey mapped, ICRC recomputed */
static int
rp_inject_peer(struct rp_run *r, const struct rp_frame *fr)
{
	uint8_t buf[10240];
	uint16_t hdrs = pv_sroce_opcode_info[fr->pkt.opcode].hdrs;
	uint32_t bth = fr->pkt.bth_off;
	int changed = 0;

	if (fr->len > sizeof(buf))
		return -EMSGSIZE;
	memcpy(buf, fr->data, fr->len);
	if (r->qpn_rewrite) {
		/* the low 24 bits of the word after the P_Key */
		buf[bth + 5] = (uint8_t)(r->qp->qp_num >> 16);
		buf[bth + 6] = (uint8_t)(r->qp->qp_num >> 8);
		buf[bth + 7] = (uint8_t)r->qp->qp_num;
		changed = 1;
	}
	if ((hdrs & (SROCE_HDR_RETH | SROCE_HDR_ATMETH)) && r->rmr != NULL && fr->req) {
		uint64_t va = rte_cpu_to_be_64((uintptr_t)r->rbuf + (fr->pkt.va - r->rbase));
		uint32_t rkey = rte_cpu_to_be_32(r->rmr->rkey);

		memcpy(buf + bth + SROCE_BTH_LEN, &va, 8);
		memcpy(buf + bth + SROCE_BTH_LEN + 8, &rkey, 4);
		changed = 1;
	}
	if (changed) {
		pv_sroce_icrc_set(buf, fr->pkt.frame_len);
		r->rewritten++;
	}
	return rp_inject(r, buf, fr->len);
}

/*
 * Did X accept peer request @p idx (before the peer sent that PSN again)?
 * The first response of X at or after its PSN says: a positive ACK, or a NAK
 * for a later PSN, means accepted; an RNR or sequence NAK for this very PSN,
 * or no response at all (dropped behind a gap), means not.
 */
static int
rp_accepted(const struct rp_run *r, int idx)
{
	const struct rp_cap *cap = r->cap;
	uint32_t psn = cap->f[idx].pkt.psn;
	int j;

	for (j = idx + 1; j < cap->n; j++) {
		const struct rp_frame *f = &cap->f[j];

		if (f->side == r->peer && f->req && f->pkt.psn == psn)
			return 0;
		if (f->side != r->x || f->req || sroce_psn_before(f->pkt.psn, psn))
			continue;
		if (f->pkt.opcode != SROCE_OP_RC_ACK ||
		    (f->pkt.aeth_syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_ACK)
			return 1;
		return f->pkt.psn != psn;
	}
	return 0;
}

/* receive buffers for the peer's SEND messages up to @p k */
static void
rp_post_recv_upto(struct rp_run *r, int k)
{
	int i;

	for (i = 0; i <= k; i++) {
		struct rp_msg *m = &r->cap->msg[r->peer][i];

		if (!(pv_sroce_opcode_info[m->op].flags & SROCE_OPF_SEND) || m->recv_posted)
			continue;
		CU_ASSERT_EQUAL(ut_post_recv1(r->qp, i, r->lbuf + m->lbuf_off, m->len + 64,
					      r->lmr->lkey), 0);
		m->recv_posted = 1;
		r->nrecv_posted++;
	}
}

/* post X's messages up to @p k as the captured application did */
static void
rp_post_send_upto(struct rp_run *r, int k)
{
	while (r->nposted <= k) {
		struct rp_msg *m = &r->cap->msg[r->x][r->nposted];
		uint16_t fl = pv_sroce_opcode_info[m->op].flags;
		uint8_t *lb = r->lbuf + m->lbuf_off;
		struct pv_sge sge = { (uintptr_t)lb, m->len, r->lmr->lkey };
		struct pv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = r->nposted;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = PV_SEND_SIGNALED;
		if (fl & SROCE_OPF_SEND) {
			wr.opcode = PV_WR_SEND;
			memcpy(lb, m->data, m->len);
			if ((r->cap->c->flags & RP_INLINE) && m->len <= r->qp->cap.max_inline_data)
				wr.send_flags |= PV_SEND_INLINE;
		} else if (fl & SROCE_OPF_WRITE) {
			wr.opcode = PV_WR_RDMA_WRITE;
			memcpy(lb, m->data, m->len);
			wr.wr.rdma.remote_addr = m->va;
			wr.wr.rdma.rkey = m->rkey;
		} else if (m->op == SROCE_OP_RC_READ_REQ) {
			wr.opcode = PV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = m->va;
			wr.wr.rdma.rkey = m->rkey;
		} else {
			wr.opcode = m->op == SROCE_OP_RC_FETCH_ADD ? PV_WR_ATOMIC_FETCH_AND_ADD :
				    PV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.remote_addr = m->va;
			wr.wr.atomic.rkey = m->rkey;
			if (m->op == SROCE_OP_RC_FETCH_ADD) {
				wr.wr.atomic.compare_add = m->swap_add;
			} else {
				wr.wr.atomic.compare_add = m->compare;
				wr.wr.atomic.swap = m->swap_add;
			}
		}
		CU_ASSERT_EQUAL(pv_post_send(r->qp, &wr, &bad), 0);
		r->nposted++;
	}
}

static enum pv_wc_opcode
rp_wc_opcode(uint8_t op)
{
	uint16_t fl = pv_sroce_opcode_info[op].flags;

	if (fl & SROCE_OPF_SEND)
		return PV_WC_SEND;
	if (fl & SROCE_OPF_WRITE)
		return PV_WC_RDMA_WRITE;
	if (op == SROCE_OP_RC_READ_REQ)
		return PV_WC_RDMA_READ;
	return op == SROCE_OP_RC_FETCH_ADD ? PV_WC_FETCH_ADD : PV_WC_COMP_SWAP;
}

/* completions, READ/atomic results, received data and the target memory */
static void
rp_check_results(struct rp_run *r)
{
	struct rp_cap *cap = r->cap;
	uint64_t end = ut_now_ms() + RP_WAIT_MS;
	int nsend = 0, nrecv = 0, k;
	struct pv_wc wc;

	while ((nsend < r->nposted || nrecv < r->nrecv_posted) && ut_now_ms() < end) {
		if (pv_poll_cq(r->scq, 1, &wc) == 1) {
			struct rp_msg *m = &cap->msg[r->x][nsend];
			uint8_t *lb = r->lbuf + m->lbuf_off;

			if (wc.status != PV_WC_SUCCESS || wc.wr_id != (uint64_t)nsend ||
			    wc.opcode != rp_wc_opcode(m->op) || wc.byte_len != m->len)
				rp_report(r, "send completion %d: status %s wr_id %" PRIu64
					  " opcode %d byte_len %u, expected success, wr_id %d, "
					  "opcode %d, byte_len %u", nsend,
					  pv_wc_status_str(wc.status), wc.wr_id, wc.opcode,
					  wc.byte_len, nsend, rp_wc_opcode(m->op), m->len);
			if (m->op == SROCE_OP_RC_READ_REQ && memcmp(lb, m->data, m->len) != 0)
				rp_report(r, "READ %d (psn %u, %u bytes): data differs from the "
					  "captured responses", nsend, m->first_psn, m->len);
			if ((pv_sroce_opcode_info[m->op].flags & SROCE_OPF_ATOMIC) &&
			    memcmp(lb, &m->orig, 8) != 0)
				rp_report(r, "atomic %d (psn %u): original value 0x%016" PRIx64
					  " expected 0x%016" PRIx64, nsend, m->first_psn,
					  *(uint64_t *)lb, m->orig);
			if (lb[m->len] != RP_SENTINEL)
				rp_report(r, "wr %d: byte after the local buffer overwritten",
					  nsend);
			nsend++;
		}
		if (pv_poll_cq(r->rcq, 1, &wc) == 1) {
			struct rp_msg *m = NULL;
			int i, seen = 0;

			/* the nrecv-th SEND message of the peer */
			for (i = 0; i < cap->nmsg[r->peer]; i++) {
				if (!(pv_sroce_opcode_info[cap->msg[r->peer][i].op].flags &
				      SROCE_OPF_SEND))
					continue;
				if (seen++ == nrecv) {
					m = &cap->msg[r->peer][i];
					break;
				}
			}
			if (m == NULL || wc.status != PV_WC_SUCCESS ||
			    wc.wr_id != (uint64_t)i || wc.opcode != PV_WC_RECV ||
			    wc.byte_len != m->len || wc.src_qp != cap->qpn[r->peer] ||
			    (wc.wc_flags & PV_WC_WITH_IMM) || wc.qp_num != r->qp->qp_num) {
				rp_report(r, "receive completion %d: status %s wr_id %" PRIu64
					  " opcode %d byte_len %u src_qp 0x%x flags 0x%x, "
					  "expected success, wr_id %d, RECV, byte_len %u, "
					  "src_qp 0x%x, no imm", nrecv,
					  pv_wc_status_str(wc.status), wc.wr_id, wc.opcode,
					  wc.byte_len, wc.src_qp, wc.wc_flags, i,
					  m != NULL ? m->len : 0, cap->qpn[r->peer]);
			} else {
				uint8_t *rb = r->lbuf + m->lbuf_off;
				uint32_t j;

				if (memcmp(rb, m->data, m->len) != 0)
					rp_report(r, "receive %d (psn %u, %u bytes): data differs "
						  "from the captured SEND", nrecv, m->first_psn,
						  m->len);
				for (j = m->len; j < m->len + 64; j++)
					if (rb[j] != RP_SENTINEL) {
						rp_report(r, "receive %d: byte %u past the message "
							  "written", nrecv, j);
						break;
					}
			}
			nrecv++;
		}
		pv_progress(r->ctx);
	}
	if (nsend != r->nposted || nrecv != r->nrecv_posted)
		rp_report(r, "completions: %d of %d sends, %d of %d receives", nsend, r->nposted,
			  nrecv, r->nrecv_posted);
	if (r->nposted != cap->nmsg[r->x])
		rp_report(r, "posted %d of the %d captured messages", r->nposted, cap->nmsg[r->x]);
	if (r->rbuf != NULL) {
		size_t i;

		for (i = 0; i < r->rlen; i++)
			if (r->rbuf[i] != r->rimg[i]) {
				rp_report(r, "target memory byte at captured va 0x%" PRIx64
					  ": expected 0x%02x got 0x%02x", r->rbase + i,
					  r->rimg[i], r->rbuf[i]);
				break;
			}
	}
	for (k = 0; k < cap->nmsg[r->peer]; k++) {
		struct rp_msg *m = &cap->msg[r->peer][k];

		if ((pv_sroce_opcode_info[m->op].flags & SROCE_OPF_SEND) && !m->recv_posted)
			rp_report(r, "no receive was posted for the peer's SEND %d", k);
	}
}

/* RNR quirk of rxe: a sequence NAK right after an RNR NAK for the same PSN */
static int
rp_rnr_quirk(const struct rp_run *r, int idx)
{
	const struct rp_frame *e = &r->cap->f[idx];
	int j;

	if (e->pkt.opcode != SROCE_OP_RC_ACK ||
	    e->pkt.aeth_syndrome != (SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR))
		return 0;
	for (j = idx - 1; j >= 0; j--) {
		const struct rp_frame *f = &r->cap->f[j];

		if (f->side != r->x || f->req)
			continue;
		return f->pkt.opcode == SROCE_OP_RC_ACK && f->pkt.psn == e->pkt.psn &&
		       (f->pkt.aeth_syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_RNR_NAK;
	}
	return 0;
}

static void
rp_run_free(struct rp_run *r)
{
	struct pv_wc wc;
	struct rte_mbuf *m;
	int i;

	if (r->qp != NULL)
		pv_destroy_qp(r->qp);
	while (r->scq != NULL && pv_poll_cq(r->scq, 1, &wc) > 0)
		;
	while (r->rcq != NULL && pv_poll_cq(r->rcq, 1, &wc) > 0)
		;
	if (r->scq != NULL)
		pv_destroy_cq(r->scq);
	if (r->rcq != NULL)
		pv_destroy_cq(r->rcq);
	if (r->lmr != NULL)
		pv_dereg_mr(r->lmr);
	if (r->rmr != NULL)
		pv_dereg_mr(r->rmr);
	if (r->pd != NULL)
		pv_dealloc_pd(r->pd);
	/* nothing may stay in the rings for the next replay */
	if (r->ctx != NULL)
		for (i = 0; i < 4; i++)
			pv_progress(r->ctx);
	while (rte_ring_dequeue(rp_rx_ring[r->x], (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(rp_tx_ring[r->x], (void **)&m) == 0)
		rte_pktmbuf_free(m);
	for (i = 0; i < r->nout; i++)
		free(r->out[i].data);
	free(r->out);
	free(r->lbuf);
	free(r->rbuf);
	free(r->rimg);
}

/*
 * The start of a replay of @p c with softroce as side @p x: the capture in
 * @p cap, and @p r's context, frame table, PD and CQs. @return 0, or -1
 * (a failure, reported; the caller frees @p r and @p cap all the same)
 */
static int
rp_run_start(const struct rp_case *c, int x, struct rp_cap *cap, struct rp_run *r)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->x = x;
	r->peer = 1 - x;
	r->ctx = rp_ctx[x];
	if (rp_cap_load(c, cap) != 0) {
		CU_FAIL("capture not loaded");
		return -1;
	}
	r->out = calloc(RP_MAX_OUT, sizeof(*r->out));
	r->pd = pv_alloc_pd(r->ctx);
	r->scq = pv_create_cq(r->ctx, 1024, NULL, NULL, 0);
	r->rcq = pv_create_cq(r->ctx, 1024, NULL, NULL, 0);
	if (r->out == NULL || r->pd == NULL || r->scq == NULL || r->rcq == NULL) {
		CU_FAIL("verbs objects");
		return -1;
	}
	return 0;
}

static void
rp_replay(const struct rp_case *c, int x)
{
	struct rp_cap cap;
	struct rp_run r;
	int lossy_x = (c->flags & (x == VM1 ? RP_LOSS_VM1 : RP_LOSS_VM2)) != 0;
	struct pv_sroce_stats st0, st1;
	int i, ret;

	memset(&st0, 0, sizeof(st0));
	memset(&st1, 0, sizeof(st1));
	if (rp_run_start(c, x, &cap, &r) != 0)
		goto out;
	r.qp = rp_qp_create(&r, cap.qpn[x]);
	if (r.qp == NULL || rp_mem_setup(&r) != 0) {
		CU_FAIL("qp or memory set-up");
		goto out;
	}
	rp_arp_prime(&r);
	pv_sroce_stats_get(r.ctx, &st0);
	ret = rp_qp_connect(&r);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret != 0)
		goto out;
	for (i = 0; i < cap.n && r.diffs < RP_MAX_DIFFS; i++) {
		const struct rp_frame *fr = &cap.f[i];

		if (fr->side == r.peer) {
			if (fr->req && (pv_sroce_opcode_info[fr->pkt.opcode].flags &
					(SROCE_OPF_SEND)) &&
			    (pv_sroce_opcode_info[fr->pkt.opcode].flags &
			     (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) &&
			    ((c->flags & RP_UC) || rp_accepted(&r, i)))
				rp_post_recv_upto(&r, fr->msg);
			if (!fr->req && fr->pkt.opcode == SROCE_OP_RC_ACK &&
			    fr->pkt.aeth_syndrome == (SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR)) {
				rp_drain(&r);
				r.nak_pending = 1;
				r.nak_psn = fr->pkt.psn;
				r.nak_mark = r.nout;
			}
			CU_ASSERT_EQUAL(rp_inject_peer(&r, fr), 0);
			/* responses arriving back to back reach softroce in one burst
			 * (requests one by one: the responder's ACK coalescing is
			 * not what is compared) */
			if (!fr->req && i + 1 < cap.n && cap.f[i + 1].side == r.peer &&
			    !cap.f[i + 1].req)
				continue;
			rp_settle(&r);
			continue;
		}
		if (fr->req) {
			rp_post_send_upto(&r, fr->msg);
			(void)rp_expect(&r, i, lossy_x, 0);
		} else if (rp_rnr_quirk(&r, i)) {
			if (rp_expect(&r, i, lossy_x, 1) == RP_SKIPPED)
				r.quirk_skipped++;
		} else {
			(void)rp_expect(&r, i, lossy_x, 0);
		}
	}
	rp_check_results(&r);
	/* nothing else may come out of softroce (a lossy side may resend) */
	ut_spin(5);
	rp_settle(&r);
	for (i = 0; i < r.nout; i++) {
		if (r.out[i].used)
			continue;
		if (lossy_x) {
			rp_lost_check(&r, &r.out[i]);
			continue;
		}
		rp_report(&r, "unexpected %s from softroce: opcode 0x%02x psn %u",
			  r.out[i].req ? "request" : "response", r.out[i].pkt.opcode,
			  r.out[i].pkt.psn);
	}
	pv_sroce_stats_get(r.ctx, &st1);
	/* a capture without loss has no reason for an ACK timeout */
	if (!(c->flags & (RP_LOSS_VM1 | RP_LOSS_VM2)) && st1.timeouts != st0.timeouts)
		rp_report(&r, "%" PRIu64 " ACK timeouts", st1.timeouts - st0.timeouts);
	CU_ASSERT_EQUAL(st1.rx_drop_icrc, st0.rx_drop_icrc);
	CU_ASSERT_EQUAL(st1.rx_drop_hdr, st0.rx_drop_hdr);
	CU_ASSERT_EQUAL(st1.rx_drop_qpn, st0.rx_drop_qpn);
	printf("  %s as %s: %d frames, %d injected (%d rewritten%s), %d compared, "
	       "%d extra AckReq, %d rxe RNR sequence NAKs not sent, %d lost frames skipped, "
	       "%d resends from a NAKed PSN, %" PRIu64 " ACK timeouts, %d mismatches\n",
	       c->name, x == VM1 ? "vm1" : "vm2", cap.n, r.injected - 1, r.rewritten,
	       r.qpn_rewrite ? ", QPN rewritten" : "", r.compared, r.extra_ackreq,
	       r.quirk_skipped, r.lost_skipped, r.nak_resends, st1.timeouts - st0.timeouts,
	       r.diffs);
out:
	rp_run_free(&r);
	rp_cap_free(&cap);
}

/* ---------------------------------------------------------------------- */
/* CM MADs between GSI QPs                                                */
/* ---------------------------------------------------------------------- */

#define RP_GSI_QKEY	0x80010000u
#define RP_MAD_LEN	256
#define RP_GRH_LEN	40
#define RP_GSI_SLOT	512

/* X's GSI QP (QP1) up: INIT (pkey_index 0, port 1, GSI Q_Key), RTR, RTS */
static int
rp_gsi_up(struct pv_qp *qp, uint32_t sq_psn)
{
	struct pv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_INIT;
	a.port_num = 1;
	a.qkey = RP_GSI_QKEY;
	ret = pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY);
	a.qp_state = PV_QPS_RTR;
	ret = ret ?: pv_modify_qp(qp, &a, PV_QP_STATE);
	a.qp_state = PV_QPS_RTS;
	a.sq_psn = sq_psn;
	return ret ?: pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_SQ_PSN);
}

/* the peer's MAD @p fr injected: X's GSI QP receives it into slot @p k */
static void
rp_gsi_receive(struct rp_run *r, const struct rp_frame *fr, uint32_t k)
{
	uint8_t *slot = r->lbuf + (size_t)k * RP_GSI_SLOT;
	struct pv_wc wc;
	int n = 0, i;

	CU_ASSERT_EQUAL(ut_post_recv1(r->qp, k, slot, RP_GRH_LEN + RP_MAD_LEN, r->lmr->lkey), 0);
	CU_ASSERT_EQUAL(rp_inject(r, fr->data, fr->len), 0);
	for (i = 0; i < 64 && n == 0; i++) {
		rp_settle(r);
		n = pv_poll_cq(r->rcq, 1, &wc);
	}
	if (n != 1) {
		rp_report(r, "frame %d (MAD from the peer): no receive completion", fr->no);
		return;
	}
	if (wc.status != PV_WC_SUCCESS || wc.wr_id != k || wc.qp_num != 1 || wc.src_qp != 1 ||
	    wc.byte_len != RP_GRH_LEN + RP_MAD_LEN || wc.wc_flags != PV_WC_GRH ||
	    memcmp(slot + RP_GRH_LEN, rp_payload(fr), RP_MAD_LEN) != 0 ||
	    memcmp(slot + RP_GRH_LEN - 20, fr->data + fr->pkt.l3_off, 20) != 0)
		rp_report(r, "frame %d (MAD from the peer): status %d qp 0x%x src_qp 0x%x, %u "
			  "bytes, flags 0x%x, or the MAD or GRH differ", fr->no, wc.status,
			  wc.qp_num, wc.src_qp, wc.byte_len, wc.wc_flags);
}

/* X's MAD @p fr sent from slot @p k: softroce's frame must be rxe's */
static void
rp_gsi_send(struct rp_run *r, struct pv_ah *ah, const struct rp_frame *fr, uint32_t k)
{
	uint8_t *slot = r->lbuf + (size_t)k * RP_GSI_SLOT;
	struct pv_sge sge = { .addr = (uintptr_t)slot, .length = RP_MAD_LEN,
			      .lkey = r->lmr->lkey };
	struct pv_send_wr wr, *bad = NULL;
	struct pv_wc wc;

	memcpy(slot, rp_payload(fr), RP_MAD_LEN);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = RP_GSI_QKEY;
	CU_ASSERT_EQUAL(pv_post_send(r->qp, &wr, &bad), 0);
	(void)rp_expect(r, (int)(fr - r->cap->f), 0, 0);
	if (pv_poll_cq(r->scq, 1, &wc) != 1 || wc.status != PV_WC_SUCCESS || wc.wr_id != k)
		rp_report(r, "frame %d (MAD to the peer): no successful send completion", fr->no);
}

/*
 * The CM MADs of capture @p c with X's side played by a softroce GSI QP:
 * X's MADs posted and their frames compared byte for byte with rxe's (UDP
 * source port 55410, P_Key, QPN 1, AckReq, PSN, DETH), the peer's injected
 * and received (src_qp 1, the MAD, the IPv4 header in the GRH area).
 */
static void
rp_gsi_replay(const struct rp_case *c, int x)
{
	struct pv_qp_init_attr ia;
	struct pv_sroce_stats st0, st1;
	struct pv_ah_attr aa;
	struct pv_ah *ah = NULL;
	struct rp_cap cap;
	struct rp_run r;
	int i, sent = 0, received = 0;

	if (rp_run_start(c, x, &cap, &r) != 0)
		goto out;
	r.lbuf_len = (size_t)cap.n * RP_GSI_SLOT;
	r.lbuf = aligned_alloc(4096, RTE_ALIGN_CEIL(r.lbuf_len, 4096));
	if (r.lbuf == NULL) {
		CU_FAIL("buffer");
		goto out;
	}
	r.lmr = pv_reg_mr(r.pd, r.lbuf, r.lbuf_len, PV_ACCESS_LOCAL_WRITE);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = r.scq;
	ia.recv_cq = r.rcq;
	ia.qp_type = PV_QPT_UD;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	r.qp = pv_verbs_create_gsi_qp(r.pd, &ia);
	if (r.lmr == NULL || r.qp == NULL || r.qp->qp_num != 1 ||
	    rp_gsi_up(r.qp, cap.has_req[x] ? cap.psn0[x] : 0) != 0) {
		CU_FAIL("GSI QP set-up");
		goto out;
	}
	rp_arp_prime(&r);
	CU_ASSERT_EQUAL(ut_ah_attr_ipv4(rp_ip_str[r.peer], &aa), 0);
	ah = pv_create_ah(r.pd, &aa);
	if (ah == NULL) {
		CU_FAIL("AH to the peer");
		goto out;
	}
	pv_sroce_stats_get(r.ctx, &st0);
	for (i = 0; i < cap.n && r.diffs < RP_MAX_DIFFS; i++) {
		if (cap.f[i].side == r.peer) {
			rp_gsi_receive(&r, &cap.f[i], (uint32_t)i);
			received++;
		} else {
			rp_gsi_send(&r, ah, &cap.f[i], (uint32_t)i);
			sent++;
		}
	}
	/* nothing else may come out of softroce */
	ut_spin(5);
	rp_settle(&r);
	for (i = 0; i < r.nout; i++)
		if (!r.out[i].used)
			rp_report(&r, "unexpected frame from softroce: opcode 0x%02x psn %u",
				  r.out[i].pkt.opcode, r.out[i].pkt.psn);
	pv_sroce_stats_get(r.ctx, &st1);
	CU_ASSERT_EQUAL(st1.rx_drop_icrc, st0.rx_drop_icrc);
	CU_ASSERT_EQUAL(st1.rx_drop_hdr, st0.rx_drop_hdr);
	CU_ASSERT_EQUAL(st1.rx_drop_gsi, st0.rx_drop_gsi);
	CU_ASSERT_EQUAL(st1.rx_drop_pkey, st0.rx_drop_pkey);
	CU_ASSERT_EQUAL(st1.ud_qkey_drops, st0.ud_qkey_drops);
	printf("  %s MADs as %s: %d sent and compared (%d equal), %d received, %d mismatches\n",
	       c->name, x == VM1 ? "vm1" : "vm2", sent, r.compared - r.diffs, received, r.diffs);
out:
	if (ah != NULL)
		pv_destroy_ah(ah);
	rp_run_free(&r);
	rp_cap_free(&cap);
}

/*
 * The case of @p tbl (@p n entries) the running test's name starts with,
 * and in *@p x_p the side it names; NULL (a failure) when none.
 */
static const struct rp_case *
rp_case_of_test(const struct rp_case *tbl, unsigned int n, int *x_p)
{
	const char *name = CU_get_current_test()->pName;
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(tbl[i].name);

		if (strncmp(name, tbl[i].name, l) == 0 && name[l] == ' ') {
			*x_p = strstr(name, "vm1") != NULL ? VM1 : VM2;
			return &tbl[i];
		}
	}
	CU_FAIL("no such case");
	return NULL;
}

/* every test runs this; its name says which capture and side */
static void
test_replay(void)
{
	const struct rp_case *c;
	int x;

	c = rp_case_of_test(rp_cases, RTE_DIM(rp_cases), &x);
	if (c != NULL)
		rp_replay(c, x);
}

/* the CM captures' tests: "<capture> MADs as vm1 (server)" ... */
static void
test_replay_gsi(void)
{
	const struct rp_case *c;
	int x;

	c = rp_case_of_test(rp_cm_cases, RTE_DIM(rp_cm_cases), &x);
	if (c != NULL)
		rp_gsi_replay(c, x);
}

/* ---------------------------------------------------------------------- */

static int
rp_ports_make(void)
{
	ut_from_rings_fn from_rings;
	char name[32];
	int s;

	from_rings = ut_from_rings();
	if (from_rings == NULL)
		return -ENOENT;
	for (s = 0; s < 2; s++) {
		snprintf(name, sizeof(name), "rp_rx%d", s);
		rp_rx_ring[s] = rte_ring_create(name, 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "rp_tx%d", s);
		rp_tx_ring[s] = rte_ring_create(name, 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rp_rx_ring[s] == NULL || rp_tx_ring[s] == NULL)
			return -ENOMEM;
		snprintf(name, sizeof(name), "rp_vm%d", s + 1);
		if (from_rings(name, &rp_rx_ring[s], 1, &rp_tx_ring[s], 1, 0) < 0)
			return -EIO;
	}
	rp_mp = rte_pktmbuf_pool_create("rp_inject", 1024, 0, 0, RTE_PKTMBUF_HEADROOM + 10240, 0);
	return rp_mp != NULL ? 0 : -ENOMEM;
}

static int
suite_init(void)
{
	struct pv_device **list;
	int n, i, s;

	list = pv_get_device_list(&n);
	if (list == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		struct pv_context *c = pv_open_device(list[i]);
		union pv_gid gid;
		uint32_t ip;

		if (c == NULL)
			continue;
		pv_query_gid(c, 1, 1, &gid);
		for (s = 0; s < 2; s++) {
			inet_pton(AF_INET, rp_ip_str[s], &ip);
			if (memcmp(&gid.raw[12], &ip, 4) == 0 && rp_ctx[s] == NULL) {
				rp_ctx[s] = c;
				c = NULL;
				break;
			}
		}
		if (c != NULL)
			pv_close_device(c);
	}
	pv_free_device_list(list);
	return rp_ctx[VM1] != NULL && rp_ctx[VM2] != NULL ? 0 : -1;
}

static int
suite_clean(void)
{
	int s;

	for (s = 0; s < 2; s++)
		if (rp_ctx[s] != NULL)
			pv_close_device(rp_ctx[s]);
	return 0;
}

int
main(int argc, char **argv)
{
	char prefix[64], dev[2][160];
	char names[(RTE_DIM(rp_cases) + RTE_DIM(rp_cm_cases)) * 2][64];
	struct stat st;
	/* { NULL } last */
	static struct ut_case cases[(RTE_DIM(rp_cases) + RTE_DIM(rp_cm_cases)) * 2 + 1];
	const struct ut_suite suite = {
		.name = "sroce_replay",
		.init = suite_init,
		.fini = suite_clean,
		.cases = cases,
	};
	unsigned int i, k;
	int ret, fails;

	if (argc < 2 || stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("rxe capture corpus not found (%s): skipped\n", argc < 2 ? "no argument" :
		       argv[1]);
		return 77;
	}
	rp_data_dir = argv[1];
	snprintf(prefix, sizeof(prefix), "ut_sroce_replay_%d", (int)getpid());
	/* Ethernet MTU 9000: active_mtu 4096, so rc_mtu4096 fits (path MTU is per QP) */
	for (i = 0; i < 2; i++)
		snprintf(dev[i], sizeof(dev[i]), "--pv-dev=softroce:port=net_ring_rp_vm%u,ip=%s,"
			 "mac=%02x:%02x:%02x:%02x:%02x:%02x,mtu=9000", i + 1, rp_ip_str[i],
			 rp_mac[i][0], rp_mac[i][1], rp_mac[i][2], rp_mac[i][3], rp_mac[i][4],
			 rp_mac[i][5]);
	ret = ut_pv_init("test_sroce_replay", 256, prefix, "0", dev[0], dev[1], NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 77;
	}
	if (rp_ports_make() != 0) {
		fprintf(stderr, "net_ring PMD not available\n");
		return 77;
	}
	for (i = 0; i < RTE_DIM(rp_cases) * 2; i++) {
		snprintf(names[i], sizeof(names[i]), "%s as %s", rp_cases[i / 2].name,
			 i % 2 == 0 ? "vm1 (server)" : "vm2 (client)");
		cases[i] = (struct ut_case){ names[i], test_replay, NULL };
	}
	for (k = 0; k < RTE_DIM(rp_cm_cases) * 2; k++, i++) {
		snprintf(names[i], sizeof(names[i]), "%s MADs as %s", rp_cm_cases[k / 2].name,
			 k % 2 == 0 ? "vm1 (server)" : "vm2 (client)");
		cases[i] = (struct ut_case){ names[i], test_replay_gsi, NULL };
	}
	fails = ut_cunit_run_one(&suite);
	pv_cleanup();
	return fails != 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/cm/cm_mad.c: the CM MAD codec and rdma_cm's private-data header.
 *
 * Without arguments (suite cm_mad): the wire layout of every message
 * against the reserved bits of the IBA tables, round trips, malformed
 * input, the cma_hdr, service IDs and flow labels.
 * With the rxe capture directory as argument (suite cm_mad_captures, needs
 * libpcap; exit 77 when the captures are absent): every CM MAD of the
 * cm_* and nvmf_connect_io captures decodes, encodes back byte for byte
 * and holds the field values MANIFEST.md and logs/cm_*.txt give, and
 * messages built from those values encode to the captured bytes.
 *
 * Decoders get their input in a buffer that ends exactly where @p len
 * does, so the ASan build (and valgrind) catch a read past it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#ifdef UT_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "cm_mad.h"
#include "ut_common.h"

#define UT_RDMA_PS_TCP	0x0106

/*
 * A heap copy of @p len bytes of @p src that ends where they do (a byte of
 * slack before it, so that @p len 0 still gets a valid pointer); release
 * it with free(p - 1).
 */
static uint8_t *
ut_exact_copy(const uint8_t *src, size_t len)
{
	uint8_t *b = malloc(len + 1);

	CU_ASSERT_FATAL(b != NULL);
	memcpy(b + 1, src, len);
	return b + 1;
}

/* pv_cm_mad_decode() of an exact copy */
static int
ut_decode_exact(const uint8_t *mad, size_t len, struct pv_cm_msg *msg)
{
	uint8_t *b = ut_exact_copy(mad, len);
	int ret = pv_cm_mad_decode(b, len, msg);

	free(b - 1);
	return ret;
}

/* pv_cma_hdr_decode() of an exact copy */
static int
ut_cma_decode_exact(const uint8_t *buf, size_t len, struct pv_cma_hdr *hdr)
{
	uint8_t *b = ut_exact_copy(buf, len);
	int ret = pv_cma_hdr_decode(b, len, hdr);

	free(b - 1);
	return ret;
}

/* a CM Send header of @p attr with @p tid */
static void
ut_msg_init(struct pv_cm_msg *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = PV_MAD_BASE_VERSION;
	m->hdr.mgmt_class = PV_MAD_CLASS_CM;
	m->hdr.class_version = PV_MAD_CM_CLASS_VERSION;
	m->hdr.method = PV_MAD_METHOD_SEND;
	m->hdr.tid = tid;
	m->hdr.attr_id = attr;
}

/* -------------------------------------------------------------------- */
/* layout: every bit of every message, against the IBA tables            */
/* -------------------------------------------------------------------- */

/*
 * The reserved bits of each message (IBA vol. 1 tables 99-109, offsets from
 * the start of the MAD data), transcribed here independently of the
 * codec's field tables: with every field all ones, the MAD must be all ones
 * but for these bits (and the length fields, set to 72).
 */
struct ut_rsv {
	uint8_t off;
	uint8_t n;
	uint8_t mask;
};

struct ut_layout {
	uint16_t attr;
	uint8_t len_off;		/* data byte of a <= 72 length field; 0: none */
	uint8_t len_byte;		/* its wire byte for a length of 72 */
	uint8_t rsv_from;		/* reserved from this data byte to the end */
	struct ut_rsv rsv[8];		/* { 0 } terminated */
};

static const struct ut_layout ut_layouts[] = {
	{ PV_CM_ATTR_CLASS_PORT_INFO, 0, 0, 72, { { 0 } } },
	{ PV_CM_ATTR_REQ, 0, 0, 232, {
		{ 4, 4, 0xff }, { 24, 4, 0xff },		/* after comm ID, GUID */
		{ 90, 1, 0x0f }, { 91, 1, 0xc0 },		/* primary: flow label | rate */
		{ 94, 2, 0x07 },				/* SL/subnet, ACK timeout */
		{ 134, 1, 0x0f }, { 135, 1, 0xc0 },		/* alternate */
		{ 138, 2, 0x07 } } },				/* 139 bit 5: SAP, not kept */
	{ PV_CM_ATTR_MRA, 0, 0, 232, { { 8, 1, 0x3f }, { 9, 1, 0x07 } } },
	{ PV_CM_ATTR_REJ, 9, 72 << 1, 232, { { 8, 1, 0x3f }, { 9, 1, 0x01 } } },
	{ PV_CM_ATTR_REP, 0, 0, 232, {
		{ 15, 1, 0xff }, { 19, 1, 0xff }, { 23, 1, 0xff }, { 27, 1, 0x0f } } },
	{ PV_CM_ATTR_RTU, 0, 0, 232, { { 0 } } },
	{ PV_CM_ATTR_DREQ, 0, 0, 232, { { 11, 1, 0xff } } },
	{ PV_CM_ATTR_DREP, 0, 0, 232, { { 0 } } },
	{ PV_CM_ATTR_SIDR_REQ, 0, 0, 232, { { 6, 2, 0xff } } },
	{ PV_CM_ATTR_SIDR_REP, 5, 72, 232, { { 6, 2, 0xff }, { 11, 1, 0xff } } },
	{ PV_CM_ATTR_LAP, 0, 0, 232, {
		{ 8, 4, 0xff }, { 15, 1, 0x07 }, { 16, 4, 0xff },
		{ 58, 1, 0x0f }, { 61, 1, 0xc0 }, { 62, 2, 0x07 } } },
	{ PV_CM_ATTR_APR, 8, 72, 232, { { 10, 2, 0xff } } },
};

#define UT_N_LAYOUTS	(sizeof(ut_layouts) / sizeof(ut_layouts[0]))

/* the lengths a valid message of @p attr needs: @p len in each */
static void
ut_msg_lengths_set(struct pv_cm_msg *m, uint8_t len)
{
	if (m->hdr.attr_id == PV_CM_ATTR_REJ)
		m->rej.reject_info_length = len;
	else if (m->hdr.attr_id == PV_CM_ATTR_APR)
		m->apr.add_info_length = len;
	else if (m->hdr.attr_id == PV_CM_ATTR_SIDR_REP)
		m->sidr_rep.add_info_length = len;
}

/* set (@p ones) or clear every reserved bit of @p l in @p mad */
static void
ut_layout_rsv(const struct ut_layout *l, uint8_t *mad, int ones)
{
	const struct ut_rsv *r;
	uint8_t *d = mad + PV_MAD_HDR_SIZE;
	int i;

	mad[18] = mad[19] = ones ? 0xff : 0;
	for (r = l->rsv; r->n != 0; r++)
		for (i = 0; i < r->n; i++)
			d[r->off + i] = ones ? d[r->off + i] | r->mask : d[r->off + i] & ~r->mask;
	memset(d + l->rsv_from, ones ? 0xff : 0, PV_MAD_DATA_SIZE - l->rsv_from);
}

/* the MAD of @p l with every field all ones */
static void
ut_layout_expect(const struct ut_layout *l, uint8_t *mad)
{
	memset(mad, 0xff, PV_MAD_SIZE);
	mad[0] = PV_MAD_BASE_VERSION;
	mad[1] = PV_MAD_CLASS_CM;
	mad[2] = PV_MAD_CM_CLASS_VERSION;
	mad[16] = l->attr >> 8;
	mad[17] = l->attr & 0xff;
	if (l->len_off != 0)
		mad[PV_MAD_HDR_SIZE + l->len_off] = l->len_byte;
	ut_layout_rsv(l, mad, 0);
}

static void
ut_layout_msg(const struct ut_layout *l, struct pv_cm_msg *m)
{
	memset(m, 0xff, sizeof(*m));
	m->hdr.base_version = PV_MAD_BASE_VERSION;
	m->hdr.mgmt_class = PV_MAD_CLASS_CM;
	m->hdr.class_version = PV_MAD_CM_CLASS_VERSION;
	m->hdr.attr_id = l->attr;
	ut_msg_lengths_set(m, PV_CM_REJ_ARI_LENGTH);
}

static void
test_layout_all_ones(void)
{
	uint8_t mad[PV_MAD_SIZE], want[PV_MAD_SIZE], again[PV_MAD_SIZE];
	struct pv_cm_msg m, d;
	size_t i;
	int j;

	for (i = 0; i < UT_N_LAYOUTS; i++) {
		ut_layout_msg(&ut_layouts[i], &m);
		ut_layout_expect(&ut_layouts[i], want);
		CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
		for (j = 0; j < PV_MAD_SIZE; j++)
			if (mad[j] != want[j]) {
				printf("\n  %s: MAD byte %d (data %d) 0x%02x, want 0x%02x",
				       pv_cm_attr_str(ut_layouts[i].attr), j,
				       j - PV_MAD_HDR_SIZE, mad[j], want[j]);
				CU_FAIL("layout");
			}
		CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &d), 0);
		CU_ASSERT_EQUAL(pv_cm_mad_encode(&d, again), 0);
		CU_ASSERT_EQUAL(memcmp(again, want, PV_MAD_SIZE), 0);
	}
}

/* every reserved bit set on receive: ignored, and written back as 0 */
static void
test_reserved_bits_ignored(void)
{
	uint8_t mad[PV_MAD_SIZE], want[PV_MAD_SIZE], again[PV_MAD_SIZE];
	struct pv_cm_msg d;
	size_t i;

	for (i = 0; i < UT_N_LAYOUTS; i++) {
		const struct ut_layout *l = &ut_layouts[i];

		ut_layout_expect(l, want);
		memcpy(mad, want, sizeof(mad));
		ut_layout_rsv(l, mad, 1);
		CU_ASSERT_EQUAL_FATAL(ut_decode_exact(mad, sizeof(mad), &d), 0);
		CU_ASSERT_EQUAL(d.hdr.resv, 0);
		CU_ASSERT_EQUAL(pv_cm_mad_encode(&d, again), 0);
		CU_ASSERT_EQUAL(memcmp(again, want, PV_MAD_SIZE), 0);
	}
}

/* xorshift: fill @p n bytes from @p seed */
static void
ut_fill(void *p, size_t n, uint32_t seed)
{
	uint8_t *b = p;

	while (n-- > 0) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		*b++ = (uint8_t)seed;
	}
}

/* random field values: encode, decode, encode gives the same MAD and message */
static void
test_round_trip_random(void)
{
	uint8_t mad[PV_MAD_SIZE], again[PV_MAD_SIZE];
	struct pv_cm_msg m, d, d2;
	uint32_t seed;
	size_t i;

	for (seed = 1; seed <= 200; seed++)
		for (i = 0; i < UT_N_LAYOUTS; i++) {
			ut_fill(&m, sizeof(m), seed * 7919 + (uint32_t)i);
			m.hdr.base_version = PV_MAD_BASE_VERSION;
			m.hdr.mgmt_class = PV_MAD_CLASS_CM;
			m.hdr.class_version = PV_MAD_CM_CLASS_VERSION;
			m.hdr.attr_id = ut_layouts[i].attr;
			ut_msg_lengths_set(&m, (uint8_t)(seed % 73));
			CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
			CU_ASSERT_EQUAL_FATAL(ut_decode_exact(mad, sizeof(mad), &d), 0);
			CU_ASSERT_EQUAL(pv_cm_mad_encode(&d, again), 0);
			CU_ASSERT_EQUAL(memcmp(mad, again, PV_MAD_SIZE), 0);
			CU_ASSERT_EQUAL(ut_decode_exact(again, sizeof(again), &d2), 0);
			CU_ASSERT_EQUAL(memcmp(&d, &d2, sizeof(d)), 0);
		}
}

/* a few fields by hand: values the layout test cannot tell apart */
static void
test_field_values(void)
{
	uint8_t mad[PV_MAD_SIZE];
	struct pv_cm_msg m, d;
	const uint8_t *p = mad + PV_MAD_HDR_SIZE;

	ut_msg_init(&m, PV_CM_ATTR_REQ, 0x0102030405060708ull);
	m.hdr.status = 0x1234;
	m.hdr.class_specific = 0x5678;
	m.hdr.attr_mod = 0x9abcdef0;
	m.req.local_qpn = 0x123456;
	m.req.responder_resources = 0x78;
	m.req.transport_type = PV_CM_TRANSPORT_UC;
	m.req.path_mtu = 0xa;		/* 4 bits */
	m.req.rnr_retry_count = 5;	/* 3 bits after rdc_exists */
	m.req.primary.flow_label = 0xabcde;
	m.req.primary.packet_rate = 0x2b;
	m.req.primary.sl = 0x9;
	m.req.primary.local_ack_timeout = 0x11;
	m.req.local_qpn |= 0xff000000;	/* wider than 24 bits: masked */
	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, "\x01\x07\x02\x03\x12\x34\x56\x78"
			       "\x01\x02\x03\x04\x05\x06\x07\x08\x00\x10\x00\x00"
			       "\x9a\xbc\xde\xf0", 24), 0);
	CU_ASSERT_EQUAL(memcmp(p + 32, "\x12\x34\x56\x78", 4), 0);
	CU_ASSERT_EQUAL(p[43], 1 << 1);
	CU_ASSERT_EQUAL(p[50], 0xa0 | 5);
	CU_ASSERT_EQUAL(memcmp(p + 88, "\xab\xcd\xe0\x2b", 4), 0);
	CU_ASSERT_EQUAL(p[94], 0x90);
	CU_ASSERT_EQUAL(p[95], 0x11 << 3);
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &d), 0);
	CU_ASSERT_EQUAL(d.req.local_qpn, 0x123456);
	CU_ASSERT_EQUAL(d.req.primary.flow_label, 0xabcde);
	CU_ASSERT_EQUAL(d.req.primary.packet_rate, 0x2b);
	CU_ASSERT_EQUAL(d.hdr.tid, 0x0102030405060708ull);

	/* the LAP's path differs: traffic class in the flow label word */
	ut_msg_init(&m, PV_CM_ATTR_LAP, 1);
	m.lap.remote_qpn = 0xabcdef;
	m.lap.remote_cm_response_timeout = 0x1f;
	m.lap.alternate.flow_label = 0x12345;
	m.lap.alternate.traffic_class = 0x67;
	m.lap.alternate.hop_limit = 0x89;
	m.lap.alternate.packet_rate = 0x3f;
	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(p + 12, "\xab\xcd\xef\xf8", 4), 0);
	CU_ASSERT_EQUAL(memcmp(p + 56, "\x12\x34\x50\x67\x89\x3f", 6), 0);

	/* the REP's GUID is not 8-byte aligned in the MAD */
	ut_msg_init(&m, PV_CM_ATTR_REP, 1);
	m.rep.local_ca_guid = 0x1122334455667788ull;
	m.rep.rnr_retry_count = 7;
	m.rep.srq = 1;
	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(p[27], 0xf0);
	CU_ASSERT_EQUAL(memcmp(p + 28, "\x11\x22\x33\x44\x55\x66\x77\x88", 8), 0);
}

static void
test_attr_str(void)
{
	static const struct {
		uint16_t attr;
		const char *name;
	} names[] = {
		{ PV_CM_ATTR_CLASS_PORT_INFO, "ClassPortInfo" }, { PV_CM_ATTR_REQ, "REQ" },
		{ PV_CM_ATTR_MRA, "MRA" }, { PV_CM_ATTR_REJ, "REJ" }, { PV_CM_ATTR_REP, "REP" },
		{ PV_CM_ATTR_RTU, "RTU" }, { PV_CM_ATTR_DREQ, "DREQ" },
		{ PV_CM_ATTR_DREP, "DREP" }, { PV_CM_ATTR_SIDR_REQ, "SIDR_REQ" },
		{ PV_CM_ATTR_SIDR_REP, "SIDR_REP" }, { PV_CM_ATTR_LAP, "LAP" },
		{ PV_CM_ATTR_APR, "APR" }, { 0x0000, "unknown" }, { 0x000f, "unknown" },
		{ 0x001b, "unknown" }, { 0xffff, "unknown" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CU_ASSERT_STRING_EQUAL(pv_cm_attr_str(names[i].attr), names[i].name);
}

/* -------------------------------------------------------------------- */
/* malformed input                                                       */
/* -------------------------------------------------------------------- */

static void
test_decode_errors(void)
{
	static const uint16_t bad_attrs[] = { 0x0000, 0x0002, 0x000f, 0x001b, 0x0020, 0x8010,
					      0xffff };
	static const struct {
		uint16_t attr;
		uint8_t off;		/* data byte */
		uint8_t shift;
		unsigned int max;	/* the field's largest wire value */
	} lens[] = {
		{ PV_CM_ATTR_REJ, 9, 1, 127 },
		{ PV_CM_ATTR_APR, 8, 0, 255 },
		{ PV_CM_ATTR_SIDR_REP, 5, 0, 255 },
	};
	uint8_t mad[PV_MAD_SIZE], big[4096];
	struct pv_cm_msg m;
	unsigned int v;
	size_t i, len;

	ut_msg_init(&m, PV_CM_ATTR_REQ, 7);
	CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(pv_cm_mad_decode(NULL, sizeof(mad), &m), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_mad_decode(mad, sizeof(mad), NULL), -EINVAL);
	/* every truncation, in a buffer that ends where it does */
	for (len = 0; len < PV_MAD_SIZE; len++)
		CU_ASSERT_EQUAL(ut_decode_exact(mad, len, &m), -EMSGSIZE);
	/* a longer buffer: its first 256 bytes */
	memset(big, 0xee, sizeof(big));
	memcpy(big, mad, sizeof(mad));
	CU_ASSERT_EQUAL(ut_decode_exact(big, sizeof(big), &m), 0);
	CU_ASSERT_EQUAL(ut_decode_exact(big, PV_MAD_SIZE + 1, &m), 0);

	mad[0] = 2;
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(ut_decode_exact(mad, PV_MAD_SIZE - 1, &m), -EMSGSIZE);
	mad[0] = 0;
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	mad[0] = PV_MAD_BASE_VERSION;
	mad[1] = 0x03;	/* SA */
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	mad[1] = 0x87;
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	mad[1] = PV_MAD_CLASS_CM;
	mad[2] = 1;
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	mad[2] = 3;
	CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -EPROTONOSUPPORT);
	mad[2] = PV_MAD_CM_CLASS_VERSION;
	for (i = 0; i < sizeof(bad_attrs) / sizeof(bad_attrs[0]); i++) {
		mad[16] = bad_attrs[i] >> 8;
		mad[17] = bad_attrs[i] & 0xff;
		CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m), -ENOMSG);
	}

	/* length fields: up to 72 is fine, past it -EBADMSG */
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ut_msg_init(&m, lens[i].attr, 7);
		CU_ASSERT_EQUAL_FATAL(pv_cm_mad_encode(&m, mad), 0);
		for (v = 0; v <= lens[i].max; v++) {
			mad[PV_MAD_HDR_SIZE + lens[i].off] = (uint8_t)(v << lens[i].shift);
			CU_ASSERT_EQUAL(ut_decode_exact(mad, sizeof(mad), &m),
					v <= 72 ? 0 : -EBADMSG);
		}
	}
}

static void
test_encode_errors(void)
{
	uint8_t mad[PV_MAD_SIZE], keep[PV_MAD_SIZE];
	struct pv_cm_msg m;

	ut_msg_init(&m, PV_CM_ATTR_RTU, 1);
	CU_ASSERT_EQUAL(pv_cm_mad_encode(NULL, mad), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, NULL), -EINVAL);
	memset(keep, 0x5a, sizeof(keep));
	memcpy(mad, keep, sizeof(mad));
	m.hdr.attr_id = 0x000f;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), -EINVAL);
	m.hdr.attr_id = 0x001b;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), -EINVAL);

	ut_msg_init(&m, PV_CM_ATTR_REJ, 1);
	m.rej.reject_info_length = 73;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), -EINVAL);
	ut_msg_init(&m, PV_CM_ATTR_APR, 1);
	m.apr.add_info_length = 73;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), -EINVAL);
	ut_msg_init(&m, PV_CM_ATTR_SIDR_REP, 1);
	m.sidr_rep.add_info_length = 255;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(mad, keep, sizeof(mad)), 0);
	m.sidr_rep.add_info_length = 72;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
}

/* -------------------------------------------------------------------- */
/* rdma_cm: cma_hdr, service ID, flow label                              */
/* -------------------------------------------------------------------- */

/* cm_rdma_server.pcap's REQ private data bytes 0..35 */
static const uint8_t ut_cma_v4[PV_CMA_HDR_SIZE] = {
	0x00, 0x40, 0xd6, 0x09,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0x4d, 0x00, 0x0c,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0x4d, 0x00, 0x0b,
};

static void
ut_cma_v4_hdr(struct pv_cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->cma_version = PV_CMA_VERSION;
	h->ip_version = 4;
	h->family = AF_INET;
	h->src_port = 54793;
	CU_ASSERT_FATAL(inet_pton(AF_INET, "10.77.0.12", h->src_addr) == 1);
	CU_ASSERT_FATAL(inet_pton(AF_INET, "10.77.0.11", h->dst_addr) == 1);
}

static void
test_cma_hdr_ipv4(void)
{
	struct pv_cma_hdr h, d;
	uint8_t buf[PV_CMA_HDR_SIZE], noisy[PV_CMA_HDR_SIZE];

	ut_cma_v4_hdr(&h);
	memset(buf, 0x77, sizeof(buf));
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, buf), 0);
	CU_ASSERT_EQUAL(memcmp(buf, ut_cma_v4, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(ut_cma_decode_exact(buf, sizeof(buf), &d), 0);
	CU_ASSERT_EQUAL(memcmp(&d, &h, sizeof(d)), 0);

	/* the low nibble of byte 1 and an IPv4 field's first 12 bytes: not read */
	memcpy(noisy, ut_cma_v4, sizeof(noisy));
	noisy[1] |= 0x0f;
	memset(noisy + 4, 0xff, 12);
	memset(noisy + 20, 0xff, 12);
	CU_ASSERT_EQUAL(ut_cma_decode_exact(noisy, sizeof(noisy), &d), 0);
	CU_ASSERT_EQUAL(memcmp(&d, &h, sizeof(d)), 0);
}

static void
test_cma_hdr_ipv6(void)
{
	struct pv_cma_hdr h, d;
	uint8_t buf[PV_CMA_HDR_SIZE + 8];

	memset(&h, 0, sizeof(h));
	h.ip_version = 6;
	h.family = AF_INET6;
	h.src_port = 0xc0de;
	CU_ASSERT_FATAL(inet_pton(AF_INET6, "fe80::5054:ff:fe77:12", h.src_addr) == 1);
	CU_ASSERT_FATAL(inet_pton(AF_INET6, "2001:db8::11", h.dst_addr) == 1);
	memset(buf, 0x77, sizeof(buf));
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, buf), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "\x00\x60\xc0\xde", 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 4, h.src_addr, 16), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 20, h.dst_addr, 16), 0);
	CU_ASSERT_EQUAL(buf[PV_CMA_HDR_SIZE], 0x77);
	/* a longer private data: the header is its first 36 bytes */
	CU_ASSERT_EQUAL(ut_cma_decode_exact(buf, sizeof(buf), &d), 0);
	CU_ASSERT_EQUAL(memcmp(&d, &h, sizeof(d)), 0);
}

static void
test_cma_hdr_errors(void)
{
	struct pv_cma_hdr h, keep;
	uint8_t buf[PV_CMA_HDR_SIZE], out[PV_CMA_HDR_SIZE];
	size_t len;

	ut_cma_v4_hdr(&h);
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(NULL, out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, NULL), -EINVAL);
	memset(out, 0x77, sizeof(out));
	h.family = AF_UNIX;
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, out), -EINVAL);
	h.family = AF_INET;
	h.ip_version = 6;
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, out), -EINVAL);
	h.family = AF_INET6;
	h.ip_version = 4;
	CU_ASSERT_EQUAL(pv_cma_hdr_encode(&h, out), -EINVAL);
	CU_ASSERT_EQUAL(out[0], 0x77);

	memset(&keep, 0x33, sizeof(keep));
	h = keep;
	CU_ASSERT_EQUAL(pv_cma_hdr_decode(NULL, sizeof(buf), &h), -EINVAL);
	CU_ASSERT_EQUAL(pv_cma_hdr_decode(ut_cma_v4, sizeof(buf), NULL), -EINVAL);
	for (len = 0; len < PV_CMA_HDR_SIZE; len++)
		CU_ASSERT_EQUAL(ut_cma_decode_exact(ut_cma_v4, len, &h), -EINVAL);
	memcpy(buf, ut_cma_v4, sizeof(buf));
	buf[0] = 1;
	CU_ASSERT_EQUAL(ut_cma_decode_exact(buf, sizeof(buf), &h), -EPROTONOSUPPORT);
	buf[0] = 0;
	buf[1] = 0x50;
	CU_ASSERT_EQUAL(ut_cma_decode_exact(buf, sizeof(buf), &h), -EPROTONOSUPPORT);
	buf[1] = 0x04;	/* version in the wrong nibble */
	CU_ASSERT_EQUAL(ut_cma_decode_exact(buf, sizeof(buf), &h), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(memcmp(&h, &keep, sizeof(h)), 0);
}

static void
test_service_id(void)
{
	CU_ASSERT_EQUAL(pv_cma_service_id(UT_RDMA_PS_TCP, 7471), 0x0000000001061d2full);
	CU_ASSERT_EQUAL(pv_cma_service_id(UT_RDMA_PS_TCP, 7999), 0x0000000001061f3full);
	CU_ASSERT_EQUAL(pv_cma_service_id(UT_RDMA_PS_TCP, 18515), 0x0000000001064853ull);
	CU_ASSERT_EQUAL(pv_cma_service_id(UT_RDMA_PS_TCP, 4420), 0x0000000001061144ull);
	CU_ASSERT_EQUAL(pv_cma_service_id(0x0111, 0), 0x0000000001110000ull);	/* UDP */
	CU_ASSERT_EQUAL(pv_cma_service_id(0xffff, 0xffff), 0x00000000ffffffffull);
}

static void
test_flow_label(void)
{
	/* every rdma_cm connection of the captures: source, destination port */
	static const struct {
		uint16_t sport, dport;
		uint32_t fl;
	} conns[] = {
		{ 54793, 7471, 0xa0846 },	/* cm_rdma_server */
		{ 40444, 7999, 0x340c3 },	/* cm_reject */
		{ 49649, 18515, 0x7c482 },	/* cm_perftest */
		{ 35056, 18515, 0x0dd63 },
		{ 49552, 7471, 0x78d9f },	/* cm_ucmatose */
		{ 56536, 7471, 0xadb57 },
		{ 40490, 7471, 0x34445 },	/* cm_mra */
		{ 49546, 4420, 0x780fa },	/* nvmf_connect_io */
		{ 35542, 4420, 0x0e12e },
		{ 42878, 4420, 0x45986 },
	};
	size_t i;

	for (i = 0; i < sizeof(conns) / sizeof(conns[0]); i++)
		CU_ASSERT_EQUAL(pv_cma_flow_label(conns[i].sport, conns[i].dport), conns[i].fl);
	CU_ASSERT_EQUAL(pv_cma_flow_label(0, 0), 0);
	/* 65535 * 31 + 65535 = 0x1fffe0: 20 bits kept */
	CU_ASSERT_EQUAL(pv_cma_flow_label(0xffff, 0xffff), 0xfffe0);
}

static const struct ut_case ut_cm_mad_cases[] = {
	{ "layout_all_ones", test_layout_all_ones },
	{ "reserved_bits_ignored", test_reserved_bits_ignored },
	{ "round_trip_random", test_round_trip_random },
	{ "field_values", test_field_values },
	{ "attr_str", test_attr_str },
	{ "decode_errors", test_decode_errors },
	{ "encode_errors", test_encode_errors },
	{ "cma_hdr_ipv4", test_cma_hdr_ipv4 },
	{ "cma_hdr_ipv6", test_cma_hdr_ipv6 },
	{ "cma_hdr_errors", test_cma_hdr_errors },
	{ "service_id", test_service_id },
	{ "flow_label", test_flow_label },
	{ NULL, NULL },
};

static const struct ut_suite ut_cm_mad_suite = { "cm_mad", NULL, NULL, ut_cm_mad_cases };

#ifdef UT_HAVE_PCAP
/* -------------------------------------------------------------------- */
/* the rxe captures (../shared/data/rxe)                                 */
/* -------------------------------------------------------------------- */

#define UT_MAX_MADS	16
#define UT_ROCE_PORT	4791
#define UT_BTH_LEN	12
#define UT_DETH_LEN	8
#define UT_ICRC_LEN	4
#define UT_UD_SEND_ONLY	0x64

/* the CM MADs of one capture, in order */
struct ut_cap {
	const char *name;
	const char *attrs;		/* the attribute sequence MANIFEST.md gives */
	unsigned int n;
	uint8_t mad[UT_MAX_MADS][PV_MAD_SIZE];
	uint8_t from_vm1[UT_MAX_MADS];	/* sent by 10.77.0.11 (the passive side) */
};

enum {
	UT_RDMA_SERVER,
	UT_REJECT,
	UT_PERFTEST,
	UT_UCMATOSE,
	UT_MRA,
	UT_NVMF,
	UT_N_CAPS,
};

static struct ut_cap ut_caps[UT_N_CAPS] = {
	[UT_RDMA_SERVER] = { "cm_rdma_server", "REQ REP RTU DREQ DREP" },
	[UT_REJECT] = { "cm_reject", "REQ REJ" },
	[UT_PERFTEST] = { "cm_perftest", "REQ REP RTU REQ REP RTU DREQ DREP DREQ DREP" },
	[UT_UCMATOSE] = { "cm_ucmatose", "REQ REQ REP RTU REP RTU DREQ DREP DREQ DREP" },
	[UT_MRA] = { "cm_mra", "REQ REQ MRA REP RTU DREQ DREQ DREP" },
	[UT_NVMF] = { "nvmf_connect_io",
		      "REQ REP RTU DREQ DREP REQ REP RTU REQ REP RTU DREQ DREP DREQ DREP" },
};

/*
 * The MAD of a frame that is one (Ethernet, optional VLAN, IPv4 or IPv6,
 * UDP to 4791, BTH UD SEND Only to QP1, DETH, 256 bytes, ICRC), else NULL.
 * @p from_vm1_p: whether 10.77.0.11 sent it.
 */
static const uint8_t *
ut_frame_mad(const uint8_t *f, uint32_t len, uint8_t *from_vm1_p)
{
	static const uint8_t vm1[4] = { 10, 77, 0, 11 };
	uint32_t l3 = 14, l4, end;
	const uint8_t *bth;

	if (len >= 18 && f[12] == 0x81 && f[13] == 0x00)
		l3 = 18;
	if (len < l3 + 40)
		return NULL;
	if (f[l3 - 2] == 0x08 && f[l3 - 1] == 0x00 && f[l3 + 9] == 17) {
		l4 = l3 + (f[l3] & 0xf) * 4;
		end = l3 + (f[l3 + 2] << 8 | f[l3 + 3]);
		*from_vm1_p = memcmp(f + l3 + 12, vm1, 4) == 0;
	} else if (f[l3 - 2] == 0x86 && f[l3 - 1] == 0xdd && f[l3 + 6] == 17) {
		l4 = l3 + 40;
		end = l4 + (f[l3 + 4] << 8 | f[l3 + 5]);
		*from_vm1_p = 0;
	} else {
		return NULL;
	}
	if (end > len || end < l4 + 8 + UT_BTH_LEN + UT_DETH_LEN + UT_ICRC_LEN)
		return NULL;
	bth = f + l4 + 8;
	if ((f[l4 + 2] << 8 | f[l4 + 3]) != UT_ROCE_PORT || bth[0] != UT_UD_SEND_ONLY ||
	    (bth[5] << 16 | bth[6] << 8 | bth[7]) != 1)
		return NULL;
	if (end - (l4 + 8 + UT_BTH_LEN + UT_DETH_LEN + UT_ICRC_LEN) != PV_MAD_SIZE)
		return NULL;
	return bth + UT_BTH_LEN + UT_DETH_LEN;
}

static const char *ut_data_dir;

/* 0, 1 when a capture is missing (skip), -1 on a capture that cannot be read */
static int
ut_caps_load(void)
{
	char path[1024], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	const uint8_t *mad;
	struct ut_cap *c;
	uint8_t vm1;
	pcap_t *p;

	for (c = ut_caps; c < ut_caps + UT_N_CAPS; c++) {
		snprintf(path, sizeof(path), "%s/%s.pcap", ut_data_dir, c->name);
		if (access(path, R_OK) != 0) {
			printf("%s: not readable: skipped\n", path);
			return 1;
		}
		p = pcap_open_offline(path, err);
		if (p == NULL) {
			printf("%s: %s\n", path, err);
			return -1;
		}
		while (pcap_next_ex(p, &h, &data) == 1) {
			mad = ut_frame_mad(data, h->caplen, &vm1);
			if (mad == NULL)
				continue;
			if (c->n == UT_MAX_MADS) {
				printf("%s: more than %d CM MADs\n", path, UT_MAX_MADS);
				break;
			}
			c->from_vm1[c->n] = vm1;
			memcpy(c->mad[c->n++], mad, PV_MAD_SIZE);
		}
		pcap_close(p);
	}
	return 0;
}

/* decode MAD @p i of capture @p c, failing the test if it does not */
static void
ut_cap_msg(int c, unsigned int i, struct pv_cm_msg *m)
{
	CU_ASSERT_FATAL(i < ut_caps[c].n);
	CU_ASSERT_EQUAL_FATAL(ut_decode_exact(ut_caps[c].mad[i], PV_MAD_SIZE, m), 0);
}

static void
test_caps_reencode_byte_exact(void)
{
	uint8_t again[PV_MAD_SIZE];
	char seq[256];
	struct pv_cm_msg m;
	unsigned int i;
	int c;

	for (c = 0; c < UT_N_CAPS; c++) {
		seq[0] = '\0';
		for (i = 0; i < ut_caps[c].n; i++) {
			const uint8_t *mad = ut_caps[c].mad[i];

			ut_cap_msg(c, i, &m);
			CU_ASSERT_EQUAL(m.hdr.method, PV_MAD_METHOD_SEND);
			CU_ASSERT_EQUAL(m.hdr.status, 0);
			CU_ASSERT_EQUAL(m.hdr.attr_mod, 0);
			CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, again), 0);
			if (memcmp(again, mad, PV_MAD_SIZE) != 0) {
				printf("\n  %s MAD %u (%s): re-encoded bytes differ",
				       ut_caps[c].name, i, pv_cm_attr_str(m.hdr.attr_id));
				CU_FAIL("byte exact");
			}
			snprintf(seq + strlen(seq), sizeof(seq) - strlen(seq), "%s%s",
				 i != 0 ? " " : "", pv_cm_attr_str(m.hdr.attr_id));
		}
		if (strcmp(seq, ut_caps[c].attrs) != 0) {
			printf("\n  %s: CM MADs \"%s\", want \"%s\"", ut_caps[c].name, seq,
			       ut_caps[c].attrs);
			CU_FAIL("MAD sequence");
		}
	}
}

/* every REQ: what rdma_cm on rxe always sends (MANIFEST.md "wire facts") */
static void
test_caps_req_common(void)
{
	union pv_gid vm1_gid, vm2_gid;
	struct pv_cma_hdr h;
	struct pv_cm_path zero;
	struct pv_cm_msg m;
	unsigned int i, n = 0;
	uint32_t id;
	int c;

	CU_ASSERT_EQUAL_FATAL(ut_gid_ipv4("10.77.0.11", &vm1_gid), 0);
	CU_ASSERT_EQUAL_FATAL(ut_gid_ipv4("10.77.0.12", &vm2_gid), 0);
	memset(&zero, 0, sizeof(zero));
	for (c = 0; c < UT_N_CAPS; c++)
		for (i = 0; i < ut_caps[c].n; i++) {
			const struct pv_cm_req *r = &m.req;

			ut_cap_msg(c, i, &m);
			if (m.hdr.attr_id != PV_CM_ATTR_REQ)
				continue;
			n++;
			CU_ASSERT_FALSE(ut_caps[c].from_vm1[i]);
			/* TID: 2 << 32 | the comm ID as a little-endian u32 */
			id = r->local_comm_id;
			CU_ASSERT_EQUAL(m.hdr.tid, 2ull << 32 | __builtin_bswap32(id));
			CU_ASSERT_EQUAL(r->service_id >> 16, UT_RDMA_PS_TCP);
			CU_ASSERT_EQUAL(r->local_ca_guid, 0x505400fffe770012ull);
			CU_ASSERT_EQUAL(r->transport_type, PV_CM_TRANSPORT_RC);
			CU_ASSERT_EQUAL(r->remote_cm_response_timeout, 20);
			CU_ASSERT_EQUAL(r->local_cm_response_timeout, 20);
			CU_ASSERT_EQUAL(r->max_cm_retries, 15);
			CU_ASSERT_EQUAL(r->pkey, 0xffff);
			CU_ASSERT_EQUAL(r->path_mtu, PV_MTU_1024);
			CU_ASSERT_EQUAL(r->primary.local_lid, 0xffff);
			CU_ASSERT_EQUAL(r->primary.remote_lid, 0xffff);
			CU_ASSERT_EQUAL(memcmp(r->primary.local_gid, vm2_gid.raw, 16), 0);
			CU_ASSERT_EQUAL(memcmp(r->primary.remote_gid, vm1_gid.raw, 16), 0);
			CU_ASSERT_EQUAL(r->primary.hop_limit, 64);
			CU_ASSERT_EQUAL(r->primary.local_ack_timeout, 19);
			CU_ASSERT_EQUAL(memcmp(&r->alternate, &zero, sizeof(zero)), 0);
			/* the rdma_cm header, and the flow label from its ports */
			CU_ASSERT_EQUAL_FATAL(pv_cma_hdr_decode(r->private_data,
								sizeof(r->private_data), &h), 0);
			CU_ASSERT_EQUAL(h.family, AF_INET);
			CU_ASSERT_EQUAL(memcmp(h.src_addr, &vm2_gid.raw[12], 4), 0);
			CU_ASSERT_EQUAL(memcmp(h.dst_addr, &vm1_gid.raw[12], 4), 0);
			CU_ASSERT_EQUAL(r->primary.flow_label,
					pv_cma_flow_label(h.src_port, r->service_id & 0xffff));
		}
	CU_ASSERT_EQUAL(n, 1 + 1 + 2 + 2 + 2 + 3);
}

/* the REQ of cm_rdma_server.pcap as rdma_cm builds it */
static void
ut_req_rdma_server(struct pv_cm_msg *m)
{
	union pv_gid g;
	struct pv_cma_hdr h;
	struct pv_cm_req *r = &m->req;

	ut_msg_init(m, PV_CM_ATTR_REQ, 0x00000002c8f8a850ull);
	r->local_comm_id = 0x50a8f8c8;
	r->service_id = pv_cma_service_id(UT_RDMA_PS_TCP, 7471);
	r->local_ca_guid = 0x505400fffe770012ull;
	r->local_qpn = 0x14;
	r->responder_resources = 128;
	r->initiator_depth = 128;
	r->remote_cm_response_timeout = 20;
	r->transport_type = PV_CM_TRANSPORT_RC;
	r->starting_psn = 0x93179a;
	r->local_cm_response_timeout = 20;
	r->retry_count = 7;
	r->pkey = 0xffff;
	r->path_mtu = PV_MTU_1024;
	r->rnr_retry_count = 7;
	r->max_cm_retries = 15;
	r->primary.local_lid = 0xffff;
	r->primary.remote_lid = 0xffff;
	CU_ASSERT_EQUAL_FATAL(ut_gid_ipv4("10.77.0.12", &g), 0);
	memcpy(r->primary.local_gid, g.raw, 16);
	CU_ASSERT_EQUAL_FATAL(ut_gid_ipv4("10.77.0.11", &g), 0);
	memcpy(r->primary.remote_gid, g.raw, 16);
	r->primary.flow_label = pv_cma_flow_label(54793, 7471);
	r->primary.hop_limit = 64;
	r->primary.local_ack_timeout = 19;
	ut_cma_v4_hdr(&h);
	CU_ASSERT_EQUAL_FATAL(pv_cma_hdr_encode(&h, r->private_data), 0);
}

static void
test_rdma_server_fields(void)
{
	const struct ut_cap *c = &ut_caps[UT_RDMA_SERVER];
	struct pv_cm_msg m, want;
	struct pv_cma_hdr h;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		ut_cap_msg(UT_RDMA_SERVER, i, &m);
		CU_ASSERT_EQUAL(m.hdr.tid, 0x00000002c8f8a850ull);
	}
	ut_cap_msg(UT_RDMA_SERVER, 0, &m);
	CU_ASSERT_EQUAL(m.req.local_comm_id, 0x50a8f8c8);
	CU_ASSERT_EQUAL(m.req.service_id, 0x0000000001061d2full);
	CU_ASSERT_EQUAL(m.req.local_qkey, 0);
	CU_ASSERT_EQUAL(m.req.local_qpn, 0x14);
	CU_ASSERT_EQUAL(m.req.starting_psn, 0x93179a);
	CU_ASSERT_EQUAL(m.req.responder_resources, 128);
	CU_ASSERT_EQUAL(m.req.initiator_depth, 128);
	CU_ASSERT_EQUAL(m.req.end_to_end_flow_control, 0);
	CU_ASSERT_EQUAL(m.req.retry_count, 7);
	CU_ASSERT_EQUAL(m.req.rnr_retry_count, 7);
	CU_ASSERT_EQUAL(m.req.srq, 0);
	CU_ASSERT_EQUAL(m.req.primary.flow_label, 0xa0846);
	CU_ASSERT_EQUAL(m.req.primary.traffic_class, 0);
	CU_ASSERT_EQUAL(m.req.primary.sl, 0);
	CU_ASSERT_EQUAL(m.req.primary.subnet_local, 0);
	CU_ASSERT_EQUAL(m.req.primary.packet_rate, 0);
	CU_ASSERT_EQUAL(memcmp(m.req.private_data, ut_cma_v4, sizeof(ut_cma_v4)), 0);
	CU_ASSERT_EQUAL(pv_cma_hdr_decode(m.req.private_data, sizeof(m.req.private_data), &h), 0);
	CU_ASSERT_EQUAL(h.src_port, 54793);
	ut_req_rdma_server(&want);
	CU_ASSERT_EQUAL(memcmp(&m, &want, sizeof(m)), 0);

	ut_cap_msg(UT_RDMA_SERVER, 1, &m);
	CU_ASSERT_EQUAL(m.rep.local_comm_id, 0xc9fdb982);
	CU_ASSERT_EQUAL(m.rep.remote_comm_id, 0x50a8f8c8);
	CU_ASSERT_EQUAL(m.rep.local_qkey, 0);
	CU_ASSERT_EQUAL(m.rep.local_qpn, 0x14);
	CU_ASSERT_EQUAL(m.rep.starting_psn, 0x0c34c0);
	CU_ASSERT_EQUAL(m.rep.responder_resources, 128);
	CU_ASSERT_EQUAL(m.rep.initiator_depth, 128);
	CU_ASSERT_EQUAL(m.rep.target_ack_delay, 15);
	CU_ASSERT_EQUAL(m.rep.failover_accepted, 0);
	CU_ASSERT_EQUAL(m.rep.end_to_end_flow_control, 0);
	CU_ASSERT_EQUAL(m.rep.rnr_retry_count, 7);
	CU_ASSERT_EQUAL(m.rep.srq, 0);
	CU_ASSERT_EQUAL(m.rep.local_ca_guid, 0x505400fffe770011ull);

	ut_cap_msg(UT_RDMA_SERVER, 2, &m);
	CU_ASSERT_EQUAL(m.rtu.local_comm_id, 0x50a8f8c8);
	CU_ASSERT_EQUAL(m.rtu.remote_comm_id, 0xc9fdb982);
	ut_cap_msg(UT_RDMA_SERVER, 3, &m);
	CU_ASSERT_EQUAL(m.dreq.local_comm_id, 0x50a8f8c8);
	CU_ASSERT_EQUAL(m.dreq.remote_comm_id, 0xc9fdb982);
	CU_ASSERT_EQUAL(m.dreq.remote_qpn, 0x14);
	ut_cap_msg(UT_RDMA_SERVER, 4, &m);
	CU_ASSERT_EQUAL(m.drep.local_comm_id, 0xc9fdb982);
	CU_ASSERT_EQUAL(m.drep.remote_comm_id, 0x50a8f8c8);
}

/* messages built from the logged values encode to the captured bytes */
static void
test_encode_from_struct(void)
{
	uint8_t mad[PV_MAD_SIZE];
	struct pv_cm_msg m;

	ut_req_rdma_server(&m);
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, ut_caps[UT_RDMA_SERVER].mad[0], PV_MAD_SIZE), 0);

	ut_msg_init(&m, PV_CM_ATTR_REP, 0x00000002c8f8a850ull);
	m.rep.local_comm_id = 0xc9fdb982;
	m.rep.remote_comm_id = 0x50a8f8c8;
	m.rep.local_qpn = 0x14;
	m.rep.starting_psn = 0x0c34c0;
	m.rep.responder_resources = 128;
	m.rep.initiator_depth = 128;
	m.rep.target_ack_delay = 15;
	m.rep.rnr_retry_count = 7;
	m.rep.local_ca_guid = 0x505400fffe770011ull;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, ut_caps[UT_RDMA_SERVER].mad[1], PV_MAD_SIZE), 0);

	ut_msg_init(&m, PV_CM_ATTR_DREQ, 0x00000002c8f8a850ull);
	m.dreq.local_comm_id = 0x50a8f8c8;
	m.dreq.remote_comm_id = 0xc9fdb982;
	m.dreq.remote_qpn = 0x14;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, ut_caps[UT_RDMA_SERVER].mad[3], PV_MAD_SIZE), 0);

	ut_msg_init(&m, PV_CM_ATTR_REJ, 0x00000002c8f8a857ull);
	m.rej.remote_comm_id = 0x57a8f8c8;
	m.rej.msg_rejected = PV_CM_MSG_REQ;
	m.rej.reason = PV_CM_REJ_INVALID_SERVICE_ID;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, ut_caps[UT_REJECT].mad[1], PV_MAD_SIZE), 0);

	ut_msg_init(&m, PV_CM_ATTR_MRA, 0x00000002c8f8a841ull);
	m.mra.local_comm_id = 0xd5fdb982;
	m.mra.remote_comm_id = 0x41a8f8c8;
	m.mra.msg_mraed = PV_CM_MSG_REQ;
	m.mra.service_timeout = 24;
	CU_ASSERT_EQUAL(pv_cm_mad_encode(&m, mad), 0);
	CU_ASSERT_EQUAL(memcmp(mad, ut_caps[UT_MRA].mad[2], PV_MAD_SIZE), 0);
}

static void
test_reject_fields(void)
{
	struct pv_cm_msg req, rej;
	struct pv_cma_hdr h;
	static const uint8_t zero[PV_CM_REJ_PRIVATE_DATA_SIZE];

	ut_cap_msg(UT_REJECT, 0, &req);
	ut_cap_msg(UT_REJECT, 1, &rej);
	CU_ASSERT_TRUE(ut_caps[UT_REJECT].from_vm1[1]);
	CU_ASSERT_EQUAL(req.req.local_comm_id, 0x57a8f8c8);
	CU_ASSERT_EQUAL(req.req.service_id, 0x0000000001061f3full);
	CU_ASSERT_EQUAL(req.req.local_qpn, 0x15);
	CU_ASSERT_EQUAL(req.req.starting_psn, 0x1aeeca);
	CU_ASSERT_EQUAL(req.req.primary.flow_label, 0x340c3);
	CU_ASSERT_EQUAL(pv_cma_hdr_decode(req.req.private_data, 92, &h), 0);
	CU_ASSERT_EQUAL(h.src_port, 40444);
	CU_ASSERT_EQUAL(rej.hdr.tid, req.hdr.tid);
	CU_ASSERT_EQUAL(rej.hdr.tid, 0x00000002c8f8a857ull);
	CU_ASSERT_EQUAL(rej.rej.local_comm_id, 0);
	CU_ASSERT_EQUAL(rej.rej.remote_comm_id, 0x57a8f8c8);
	CU_ASSERT_EQUAL(rej.rej.msg_rejected, PV_CM_MSG_REQ);
	CU_ASSERT_EQUAL(rej.rej.reject_info_length, 0);
	CU_ASSERT_EQUAL(rej.rej.reason, PV_CM_REJ_INVALID_SERVICE_ID);
	CU_ASSERT_EQUAL(memcmp(rej.rej.private_data, zero, sizeof(zero)), 0);
}

static void
test_mra_fields(void)
{
	const struct ut_cap *c = &ut_caps[UT_MRA];
	struct pv_cm_msg m;

	/* the REQ retransmission: the same MAD (only the QP1 PSN differed) */
	CU_ASSERT_EQUAL(memcmp(c->mad[0], c->mad[1], PV_MAD_SIZE), 0);
	ut_cap_msg(UT_MRA, 2, &m);
	CU_ASSERT_TRUE(c->from_vm1[2]);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x00000002c8f8a841ull);
	CU_ASSERT_EQUAL(m.mra.local_comm_id, 0xd5fdb982);
	CU_ASSERT_EQUAL(m.mra.remote_comm_id, 0x41a8f8c8);
	CU_ASSERT_EQUAL(m.mra.msg_mraed, PV_CM_MSG_REQ);
	CU_ASSERT_EQUAL(m.mra.service_timeout, 24);
	ut_cap_msg(UT_MRA, 3, &m);
	CU_ASSERT_EQUAL(m.rep.local_qpn, 0x22);
	CU_ASSERT_EQUAL(m.rep.starting_psn, 0x995e7b);
	/* the DREQ collision: each side's own TID, the DREP answers vm2's */
	ut_cap_msg(UT_MRA, 5, &m);
	CU_ASSERT_TRUE(c->from_vm1[5]);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x0000000282b9fdd5ull);
	CU_ASSERT_EQUAL(m.dreq.remote_qpn, 0x23);
	ut_cap_msg(UT_MRA, 6, &m);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x00000002c8f8a841ull);
	CU_ASSERT_EQUAL(m.dreq.remote_qpn, 0x22);
	ut_cap_msg(UT_MRA, 7, &m);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x00000002c8f8a841ull);
	CU_ASSERT_EQUAL(m.drep.local_comm_id, 0xd5fdb982);
}

static void
test_perftest_ucmatose_fields(void)
{
	struct pv_cm_msg m;
	unsigned int i;

	/* perftest -R: two connections to port 18515, 0 / 0 both ways */
	for (i = 0; i < 6; i++) {
		ut_cap_msg(UT_PERFTEST, i, &m);
		if (m.hdr.attr_id == PV_CM_ATTR_REQ) {
			CU_ASSERT_EQUAL(m.req.service_id, 0x0000000001064853ull);
			CU_ASSERT_EQUAL(m.req.responder_resources, 0);
			CU_ASSERT_EQUAL(m.req.initiator_depth, 0);
		} else if (m.hdr.attr_id == PV_CM_ATTR_REP) {
			CU_ASSERT_EQUAL(m.rep.responder_resources, 0);
			CU_ASSERT_EQUAL(m.rep.initiator_depth, 0);
		}
	}
	ut_cap_msg(UT_PERFTEST, 0, &m);
	CU_ASSERT_EQUAL(m.req.local_qpn, 0x16);
	CU_ASSERT_EQUAL(m.req.primary.flow_label, 0x7c482);
	ut_cap_msg(UT_PERFTEST, 4, &m);
	CU_ASSERT_EQUAL(m.rep.local_qpn, 0x16);
	CU_ASSERT_EQUAL(m.rep.remote_comm_id, 0x55a8f8c8);

	/* ucmatose: its own retry counts, 1 / 1, the passive side disconnects */
	ut_cap_msg(UT_UCMATOSE, 1, &m);
	CU_ASSERT_EQUAL(m.req.local_comm_id, 0x5ba8f8c8);
	CU_ASSERT_EQUAL(m.req.local_qpn, 0x19);
	CU_ASSERT_EQUAL(m.req.retry_count, 5);
	CU_ASSERT_EQUAL(m.req.rnr_retry_count, 0);
	CU_ASSERT_EQUAL(m.req.responder_resources, 1);
	CU_ASSERT_EQUAL(m.req.initiator_depth, 1);
	ut_cap_msg(UT_UCMATOSE, 6, &m);
	CU_ASSERT_TRUE(ut_caps[UT_UCMATOSE].from_vm1[6]);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x0000000282b9fdc0ull);
	CU_ASSERT_EQUAL(m.dreq.local_comm_id, 0xc0fdb982);
	CU_ASSERT_EQUAL(m.dreq.remote_qpn, 0x18);
	ut_cap_msg(UT_UCMATOSE, 7, &m);
	CU_ASSERT_EQUAL(m.hdr.tid, 0x0000000282b9fdc0ull);
}

static uint16_t
ut_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* nvme-rdma's private data after the rdma_cm header (NVMe/RDMA CM, little endian) */
static void
test_nvmf_private_data(void)
{
	static const struct {
		unsigned int req, rep;
		uint16_t qid, hrqsize, hsqsize;
	} q[] = {
		{ 0, 1, 0, 32, 31 },	/* discovery controller */
		{ 5, 6, 0, 32, 31 },	/* admin queue */
		{ 8, 9, 1, 128, 127 },	/* I/O queue 1 */
	};
	static const uint8_t zero[PV_CM_REP_PRIVATE_DATA_SIZE];
	const uint8_t *nv;
	struct pv_cm_msg m;
	struct pv_cma_hdr h;
	size_t i;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		ut_cap_msg(UT_NVMF, q[i].req, &m);
		CU_ASSERT_EQUAL(m.req.service_id, 0x0000000001061144ull);
		CU_ASSERT_EQUAL(m.req.responder_resources, 128);
		CU_ASSERT_EQUAL(m.req.initiator_depth, 0);
		CU_ASSERT_EQUAL(m.req.end_to_end_flow_control, 1);
		CU_ASSERT_EQUAL(pv_cma_hdr_decode(m.req.private_data, 92, &h), 0);
		nv = m.req.private_data + PV_CMA_HDR_SIZE;
		CU_ASSERT_EQUAL(ut_le16(nv), 0);		/* recfmt */
		CU_ASSERT_EQUAL(ut_le16(nv + 2), q[i].qid);
		CU_ASSERT_EQUAL(ut_le16(nv + 4), q[i].hrqsize);
		CU_ASSERT_EQUAL(ut_le16(nv + 6), q[i].hsqsize);
		CU_ASSERT_EQUAL(ut_le16(nv + 8), 0);		/* cntlid */
		CU_ASSERT_EQUAL(memcmp(nv + 10, zero, 92 - PV_CMA_HDR_SIZE - 10), 0);

		ut_cap_msg(UT_NVMF, q[i].rep, &m);
		CU_ASSERT_EQUAL(m.rep.responder_resources, 0);
		CU_ASSERT_EQUAL(m.rep.initiator_depth, 128);
		CU_ASSERT_EQUAL(m.rep.end_to_end_flow_control, 1);
		CU_ASSERT_EQUAL(ut_le16(m.rep.private_data), 0);	/* recfmt */
		CU_ASSERT_EQUAL(ut_le16(m.rep.private_data + 2), q[i].hrqsize); /* crqsize */
		CU_ASSERT_EQUAL(memcmp(m.rep.private_data + 4, zero, sizeof(zero) - 4), 0);
	}
}

static const struct ut_case ut_cm_mad_capture_cases[] = {
	{ "caps_reencode_byte_exact", test_caps_reencode_byte_exact },
	{ "caps_req_common", test_caps_req_common },
	{ "rdma_server_fields", test_rdma_server_fields },
	{ "encode_from_struct", test_encode_from_struct },
	{ "reject_fields", test_reject_fields },
	{ "mra_fields", test_mra_fields },
	{ "perftest_ucmatose_fields", test_perftest_ucmatose_fields },
	{ "nvmf_private_data", test_nvmf_private_data },
	{ NULL, NULL },
};

static const struct ut_suite ut_cm_mad_capture_suite = {
	"cm_mad_captures", NULL, NULL, ut_cm_mad_capture_cases
};
#endif /* UT_HAVE_PCAP */

/* usage: test_cm_mad [RXE_DATA_DIR]: without it the codec suite, with it the captures */
int
main(int argc, char **argv)
{
	if (argc < 2)
		return ut_cunit_run_one(&ut_cm_mad_suite);
#ifdef UT_HAVE_PCAP
	ut_data_dir = argv[1];
	switch (ut_caps_load()) {
	case 0:
		return ut_cunit_run_one(&ut_cm_mad_capture_suite);
	case 1:
		return UT_EXIT_SKIP;
	default:
		return 1;
	}
#else
	printf("%s: built without libpcap: captures skipped\n", argv[0]);
	return UT_EXIT_SKIP;
#endif
}

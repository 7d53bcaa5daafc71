/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of drivers/softroce/sroce_wire.c: the opcode table, the parser
 * and the ICRC against the rxe capture corpus (../shared/data/rxe, whose
 * MANIFEST.md is the source of truth for the per-file counts) and against
 * frames built here for the opcodes the corpus lacks. The negative tests
 * (truncated, malformed, not RoCE, VLAN, ICRC bit flips) run on captured
 * frames when the corpus is there and, always, on a synthetic corpus built
 * here (suite sroce_wire_synthetic).
 *
 * usage: test_sroce_wire [RXE_DATA_DIR]
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <pcap/pcap.h>

#include <rte_eal.h>
#include <rte_net_crc.h>

#include "sroce_wire.c"
#include "ut_common.h"

#define UT_MAX_FRAME	16384
#define UT_MAX_FILES	64

static const char *ut_data_dir;
static char *ut_manifest;		/* MANIFEST.md, NUL-terminated */
static int ut_eal_ok;

/* ---- helpers ---- */

static char *
ut_file_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (buf != NULL && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* expectations for one capture, from its "### NAME" section of MANIFEST.md */
struct ut_expect {
	int found;
	uint32_t frames;
	uint32_t op_count[256];
	const char *op_name[256];	/* into ut_manifest, terminated by ';' or '\n' */
	uint32_t aeth_count[256];
	uint32_t pad_count[256][4];	/* [opcode][pad], pad != 0 only */
	int has_aeth_line;
};

static int
ut_name_eq(const char *m, const char *name)
{
	size_t n = strlen(name);

	return strncmp(m, name, n) == 0 && (m[n] == ';' || m[n] == '\n' || m[n] == '\0' ||
					    m[n] == ' ');
}

/* "* KEY: 6 x 0x04 RC SEND Only; 6 x 0x11 RC Acknowledge" -> callback per item */
static const char *
ut_line_after(const char *sec, const char *sec_end, const char *key)
{
	const char *p = strstr(sec, key);

	if (p == NULL || p >= sec_end)
		return NULL;
	return p + strlen(key);
}

static void
ut_manifest_expect(const char *file, struct ut_expect *e)
{
	char hdr[128];
	const char *sec, *end, *p;

	memset(e, 0, sizeof(*e));
	snprintf(hdr, sizeof(hdr), "\n### %s\n", file);
	sec = strstr(ut_manifest, hdr);
	if (sec == NULL)
		return;
	sec += strlen(hdr);
	end = strstr(sec, "\n### ");
	if (end == NULL)
		end = strstr(sec, "\n## ");
	if (end == NULL)
		end = sec + strlen(sec);
	e->found = 1;

	/* "...; 12 frames, 2472 bytes, sha256 ..." */
	p = ut_line_after(sec, end, " frames, ");
	if (p != NULL) {
		const char *q = p - strlen(" frames, ");

		while (q > sec && q[-1] >= '0' && q[-1] <= '9')
			q--;
		e->frames = strtoul(q, NULL, 10);
	}

	p = ut_line_after(sec, end, "* BTH opcodes: ");
	while (p != NULL && *p != '\n' && *p != '\0') {
		char *q;
		unsigned long n = strtoul(p, &q, 10);
		unsigned long op;

		if (strncmp(q, " x 0x", 5) != 0)
			break;
		op = strtoul(q + 5, &q, 16);
		if (op > 255)
			break;
		e->op_count[op] += n;
		e->op_name[op] = q + 1;
		p = strpbrk(q, ";\n");
		if (p == NULL || *p == '\n')
			break;
		p += 2;
	}

	p = ut_line_after(sec, end, "* AETH syndromes: ");
	e->has_aeth_line = p != NULL;
	while (p != NULL && *p != '\n' && *p != '\0') {
		char *q;
		unsigned long n = strtoul(p, &q, 10);
		unsigned long syn;

		if (strncmp(q, " x 0x", 5) != 0)
			break;
		syn = strtoul(q + 5, &q, 16);
		if (syn > 255)
			break;
		e->aeth_count[syn] += n;
		p = strpbrk(q, ";\n");
		if (p == NULL || *p == '\n')
			break;
		p += 2;
	}

	/* "* non-zero PadCnt: 6 x 0x02 RC SEND Last PadCnt=1" */
	p = ut_line_after(sec, end, "* non-zero PadCnt: ");
	while (p != NULL && *p != '\n' && *p != '\0') {
		char *q;
		unsigned long n = strtoul(p, &q, 10);
		unsigned long op, pad;
		const char *pc;

		if (strncmp(q, " x 0x", 5) != 0)
			break;
		op = strtoul(q + 5, &q, 16);
		pc = strstr(q, "PadCnt=");
		if (op > 255 || pc == NULL)
			break;
		pad = strtoul(pc + 7, &q, 10);
		if (pad > 3)
			break;
		e->pad_count[op][pad] += n;
		p = strpbrk(q, ";\n");
		if (p == NULL || *p == '\n')
			break;
		p += 2;
	}
}

static int
ut_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sorted *.pcap names of the data directory; returns the count */
static int
ut_pcap_list(char **names, int max)
{
	DIR *d = opendir(ut_data_dir);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		size_t l = strlen(de->d_name);

		if (l > 5 && strcmp(de->d_name + l - 5, ".pcap") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), ut_str_cmp);
	return n;
}

/* the first frame of @p file with @p opcode, copied to buf; returns its length or 0 */
static uint32_t
ut_frame_get(const char *file, int opcode, uint8_t *buf)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint32_t len = 0;
	pcap_t *p;

	if (ut_data_dir == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", ut_data_dir, file);
	p = pcap_open_offline(path, err);
	if (p == NULL)
		return 0;
	while (pcap_next_ex(p, &h, &data) == 1) {
		if (h->caplen > UT_MAX_FRAME || h->caplen < SROCE_L2L4_HLEN + 1)
			continue;
		if (opcode < 0 || data[SROCE_L2L4_HLEN] == opcode) {
			memcpy(buf, data, h->caplen);
			len = h->caplen;
			break;
		}
	}
	pcap_close(p);
	return len;
}

/*
 * The synthetic corpus: frames built here (ut_frame_build()) standing in for
 * the captured ones the negative tests start from, so that those tests run
 * without ../shared/data too (suite sroce_wire_synthetic). Each has the
 * opcode, payload and DMA length of the capture frame it replaces.
 */
static int ut_synthetic;

static void
ut_put32_be(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t ut_frame_build(uint8_t *f, uint8_t op, uint32_t payload_len, uint8_t pad);

static const struct {
	uint8_t opcode;
	uint32_t payload;
	uint32_t dma_len;		/* RETH opcodes */
} ut_synth_corpus[] = {
	{ SROCE_OP_RC_SEND_ONLY, 256, 0 },		/* rc_send_256.pcap */
	{ SROCE_OP_RC_ACK, 0, 0 },			/* rc_send_256.pcap */
	{ SROCE_OP_RC_READ_RESP_ONLY, 64, 0 },		/* rc_read_64.pcap */
	{ SROCE_OP_RC_WRITE_ONLY, 64, 64 },		/* rc_write_64.pcap */
	{ SROCE_OP_RC_WRITE_FIRST, 1024, 4096 },	/* rc_write_4096.pcap */
};

static int
ut_synth_suite_init(void)
{
	ut_synthetic = 1;
	return 0;
}

static int
ut_synth_suite_clean(void)
{
	ut_synthetic = 0;
	return 0;
}

/*
 * The frame a negative test starts from: the first one of @p file with
 * @p opcode, or in suite sroce_wire_synthetic the corpus frame of @p opcode.
 * @return its length, or 0
 */
static uint32_t
ut_test_frame(const char *file, uint8_t opcode, uint8_t *buf)
{
	uint32_t i, len;

	if (!ut_synthetic)
		return ut_frame_get(file, opcode, buf);
	for (i = 0; i < RTE_DIM(ut_synth_corpus); i++) {
		if (ut_synth_corpus[i].opcode != opcode)
			continue;
		len = ut_frame_build(buf, opcode, ut_synth_corpus[i].payload, 0);
		if (pv_sroce_opcode_info[opcode].hdrs & SROCE_HDR_RETH) {
			ut_put32_be(buf + SROCE_L2L4_HLEN + SROCE_BTH_LEN + 12,
				    ut_synth_corpus[i].dma_len);
			pv_sroce_icrc_set(buf, len);
		}
		return len;
	}
	return 0;
}

/* ---- opcode table ---- */

static void
test_opcode_table(void)
{
	static const struct {
		uint8_t op;
		uint8_t hdr_len;
		uint16_t hdrs;
	} want[] = {
		{ SROCE_OP_RC_SEND_FIRST, 12, SROCE_HDR_PAYLOAD },
		{ SROCE_OP_RC_SEND_LAST_IMM, 16, SROCE_HDR_PAYLOAD | SROCE_HDR_IMM },
		{ SROCE_OP_RC_WRITE_FIRST, 28, SROCE_HDR_PAYLOAD | SROCE_HDR_RETH },
		{ SROCE_OP_RC_WRITE_ONLY_IMM, 32,
		  SROCE_HDR_PAYLOAD | SROCE_HDR_RETH | SROCE_HDR_IMM },
		{ SROCE_OP_RC_READ_REQ, 28, SROCE_HDR_RETH },
		{ SROCE_OP_RC_READ_RESP_FIRST, 16, SROCE_HDR_PAYLOAD | SROCE_HDR_AETH },
		{ SROCE_OP_RC_READ_RESP_MIDDLE, 12, SROCE_HDR_PAYLOAD },
		{ SROCE_OP_RC_ACK, 16, SROCE_HDR_AETH },
		{ SROCE_OP_RC_ATOMIC_ACK, 24, SROCE_HDR_AETH | SROCE_HDR_ATMACK },
		{ SROCE_OP_RC_CMP_SWAP, 40, SROCE_HDR_ATMETH },
		{ SROCE_OP_RC_FETCH_ADD, 40, SROCE_HDR_ATMETH },
		{ SROCE_OP_RC_SEND_ONLY_INV, 16, SROCE_HDR_PAYLOAD | SROCE_HDR_IETH },
		{ SROCE_OP_UC_WRITE_ONLY, 28, SROCE_HDR_PAYLOAD | SROCE_HDR_RETH },
		{ SROCE_OP_UD_SEND_ONLY, 20, SROCE_HDR_PAYLOAD | SROCE_HDR_DETH },
		{ SROCE_OP_UD_SEND_ONLY_IMM, 24,
		  SROCE_HDR_PAYLOAD | SROCE_HDR_DETH | SROCE_HDR_IMM },
	};
	static const uint8_t invalid[] = { 0x15, 0x18, 0x1f, 0x2c, 0x30, 0x63, 0x66, 0xff };
	unsigned int i, valid = 0;

	for (i = 0; i < RTE_DIM(want); i++) {
		const struct sroce_opcode_info *info = &pv_sroce_opcode_info[want[i].op];

		CU_ASSERT_PTR_NOT_NULL(info->name);
		CU_ASSERT_EQUAL(info->hdr_len, want[i].hdr_len);
		CU_ASSERT_EQUAL(info->hdrs, want[i].hdrs);
	}
	for (i = 0; i < RTE_DIM(invalid); i++)
		CU_ASSERT_PTR_NULL(pv_sroce_opcode_info[invalid[i]].name);
	for (i = 0; i < 256; i++) {
		const struct sroce_opcode_info *info = &pv_sroce_opcode_info[i];

		if (info->name == NULL)
			continue;
		valid++;
		/* exactly one of FIRST/MIDDLE/LAST/ONLY, exactly one direction */
		CU_ASSERT_EQUAL(__builtin_popcount(info->flags & (SROCE_OPF_FIRST |
			SROCE_OPF_MIDDLE | SROCE_OPF_LAST | SROCE_OPF_ONLY)), 1);
		CU_ASSERT_EQUAL(__builtin_popcount(info->flags &
			(SROCE_OPF_REQ | SROCE_OPF_RESP)), 1);
	}
	/* 23 RC + 12 UC + 2 UD + 23 XRC */
	CU_ASSERT_EQUAL(valid, 60);
	CU_ASSERT_STRING_EQUAL(pv_sroce_opcode_info[SROCE_OP_RC_ACK].name, "RC Acknowledge");
	/* XRC (IBTA table 38): 0xa0 + the RC opcode, XRCETH on requests only */
	CU_ASSERT_STRING_EQUAL(pv_sroce_opcode_info[0xb1].name, "XRC Acknowledge");
	CU_ASSERT_EQUAL(pv_sroce_opcode_info[0xa4].hdr_len, SROCE_BTH_LEN + SROCE_XRCETH_LEN);
	CU_ASSERT_EQUAL(pv_sroce_opcode_info[0xac].hdr_len,
			SROCE_BTH_LEN + SROCE_XRCETH_LEN + SROCE_RETH_LEN);
	CU_ASSERT_EQUAL(pv_sroce_opcode_info[0xb0].hdr_len, SROCE_BTH_LEN + SROCE_AETH_LEN);
	CU_ASSERT_EQUAL(pv_sroce_opcode_info[0xb3].hdr_len,
			SROCE_BTH_LEN + SROCE_XRCETH_LEN + SROCE_ATMETH_LEN);
	CU_ASSERT_PTR_NULL(pv_sroce_opcode_info[0xb5].name);
	CU_ASSERT_STRING_EQUAL(pv_sroce_opcode_info[SROCE_OP_UC_SEND_ONLY].name, "UC SEND Only");
}

/* ---- the capture corpus ---- */

struct ut_counts {
	uint32_t frames;
	uint32_t op_count[256];
	uint32_t aeth_count[256];
	uint32_t pad_count[256][4];
};

/* parse every frame of one capture, check invariants, count opcodes */
static void
ut_capture_run(const char *file, struct ut_counts *c)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	static uint8_t buf[UT_MAX_FRAME], copy[UT_MAX_FRAME];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct sroce_pkt pkt;
	pcap_t *p;
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s", ut_data_dir, file);
	p = pcap_open_offline(path, err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &h, &data) == 1) {
		c->frames++;
		CU_ASSERT_EQUAL(h->caplen, h->len);
		CU_ASSERT_FATAL(h->caplen <= UT_MAX_FRAME);
		memcpy(buf, data, h->caplen);
		ret = pv_sroce_pkt_parse(buf, h->caplen, 1, &pkt);
		if (ret != 0)
			fprintf(stderr, "%s frame %u: parse %d\n", file, c->frames, ret);
		CU_ASSERT_EQUAL(ret, 0);
		/* the in-place ICRC left the frame byte-identical */
		CU_ASSERT_EQUAL(memcmp(buf, data, h->caplen), 0);
		if (ret != 0)
			continue;
		CU_ASSERT_EQUAL(pkt.dport, SROCE_UDP_PORT);
		CU_ASSERT_EQUAL(pkt.tver, 0);
		CU_ASSERT_EQUAL(pkt.pkey, SROCE_DEFAULT_PKEY);
		CU_ASSERT_EQUAL(pkt.ttl, 64);
		CU_ASSERT_EQUAL(pkt.bth_off, SROCE_L2L4_HLEN);
		CU_ASSERT_EQUAL(pkt.payload_off + pkt.payload_len + pkt.pad + SROCE_ICRC_LEN,
				pkt.frame_len);
		CU_ASSERT_EQUAL(pkt.payload_off,
				pkt.bth_off + pv_sroce_opcode_info[pkt.opcode].hdr_len);
		CU_ASSERT_EQUAL(pkt.sip >> 8, 0x0a4d00);	/* 10.77.0.0/24 */
		CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, pkt.frame_len), 0);
		/* recomputing and storing the ICRC reproduces the captured bytes */
		memcpy(copy, data, h->caplen);
		memset(copy + pkt.frame_len - SROCE_ICRC_LEN, 0, SROCE_ICRC_LEN);
		pv_sroce_icrc_set(copy, pkt.frame_len);
		CU_ASSERT_EQUAL(memcmp(copy, data, h->caplen), 0);

		c->op_count[pkt.opcode]++;
		if (pv_sroce_opcode_info[pkt.opcode].hdrs & SROCE_HDR_AETH)
			c->aeth_count[pkt.aeth_syndrome]++;
		if (pkt.pad != 0)
			c->pad_count[pkt.opcode][pkt.pad]++;
	}
	pcap_close(p);
}

static void
ut_captures_check(void)
{
	char *names[UT_MAX_FILES];
	int n = ut_pcap_list(names, UT_MAX_FILES);
	int i, op, k;

	CU_ASSERT_FATAL(n > 0);
	for (i = 0; i < n; i++) {
		struct ut_counts *c = calloc(1, sizeof(*c));
		struct ut_expect *e = calloc(1, sizeof(*e));

		CU_ASSERT_FATAL(c != NULL && e != NULL);
		ut_manifest_expect(names[i], e);
		if (!e->found)
			fprintf(stderr, "%s: no section in MANIFEST.md\n", names[i]);
		CU_ASSERT(e->found);
		ut_capture_run(names[i], c);
		CU_ASSERT_EQUAL(c->frames, e->frames);
		for (op = 0; op < 256; op++) {
			if (c->op_count[op] != e->op_count[op])
				fprintf(stderr, "%s: opcode 0x%02x: %u frames, MANIFEST says %u\n",
					names[i], op, c->op_count[op], e->op_count[op]);
			CU_ASSERT_EQUAL(c->op_count[op], e->op_count[op]);
			if (e->op_name[op] != NULL) {
				/* our names are the manifest's (tshark's) names */
				CU_ASSERT_PTR_NOT_NULL(pv_sroce_opcode_info[op].name);
				if (pv_sroce_opcode_info[op].name != NULL)
					CU_ASSERT(ut_name_eq(e->op_name[op],
							     pv_sroce_opcode_info[op].name));
			}
			if (e->has_aeth_line)
				CU_ASSERT_EQUAL(c->aeth_count[op], e->aeth_count[op]);
			for (k = 1; k < 4; k++)
				CU_ASSERT_EQUAL(c->pad_count[op][k], e->pad_count[op][k]);
		}
		free(c);
		free(e);
		free(names[i]);
	}
}

/* rte_net_crc's table-driven code, as pv-roce-decode uses it without EAL */
static void
test_captures_scalar(void)
{
	rte_net_crc_set_alg(RTE_NET_CRC_SCALAR);
	ut_captures_check();
	rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
}

/* the vector code (SSE4.2/PCLMULQDQ or AVX512) the engine gets after EAL init */
static void
test_captures_vector(void)
{
	if (!ut_eal_ok) {
		fprintf(stderr, "EAL not initialised: vector CRC not tested\n");
		return;
	}
	rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
	ut_captures_check();
}

/* every file the manifest describes is present */
static void
test_manifest_files_present(void)
{
	const char *p = ut_manifest;
	int sections = 0;

	while ((p = strstr(p, "\n### ")) != NULL) {
		char name[128], path[512];
		FILE *f;
		int l = 0;

		p += 5;
		while (p[l] != '\n' && p[l] != '\0' && l < (int)sizeof(name) - 1) {
			name[l] = p[l];
			l++;
		}
		name[l] = '\0';
		if (l < 6 || strcmp(name + l - 5, ".pcap") != 0)
			continue;
		sections++;
		snprintf(path, sizeof(path), "%s/%s", ut_data_dir, name);
		f = fopen(path, "rb");
		CU_ASSERT_PTR_NOT_NULL(f);
		if (f != NULL)
			fclose(f);
	}
	CU_ASSERT(sections >= 17);
}

/* ---- ICRC ---- */

static void
test_icrc_bit_flip(void)
{
	uint8_t buf[UT_MAX_FRAME], orig[UT_MAX_FRAME];
	struct sroce_pkt pkt;
	uint32_t len, i;

	len = ut_test_frame("rc_send_256.pcap", SROCE_OP_RC_SEND_ONLY, buf);
	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, buf, len);
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.payload_len, 256);

	/* every single bit of the payload is covered */
	for (i = 0; i < pkt.payload_len * 8; i += 7) {
		buf[pkt.payload_off + i / 8] ^= 1 << (i % 8);
		CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -EILSEQ);
		CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, pkt.frame_len), -EILSEQ);
		buf[pkt.payload_off + i / 8] ^= 1 << (i % 8);
	}
	/* the ICRC itself, the BTH destination QP, the IP source address */
	buf[len - 1] ^= 0x80;
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -EILSEQ);
	buf[len - 1] ^= 0x80;
	buf[SROCE_L2L4_HLEN + 7] ^= 0x01;
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, len), -EILSEQ);
	buf[SROCE_L2L4_HLEN + 7] ^= 0x01;
	buf[SROCE_ETH_HLEN + 12] ^= 0x01;
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, len), -EILSEQ);
	buf[SROCE_ETH_HLEN + 12] ^= 0x01;
	/* without verification, a bad ICRC still parses */
	buf[pkt.payload_off] ^= 0x01;
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), 0);
	buf[pkt.payload_off] ^= 0x01;
	CU_ASSERT_EQUAL(memcmp(buf, orig, len), 0);

	/* the masked fields are invariant: TOS, TTL, IP checksum, UDP checksum,
	 * BTH Resv8a (FECN/BECN), and the Ethernet header entirely
	 */
	buf[SROCE_ETH_HLEN + 1] = 0x02;		/* ECN CE */
	buf[SROCE_ETH_HLEN + 8] = 3;		/* TTL */
	buf[SROCE_ETH_HLEN + 10] ^= 0x55;
	buf[SROCE_ETH_HLEN + SROCE_IPV4_HLEN + 6] = 0x12;
	buf[SROCE_L2L4_HLEN + 4] = 0xc0;	/* FECN, BECN */
	memset(buf, 0xa5, SROCE_ETH_HLEN - 2);
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, len), 0);
}

static void
test_icrc_in_place_identical(void)
{
	uint8_t buf[UT_MAX_FRAME], orig[UT_MAX_FRAME];
	uint32_t len, crc;

	len = ut_test_frame("rc_read_64.pcap", SROCE_OP_RC_READ_RESP_ONLY, buf);
	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, buf, len);
	crc = pv_sroce_icrc_calc(buf, len - SROCE_ICRC_LEN);
	CU_ASSERT_EQUAL(memcmp(buf, orig, len), 0);
	CU_ASSERT_EQUAL(crc, (uint32_t)orig[len - 4] | (uint32_t)orig[len - 3] << 8 |
			(uint32_t)orig[len - 2] << 16 | (uint32_t)orig[len - 1] << 24);
	pv_sroce_icrc_set(buf, len);
	CU_ASSERT_EQUAL(memcmp(buf, orig, len), 0);
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(buf, len), 0);
	CU_ASSERT_EQUAL(memcmp(buf, orig, len), 0);
}

/* ---- malformed and foreign frames ---- */

static void
ut_ipv4_csum_fix(uint8_t *frame, uint32_t l3)
{
	uint32_t sum;

	frame[l3 + 10] = 0;
	frame[l3 + 11] = 0;
	sum = sroce_ipv4_hdr_sum(frame + l3, (frame[l3] & 0xf) * 4);
	frame[l3 + 10] = (~sum >> 8) & 0xff;
	frame[l3 + 11] = ~sum & 0xff;
}

static void
test_parse_truncated(void)
{
	uint8_t buf[UT_MAX_FRAME];
	struct sroce_pkt pkt;
	uint32_t len, l;

	len = ut_test_frame("rc_write_64.pcap", SROCE_OP_RC_WRITE_ONLY, buf);
	CU_ASSERT_FATAL(len > 0);
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), 0);
	for (l = 0; l < len; l++)
		CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, l, 1, &pkt), -EBADMSG);
	/* Ethernet padding after the IP datagram is ignored */
	memset(buf + len, 0, 16);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len + 16, 1, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.frame_len, len);
}

static void
test_parse_malformed(void)
{
	uint8_t buf[UT_MAX_FRAME], orig[UT_MAX_FRAME];
	const uint32_t ip = SROCE_ETH_HLEN, udp = ip + SROCE_IPV4_HLEN, bth = SROCE_L2L4_HLEN;
	struct sroce_pkt pkt;
	uint32_t len;

	len = ut_test_frame("rc_send_256.pcap", SROCE_OP_RC_ACK, buf);
	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, buf, len);
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), 0);

	buf[ip + 11] ^= 1;				/* IP header checksum */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[ip] = 0x65;					/* IP version 6 in an IPv4 frame */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[ip] = 0x44;					/* IHL 4 */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[ip + 3] += 4;				/* total length past the frame */
	ut_ipv4_csum_fix(buf, ip);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[ip + 6] |= 0x20;				/* more fragments */
	ut_ipv4_csum_fix(buf, ip);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[udp + 5] -= 1;				/* UDP length != IP payload */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[bth + 1] |= 0x01;				/* TVer 1 */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[bth] = 0x15;				/* reserved opcode */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[bth + 1] |= 1 << SROCE_BTH_PAD_SHIFT;	/* pad 1 > 0 payload bytes */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[bth] = SROCE_OP_RC_ATOMIC_ACK;		/* 16 + 4 bytes cannot hold 24 + 4 */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[bth] = SROCE_OP_RC_SEND_ONLY;		/* the AETH becomes payload */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 0, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.payload_len, SROCE_AETH_LEN);
	memcpy(buf, orig, len);

	/* an ACK may not carry payload: grow the frame by 4 bytes */
	memmove(buf + len, buf + len - 4, 4);
	buf[ip + 3] += 4;
	buf[udp + 5] += 4;
	ut_ipv4_csum_fix(buf, ip);
	pv_sroce_icrc_set(buf, len + 4);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len + 4, 0, &pkt), -EBADMSG);
	buf[bth] = SROCE_OP_RC_SEND_ONLY;
	pv_sroce_icrc_set(buf, len + 4);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len + 4, 1, &pkt), 0);
}

static void
test_parse_not_roce(void)
{
	/* ARP request 10.77.0.12 -> who has 10.77.0.11 */
	static const uint8_t arp[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x52, 0x54, 0x00, 0x77, 0x00, 0x12,
		0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
		0x52, 0x54, 0x00, 0x77, 0x00, 0x12, 10, 77, 0, 12,
		0, 0, 0, 0, 0, 0, 10, 77, 0, 11,
	};
	uint8_t buf[UT_MAX_FRAME], orig[UT_MAX_FRAME];
	const uint32_t ip = SROCE_ETH_HLEN, udp = ip + SROCE_IPV4_HLEN;
	struct sroce_pkt pkt;
	uint32_t len;

	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(arp, sizeof(arp), 1, &pkt), -ENOENT);

	len = ut_test_frame("rc_send_256.pcap", SROCE_OP_RC_SEND_ONLY, buf);
	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, buf, len);
	buf[12] = 0x86;					/* IPv6 ethertype */
	buf[13] = 0xdd;
	/* an IPv4 header behind the IPv6 ethertype: bad IP version */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -EBADMSG);
	memcpy(buf, orig, len);
	buf[ip + 9] = 6;				/* TCP */
	ut_ipv4_csum_fix(buf, ip);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -ENOENT);
	memcpy(buf, orig, len);
	buf[udp + 2] = 0;				/* UDP dport 53 */
	buf[udp + 3] = 53;
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -ENOENT);
	/* foreign traffic is recognised before its IP checksum is looked at */
	buf[ip + 11] ^= 1;
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -ENOENT);
	memcpy(buf, orig, len);
	buf[ip + 7] = 1;				/* non-first fragment */
	ut_ipv4_csum_fix(buf, ip);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), -ENOENT);
}

static void
test_parse_vlan(void)
{
	uint8_t buf[UT_MAX_FRAME], tagged[UT_MAX_FRAME];
	struct sroce_pkt pkt;
	uint32_t len;

	len = ut_test_frame("rc_write_4096.pcap", SROCE_OP_RC_WRITE_FIRST, buf);
	CU_ASSERT_FATAL(len > 0);
	memcpy(tagged, buf, 12);
	tagged[12] = 0x81;
	tagged[13] = 0x00;
	tagged[14] = 0x20;				/* PCP 1, VID 5 */
	tagged[15] = 0x05;
	memcpy(tagged + 16, buf + 12, len - 12);
	/* the ICRC does not cover L2: still valid */
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(tagged, len + 4, 1, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.vlan_tci, 0x2005);
	CU_ASSERT_EQUAL(pkt.l3_off, 18);
	CU_ASSERT_EQUAL(pkt.bth_off, SROCE_L2L4_HLEN + 4);
	CU_ASSERT_EQUAL(pkt.opcode, SROCE_OP_RC_WRITE_FIRST);
	CU_ASSERT_EQUAL(pkt.payload_len, 1024);
	CU_ASSERT_EQUAL(pkt.dma_len, 4096);
	CU_ASSERT_EQUAL(memcmp(tagged + 16, buf + 12, len - 12), 0);
}

/* ---- frames built here: every valid opcode round-trips ---- */

static void
ut_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void
ut_put32(uint8_t *p, uint32_t v)
{
	ut_put16(p, v >> 16);
	ut_put16(p + 2, v);
}

static void
ut_put64(uint8_t *p, uint64_t v)
{
	ut_put32(p, v >> 32);
	ut_put32(p + 4, v);
}

/* build Ethernet/IPv4/UDP/BTH/ext/payload/pad/ICRC; returns the frame length */
static uint32_t
ut_frame_build(uint8_t *f, uint8_t op, uint32_t payload_len, uint8_t pad)
{
	const struct sroce_opcode_info *info = &pv_sroce_opcode_info[op];
	uint32_t ib_len = info->hdr_len + payload_len + pad + SROCE_ICRC_LEN;
	uint8_t *ip = f + SROCE_ETH_HLEN, *udp = ip + SROCE_IPV4_HLEN;
	uint8_t *bth = udp + SROCE_UDP_HLEN, *h = bth + SROCE_BTH_LEN;
	uint32_t i;

	memset(f, 0, SROCE_L2L4_HLEN + ib_len);
	memcpy(f, "\x52\x54\x00\x77\x00\x11\x52\x54\x00\x77\x00\x12\x08\x00", 14);
	ip[0] = 0x45;
	ut_put16(ip + 2, SROCE_IPV4_HLEN + SROCE_UDP_HLEN + ib_len);
	ut_put16(ip + 4, 0x1234);
	ip[6] = 0x40;					/* DF */
	ip[8] = 64;
	ip[9] = 17;
	ut_put32(ip + 12, 0x0a4d0064);
	ut_put32(ip + 16, 0x0a4d000b);
	ut_ipv4_csum_fix(f, SROCE_ETH_HLEN);
	ut_put16(udp, 0xc000 | op);
	ut_put16(udp + 2, SROCE_UDP_PORT);
	ut_put16(udp + 4, SROCE_UDP_HLEN + ib_len);

	bth[0] = op;
	bth[1] = SROCE_BTH_SE | pad << SROCE_BTH_PAD_SHIFT;
	ut_put16(bth + 2, 0x8001);
	ut_put32(bth + 4, 0xabcdef);
	ut_put32(bth + 8, SROCE_BTH_ACKREQ | 0xfffffe);
	if (info->hdrs & SROCE_HDR_DETH) {
		ut_put32(h, 0x80010000);
		ut_put32(h + 4, 0x000001);
		h += SROCE_DETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_XRCETH) {
		ut_put32(h, 0xff000123);	/* reserved byte set: ignored */
		h += SROCE_XRCETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_RETH) {
		ut_put64(h, 0x00007f0011223344ull);
		ut_put32(h + 8, 0x1234abcd);
		ut_put32(h + 12, 65536);
		h += SROCE_RETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_ATMETH) {
		ut_put64(h, 0x00007f0000001000ull);
		ut_put32(h + 8, 0x55aa55aa);
		ut_put64(h + 12, 0x0102030405060708ull);
		ut_put64(h + 20, 0x1112131415161718ull);
		h += SROCE_ATMETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_AETH) {
		ut_put32(h, 0x62000007);		/* NAK remote access error, MSN 7 */
		h += SROCE_AETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_ATMACK) {
		ut_put64(h, 0xfedcba9876543210ull);
		h += SROCE_ATMACK_LEN;
	}
	if (info->hdrs & SROCE_HDR_IMM) {
		ut_put32(h, 0xdeadbeef);
		h += SROCE_IMM_LEN;
	}
	if (info->hdrs & SROCE_HDR_IETH) {
		ut_put32(h, 0x00c0ffee);
		h += SROCE_IETH_LEN;
	}
	for (i = 0; i < payload_len; i++)
		h[i] = i * 7 + 1;
	pv_sroce_icrc_set(f, SROCE_L2L4_HLEN + ib_len);
	return SROCE_L2L4_HLEN + ib_len;
}

static void
test_build_all_opcodes(void)
{
	uint8_t f[UT_MAX_FRAME];
	struct sroce_pkt pkt;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = &pv_sroce_opcode_info[op];
		int has_pl = !!(info->hdrs & SROCE_HDR_PAYLOAD);
		uint32_t pl = has_pl ? 61 : 0, len, i;
		uint8_t pad = has_pl ? 3 : 0;

		if (info->name == NULL)
			continue;
		len = ut_frame_build(f, op, pl, pad);
		memset(&pkt, 0, sizeof(pkt));
		CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(f, len, 1, &pkt), 0);
		CU_ASSERT_EQUAL(pkt.opcode, op);
		CU_ASSERT_EQUAL(pkt.se, 1);
		CU_ASSERT_EQUAL(pkt.pad, pad);
		CU_ASSERT_EQUAL(pkt.pkey, 0x8001);
		CU_ASSERT_EQUAL(pkt.dqpn, 0xabcdef);
		CU_ASSERT_EQUAL(pkt.ackreq, 1);
		CU_ASSERT_EQUAL(pkt.psn, 0xfffffe);
		CU_ASSERT_EQUAL(pkt.sip, 0x0a4d0064);
		CU_ASSERT_EQUAL(pkt.dip, 0x0a4d000b);
		CU_ASSERT_EQUAL(pkt.sport, 0xc000 | op);
		CU_ASSERT_EQUAL(pkt.payload_len, pl);
		CU_ASSERT_EQUAL(pkt.frame_len, len);
		CU_ASSERT_EQUAL(pkt.payload_off, SROCE_L2L4_HLEN + info->hdr_len);
		for (i = 0; i < pl; i++)
			CU_ASSERT_EQUAL(f[pkt.payload_off + i], (uint8_t)(i * 7 + 1));
		/* XRC: the RC opcodes + 0xa0, an XRCETH on every request */
		CU_ASSERT_EQUAL(!!(info->hdrs & SROCE_HDR_XRCETH),
				(op & 0xe0) == SROCE_OP_XRC && (info->flags & SROCE_OPF_REQ));
		if (info->hdrs & SROCE_HDR_XRCETH)
			CU_ASSERT_EQUAL(pkt.xrcsrq, 0x000123);
		if (info->hdrs & SROCE_HDR_DETH) {
			CU_ASSERT_EQUAL(pkt.qkey, 0x80010000);
			CU_ASSERT_EQUAL(pkt.sqpn, 1);
		}
		if (info->hdrs & SROCE_HDR_RETH) {
			CU_ASSERT_EQUAL(pkt.va, 0x00007f0011223344ull);
			CU_ASSERT_EQUAL(pkt.rkey, 0x1234abcd);
			CU_ASSERT_EQUAL(pkt.dma_len, 65536);
		}
		if (info->hdrs & SROCE_HDR_ATMETH) {
			CU_ASSERT_EQUAL(pkt.va, 0x00007f0000001000ull);
			CU_ASSERT_EQUAL(pkt.rkey, 0x55aa55aa);
			CU_ASSERT_EQUAL(pkt.swap_add, 0x0102030405060708ull);
			CU_ASSERT_EQUAL(pkt.compare, 0x1112131415161718ull);
		}
		if (info->hdrs & SROCE_HDR_AETH) {
			CU_ASSERT_EQUAL(pkt.aeth_syndrome, 0x62);
			CU_ASSERT_EQUAL(pkt.msn, 7);
		}
		if (info->hdrs & SROCE_HDR_ATMACK)
			CU_ASSERT_EQUAL(pkt.atomic_orig, 0xfedcba9876543210ull);
		if (info->hdrs & SROCE_HDR_IMM)
			CU_ASSERT_EQUAL(pkt.imm, rte_cpu_to_be_32(0xdeadbeef));
		if (info->hdrs & SROCE_HDR_IETH)
			CU_ASSERT_EQUAL(pkt.ieth_rkey, 0x00c0ffee);
		/* empty payload with 2 pad bytes is fine; a PadCnt of 3 exceeds them */
		if (has_pl) {
			len = ut_frame_build(f, op, 0, 2);
			CU_ASSERT_EQUAL(pv_sroce_pkt_parse(f, len, 1, &pkt), 0);
			CU_ASSERT_EQUAL(pkt.payload_len, 0);
			f[SROCE_L2L4_HLEN + 1] |= 3 << SROCE_BTH_PAD_SHIFT;
			CU_ASSERT_EQUAL(pv_sroce_pkt_parse(f, len, 0, &pkt), -EBADMSG);
		}
	}
}

/* ---- wire structs ---- */

static void
test_wire_structs(void)
{
	uint8_t f[UT_MAX_FRAME];
	const struct sroce_bth *bth;
	const struct sroce_reth *reth;
	const struct sroce_atmeth *atm;
	const struct sroce_deth *deth;

	ut_frame_build(f, SROCE_OP_RC_WRITE_ONLY, 8, 0);
	bth = (const struct sroce_bth *)(f + SROCE_L2L4_HLEN);
	reth = (const struct sroce_reth *)(bth + 1);
	CU_ASSERT_EQUAL(bth->opcode, SROCE_OP_RC_WRITE_ONLY);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(bth->pkey), 0x8001);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(bth->qpn) & SROCE_QPN_MASK, 0xabcdef);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(bth->apsn), SROCE_BTH_ACKREQ | 0xfffffe);
	CU_ASSERT_EQUAL(rte_be_to_cpu_64(reth->va), 0x00007f0011223344ull);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(reth->rkey), 0x1234abcd);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(reth->dma_len), 65536);

	ut_frame_build(f, SROCE_OP_RC_CMP_SWAP, 0, 0);
	atm = (const struct sroce_atmeth *)(f + SROCE_L2L4_HLEN + SROCE_BTH_LEN);
	CU_ASSERT_EQUAL(rte_be_to_cpu_64(atm->swap_add), 0x0102030405060708ull);
	CU_ASSERT_EQUAL(rte_be_to_cpu_64(atm->compare), 0x1112131415161718ull);

	ut_frame_build(f, SROCE_OP_UD_SEND_ONLY, 0, 0);
	deth = (const struct sroce_deth *)(f + SROCE_L2L4_HLEN + SROCE_BTH_LEN);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(deth->qkey), 0x80010000);
}

/* ---- PSN arithmetic ---- */

static void
test_psn_helpers(void)
{
	CU_ASSERT_EQUAL(sroce_psn_add(0xffffff, 1), 0);
	CU_ASSERT_EQUAL(sroce_psn_add(0xfffffe, 5), 3);
	CU_ASSERT_EQUAL(sroce_psn_add(5, 0x1000000), 5);
	CU_ASSERT_EQUAL(sroce_psn_add(0x123456, 0), 0x123456);
	CU_ASSERT_EQUAL(sroce_psn_diff(0, 0xffffff), 1);
	CU_ASSERT_EQUAL(sroce_psn_diff(0xffffff, 0), -1);
	CU_ASSERT_EQUAL(sroce_psn_diff(3, 0xfffffe), 5);
	CU_ASSERT_EQUAL(sroce_psn_diff(0xfffffe, 3), -5);
	CU_ASSERT_EQUAL(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	CU_ASSERT_EQUAL(sroce_psn_diff(0x800000, 0), -0x800000);
	CU_ASSERT_EQUAL(sroce_psn_diff(0x123456, 0x123456), 0);
	CU_ASSERT(sroce_psn_before(0xffffff, 0));
	CU_ASSERT(!sroce_psn_before(0, 0xffffff));
	CU_ASSERT(!sroce_psn_before(7, 7));
}

/* ---- formatter ---- */

static void
test_format(void)
{
	uint8_t buf[UT_MAX_FRAME];
	char line[512], small[16];
	struct sroce_pkt pkt;
	uint32_t len;
	int n;

	/* the first ACK of the lab README's example exchange shape */
	len = ut_frame_get("rc_rnr.pcap", SROCE_OP_RC_ACK, buf);
	CU_ASSERT_FATAL(len > 0);
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), 0);
	n = pv_sroce_pkt_format(&pkt, line, sizeof(line));
	CU_ASSERT_EQUAL(n, (int)strlen(line));
	CU_ASSERT_STRING_EQUAL(line, "10.77.0.11:50241 > 10.77.0.12:4791 RC Acknowledge (0x11) "
			       "qpn 0x000021 psn 0x1dda0e ackreq 0 aeth 0x1f ACK credits 31 "
			       "msn 1 payload 0");
	/* truncation: snprintf semantics */
	CU_ASSERT_EQUAL(pv_sroce_pkt_format(&pkt, small, sizeof(small)), n);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(pv_sroce_pkt_format(&pkt, NULL, 0), n);

	len = ut_frame_build(buf, SROCE_OP_RC_ACK, 0, 0);
	CU_ASSERT_EQUAL_FATAL(pv_sroce_pkt_parse(buf, len, 1, &pkt), 0);
	pv_sroce_pkt_format(&pkt, line, sizeof(line));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, " aeth 0x62 NAK remote access error msn 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, " se pkey 0x8001"));

	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x1f), "ACK");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x2c), "RNR NAK");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x60), "NAK PSN sequence error");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x61), "NAK invalid request");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x63), "NAK remote operational error");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x65), "NAK reserved");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x40), "reserved");
	CU_ASSERT_STRING_EQUAL(pv_sroce_aeth_name(0x9f), "reserved");
}

static int ut_manifest_found;

/* a ut_case.when: the cases that read the capture corpus */
static int
ut_have_data(void)
{
	return ut_manifest_found;
}

static const struct ut_case ut_sroce_wire_cases[] = {
	{ "opcode_table", test_opcode_table },
	{ "wire_structs", test_wire_structs },
	{ "build_all_opcodes", test_build_all_opcodes },
	{ "psn_helpers", test_psn_helpers },
	{ "manifest_files_present", test_manifest_files_present, ut_have_data },
	{ "captures_scalar_crc", test_captures_scalar, ut_have_data },
	{ "captures_vector_crc", test_captures_vector, ut_have_data },
	{ "icrc_bit_flip", test_icrc_bit_flip, ut_have_data },
	{ "icrc_in_place_identical", test_icrc_in_place_identical, ut_have_data },
	{ "parse_truncated", test_parse_truncated, ut_have_data },
	{ "parse_malformed", test_parse_malformed, ut_have_data },
	{ "parse_not_roce", test_parse_not_roce, ut_have_data },
	{ "parse_vlan", test_parse_vlan, ut_have_data },
	{ "format", test_format, ut_have_data },
	{ NULL, NULL },
};

static const struct ut_suite ut_sroce_wire_suite = {
	.name = "sroce_wire",
	.cases = ut_sroce_wire_cases,
};

/* the same negative tests on the synthetic corpus, capture data or not */
static const struct ut_case ut_sroce_wire_synth_cases[] = {
	{ "icrc_bit_flip", test_icrc_bit_flip },
	{ "icrc_in_place_identical", test_icrc_in_place_identical },
	{ "parse_truncated", test_parse_truncated },
	{ "parse_malformed", test_parse_malformed },
	{ "parse_not_roce", test_parse_not_roce },
	{ "parse_vlan", test_parse_vlan },
	{ NULL, NULL },
};

static const struct ut_suite ut_sroce_wire_synth_suite = {
	.name = "sroce_wire_synthetic",
	.init = ut_synth_suite_init,
	.fini = ut_synth_suite_clean,
	.cases = ut_sroce_wire_synth_cases,
};

int
main(int argc, char **argv)
{
	char *eal_args[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "64", "--no-shconf",
		"--file-prefix=ut_sroce_wire", "--log-level=*:warning",
	};
	static const struct ut_suite *const suites[] = {
		&ut_sroce_wire_suite,
		&ut_sroce_wire_synth_suite,
	};
	int fails;

	if (argc > 1) {
		char path[512];

		ut_data_dir = argv[1];
		snprintf(path, sizeof(path), "%s/MANIFEST.md", ut_data_dir);
		ut_manifest = ut_file_read(path);
		ut_manifest_found = ut_manifest != NULL;
		if (!ut_manifest_found)
			fprintf(stderr, "%s: no capture corpus, its tests are skipped\n", path);
	}
	/* with EAL the vector CRC code is selectable too */
	ut_eal_ok = rte_eal_init(RTE_DIM(eal_args), eal_args) >= 0;
	pv_sroce_wire_init();

	fails = ut_cunit_run(suites, RTE_DIM(suites));
	free(ut_manifest);
	if (ut_eal_ok)
		rte_eal_cleanup();
	/* without the corpus its cases were skipped (said above); the rest ran */
	return fails;
}

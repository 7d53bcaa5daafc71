/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pv-roce-decode: decode the RoCEv2 frames of a pcap or pcapng file with the
 * softroce wire layer (the same parser and ICRC code the engine runs) and
 * check every ICRC. Needs no EAL, no hugepages and no privileges.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "sroce_wire.h"

struct decode_stats {
	uint64_t frames;
	uint64_t roce;
	uint64_t icrc_ok;
	uint64_t icrc_bad;
	uint64_t malformed;
};

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [-q] FILE\n"
		"Decode the RoCEv2 (Ethernet/IPv4/UDP 4791) frames of a pcap or pcapng file\n"
		"and verify their ICRC.\n"
		"  -q  print only the summary line\n"
		"  -h  this help\n"
		"Exit status: 0 all RoCEv2 frames well formed with a good ICRC, 1 some were\n"
		"not, 2 usage or file error.\n", prog);
}

/* one frame: decode it from a writable copy (the ICRC check masks fields in place) */
static void
decode_frame(const struct pcap_pkthdr *h, uint8_t *buf, int quiet, struct decode_stats *st)
{
	char line[512];
	struct sroce_pkt pkt;
	uint32_t calc;
	int ret;

	st->frames++;
	if (h->caplen < h->len) {
		st->malformed++;
		if (!quiet)
			printf("%" PRIu64 " malformed: captured %u of %u bytes\n", st->frames,
			       h->caplen, h->len);
		return;
	}
	ret = pv_sroce_pkt_parse(buf, h->caplen, 0, &pkt);
	if (ret == -ENOENT) {
		if (!quiet)
			printf("%" PRIu64 " not RoCEv2 (%u bytes)\n", st->frames, h->caplen);
		return;
	}
	if (ret != 0) {
		st->malformed++;
		if (!quiet)
			printf("%" PRIu64 " malformed RoCEv2 frame (%u bytes)\n", st->frames,
			       h->caplen);
		return;
	}
	st->roce++;
	calc = pv_sroce_icrc_calc(buf, pkt.frame_len - SROCE_ICRC_LEN);
	if (calc == pkt.icrc)
		st->icrc_ok++;
	else
		st->icrc_bad++;
	if (quiet)
		return;
	pv_sroce_pkt_format(&pkt, line, sizeof(line));
	if (calc == pkt.icrc)
		printf("%" PRIu64 " %s icrc 0x%08x ok\n", st->frames, line, pkt.icrc);
	else
		printf("%" PRIu64 " %s icrc 0x%08x BAD (computed 0x%08x)\n", st->frames, line,
		       pkt.icrc, calc);
}

int
main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct decode_stats st = { 0 };
	struct pcap_pkthdr *h;
	const u_char *data;
	uint8_t *buf = NULL;
	uint32_t buf_len = 0;
	int quiet = 0;
	pcap_t *pcap;
	int opt, ret;

	while ((opt = getopt(argc, argv, "qh")) != -1) {
		switch (opt) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr, argv[0]);
		return 2;
	}
	pcap = pcap_open_offline(argv[optind], errbuf);
	if (pcap == NULL) {
		fprintf(stderr, "%s: %s\n", argv[optind], errbuf);
		return 2;
	}
	if (pcap_datalink(pcap) != DLT_EN10MB) {
		fprintf(stderr, "%s: link type %s is not Ethernet\n", argv[optind],
			pcap_datalink_val_to_name(pcap_datalink(pcap)));
		pcap_close(pcap);
		return 2;
	}
	pv_sroce_wire_init();

	while ((ret = pcap_next_ex(pcap, &h, &data)) == 1) {
		if (h->caplen > buf_len) {
			uint8_t *nbuf = realloc(buf, h->caplen);

			if (nbuf == NULL) {
				fprintf(stderr, "out of memory for a %u-byte frame\n", h->caplen);
				ret = -3;
				break;
			}
			buf = nbuf;
			buf_len = h->caplen;
		}
		memcpy(buf, data, h->caplen);
		decode_frame(h, buf, quiet, &st);
	}
	if (ret == PCAP_ERROR)
		fprintf(stderr, "%s: %s\n", argv[optind], pcap_geterr(pcap));
	pcap_close(pcap);
	free(buf);

	printf("frames %" PRIu64 ", roce %" PRIu64 ", icrc_ok %" PRIu64 ", icrc_bad %" PRIu64
	       ", malformed %" PRIu64 "\n", st.frames, st.roce, st.icrc_ok, st.icrc_bad,
	       st.malformed);
	if (ret != PCAP_ERROR_BREAK)
		return 2;
	return st.icrc_bad != 0 || st.malformed != 0 ? 1 : 0;
}

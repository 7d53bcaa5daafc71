/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 wire layer: opcode table (IBTA vol. 1 9.2.1 table 38 and 9.3),
 * frame parser, ICRC (annex A17) and a one-line formatter.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_net_crc.h>
#include <rte_ip.h>
#include <rte_vect.h>

#include "sroce_wire.h"

#define ETHERTYPE_IPV4		SROCE_ETHERTYPE_IPV4
#define ETHERTYPE_IPV6		SROCE_ETHERTYPE_IPV6
#define ETHERTYPE_VLAN		SROCE_ETHERTYPE_VLAN
#define IPPROTO_UDP_NUM		17
#define IPV4_FRAG_MF		0x2000
#define IPV4_FRAG_OFF_MASK	0x1fff

/* initializer helpers for the opcode table: header bytes follow the flags */
#define OP(n, h, f) { .name = (n), .hdrs = (h), .flags = (f), .hdr_len = SROCE_BTH_LEN + \
	(((h) & SROCE_HDR_RETH) ? SROCE_RETH_LEN : 0) + \
	(((h) & SROCE_HDR_AETH) ? SROCE_AETH_LEN : 0) + \
	(((h) & SROCE_HDR_IMM) ? SROCE_IMM_LEN : 0) + \
	(((h) & SROCE_HDR_ATMETH) ? SROCE_ATMETH_LEN : 0) + \
	(((h) & SROCE_HDR_ATMACK) ? SROCE_ATMACK_LEN : 0) + \
	(((h) & SROCE_HDR_DETH) ? SROCE_DETH_LEN : 0) + \
	(((h) & SROCE_HDR_IETH) ? SROCE_IETH_LEN : 0) + \
	(((h) & SROCE_HDR_XRCETH) ? SROCE_XRCETH_LEN : 0) }

#define H_PL	SROCE_HDR_PAYLOAD
#define F_RQ	SROCE_OPF_REQ
#define F_SEND	(SROCE_OPF_REQ | SROCE_OPF_SEND)
#define F_WRITE	(SROCE_OPF_REQ | SROCE_OPF_WRITE)
#define F_RRESP	(SROCE_OPF_RESP | SROCE_OPF_READ)

/*
 * SEND and RDMA WRITE opcodes are laid out identically for RC (0x00), UC
 * (0x20) and XRC (0xa0); @p x is the header every request of the transport
 * carries after the BTH (XRC: the XRCETH, IBTA 9.2.3), 0 otherwise.
 */
#define SEND_WRITE_OPS(base, t, x) \
	[(base) + 0x00] = OP(t " SEND First", H_PL | (x), F_SEND | SROCE_OPF_FIRST), \
	[(base) + 0x01] = OP(t " SEND Middle", H_PL | (x), F_SEND | SROCE_OPF_MIDDLE), \
	[(base) + 0x02] = OP(t " SEND Last", H_PL | (x), F_SEND | SROCE_OPF_LAST), \
	[(base) + 0x03] = OP(t " SEND Last with Immediate", H_PL | SROCE_HDR_IMM | (x), \
			     F_SEND | SROCE_OPF_LAST | SROCE_OPF_IMM), \
	[(base) + 0x04] = OP(t " SEND Only", H_PL | (x), F_SEND | SROCE_OPF_ONLY), \
	[(base) + 0x05] = OP(t " SEND Only with Immediate", H_PL | SROCE_HDR_IMM | (x), \
			     F_SEND | SROCE_OPF_ONLY | SROCE_OPF_IMM), \
	[(base) + 0x06] = OP(t " RDMA WRITE First", H_PL | SROCE_HDR_RETH | (x), \
			     F_WRITE | SROCE_OPF_FIRST), \
	[(base) + 0x07] = OP(t " RDMA WRITE Middle", H_PL | (x), F_WRITE | SROCE_OPF_MIDDLE), \
	[(base) + 0x08] = OP(t " RDMA WRITE Last", H_PL | (x), F_WRITE | SROCE_OPF_LAST), \
	[(base) + 0x09] = OP(t " RDMA WRITE Last with Immediate", H_PL | SROCE_HDR_IMM | (x), \
			     F_WRITE | SROCE_OPF_LAST | SROCE_OPF_IMM), \
	[(base) + 0x0a] = OP(t " RDMA WRITE Only", H_PL | SROCE_HDR_RETH | (x), \
			     F_WRITE | SROCE_OPF_ONLY), \
	[(base) + 0x0b] = OP(t " RDMA WRITE Only with Immediate", \
			     H_PL | SROCE_HDR_RETH | SROCE_HDR_IMM | (x), \
			     F_WRITE | SROCE_OPF_ONLY | SROCE_OPF_IMM)

/* the reliable transports' READ, ACK, atomic and invalidate opcodes (RC, XRC) */
#define RELIABLE_OPS(base, t, x) \
	[(base) + 0x0c] = OP(t " RDMA READ Request", SROCE_HDR_RETH | (x), \
			     F_RQ | SROCE_OPF_READ | SROCE_OPF_ONLY), \
	[(base) + 0x0d] = OP(t " RDMA READ Response First", H_PL | SROCE_HDR_AETH, \
			     F_RRESP | SROCE_OPF_FIRST), \
	[(base) + 0x0e] = OP(t " RDMA READ Response Middle", H_PL, \
			     F_RRESP | SROCE_OPF_MIDDLE), \
	[(base) + 0x0f] = OP(t " RDMA READ Response Last", H_PL | SROCE_HDR_AETH, \
			     F_RRESP | SROCE_OPF_LAST), \
	[(base) + 0x10] = OP(t " RDMA READ Response Only", H_PL | SROCE_HDR_AETH, \
			     F_RRESP | SROCE_OPF_ONLY), \
	[(base) + 0x11] = OP(t " Acknowledge", SROCE_HDR_AETH, \
			     SROCE_OPF_RESP | SROCE_OPF_ACK | SROCE_OPF_ONLY), \
	[(base) + 0x12] = OP(t " ATOMIC Acknowledge", SROCE_HDR_AETH | SROCE_HDR_ATMACK, \
			     SROCE_OPF_RESP | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY), \
	[(base) + 0x13] = OP(t " CmpSwap", SROCE_HDR_ATMETH | (x), \
			     F_RQ | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY), \
	[(base) + 0x14] = OP(t " FetchAdd", SROCE_HDR_ATMETH | (x), \
			     F_RQ | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY), \
	[(base) + 0x16] = OP(t " SEND Last with Invalidate", H_PL | SROCE_HDR_IETH | (x), \
			     F_SEND | SROCE_OPF_LAST | SROCE_OPF_INV), \
	[(base) + 0x17] = OP(t " SEND Only with Invalidate", H_PL | SROCE_HDR_IETH | (x), \
			     F_SEND | SROCE_OPF_ONLY | SROCE_OPF_INV)

const struct sroce_opcode_info pv_sroce_opcode_info[256] = {
	SEND_WRITE_OPS(SROCE_OP_RC, "RC", 0),
	RELIABLE_OPS(SROCE_OP_RC, "RC", 0),
	SEND_WRITE_OPS(SROCE_OP_UC, "UC", 0),
	[SROCE_OP_UD_SEND_ONLY] = OP("UD SEND Only", H_PL | SROCE_HDR_DETH,
				     F_SEND | SROCE_OPF_ONLY),
	[SROCE_OP_UD_SEND_ONLY_IMM] = OP("UD SEND Only with Immediate",
					 H_PL | SROCE_HDR_DETH | SROCE_HDR_IMM,
					 F_SEND | SROCE_OPF_ONLY | SROCE_OPF_IMM),
	SEND_WRITE_OPS(SROCE_OP_XRC, "XRC", SROCE_HDR_XRCETH),
	RELIABLE_OPS(SROCE_OP_XRC, "XRC", SROCE_HDR_XRCETH),
};

/* unaligned big-endian loads: the offsets we read are not aligned in general */
static inline uint16_t
sroce_rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline uint32_t
sroce_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static inline uint64_t
sroce_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_64(v);
}

/* ones' complement sum of an IPv4 header in network order (the unit tests
 * build checksums with it; the parser checks with rte_raw_cksum()) */
static inline __rte_unused uint32_t
sroce_ipv4_hdr_sum(const uint8_t *ip, uint32_t ihl)
{
	uint32_t sum = 0;
	uint32_t i;

	for (i = 0; i < ihl; i += 2)
		sum += sroce_rd16(ip + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static pthread_once_t sroce_crc_once = PTHREAD_ONCE_INIT;
static int sroce_crc_ready;

static void
sroce_crc_alg_select(void)
{
	/* AVX512 falls back to SSE4.2/PCLMULQDQ, then to the table-driven code.
	 * The vector variants are allowed by EAL's max SIMD bitwidth, which is 0
	 * before rte_eal_init(): then ask for scalar directly, which DPDK does
	 * without logging that the others are unavailable (tools run without EAL).
	 */
	uint16_t simd = rte_vect_get_max_simd_bitwidth();

	if (simd < RTE_VECT_SIMD_128) {
		rte_net_crc_set_alg(RTE_NET_CRC_SCALAR);
	} else if (simd >= RTE_VECT_SIMD_512 ||
		   rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) != 0) {
		/* allowed as is, or the user forced a limit (EPERM): keep it */
		rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
	} else {
		/* EAL's default limit (256) keeps AVX-512 off for everyone; the
		 * ICRC runs over every byte sent and received, and the AVX-512
		 * folding is 2-3 times faster than SSE4.2 (a 64 KiB write_bw at
		 * MTU 4096: 19 -> 42 Gb/s per CPU second). Raise the limit just
		 * for this choice and put it back; --force-max-simd-bitwidth=256
		 * on the EAL command line opts out.
		 */
		rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
		(void)rte_vect_set_max_simd_bitwidth(simd);
	}
	__atomic_store_n(&sroce_crc_ready, 1, __ATOMIC_RELEASE);
}

void
pv_sroce_wire_init(void)
{
	/* rte_net_crc_set_alg() briefly clears DPDK's handler table: it must not
	 * run while another thread computes a CRC, hence exactly once
	 */
	pthread_once(&sroce_crc_once, sroce_crc_alg_select);
}

#ifdef RTE_ARCH_X86
/*
 * The ICRC of an IPv4 frame without IP options (every frame softroce and rxe
 * send): the masked fields all lie in the 48 bytes from the LRH stand-in to
 * the end of the BTH, which are masked with three 16-byte OR stores, put
 * back with three 16-byte stores after the CRC. Storing the mask byte by
 * byte (the generic code below) makes the CRC's first 16-byte loads wait
 * for those narrow stores to retire (no store forwarding from several
 * stores into one load): a sixth of the 8-byte ping-pong's cycles went
 * there (issue 16, bench_sroce_rtt). Byte offsets from start = ip - 8:
 * 0-7 LRH, 9 TOS, 16 TTL, 18-19 IP checksum, 34-35 UDP checksum, 40 BTH
 * resv8a (annex A17.8).
 */
static inline uint32_t
sroce_icrc_calc_v4(uint8_t *start, uint32_t len)
{
	__m128i a = _mm_loadu_si128((const __m128i *)start);
	__m128i b = _mm_loadu_si128((const __m128i *)(start + 16));
	__m128i c = _mm_loadu_si128((const __m128i *)(start + 32));
	uint32_t crc;

	_mm_storeu_si128((__m128i *)start,
			 _mm_or_si128(a, _mm_set_epi8(0, 0, 0, 0, 0, 0, -1, 0, -1, -1, -1, -1,
						      -1, -1, -1, -1)));
	_mm_storeu_si128((__m128i *)(start + 16),
			 _mm_or_si128(b, _mm_set_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1,
						      -1, 0, -1)));
	_mm_storeu_si128((__m128i *)(start + 32),
			 _mm_or_si128(c, _mm_set_epi8(0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1,
						      -1, 0, 0)));
	crc = rte_net_crc_calc(start, len, RTE_NET_CRC32_ETH);
	_mm_storeu_si128((__m128i *)start, a);
	_mm_storeu_si128((__m128i *)(start + 16), b);
	_mm_storeu_si128((__m128i *)(start + 32), c);
	return crc;
}
#endif

uint32_t
pv_sroce_icrc_calc(uint8_t *frame, uint32_t len_without_icrc)
{
	uint32_t l3 = SROCE_ETH_HLEN;
	uint8_t *ip, *udp, *bth, *start;
	uint8_t save_lrh[8], save_ip[4], save_ttl, save_resv8a;
	uint8_t save_ipsum[2], save_udpsum[2];
	uint32_t crc;
	int v6;

	if (unlikely(__atomic_load_n(&sroce_crc_ready, __ATOMIC_ACQUIRE) == 0))
		pv_sroce_wire_init();
	if (sroce_rd16(frame + 12) == ETHERTYPE_VLAN)
		l3 += SROCE_VLAN_HLEN;
	v6 = sroce_rd16(frame + l3 - 2) == ETHERTYPE_IPV6;
	ip = frame + l3;
#ifdef RTE_ARCH_X86
	/* ihl 5; the span is at least LRH + IPv4 + UDP + BTH (48 bytes) */
	if (likely(!v6 && ip[0] == 0x45 && len_without_icrc >= l3 + 40))
		return sroce_icrc_calc_v4(ip - 8, len_without_icrc - l3 + 8);
#endif
	udp = v6 ? ip + SROCE_IPV6_HLEN : ip + (ip[0] & 0x0f) * 4;
	bth = udp + SROCE_UDP_HLEN;
	/* the 8 bytes of ones stand in for the LRH (annex A17.8); they overlay
	 * the end of the Ethernet header so the CRC runs over one contiguous span
	 */
	start = ip - 8;
	memcpy(save_lrh, start, 8);
	memcpy(save_ip, ip, 4);
	memcpy(save_udpsum, udp + 6, 2);
	save_resv8a = bth[4];
	memset(start, 0xff, 8);
	if (v6) {
		/* traffic class and flow label (the version nibble stays), hop limit */
		save_ttl = ip[7];
		ip[0] |= 0x0f;
		ip[1] = 0xff;
		ip[2] = 0xff;
		ip[3] = 0xff;
		ip[7] = 0xff;
	} else {
		/* TOS, TTL, header checksum */
		save_ttl = ip[8];
		memcpy(save_ipsum, ip + 10, 2);
		ip[1] = 0xff;
		ip[8] = 0xff;
		ip[10] = 0xff;
		ip[11] = 0xff;
	}
	udp[6] = 0xff;
	udp[7] = 0xff;
	bth[4] = 0xff;

	crc = rte_net_crc_calc(start, len_without_icrc - l3 + 8, RTE_NET_CRC32_ETH);

	memcpy(start, save_lrh, 8);
	memcpy(ip, save_ip, 4);
	if (v6) {
		ip[7] = save_ttl;
	} else {
		ip[8] = save_ttl;
		memcpy(ip + 10, save_ipsum, 2);
	}
	memcpy(udp + 6, save_udpsum, 2);
	bth[4] = save_resv8a;
	return crc;
}

void
pv_sroce_icrc_set(uint8_t *frame, uint32_t len_with_icrc)
{
	uint32_t len = len_with_icrc - SROCE_ICRC_LEN;
	/* rxe and RoCE HCAs put the CRC register value on the wire LSB first */
	uint32_t icrc = rte_cpu_to_le_32(pv_sroce_icrc_calc(frame, len));

	memcpy(frame + len, &icrc, sizeof(icrc));
}

int
pv_sroce_icrc_check(uint8_t *frame, uint32_t len_with_icrc)
{
	uint32_t len = len_with_icrc - SROCE_ICRC_LEN;
	uint32_t wire;

	memcpy(&wire, frame + len, sizeof(wire));
	if (rte_le_to_cpu_32(wire) != pv_sroce_icrc_calc(frame, len))
		return -EILSEQ;
	return 0;
}

static int sroce_pkt_parse6(const uint8_t *frame, uint32_t len, uint32_t l3, int verify_icrc,
			    struct sroce_pkt *pkt);
static inline int sroce_pkt_parse_l4(const uint8_t *frame, uint32_t l3, const uint8_t *udp,
				     uint32_t udp_len, int verify_icrc, struct sroce_pkt *pkt);

int
pv_sroce_pkt_parse(const uint8_t *frame, uint32_t len, int verify_icrc,
		   struct sroce_pkt *pkt)
{
	const uint8_t *ip, *udp;
	uint32_t l3 = SROCE_ETH_HLEN;
	uint32_t ihl, tot_len, udp_len;
	uint16_t ethertype, frag;

	if (unlikely(len < SROCE_ETH_HLEN))
		return -EBADMSG;
	pkt->frame = frame;
	pkt->vlan_tci = 0;
	ethertype = sroce_rd16(frame + 12);
	if (unlikely(ethertype == ETHERTYPE_VLAN)) {
		if (len < SROCE_ETH_HLEN + SROCE_VLAN_HLEN)
			return -EBADMSG;
		pkt->vlan_tci = sroce_rd16(frame + 14);
		ethertype = sroce_rd16(frame + 16);
		l3 += SROCE_VLAN_HLEN;
	}
	if (ethertype == ETHERTYPE_IPV6)
		return sroce_pkt_parse6(frame, len, l3, verify_icrc, pkt);
	if (ethertype != ETHERTYPE_IPV4)
		return -ENOENT;

	/* IPv4 */
	ip = frame + l3;
	if (unlikely(len < l3 + SROCE_IPV4_HLEN))
		return -EBADMSG;
	ihl = (ip[0] & 0x0f) * 4;
	if (unlikely((ip[0] >> 4) != 4 || ihl < SROCE_IPV4_HLEN || len < l3 + ihl))
		return -EBADMSG;
	if (ip[9] != IPPROTO_UDP_NUM)
		return -ENOENT;
	frag = sroce_rd16(ip + 6);
	if (unlikely(frag & IPV4_FRAG_OFF_MASK))
		return -ENOENT;		/* a later fragment: no UDP header to look at */
	if (unlikely(len < l3 + ihl + SROCE_UDP_HLEN))
		return -EBADMSG;
	udp = ip + ihl;
	if (sroce_rd16(udp + 2) != SROCE_UDP_PORT)
		return -ENOENT;
	/* from here on it is addressed to RoCEv2: any defect is malformed */
	if (unlikely(frag & IPV4_FRAG_MF))
		return -EBADMSG;
	/* ones' complement sum in host order: 0xffff either way when right */
	if (unlikely(rte_raw_cksum(ip, ihl) != 0xffff))
		return -EBADMSG;
	tot_len = sroce_rd16(ip + 2);
	udp_len = sroce_rd16(udp + 4);
	if (unlikely(tot_len > len - l3 || tot_len < ihl + SROCE_UDP_HLEN ||
		     udp_len != tot_len - ihl ||
		     udp_len < SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN))
		return -EBADMSG;
	pkt->ip_ver = 4;
	pkt->tos = ip[1];
	pkt->ttl = ip[8];
	pkt->sip = sroce_rd32(ip + 12);
	pkt->dip = sroce_rd32(ip + 16);
	return sroce_pkt_parse_l4(frame, l3, udp, udp_len, verify_icrc, pkt);
}

/* IPv6 at @p l3 (no extension header: rxe and RoCE NICs send none) */
static int
sroce_pkt_parse6(const uint8_t *frame, uint32_t len, uint32_t l3, int verify_icrc,
		 struct sroce_pkt *pkt)
{
	const uint8_t *ip = frame + l3, *udp;
	uint32_t plen, udp_len, w;

	if (unlikely(len < l3 + SROCE_IPV6_HLEN))
		return -EBADMSG;
	if (unlikely((ip[0] >> 4) != 6))
		return -EBADMSG;
	if (ip[6] != IPPROTO_UDP_NUM)
		return -ENOENT;		/* ICMPv6 (neighbour discovery), extension headers */
	if (unlikely(len < l3 + SROCE_IPV6_HLEN + SROCE_UDP_HLEN))
		return -EBADMSG;
	udp = ip + SROCE_IPV6_HLEN;
	if (sroce_rd16(udp + 2) != SROCE_UDP_PORT)
		return -ENOENT;
	plen = sroce_rd16(ip + 4);
	udp_len = sroce_rd16(udp + 4);
	if (unlikely(plen > len - l3 - SROCE_IPV6_HLEN || udp_len != plen ||
		     udp_len < SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN))
		return -EBADMSG;
	w = sroce_rd32(ip);
	pkt->ip_ver = 6;
	pkt->tos = (w >> 20) & 0xff;
	pkt->flow_label = w & 0xfffff;
	pkt->ttl = ip[7];
	pkt->sip = 0;
	pkt->dip = 0;
	memcpy(pkt->sip6, ip + 8, 16);
	memcpy(pkt->dip6, ip + 24, 16);
	return sroce_pkt_parse_l4(frame, l3, udp, udp_len, verify_icrc, pkt);
}

/*
 * UDP (dport checked) at @p udp of @p udp_len bytes, BTH, extension headers.
 * Always inlined: the IPv4 parse stays one function, as before IPv6 came.
 */
static __rte_always_inline int
sroce_pkt_parse_l4(const uint8_t *frame, uint32_t l3, const uint8_t *udp, uint32_t udp_len,
		   int verify_icrc, struct sroce_pkt *pkt)
{
	const struct sroce_opcode_info *info;
	const uint8_t *bth, *h;
	uint32_t ib_len, rest, w;

	/* BTH */
	bth = udp + SROCE_UDP_HLEN;
	info = &pv_sroce_opcode_info[bth[0]];
	if (unlikely(info->name == NULL || (bth[1] & SROCE_BTH_TVER_MASK) != 0))
		return -EBADMSG;
	ib_len = udp_len - SROCE_UDP_HLEN;
	if (unlikely(ib_len < (uint32_t)info->hdr_len + SROCE_ICRC_LEN))
		return -EBADMSG;
	rest = ib_len - info->hdr_len - SROCE_ICRC_LEN;	/* payload + pad */
	pkt->pad = (bth[1] & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	if (unlikely(pkt->pad > rest ||
		     (rest != 0 && !(info->hdrs & SROCE_HDR_PAYLOAD))))
		return -EBADMSG;

	pkt->frame_len = (udp - frame) + udp_len;
	pkt->l3_off = l3;
	pkt->bth_off = bth - frame;
	memcpy(pkt->dmac, frame, 6);
	memcpy(pkt->smac, frame + 6, 6);
	pkt->sport = sroce_rd16(udp);
	pkt->dport = SROCE_UDP_PORT;

	pkt->opcode = bth[0];
	pkt->se = !!(bth[1] & SROCE_BTH_SE);
	pkt->mig = !!(bth[1] & SROCE_BTH_MIG);
	pkt->tver = 0;
	pkt->pkey = sroce_rd16(bth + 2);
	w = sroce_rd32(bth + 4);
	pkt->fecn = !!(w & SROCE_BTH_FECN);
	pkt->becn = !!(w & SROCE_BTH_BECN);
	pkt->dqpn = w & SROCE_QPN_MASK;
	w = sroce_rd32(bth + 8);
	pkt->ackreq = !!(w & SROCE_BTH_ACKREQ);
	pkt->psn = w & SROCE_PSN_MASK;

	/* extension headers, in the order of vol. 1 9.2 */
	h = bth + SROCE_BTH_LEN;
	if (info->hdrs & SROCE_HDR_DETH) {
		pkt->qkey = sroce_rd32(h);
		pkt->sqpn = sroce_rd32(h + 4) & SROCE_QPN_MASK;
		h += SROCE_DETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_XRCETH) {
		pkt->xrcsrq = sroce_rd32(h) & SROCE_QPN_MASK;
		h += SROCE_XRCETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_RETH) {
		pkt->va = sroce_rd64(h);
		pkt->rkey = sroce_rd32(h + 8);
		pkt->dma_len = sroce_rd32(h + 12);
		h += SROCE_RETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_ATMETH) {
		pkt->va = sroce_rd64(h);
		pkt->rkey = sroce_rd32(h + 8);
		pkt->swap_add = sroce_rd64(h + 12);
		pkt->compare = sroce_rd64(h + 20);
		h += SROCE_ATMETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_AETH) {
		w = sroce_rd32(h);
		pkt->aeth_syndrome = w >> 24;
		pkt->msn = w & SROCE_PSN_MASK;
		h += SROCE_AETH_LEN;
	}
	if (info->hdrs & SROCE_HDR_ATMACK) {
		pkt->atomic_orig = sroce_rd64(h);
		h += SROCE_ATMACK_LEN;
	}
	if (info->hdrs & SROCE_HDR_IMM) {
		memcpy(&pkt->imm, h, sizeof(pkt->imm));
		h += SROCE_IMM_LEN;
	}
	if (info->hdrs & SROCE_HDR_IETH) {
		pkt->ieth_rkey = sroce_rd32(h);
		h += SROCE_IETH_LEN;
	}
	pkt->payload_off = h - frame;
	pkt->payload_len = rest - pkt->pad;
	memcpy(&w, frame + pkt->frame_len - SROCE_ICRC_LEN, sizeof(w));
	pkt->icrc = rte_le_to_cpu_32(w);

	if (verify_icrc) {
		/* documented: the caller hands us writable memory in this mode */
		uint8_t *wframe = (uint8_t *)(uintptr_t)frame;

		if (pv_sroce_icrc_calc(wframe, pkt->frame_len - SROCE_ICRC_LEN) != pkt->icrc)
			return -EILSEQ;
	}
	return 0;
}

const char *
pv_sroce_aeth_name(uint8_t syndrome)
{
	static const char *const nak[] = {
		[SROCE_NAK_PSN_SEQ_ERR] = "NAK PSN sequence error",
		[SROCE_NAK_INV_REQ] = "NAK invalid request",
		[SROCE_NAK_REM_ACCESS] = "NAK remote access error",
		[SROCE_NAK_REM_OP] = "NAK remote operational error",
		[SROCE_NAK_INV_RD_REQ] = "NAK invalid RD request",
	};
	uint8_t value = syndrome & SROCE_AETH_VALUE_MASK;

	if (syndrome & 0x80)
		return "reserved";
	switch (syndrome & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_ACK:
		return "ACK";
	case SROCE_AETH_RNR_NAK:
		return "RNR NAK";
	case SROCE_AETH_NAK:
		return value < RTE_DIM(nak) ? nak[value] : "NAK reserved";
	default:
		return "reserved";
	}
}

static int
sroce_fmt_ip(char *buf, size_t len, uint32_t ip, uint16_t port)
{
	return snprintf(buf, len, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 0xff,
			(ip >> 8) & 0xff, ip & 0xff, port);
}

/* [addr]:port, RFC 5952 text (inet_ntop) */
static int
sroce_fmt_ip6(char *buf, size_t len, const uint8_t ip6[16], uint16_t port)
{
	char a[INET6_ADDRSTRLEN];

	if (inet_ntop(AF_INET6, ip6, a, sizeof(a)) == NULL)
		snprintf(a, sizeof(a), "?");
	return snprintf(buf, len, "[%s]:%u", a, port);
}

/* snprintf into buf at *off, keeping *off the would-be length like snprintf does */
#define SROCE_FMT(buf, len, off, ...) do { \
	size_t avail_ = (off) < (len) ? (len) - (off) : 0; \
	int n_ = snprintf(avail_ ? (buf) + (off) : NULL, avail_, __VA_ARGS__); \
	if (n_ > 0) \
		(off) += n_; \
} while (0)

int
pv_sroce_pkt_format(const struct sroce_pkt *pkt, char *buf, size_t len)
{
	const struct sroce_opcode_info *info = &pv_sroce_opcode_info[pkt->opcode];
	char src[64], dst[64];
	size_t off = 0;

	if (pkt->ip_ver == 6) {
		sroce_fmt_ip6(src, sizeof(src), pkt->sip6, pkt->sport);
		sroce_fmt_ip6(dst, sizeof(dst), pkt->dip6, pkt->dport);
	} else {
		sroce_fmt_ip(src, sizeof(src), pkt->sip, pkt->sport);
		sroce_fmt_ip(dst, sizeof(dst), pkt->dip, pkt->dport);
	}
	SROCE_FMT(buf, len, off, "%s > %s %s (0x%02x) qpn 0x%06x psn 0x%06x ackreq %u",
		  src, dst, info->name != NULL ? info->name : "invalid", pkt->opcode,
		  pkt->dqpn, pkt->psn, pkt->ackreq);
	if (pkt->se)
		SROCE_FMT(buf, len, off, " se");
	if (pkt->mig)
		SROCE_FMT(buf, len, off, " mig");
	if (pkt->fecn || pkt->becn)
		SROCE_FMT(buf, len, off, " fecn %u becn %u", pkt->fecn, pkt->becn);
	if (pkt->pad)
		SROCE_FMT(buf, len, off, " pad %u", pkt->pad);
	if (pkt->pkey != SROCE_DEFAULT_PKEY)
		SROCE_FMT(buf, len, off, " pkey 0x%04x", pkt->pkey);
	if (info->hdrs & SROCE_HDR_DETH)
		SROCE_FMT(buf, len, off, " deth qkey 0x%08x sqpn 0x%06x", pkt->qkey, pkt->sqpn);
	if (info->hdrs & SROCE_HDR_XRCETH)
		SROCE_FMT(buf, len, off, " xrceth srq 0x%06x", pkt->xrcsrq);
	if (info->hdrs & SROCE_HDR_RETH)
		SROCE_FMT(buf, len, off, " reth va 0x%" PRIx64 " rkey 0x%08x len %u",
			  pkt->va, pkt->rkey, pkt->dma_len);
	if (info->hdrs & SROCE_HDR_ATMETH)
		SROCE_FMT(buf, len, off,
			  " atmeth va 0x%" PRIx64 " rkey 0x%08x swap_add 0x%" PRIx64
			  " compare 0x%" PRIx64, pkt->va, pkt->rkey, pkt->swap_add, pkt->compare);
	if (info->hdrs & SROCE_HDR_AETH) {
		uint8_t syn = pkt->aeth_syndrome;
		uint8_t value = syn & SROCE_AETH_VALUE_MASK;

		SROCE_FMT(buf, len, off, " aeth 0x%02x %s", syn, pv_sroce_aeth_name(syn));
		if ((syn & (0x80 | SROCE_AETH_TYPE_MASK)) == SROCE_AETH_ACK)
			SROCE_FMT(buf, len, off, " credits %u", value);
		else if ((syn & (0x80 | SROCE_AETH_TYPE_MASK)) == SROCE_AETH_RNR_NAK)
			SROCE_FMT(buf, len, off, " timer %u", value);
		SROCE_FMT(buf, len, off, " msn %u", pkt->msn);
	}
	if (info->hdrs & SROCE_HDR_ATMACK)
		SROCE_FMT(buf, len, off, " orig 0x%" PRIx64, pkt->atomic_orig);
	if (info->hdrs & SROCE_HDR_IMM)
		SROCE_FMT(buf, len, off, " imm 0x%08x", rte_be_to_cpu_32(pkt->imm));
	if (info->hdrs & SROCE_HDR_IETH)
		SROCE_FMT(buf, len, off, " ieth rkey 0x%08x", pkt->ieth_rkey);
	SROCE_FMT(buf, len, off, " payload %u", pkt->payload_len);
	return off;
}

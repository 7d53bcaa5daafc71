/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Helpers of the softroce fuzz targets (fuzz_sroce_*.c). */

#ifndef PV_TEST_FUZZ_FUZZ_SROCE_H
#define PV_TEST_FUZZ_FUZZ_SROCE_H

#include <stdint.h>

#include <rte_common.h>

#include "sroce_wire.h"

#define PV_FUZZ_FRAME_MAX 9000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Make an IPv4/UDP/RoCE frame of @p len bytes consistent after a mutation:
 * IPv4 total length, header checksum and UDP length from @p len, then the
 * ICRC over the result. Frames too short for a BTH and an ICRC, or not
 * IPv4 (after an optional VLAN tag), are left alone.
 */
static inline void
pv_fuzz_frame_fix(uint8_t *frame, uint32_t len)
{
	uint32_t l3 = SROCE_ETH_HLEN, ihl, sum = 0, i;
	uint8_t *ip, *udp;

	if (len >= 18 && frame[12] == 0x81 && frame[13] == 0x00)
		l3 += 4;
	if (len < l3 + SROCE_IPV4_HLEN)
		return;
	ip = frame + l3;
	ihl = (ip[0] & 0xf) * 4u;
	if (ihl < SROCE_IPV4_HLEN ||
	    len < l3 + ihl + SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return;
	ip[2] = (uint8_t)((len - l3) >> 8);
	ip[3] = (uint8_t)(len - l3);
	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i < ihl; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	udp = ip + ihl;
	udp[4] = (uint8_t)((len - l3 - ihl) >> 8);
	udp[5] = (uint8_t)(len - l3 - ihl);
	pv_sroce_icrc_set(frame, len);
}

#endif /* PV_TEST_FUZZ_FUZZ_SROCE_H */

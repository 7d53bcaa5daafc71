/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * libFuzzer target: pv_sroce_pkt_parse() on arbitrary frames. The first
 * input byte chooses the mode: bit 0 re-computes the ICRC (and the IPv4
 * checksum) of what follows so mutations reach the header checks behind the
 * ICRC; bit 1 parses without the ICRC check. A successful parse must
 * describe a payload inside the frame.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_sroce.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[PV_FUZZ_FRAME_MAX];
	struct sroce_pkt pkt;
	uint8_t mode;
	size_t len;

	if (size < 1)
		return 0;
	mode = data[0];
	len = RTE_MIN(size - 1, sizeof(frame));
	memcpy(frame, data + 1, len);
	if (mode & 1)
		pv_fuzz_frame_fix(frame, (uint32_t)len);
	if (pv_sroce_pkt_parse(frame, (uint32_t)len, !(mode & 2), &pkt) == 0) {
		if ((uint32_t)pkt.payload_off + pkt.payload_len > len)
			abort();	/* a payload outside the frame */
		if (pkt.bth_off + SROCE_BTH_LEN > len)
			abort();
	}
	return 0;
}

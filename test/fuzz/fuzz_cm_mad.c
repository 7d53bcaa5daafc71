/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * libFuzzer target: the CM MAD codec (lib/cm/cm_mad.c) on arbitrary bytes.
 * Whatever pv_cm_mad_decode() accepts must encode, and the encoded MAD
 * must decode to the same message and encode to the same bytes (a round
 * trip loses nothing but reserved bits). The same for pv_cma_hdr_decode(),
 * on the input itself and on the private data of a decoded REQ/SIDR_REQ.
 * The input is copied to a buffer of its own size, so that ASan sees a
 * read past @p size.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mad.h"

static void
fuzz_cma_hdr(const uint8_t *buf, size_t len)
{
	struct pv_cma_hdr h, h2;
	uint8_t enc[PV_CMA_HDR_SIZE];

	memset(&h, 0, sizeof(h));
	if (pv_cma_hdr_decode(buf, len, &h) != 0)
		return;
	if (pv_cma_hdr_encode(&h, enc) != 0)
		abort();	/* a decoded header that does not encode */
	memset(&h2, 0, sizeof(h2));
	if (pv_cma_hdr_decode(enc, sizeof(enc), &h2) != 0 || memcmp(&h, &h2, sizeof(h)) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[PV_MAD_SIZE], mad2[PV_MAD_SIZE];
	struct pv_cm_msg m, m2;
	uint8_t *in;

	in = malloc(size != 0 ? size : 1);
	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	fuzz_cma_hdr(in, size);
	if (pv_cm_mad_decode(in, size, &m) == 0) {
		if (pv_cm_mad_encode(&m, mad) != 0)
			abort();	/* a decoded message that does not encode */
		if (pv_cm_mad_decode(mad, sizeof(mad), &m2) != 0)
			abort();
		if (memcmp(&m, &m2, sizeof(m)) != 0)
			abort();	/* the round trip changed a field */
		if (pv_cm_mad_encode(&m2, mad2) != 0 || memcmp(mad, mad2, sizeof(mad)) != 0)
			abort();
		if (m.hdr.attr_id == PV_CM_ATTR_REQ)
			fuzz_cma_hdr(m.req.private_data, sizeof(m.req.private_data));
		else if (m.hdr.attr_id == PV_CM_ATTR_SIDR_REQ)
			fuzz_cma_hdr(m.sidr_req.private_data, sizeof(m.sidr_req.private_data));
	}
	free(in);
	return 0;
}

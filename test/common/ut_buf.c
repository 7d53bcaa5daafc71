/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Registered buffers with guard canaries: see ut_common.h. Its own object,
 * so that suites which link no pv_* verbs can use the CUnit run alone.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ut_common.h"

/* a byte pattern that depends on the offset, so a shifted copy shows too */
static uint8_t
ut_canary_byte(size_t i)
{
	return (uint8_t)(0xa5 ^ (i * 31));
}

struct ut_buf *
ut_buf_alloc(struct pv_pd *pd, size_t len, unsigned int access, size_t canary_len)
{
	struct ut_buf *b;
	size_t i, total;
	int err;

	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return NULL;
	b->len = len;
	b->canary_len = (canary_len + 63) & ~(size_t)63;
	total = (2 * b->canary_len + len + 63) & ~(size_t)63;
	b->base = aligned_alloc(64, total != 0 ? total : 64);
	if (b->base == NULL)
		goto err_free_buf;
	b->addr = b->base + b->canary_len;
	memset(b->addr, 0, len);
	for (i = 0; i < b->canary_len; i++) {
		b->base[i] = ut_canary_byte(i);
		b->addr[len + i] = ut_canary_byte(i);
	}
	b->mr = pv_reg_mr(pd, b->addr, len, access);
	if (b->mr == NULL)
		goto err_free_base;
	return b;

err_free_base:
	err = errno;
	free(b->base);
	free(b);
	errno = err;
	return NULL;
err_free_buf:
	free(b);
	errno = ENOMEM;
	return NULL;
}

size_t
ut_buf_check_canaries(const struct ut_buf *b)
{
	size_t i, bad = 0;

	for (i = 0; i < b->canary_len; i++) {
		if (b->base[i] != ut_canary_byte(i) && bad++ == 0)
			fprintf(stderr, "ut_buf %p: canary changed at start - %zu\n",
				(void *)b->addr, b->canary_len - i);
		if (b->addr[b->len + i] != ut_canary_byte(i) && bad++ == 0)
			fprintf(stderr, "ut_buf %p: canary changed at end + %zu\n",
				(void *)b->addr, i);
	}
	return bad;
}

size_t
ut_buf_free(struct ut_buf *b)
{
	size_t bad;
	int ret;

	if (b == NULL)
		return 0;
	bad = ut_buf_check_canaries(b);
	ret = pv_dereg_mr(b->mr);
	if (ret != 0) {
		fprintf(stderr, "ut_buf %p: pv_dereg_mr: %s\n", (void *)b->addr, strerror(ret));
		bad++;
	}
	free(b->base);
	free(b);
	return bad;
}

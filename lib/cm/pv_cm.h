/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * Connection setup helpers: the out-of-band TCP channel over which two
 * processes exchange QPN, PSN, GID, rkey and address before connecting a QP
 * (what perftest and ibv_rc_pingpong do by hand).
 */

#ifndef PV_LIB_CM_PV_CM_H
#define PV_LIB_CM_PV_CM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

/**
 * Listen on TCP @p port (all addresses) and accept one connection.
 * @param timeout_ms  Give up after this many milliseconds; < 0 waits forever.
 * @return Connected socket fd, or -errno (-ETIMEDOUT, -EADDRINUSE, ...).
 * Thread: any; blocks (control path).
 */
PV_EXPORT int pv_cm_oob_accept(uint16_t port, int timeout_ms);

/**
 * Connect to @p host (name or address) TCP @p port, retrying until
 * @p timeout_ms milliseconds have passed (< 0: forever).
 * @return Connected socket fd, or -errno (-ETIMEDOUT, -EHOSTUNREACH, ...).
 * Thread: any; blocks (control path).
 */
PV_EXPORT int pv_cm_oob_connect(const char *host, uint16_t port, int timeout_ms);

/** Write exactly @p len bytes; 0 or -errno (-EPIPE peer closed). */
PV_EXPORT int pv_cm_oob_send(int fd, const void *buf, size_t len);

/** Read exactly @p len bytes; 0, -ECONNRESET peer closed early, or -errno. */
PV_EXPORT int pv_cm_oob_recv(int fd, void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_CM_PV_CM_H */

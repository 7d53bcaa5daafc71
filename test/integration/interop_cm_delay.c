/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD shim for one interop case (usertools/pv-interop.sh): waits
 * CM_DELAY_MS milliseconds before every rdma_connect(), then calls the next
 * rdma_connect() in link order (lib/compat's librdmacm.so.1).
 *
 * Why: perftest 4.5-0.17 (Debian 12) with -R, as client, sends the REQ of
 * its data connection as soon as the last message of its rdma_cm handshake
 * connection is delivered, while the server only then creates, binds and
 * listens on its data cm_id. A server in a TCG-emulated VM takes a few ms
 * for that; a softroce client on the host resolves its address and route
 * in well under one, so its REQ arrives first and the server's CM answers
 * with REJ reason 8 (invalid service ID, IBTA 12.6.7). perftest's retry of
 * that REJ then calls rdma_resolve_addr() on cm_ids it has just destroyed
 * and crashes (fixed upstream in perftest 3d9d8d0, "Fix crashes and logical
 * flaws in RDMA CM connection retry", 26.04.17). The shim gives the server
 * the few ms a kernel client spends here anyway. It changes no byte on the
 * wire.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <time.h>

#define CM_DELAY_MS 50

struct rdma_cm_id;
struct rdma_conn_param;

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param);

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	int (*next)(struct rdma_cm_id *, struct rdma_conn_param *);
	struct timespec ts = { .tv_nsec = CM_DELAY_MS * 1000000L };

	next = (int (*)(struct rdma_cm_id *, struct rdma_conn_param *))
		dlsym(RTLD_NEXT, "rdma_connect");
	if (next == NULL) {
		errno = ENOSYS;
		return -1;
	}
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return next(id, param);
}

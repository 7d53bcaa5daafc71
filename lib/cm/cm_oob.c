/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Out-of-band TCP channel used before QPs connect (blocking control path). */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_log.h>

#include "pv_cm.h"

RTE_LOG_REGISTER_DEFAULT(pv_cm_logtype, NOTICE);
#define RTE_LOGTYPE_PV_CM pv_cm_logtype
#define CM_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_CM, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

static int64_t
oob_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
oob_sock_tune(int fd)
{
	int one = 1;

	/* small request/response messages: do not wait to coalesce them */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
pv_cm_oob_accept(uint16_t port, int timeout_ms)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct pollfd pfd;
	int one = 1, zero = 0;
	int lfd, fd, ret;

	lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* accept IPv4 peers too (v4-mapped) */
	setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0) {
		ret = -errno;
		CM_LOG(ERR, "tcp port %u: %s", port, strerror(-ret));
		close(lfd);
		return ret;
	}
	pfd.fd = lfd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret <= 0) {
		ret = ret == 0 ? -ETIMEDOUT : -errno;
		CM_LOG(ERR, "tcp port %u: no connection: %s", port, strerror(-ret));
		close(lfd);
		return ret;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ret = fd < 0 ? -errno : fd;
	close(lfd);
	if (fd >= 0)
		oob_sock_tune(fd);
	return ret;
}

int
pv_cm_oob_connect(const char *host, uint16_t port, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : oob_now_ms() + timeout_ms;
	struct addrinfo *res, *ai;
	char service[8];
	int fd, ret;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret != 0) {
		CM_LOG(ERR, "%s: %s", host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	for (;;) {
		ret = -ECONNREFUSED;
		for (ai = res; ai != NULL; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				    ai->ai_protocol);
			if (fd < 0) {
				ret = -errno;
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				freeaddrinfo(res);
				oob_sock_tune(fd);
				return fd;
			}
			ret = -errno;
			close(fd);
		}
		if (oob_now_ms() >= deadline)
			break;
		/* the server may not be listening yet: retry every 10 ms */
		usleep(10000);
	}
	freeaddrinfo(res);
	CM_LOG(ERR, "%s:%u: %s", host, port, strerror(-ret));
	return ret == -ECONNREFUSED ? -ETIMEDOUT : ret;
}

int
pv_cm_oob_send(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int
pv_cm_oob_recv(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int
pv_cm_oob_recv_poll(int fd, void *buf, size_t len, pv_cm_progress_fn fn, void *arg,
		    int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? INT64_MAX : oob_now_ms() + timeout_ms;
	uint64_t hz = rte_get_tsc_hz();
	uint64_t period = hz / 1000000 * PV_CM_OOB_POLL_US;
	uint64_t idle_period = hz / 1000000 * PV_CM_OOB_IDLE_POLL_US;
	uint64_t next_check = 0, next_idle_check = 0, now;
	char *p = buf;
	ssize_t n;
	int work;

	while (len > 0) {
		work = 0;
		if (fn != NULL) {
			work = fn(arg);
			if (work < 0)
				return work;
		}
		/*
		 * A busy data path checks the socket every PV_CM_OOB_POLL_US so
		 * its packets are not delayed by a system call per progress call;
		 * an idle one every PV_CM_OOB_IDLE_POLL_US, so a process waiting
		 * for its peer's packets does not spend its CPU time (which a
		 * shared core then takes from its data path) in recv().
		 */
		now = rte_rdtsc();
		if (work > 0 ? now < next_check : now < next_idle_check)
			continue;
		next_check = now + period;
		next_idle_check = now + idle_period;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (oob_now_ms() >= deadline)
			return -ETIMEDOUT;
	}
	return 0;
}

/* the token both sides send; anything else means the peers are out of step */
#define CM_BARRIER_TOKEN 'B'

int
pv_cm_oob_barrier(int fd, pv_cm_progress_fn fn, void *arg, int timeout_ms)
{
	char token = CM_BARRIER_TOKEN;
	int ret;

	ret = pv_cm_oob_send(fd, &token, 1);
	if (ret < 0)
		return ret;
	ret = pv_cm_oob_recv_poll(fd, &token, 1, fn, arg, timeout_ms);
	if (ret < 0)
		return ret;
	if (token != CM_BARRIER_TOKEN) {
		CM_LOG(ERR, "barrier: peer sent 0x%02x, not a barrier token",
		       (unsigned char)token);
		return -EPROTO;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* lib/cm/cm_oob.c: the TCP channel, the progress-polling read and the barrier. */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <CUnit/Basic.h>

#include "pv_cm.h"
#include "ut_common.h"

struct ut_progress {
	int calls;
	int fail_after;	/* return -EIO on this call; 0: never */
	int peer_fd;	/* write ut_payload here on call write_at; -1: never */
	int write_at;
};

static const char ut_payload[] = "pollverbs out-of-band";

static int
ut_progress(void *arg)
{
	struct ut_progress *p = arg;

	p->calls++;
	if (p->fail_after != 0 && p->calls == p->fail_after)
		return -EIO;
	if (p->peer_fd >= 0 && p->calls == p->write_at)
		CU_ASSERT_EQUAL(pv_cm_oob_send(p->peer_fd, ut_payload, sizeof(ut_payload)), 0);
	return 1;	/* "busy": the socket is still checked every PV_CM_OOB_POLL_US */
}

static void
test_recv_poll_progresses_until_data(void)
{
	struct ut_progress p = { .peer_fd = -1 };
	char buf[sizeof(ut_payload)];
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	p.peer_fd = sv[1];
	p.write_at = 1000;
	memset(buf, 0, sizeof(buf));
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), ut_progress, &p, 5000), 0);
	CU_ASSERT(p.calls >= 1000);
	CU_ASSERT_EQUAL(memcmp(buf, ut_payload, sizeof(buf)), 0);
	close(sv[0]);
	close(sv[1]);
}

static void
test_recv_poll_errors(void)
{
	struct ut_progress p = { .peer_fd = -1 };
	char buf[8];
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	/* nothing arrives */
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), ut_progress, &p, 50),
			-ETIMEDOUT);
	CU_ASSERT(p.calls > 0);
	/* the progress callback's error ends the wait */
	p.calls = 0;
	p.fail_after = 3;
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), ut_progress, &p, -1), -EIO);
	CU_ASSERT_EQUAL(p.calls, 3);
	/* no callback at all: plain polling read */
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), NULL, NULL, 20), -ETIMEDOUT);
	/* peer closes after a partial message */
	CU_ASSERT_EQUAL(pv_cm_oob_send(sv[1], "abc", 3), 0);
	close(sv[1]);
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), NULL, NULL, 1000),
			-ECONNRESET);
	close(sv[0]);
	/* a closed descriptor */
	CU_ASSERT_EQUAL(pv_cm_oob_recv_poll(sv[0], buf, sizeof(buf), NULL, NULL, 10), -EBADF);
}

static void *
ut_barrier_peer(void *arg)
{
	int fd = *(int *)arg;
	intptr_t ret;

	ret = pv_cm_oob_barrier(fd, NULL, NULL, 5000);
	return (void *)ret;
}

static void
test_barrier_both_sides(void)
{
	struct ut_progress p = { .peer_fd = -1 };
	pthread_t th;
	void *peer_ret;
	char c;
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_barrier_peer, &sv[1]) == 0);
	CU_ASSERT_EQUAL(pv_cm_oob_barrier(sv[0], ut_progress, &p, 5000), 0);
	pthread_join(th, &peer_ret);
	CU_ASSERT_EQUAL((intptr_t)peer_ret, 0);

	/* a peer out of step (sends data instead of a token) */
	CU_ASSERT_EQUAL(pv_cm_oob_send(sv[1], "X", 1), 0);
	CU_ASSERT_EQUAL(pv_cm_oob_barrier(sv[0], NULL, NULL, 1000), -EPROTO);
	CU_ASSERT_EQUAL(pv_cm_oob_recv(sv[1], &c, 1), 0);	/* our token */
	CU_ASSERT_EQUAL(c, 'B');
	close(sv[1]);
	CU_ASSERT_EQUAL(pv_cm_oob_barrier(sv[0], NULL, NULL, 1000), -EPIPE);
	close(sv[0]);
}

struct ut_server {
	uint16_t port;
	int fd;
};

static void *
ut_accept(void *arg)
{
	struct ut_server *s = arg;

	s->fd = pv_cm_oob_accept(s->port, 5000);
	return NULL;
}

static void
test_tcp_accept_connect_exchange(void)
{
	struct ut_server s = { .port = (uint16_t)(20000 + getpid() % 20000), .fd = -1 };
	char buf[sizeof(ut_payload)];
	pthread_t th;
	int fd;

	CU_ASSERT_FATAL(pthread_create(&th, NULL, ut_accept, &s) == 0);
	fd = pv_cm_oob_connect("127.0.0.1", s.port, 5000);
	pthread_join(th, NULL);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(s.fd >= 0);
	CU_ASSERT_EQUAL(pv_cm_oob_send(fd, ut_payload, sizeof(ut_payload)), 0);
	CU_ASSERT_EQUAL(pv_cm_oob_recv(s.fd, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(memcmp(buf, ut_payload, sizeof(buf)), 0);
	close(fd);
	CU_ASSERT_EQUAL(pv_cm_oob_recv(s.fd, buf, 1), -ECONNRESET);
	close(s.fd);

	/* nobody listens: the connect retries, then times out */
	CU_ASSERT_EQUAL(pv_cm_oob_connect("127.0.0.1", s.port, 50), -ETIMEDOUT);
	CU_ASSERT_EQUAL(pv_cm_oob_accept(s.port, 20), -ETIMEDOUT);
}

static const struct ut_case ut_cm_oob_cases[] = {
	{ "recv_poll_progresses_until_data", test_recv_poll_progresses_until_data },
	{ "recv_poll_errors", test_recv_poll_errors },
	{ "barrier_both_sides", test_barrier_both_sides },
	{ "tcp_accept_connect_exchange", test_tcp_accept_connect_exchange },
	{ NULL, NULL },
};

static const struct ut_suite ut_cm_oob_suite = { "cm_oob", NULL, NULL, ut_cm_oob_cases };

int
main(void)
{
	return ut_cunit_run_one(&ut_cm_oob_suite);
}

// SPDX-License-Identifier: MIT
/*
 * The guard of connections without a whole request header, on real TCP connections over
 * loopback: which ones it drops (the peer then reads the end), and which it never does.
 * Times are given, not waited for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/conn_guard.h"

#define S 1000000000LL
#define MAXC 8

/* A listener and pairs of connected sockets: the server's end is guarded, the client's
 * end tells whether it was dropped. */
struct net {
	int listener;
	int server[MAXC], client[MAXC];
	struct sockaddr_in from[MAXC];
	int n;
};

static void net__open(struct net *net)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	net->n = 0;
	net->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(net->listener >= 0);
	assert_int_equal(bind(net->listener, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(net->listener, MAXC), 0);
	assert_int_equal(getsockname(net->listener, (struct sockaddr *)&a, &len), 0);
	for (int i = 0; i < MAXC; i++) {
		socklen_t flen = sizeof(net->from[i]);

		net->client[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(connect(net->client[i], (struct sockaddr *)&a, sizeof(a)), 0);
		net->server[i] = accept(net->listener, (struct sockaddr *)&net->from[i], &flen);
		assert_true(net->server[i] >= 0);
		/* The client's end reads without waiting: "nothing yet" or "the end". */
		fcntl(net->client[i], F_SETFL, O_NONBLOCK);
		net->n++;
	}
}

static void net__close(struct net *net)
{
	for (int i = 0; i < net->n; i++) {
		close(net->server[i]);
		close(net->client[i]);
	}
	close(net->listener);
}

/* The server's end of connection i was shut down: its client reads the end. */
static bool dropped(struct net *net, int i)
{
	char c;

	return recv(net->client[i], &c, 1, 0) == 0;
}

/* As if from another address: the same socket, its address changed in the copy given. */
static struct sockaddr_in elsewhere(const struct sockaddr_in *a)
{
	struct sockaddr_in b = *a;

	b.sin_addr.s_addr = htonl(0x7f000002);
	return b;
}

static void test_the_deadline_drops_idle_ones_only(void **state)
{
	struct conn_guard_limits lim = { 100, 100, 10 * S };
	struct conn_guard *g = conn_guard__new(&lim);
	struct conn_slot *s[3];
	struct net net;

	(void)state;
	net__open(&net);
	for (int i = 0; i < 3; i++)
		s[i] = conn_guard__open(g, net.server[i], (struct sockaddr *)&net.from[i], i * S);
	/* 1 sent its header at once; 2 finished a request at 8 s and waits for the next. */
	conn_guard__busy(g, s[1]);
	conn_guard__busy(g, s[2]);
	conn_guard__idle(g, s[2], 8 * S);
	assert_int_equal(conn_guard__sweep(g, 5 * S), 0);
	assert_false(dropped(&net, 0));
	/* At 11 s: 0 has been idle 11 s; 1 is busy; 2 has waited 3 s since its request. */
	assert_int_equal(conn_guard__sweep(g, 11 * S), 1);
	assert_true(dropped(&net, 0));
	assert_false(dropped(&net, 1));
	assert_false(dropped(&net, 2));
	/* Busy for an hour is never too long here. */
	assert_int_equal(conn_guard__sweep(g, 3600 * S), 1);
	assert_true(dropped(&net, 2));
	assert_false(dropped(&net, 1));
	assert_int_equal(conn_guard__idle_count(g), 0);
	for (int i = 0; i < 3; i++)
		conn_guard__close(g, s[i]);
	conn_guard__free(g);
	net__close(&net);
}

static void test_a_new_connection_displaces_the_oldest_idle_of_its_address(void **state)
{
	struct conn_guard_limits lim = { 100, 3, 10 * S };
	struct conn_guard *g = conn_guard__new(&lim);
	struct conn_slot *s[6];
	struct sockaddr_in other;
	struct net net;

	(void)state;
	net__open(&net);
	other = elsewhere(&net.from[0]);
	/* 0 from another address first; 1..3 from here, 1 busy with a request. */
	s[0] = conn_guard__open(g, net.server[0], (struct sockaddr *)&other, 0);
	for (int i = 1; i <= 3; i++)
		s[i] = conn_guard__open(g, net.server[i], (struct sockaddr *)&net.from[i], i);
	conn_guard__busy(g, s[1]);
	/* Two idle from here, the cap is three: 4 comes in without a drop. */
	s[4] = conn_guard__open(g, net.server[4], (struct sockaddr *)&net.from[4], 4);
	for (int i = 0; i <= 4; i++)
		assert_false(dropped(&net, i));
	/* 5 passes the cap: the oldest idle one from here (2) makes room, not the busy one,
	 * not the other address's older one, not the newcomer. */
	s[5] = conn_guard__open(g, net.server[5], (struct sockaddr *)&net.from[5], 5);
	assert_true(dropped(&net, 2));
	for (int i = 0; i <= 5; i++)
		if (i != 2)
			assert_false(dropped(&net, i));
	assert_int_equal(conn_guard__idle_count(g), 4);
	for (int i = 0; i <= 5; i++)
		conn_guard__close(g, s[i]);
	conn_guard__free(g);
	net__close(&net);
}

static void test_past_the_total_the_oldest_idle_of_all_makes_room(void **state)
{
	struct conn_guard_limits lim = { 2, 100, 10 * S };
	struct conn_guard *g = conn_guard__new(&lim);
	struct conn_slot *s[3];
	struct net net;

	(void)state;
	net__open(&net);
	for (int i = 0; i < 3; i++)
		s[i] = conn_guard__open(g, net.server[i], (struct sockaddr *)&net.from[i], i);
	assert_true(dropped(&net, 0));
	assert_false(dropped(&net, 1));
	assert_false(dropped(&net, 2));
	/* Dropped is closing: never idle again, never counted. */
	conn_guard__idle(g, s[0], 3);
	assert_int_equal(conn_guard__idle_count(g), 2);
	for (int i = 0; i < 3; i++)
		conn_guard__close(g, s[i]);
	conn_guard__free(g);
	net__close(&net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_deadline_drops_idle_ones_only),
		cmocka_unit_test(test_a_new_connection_displaces_the_oldest_idle_of_its_address),
		cmocka_unit_test(test_past_the_total_the_oldest_idle_of_all_makes_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

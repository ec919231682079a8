// SPDX-License-Identifier: MIT
/*
 * Where an agent sends its secrets (src/agent/workspace_url.c), decided on the host
 * libcurl's URL API parses, with no traffic: the URLs of issue 28 that fooled the prefix
 * rule ("http://localhost:1@192.0.2.2:7499", "http://127.evil.tld") are refused, plain
 * HTTP goes to a literal loopback address only, and https to any host. Nothing here
 * connects: the check is the whole of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>

#include "agent/workspace_url.h"

static void allowed(void **state)
{
	(void)state;
	assert_int_equal(workspace_url__check("http://127.0.0.1:7070"), 0);
	assert_int_equal(workspace_url__check("http://127.0.0.1:7070/"), 0);
	assert_int_equal(workspace_url__check("http://127.1.2.3:7070"), 0);
	assert_int_equal(workspace_url__check("http://[::1]:7070"), 0);
	assert_int_equal(workspace_url__check("HTTP://127.0.0.1:7070"), 0);
	assert_int_equal(workspace_url__check("https://workspace.example.com:7070"), 0);
	assert_int_equal(workspace_url__check("https://192.0.2.2"), 0);
}

static void plain_http_off_loopback(void **state)
{
	(void)state;
	/* The user "localhost", password "1", on 192.0.2.2. */
	assert_int_equal(workspace_url__check("http://localhost:1@192.0.2.2:7499"), -EINVAL);
	assert_int_equal(workspace_url__check("http://127.0.0.1:1@192.0.2.2:7499"), -EINVAL);
	/* A name that starts like loopback, resolved who knows where. */
	assert_int_equal(workspace_url__check("http://127.evil.tld:7070"), -EPERM);
	assert_int_equal(workspace_url__check("http://127.0.0.1.evil.tld"), -EPERM);
	/* A name, even this one: only a literal address is known not to leave. */
	assert_int_equal(workspace_url__check("http://localhost:7070"), -EPERM);
	assert_int_equal(workspace_url__check("http://192.0.2.1:7070"), -EPERM);
	assert_int_equal(workspace_url__check("http://[::2]:7070"), -EPERM);
	assert_int_equal(workspace_url__check("http://[::ffff:192.0.2.1]:7070"), -EPERM);
	assert_int_equal(workspace_url__check("http://0.0.0.0:7070"), -EPERM);
}

static void not_urls(void **state)
{
	(void)state;
	assert_int_equal(workspace_url__check(""), -EINVAL);
	assert_int_equal(workspace_url__check("127.0.0.1:7070"), -EINVAL);
	assert_int_equal(workspace_url__check("https://"), -EINVAL);
	assert_int_equal(workspace_url__check("ftp://127.0.0.1"), -EINVAL);
	assert_int_equal(workspace_url__check("file:///etc/passwd"), -EINVAL);
	assert_int_equal(workspace_url__check("https://user:pw@example.com"), -EINVAL);
	assert_int_equal(workspace_url__check("http://127.0.0.1:7070/?x=1"), -EINVAL);
	assert_int_equal(workspace_url__check("http://127.0.0.1:7070/#x"), -EINVAL);
	assert_int_equal(workspace_url__check("http://127.0.0.1:7070 http://192.0.2.2"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allowed),
		cmocka_unit_test(plain_http_off_loopback),
		cmocka_unit_test(not_urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * A server's name (src/util/server_name.c): normalized (NFC, no zero-width, bidi or
 * control characters, one kind of space, at most 255 bytes cut between characters), and
 * a new server never gets a name that looks like another's: a Cyrillic letter, "rn" for
 * "m", a zero-width space, or a removed server's name (its history stays its own).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/server_name.h"

static void normalized_is(const char *given, const char *want)
{
	char *got = server_name__normalize(given);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void normalize(void **state)
{
	char long_name[400];

	(void)state;
	normalized_is("db-1", "db-1");
	normalized_is("db\u200b-1", "db-1");           /* zero-width space */
	normalized_is("db\u200d-\u2060" "1", "db-1");   /* zero-width joiner, word joiner */
	normalized_is("\ufeffdb-1", "db-1");            /* a byte order mark */
	normalized_is("db-\u202e1x", "db-1x");          /* right-to-left override */
	normalized_is("db\ufe0f-1", "db-1");            /* a variation selector */
	normalized_is("\x1b[31mdb\n-1\x7f", "[31mdb-1");
	normalized_is("  db \t\u00a0 one  ", "db one");
	normalized_is("cafe\u0301", "caf\u00e9");      /* NFD to NFC */
	normalized_is("db\xff-1", "db\ufffd-1");       /* an invalid byte */
	/* Nothing visible left: no name. */
	errno = 0;
	assert_null(server_name__normalize("\u200b\u200d \t"));
	assert_int_equal(errno, EINVAL);
	assert_null(server_name__normalize(""));
	/* Cut to 255 bytes between characters (é is two). */
	for (int i = 0; i < 199; i++)
		memcpy(long_name + 2 * i, "\u00e9", 2);
	long_name[398] = '\0';
	{
		char *got = server_name__normalize(long_name);

		assert_non_null(got);
		assert_int_equal(strlen(got), 254);
		free(got);
	}
}

static void looks_like(const char *a, const char *b, bool same)
{
	char *x = server_name__skeleton(a), *y = server_name__skeleton(b);

	assert_non_null(x);
	assert_non_null(y);
	if (same)
		assert_string_equal(x, y);
	else
		assert_string_not_equal(x, y);
	free(x);
	free(y);
}

static void skeletons(void **state)
{
	(void)state;
	looks_like("db-1", "\u0501b-1", true);      /* Cyrillic komi de */
	looks_like("paypal", "p\u0430yp\u0430l", true); /* Cyrillic a */
	looks_like("web-m", "web-rn", true);
	looks_like("db-l", "db-1", true);
	looks_like("db-1", "db-2", false);
	looks_like("billing", "biling", false);
}

static void picked_is(const char *given, char *const *taken, size_t n, const char *want)
{
	char *got = server_name__pick(given, taken, n);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void pick(void **state)
{
	char *none[] = { NULL };
	char *one[] = { "db-1" };
	char *lookalike[] = { "\u0501b-1" };
	char *two[] = { "db-1", "db-1-2", "web" };

	(void)state;
	picked_is("db-1", none, 0, "db-1");
	/* Taken, by a server there or removed: the same list to the store. */
	picked_is("db-1", one, 1, "db-1-2");
	picked_is("db-1", lookalike, 1, "db-1-2");
	picked_is("\u0501b-1", one, 1, "\u0501b-1-2");
	picked_is("db-1", two, 3, "db-1-3");
	picked_is("db-I", two, 3, "db-I-3");
	picked_is("web2", two, 3, "web2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalize),
		cmocka_unit_test(skeletons),
		cmocka_unit_test(pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

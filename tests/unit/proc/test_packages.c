// SPDX-License-Identifier: MIT
/*
 * Which files the distribution installed: dpkg's file lists and apt's package lists, in a
 * directory laid out like a server's (plain, gzip'd and lz4 lists, a merged /usr), and
 * on this very server: /usr/bin/dash is Debian's, our own build is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/fixture.h"
#include "proc/packages.h"

static int ask(struct packages *pk, const char *root, const char *path)
{
	char full[4096];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", root, path);
	assert_int_equal(stat(full, &st), 0);
	return packages__from_archive(pk, path, st.st_dev, st.st_ino);
}

static void write_lz4(const char *path, const char *text)
{
	size_t cap = LZ4F_compressFrameBound(strlen(text), NULL);
	char *buf = malloc(cap);
	size_t n;
	FILE *f;

	assert_non_null(buf);
	n = LZ4F_compressFrame(buf, cap, text, strlen(text), NULL);
	assert_false(LZ4F_isError(n));
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

/* A server: dash (lists say /bin/dash, merged /usr maps it at /usr/bin), libc6 of two
 * architectures, a tool of the user's own, and a file no package owns. */
static const char *make_root(struct fixture *fx)
{
	assert_int_equal(fixture__sh(fx,
		"mkdir -p root/var/lib/dpkg/info root/var/lib/apt/lists root/usr/bin root/opt && "
		"printf '/.\\n/bin\\n/bin/dash\\n/usr/share/man/man1/dash.1.gz\\n' "
		"  > root/var/lib/dpkg/info/dash.list && "
		"printf '/.\\n/usr/bin/ldd\\n/usr/lib/x86_64-linux-gnu/libc.so.6\\n' "
		"  > root/var/lib/dpkg/info/libc-bin:amd64.list && "
		"printf '/usr/bin/mytool\\n' > root/var/lib/dpkg/info/mytool.list && "
		"printf 'x' > root/var/lib/dpkg/info/mytool.md5sums && "
		"for f in dash ldd mytool; do echo $f > root/usr/bin/$f; done && "
		"echo other > root/opt/other"), 0);
	return fixture__path(fx, "root");
}

static void test_from_archive_by_lists(void **state)
{
	struct fixture *fx = fixture__new();
	const char *root = make_root(fx);
	char path[4096];
	struct packages *pk;

	(void)state;
	/* dash in a .lz4 list, libc-bin in a gzip'd one; mytool in none. */
	snprintf(path, sizeof(path), "%s/var/lib/apt/lists/deb_main_binary-amd64_Packages.lz4",
		 root);
	write_lz4(path, "Package: adduser\nVersion: 3.134\n\nPackage: dash\nVersion: 0.5.12-2\n"
			"Description: POSIX shell\n\n");
	assert_int_equal(fixture__sh(fx, "printf 'Package: libc-bin\\nVersion: 2.36\\n\\n' | gzip "
				     "> root/var/lib/apt/lists/sec_main_binary-amd64_Packages.gz"),
			 0);
	pk = packages__new(root);
	assert_non_null(pk);
	assert_int_equal(ask(pk, root, "/usr/bin/dash"), 1);
	assert_int_equal(ask(pk, root, "/usr/bin/ldd"), 1);
	assert_int_equal(ask(pk, root, "/usr/bin/mytool"), 0);
	assert_int_equal(ask(pk, root, "/opt/other"), 0);
	/* Another file at a package's path (a container's own /usr/bin/dash) is not it. */
	{
		char full[4096];
		struct stat st;

		snprintf(full, sizeof(full), "%s/opt/other", root);
		assert_int_equal(stat(full, &st), 0);
		assert_int_equal(packages__from_archive(pk, "/usr/bin/dash", st.st_dev, st.st_ino),
				 0);
	}
	packages__free(pk);
	packages__free(NULL);
	fixture__free(fx);
}

/* A plain list counts too; a line longer than any path does not derail the reader. */
static void test_plain_list_and_long_lines(void **state)
{
	struct fixture *fx = fixture__new();
	const char *root = make_root(fx);
	struct packages *pk;

	(void)state;
	assert_int_equal(fixture__sh(fx,
		"{ head -c 100000 /dev/zero | tr '\\0' a; printf '\\nPackage: mytool\\n\\n'; } "
		"> root/var/lib/apt/lists/local_Packages && "
		"{ printf '/usr/bin/'; head -c 100000 /dev/zero | tr '\\0' b; "
		"printf '\\n/usr/bin/ldd\\n'; } "
		">> root/var/lib/dpkg/info/libc-bin:amd64.list"), 0);
	pk = packages__new(root);
	assert_non_null(pk);
	assert_int_equal(ask(pk, root, "/usr/bin/mytool"), 1);
	assert_int_equal(ask(pk, root, "/usr/bin/dash"), 0);
	assert_int_equal(ask(pk, root, "/usr/bin/ldd"), 0);
	packages__free(pk);
	fixture__free(fx);
}

/* Without any apt list, nothing tells the archive's from a hand-installed .deb: every
 * package counts as the distribution's (nearly all are). */
static void test_without_lists_every_package_counts(void **state)
{
	struct fixture *fx = fixture__new();
	const char *root = make_root(fx);
	struct packages *pk = packages__new(root);

	(void)state;
	assert_non_null(pk);
	assert_int_equal(ask(pk, root, "/usr/bin/mytool"), 1);
	assert_int_equal(ask(pk, root, "/opt/other"), 0);
	packages__free(pk);
	fixture__free(fx);
}

/* This server: Debian's dash is the archive's; a binary built here is no one's. */
static void test_this_server(void **state)
{
	struct fixture *fx = fixture__new();
	const char *app = fixture__compile(fx, "app", "int main(void) { return 0; }", "-O1");
	struct packages *pk;

	(void)state;
	assert_non_null(app);
	if (access("/var/lib/dpkg/info/dash.list", R_OK) != 0) {
		fixture__free(fx);
		skip(); /* not a Debian server */
	}
	pk = packages__new("/");
	assert_non_null(pk);
	assert_int_equal(ask(pk, "", "/usr/bin/dash"), 1);
	assert_int_equal(ask(pk, "", app), 0);
	packages__free(pk);
	fixture__free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_archive_by_lists),
		cmocka_unit_test(test_plain_list_and_long_lines),
		cmocka_unit_test(test_without_lists_every_package_counts),
		cmocka_unit_test(test_this_server),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

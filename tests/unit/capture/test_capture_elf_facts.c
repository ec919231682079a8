// SPDX-License-Identifier: MIT
/*
 * The resident profiler's memory of binaries' ELF facts (src/capture/elf_facts.c), on
 * real files: a file read once is not read again while it stays the same; a file
 * rewritten in place (same inode, even with its modification time put back) is read
 * again and gives the new build's facts; a file that was not ELF and becomes one is read
 * as one; the unwind worker's read of build id and segments alone does not stand for
 * a whole one; past the bound everything is forgotten, and what is kept stays within it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/elf_facts.h"

/* Real builds, from the distribution; the library defines functions in its .dynsym. */
#define FIRST_ELF "/bin/true"
#define LIBRARY_ELF "/lib/x86_64-linux-gnu/libc.so.6"

static char *make_dir(void)
{
	char *dir = strdup("/tmp/slideops-elf-facts-test.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Writes from's bytes over path in place (O_TRUNC: the same inode). */
static void copy_over(const char *from, const char *path)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, n), n);
	close(in);
	close(out);
}

/* Rewrites path in place with the first byte of its build id changed: the same size,
 * another build. */
static void change_build_id(const char *path, const char *build_id_hex)
{
	static char buf[1 << 22];
	unsigned char id[64];
	size_t len = strlen(build_id_hex) / 2;
	int fd = open(path, O_RDWR);
	ssize_t n;
	char *at;

	assert_true(fd >= 0);
	n = pread(fd, buf, sizeof(buf), 0);
	assert_true(n > 0 && n < (ssize_t)sizeof(buf));
	assert_true(len > 0 && len <= sizeof(id));
	for (size_t i = 0; i < len; i++)
		assert_int_equal(sscanf(build_id_hex + 2 * i, "%2hhx", &id[i]), 1);
	at = memmem(buf, n, id, len);
	assert_non_null(at);
	*at ^= 0xff;
	assert_int_equal(pwrite(fd, buf, n, 0), n);
	close(fd);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* path's facts through f: the outcome, into info. */
static int facts_of(struct elf_facts *f, const char *path, struct elf_info *info)
{
	int fd = open(path, O_RDONLY), err;

	assert_true(fd >= 0);
	err = elf_facts__read(f, fd, NULL, info);
	close(fd);
	return err;
}

static void test_same_file_is_not_read_again(void **state)
{
	char *dir = make_dir(), path[256];
	struct elf_info direct, first, again;
	struct elf_facts_stats st;
	struct elf_facts *f = elf_facts__new();

	(void)state;
	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/prog", dir);
	copy_over(FIRST_ELF, path);
	assert_int_equal(facts_of(NULL, path, &direct), 0);
	assert_true(direct.build_id[0]);

	assert_int_equal(facts_of(f, path, &first), 0);
	assert_int_equal(facts_of(f, path, &again), 0);
	assert_memory_equal(&first, &direct, sizeof(direct));
	assert_memory_equal(&again, &direct, sizeof(direct));
	elf_facts__stats(f, &st);
	assert_int_equal(st.read, 1);
	assert_int_equal(st.remembered, 1);
	assert_int_equal(st.kept, 1);

	elf_facts__free(f);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_rewritten_in_place_is_read_again(void **state)
{
	char *dir = make_dir(), path[256];
	struct elf_info before, after, expected;
	struct elf_facts_stats st;
	struct elf_facts *f = elf_facts__new();
	struct stat st_before, st_after;
	struct timespec times[2];

	(void)state;
	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/prog", dir);
	copy_over(FIRST_ELF, path);
	assert_int_equal(stat(path, &st_before), 0);
	assert_int_equal(facts_of(f, path, &before), 0);

	/* Another build over the same inode, of the same size, its modification time put
	 * back as it was: the change time still tells. */
	change_build_id(path, before.build_id);
	times[0] = st_before.st_atim;
	times[1] = st_before.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	assert_int_equal(stat(path, &st_after), 0);
	assert_int_equal(st_after.st_ino, st_before.st_ino);
	assert_int_equal(st_after.st_size, st_before.st_size);
	assert_int_equal(st_after.st_mtim.tv_nsec, st_before.st_mtim.tv_nsec);

	assert_int_equal(facts_of(NULL, path, &expected), 0);
	assert_int_equal(facts_of(f, path, &after), 0);
	assert_string_not_equal(after.build_id, before.build_id);
	assert_memory_equal(&after, &expected, sizeof(expected));
	elf_facts__stats(f, &st);
	assert_int_equal(st.read, 2);
	assert_int_equal(st.remembered, 0);

	elf_facts__free(f);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_not_elf_then_elf(void **state)
{
	char *dir = make_dir(), path[256];
	struct elf_info info;
	struct elf_facts *f = elf_facts__new();

	(void)state;
	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/prog", dir);
	write_text(path, "#!/bin/sh\necho not an ELF file\n");
	assert_int_equal(facts_of(f, path, &info), -ENOEXEC);
	/* Remembered as it was. */
	assert_int_equal(facts_of(f, path, &info), -ENOEXEC);
	copy_over(FIRST_ELF, path);
	assert_int_equal(facts_of(f, path, &info), 0);
	assert_true(info.build_id[0]);

	elf_facts__free(f);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* The unwind worker's read (build id, segments) does not stand for a whole one. */
static void test_identity_then_whole(void **state)
{
	char *dir = make_dir(), path[256];
	struct elf_info direct, identity, whole, again;
	struct elf_facts_stats st;
	struct elf_facts *f = elf_facts__new();
	int fd;

	(void)state;
	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/prog", dir);
	copy_over(LIBRARY_ELF, path);
	assert_int_equal(facts_of(NULL, path, &direct), 0);
	assert_true(direct.has_dynsym);

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(elf_facts__read_identity(f, fd, NULL, &identity), 0);
	assert_string_equal(identity.build_id, direct.build_id);
	assert_int_equal(identity.nsegments, direct.nsegments);
	assert_false(identity.has_dynsym);
	assert_int_equal(elf_facts__read(f, fd, NULL, &whole), 0);
	assert_memory_equal(&whole, &direct, sizeof(direct));
	/* Both kinds of read are answered from memory now. */
	assert_int_equal(elf_facts__read(f, fd, NULL, &again), 0);
	assert_memory_equal(&again, &direct, sizeof(direct));
	assert_int_equal(elf_facts__read_identity(f, fd, NULL, &again), 0);
	assert_string_equal(again.build_id, direct.build_id);
	close(fd);
	elf_facts__stats(f, &st);
	assert_int_equal(st.read, 2);
	assert_int_equal(st.remembered, 2);
	assert_int_equal(st.kept, 1);

	elf_facts__free(f);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_bounded(void **state)
{
	char *dir = make_dir(), path[256];
	struct elf_info info;
	struct elf_facts_stats st;
	struct elf_facts *f = elf_facts__new();

	(void)state;
	assert_non_null(f);
	/* One file more than the bound, each its own inode. */
	for (int i = 0; i <= ELF_FACTS_MAX; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		write_text(path, "not ELF");
		assert_int_equal(facts_of(f, path, &info), -ENOEXEC);
		elf_facts__stats(f, &st);
		assert_true(st.kept <= ELF_FACTS_MAX);
	}
	elf_facts__stats(f, &st);
	assert_int_equal(st.kept, 1); /* all forgotten, then the last kept */
	assert_int_equal(st.read, ELF_FACTS_MAX + 1);
	/* The first is read again, and answers the same. */
	snprintf(path, sizeof(path), "%s/f0", dir);
	assert_int_equal(facts_of(f, path, &info), -ENOEXEC);
	elf_facts__stats(f, &st);
	assert_int_equal(st.read, ELF_FACTS_MAX + 2);

	for (int i = 0; i <= ELF_FACTS_MAX; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	elf_facts__free(f);
	rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_file_is_not_read_again),
		cmocka_unit_test(test_rewritten_in_place_is_read_again),
		cmocka_unit_test(test_not_elf_then_elf),
		cmocka_unit_test(test_identity_then_whole),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * A process's executable mappings: /proc/PID/maps lines of every shape the kernel
 * writes, our own process's maps read for real, lookups against a naive model; and the
 * cgroup id -> path table over a directory tree made here (ids are directory inodes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/cgroups.h"
#include "capture/maps.h"
#include "helpers/fixture.h"

static void test_parse_lines(void **state)
{
	struct vma v;

	(void)state;
	assert_int_equal(vma__parse_line("55d0c2a00000-55d0c2a21000 r-xp 00002000 fe:01 1311750"
					 "                    /usr/bin/cat\n", &v), 1);
	assert_int_equal(v.kind, VMA_FILE);
	assert_true(v.start == 0x55d0c2a00000ULL && v.end == 0x55d0c2a21000ULL);
	assert_true(v.offset == 0x2000);
	assert_true(v.dev == makedev(0xfe, 0x01) && v.ino == 1311750);
	assert_string_equal(v.path, "/usr/bin/cat");
	free(v.path);

	/* Not executable, and the kernel's own: nothing to name. */
	assert_int_equal(vma__parse_line("7f0000000000-7f0000001000 r--p 00000000 fe:01 12 /lib/x.so\n",
					 &v), 0);
	assert_int_equal(vma__parse_line("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
					 "                  [vsyscall]\n", &v), 0);

	assert_int_equal(vma__parse_line("7ffd1f9e6000-7ffd1f9e8000 r-xp 00000000 00:00 0"
					 "                          [vdso]\n", &v), 1);
	assert_int_equal(v.kind, VMA_VDSO);
	assert_null(v.path);
	/* JIT code: anonymous, named anonymous, or a file-less pseudo path. */
	assert_int_equal(vma__parse_line("7f1000000000-7f1000100000 rwxp 00000000 00:00 0 \n", &v), 1);
	assert_int_equal(v.kind, VMA_ANON);
	assert_int_equal(vma__parse_line("7f1000000000-7f1000100000 r-xp 00000000 00:00 0 [anon:v8]\n",
					 &v), 1);
	assert_int_equal(v.kind, VMA_ANON);
	assert_int_equal(vma__parse_line("7f1000000000-7f1000100000 r-xp 00000000 00:00 0", &v), 1);
	assert_int_equal(v.kind, VMA_ANON);

	/* A deleted file keeps its name; a name may hold spaces. */
	assert_int_equal(vma__parse_line("400000-401000 r-xp 00000000 08:02 77 /opt/my app/run (deleted)\n",
					 &v), 1);
	assert_string_equal(v.path, "/opt/my app/run");
	free(v.path);

	assert_int_equal(vma__parse_line("", &v), -EINVAL);
	assert_int_equal(vma__parse_line("hello world\n", &v), -EINVAL);
	assert_int_equal(vma__parse_line("2000-1000 r-xp 00000000 00:00 0\n", &v), -EINVAL);
}

__attribute__((noinline)) static int here(int x)
{
	return x * 3 + 1;
}

/* Our own maps: the mapping holding one of our functions is our own executable. */
static void test_read_self(void **state)
{
	struct vma_list l = { 0 };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct vma *v;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(here(1), 4);
	assert_int_equal(vma_list__read(&l, "/proc", getpid()), 0);
	assert_true(l.n > 2);
	for (size_t i = 1; i < l.n; i++)
		assert_true(l.vmas[i - 1].end <= l.vmas[i].start);
	v = vma_list__find(&l, (uint64_t)(uintptr_t)here);
	assert_non_null(v);
	assert_int_equal(v->kind, VMA_FILE);
	assert_string_equal(v->path, exe);
	assert_null(vma_list__find(&l, 0));
	vma_list__clear(&l);
	assert_int_equal(l.n, 0);

	assert_int_equal(vma_list__read(&l, "/proc", INT_MAX), -ENOENT);
}

/* Random disjoint ranges, added in random order; every address checked against a scan. */
static void test_find_model(void **state)
{
	enum { N = 200 };
	struct vma_list l = { 0 };
	uint64_t starts[N], ends[N], at = 0x1000;

	(void)state;
	srand(7);
	for (int i = 0; i < N; i++) {
		at += 0x1000 * (1 + rand() % 4); /* gaps */
		starts[i] = at;
		at += 0x1000 * (1 + rand() % 8);
		ends[i] = at;
	}
	for (int i = 0; i < N; i++) {
		int j = rand() % N;
		uint64_t s = starts[i], e = ends[i];

		starts[i] = starts[j], ends[i] = ends[j];
		starts[j] = s, ends[j] = e;
	}
	for (int i = 0; i < N; i++) {
		struct vma v = { .start = starts[i], .end = ends[i], .kind = VMA_ANON };

		assert_int_equal(vma_list__add(&l, &v), 0);
	}
	for (uint64_t a = 0; a < at + 0x2000; a += 0x3ff) {
		const struct vma *got = vma_list__find(&l, a);
		bool in = false;

		for (int i = 0; i < N; i++)
			in |= a >= starts[i] && a < ends[i];
		if (!in)
			assert_null(got);
		else
			assert_true(got && a >= got->start && a < got->end);
	}
	vma_list__clear(&l);
}

static uint64_t ino_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void test_cgroups(void **state)
{
	struct fixture *fx = fixture__new();
	struct cgroups *c;
	char buf[256];
	uint64_t unit;

	(void)state;
	assert_non_null(fx);
	assert_int_equal(fixture__sh(fx, "mkdir -p root/system.slice/nginx.service root/user.slice/"
				     "user-1000.slice/session-3.scope root/system.slice/.hidden"), 0);
	c = cgroups__new(fixture__path(fx, "root"));
	assert_non_null(c);
	assert_int_equal(cgroups__path(c, ino_of(fixture__path(fx, "root")), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	unit = ino_of(fixture__path(fx, "root/system.slice/nginx.service"));
	assert_int_equal(cgroups__path(c, unit, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/system.slice/nginx.service");
	assert_int_equal(cgroups__path(c, ino_of(fixture__path(fx, "root/user.slice/user-1000.slice/"
							       "session-3.scope")),
				       buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/user.slice/user-1000.slice/session-3.scope");
	/* Not a cgroup: a file's inode, and nothing at all. */
	assert_int_equal(cgroups__path(c, ino_of(fixture__write(fx, "root/cgroup.procs", "")), buf,
				       sizeof(buf)), -ENOENT);
	assert_int_equal(cgroups__path(c, 1, buf, sizeof(buf)), -ENOENT);
	cgroups__free(c);

	/* No cgroup2 mount at all: every id is unknown, nothing breaks. */
	c = cgroups__new(fixture__path(fx, "nowhere"));
	assert_non_null(c);
	assert_int_equal(cgroups__path(c, unit, buf, sizeof(buf)), -ENOENT);
	cgroups__free(c);
	fixture__free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_find_model),
		cmocka_unit_test(test_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

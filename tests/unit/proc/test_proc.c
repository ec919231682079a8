// SPDX-License-Identifier: MIT
/*
 * The /proc reader: stat lines with awkward process names, kernel threads, which cgroup
 * line counts on unified, hybrid and legacy machines, processes that vanish, and %CPU
 * as ps computes it, checked against ps itself on a process that burns CPU.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers/fixture.h"
#include "proc/proc.h"

static void write_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(data, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* ROOT/PID/{stat,cgroup}; cgroup NULL: no such file. */
static void fake(struct fixture *fx, int pid, const char *stat, const char *cgroup)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d", fixture__dir(fx), pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/stat", fixture__dir(fx), pid);
	write_file(path, stat);
	if (cgroup) {
		snprintf(path, sizeof(path), "%s/%d/cgroup", fixture__dir(fx), pid);
		write_file(path, cgroup);
	}
}

static void test_stat_fields(void **state)
{
	struct fixture *fx = fixture__new();
	struct proc_info p;

	(void)state;
	assert_non_null(fx);
	/* A name with spaces and parentheses ends at the last ')'. */
	fake(fx, 17,
	     "17 (a) b (c) R 9 17 17 34817 17 4194304 100 0 0 0 250 50 7 3 20 0 4 0 12345 "
	     "1000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
	     "0::/system.slice/app.service\n");
	assert_int_equal(proc__read(fixture__dir(fx), 17, &p), 0);
	assert_int_equal(p.pid, 17);
	assert_int_equal(p.ppid, 9);
	assert_string_equal(p.comm, "a) b (c");
	assert_int_equal(p.tty_nr, 34817);
	assert_false(p.kthread);
	assert_int_equal(p.cpu_ticks, 300); /* utime + stime, not the children's */
	assert_int_equal(p.start_ticks, 12345);
	assert_string_equal(p.cgroup, "/system.slice/app.service");
	assert_string_equal(p.exe, "");

	/* A kernel thread: PF_KTHREAD (0x00200000) in flags. */
	fake(fx, 2, "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 3 0 0 20 0 1 0 1 0 0\n",
	     "0::/\n");
	assert_int_equal(proc__read(fixture__dir(fx), 2, &p), 0);
	assert_true(p.kthread);
	assert_int_equal(p.ppid, 0);
	assert_int_equal(p.cpu_ticks, 3);

	/* A name of 15 characters and one that is all spaces. */
	fake(fx, 30, "30 (abcdefghijklmno) S 1 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0\n", NULL);
	assert_int_equal(proc__read(fixture__dir(fx), 30, &p), 0);
	assert_string_equal(p.comm, "abcdefghijklmno");
	assert_string_equal(p.cgroup, "");
	fake(fx, 31, "31 (   ) S 1 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0\n", NULL);
	assert_int_equal(proc__read(fixture__dir(fx), 31, &p), 0);
	assert_string_equal(p.comm, "   ");

	/* Truncated or garbled: refused, not half read. */
	fake(fx, 40, "40 (x) S 1 0\n", NULL);
	assert_int_equal(proc__read(fixture__dir(fx), 40, &p), -EINVAL);
	fake(fx, 41, "41 x S 1 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0\n", NULL);
	assert_int_equal(proc__read(fixture__dir(fx), 41, &p), -EINVAL);

	/* Gone. */
	assert_int_equal(proc__read(fixture__dir(fx), 99999, &p), -ENOENT);
	fixture__free(fx);
}

static void test_cgroup_line(void **state)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
		/* unified */
		{ "0::/system.slice/nginx.service\n", "/system.slice/nginx.service" },
		/* hybrid, systemd's: the unified line says as much as name=systemd */
		{ "12:cpu,cpuacct:/system.slice/nginx.service\n"
		  "1:name=systemd:/system.slice/nginx.service\n0::/system.slice/nginx.service\n",
		  "/system.slice/nginx.service" },
		/* hybrid, this kind of machine: everything at "/" in the unified hierarchy */
		{ "9:name=systemd:/docker/abc\n8:pids:/\n0::/\n", "/docker/abc" },
		/* a process moved into a unified cgroup on such a machine */
		{ "9:name=systemd:/\n4:memory:/x\n0::/system.slice/web.service\n",
		  "/system.slice/web.service" },
		/* both say something: the unified one wins */
		{ "1:name=systemd:/user.slice/session-1.scope\n0::/system.slice/a.service\n",
		  "/system.slice/a.service" },
		/* legacy only */
		{ "4:memory:/foo\n1:name=systemd:/system.slice/cron.service\n",
		  "/system.slice/cron.service" },
		{ "0::/\n", "/" },
		{ "4:memory:/foo\n", "" },
	};
	struct proc_info p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *fx = fixture__new();

		assert_non_null(fx);
		fake(fx, 5, "5 (x) S 1 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0\n", cases[i].file);
		assert_int_equal(proc__read(fixture__dir(fx), 5, &p), 0);
		if (strcmp(p.cgroup, cases[i].want) != 0)
			fail_msg("cgroup file %zu: got '%s', want '%s'", i, p.cgroup,
				 cases[i].want);
		fixture__free(fx);
	}
}

static void test_list_and_uptime(void **state)
{
	struct fixture *fx = fixture__new();
	const char *stat = "1 (x) S 0 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0\n";
	char path[PATH_MAX];
	double uptime;
	size_t n;
	int *pids;

	(void)state;
	assert_non_null(fx);
	fake(fx, 300, stat, NULL);
	fake(fx, 7, stat, NULL);
	fake(fx, 42, stat, NULL);
	snprintf(path, sizeof(path), "%s/self", fixture__dir(fx));
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/uptime", fixture__dir(fx));
	write_file(path, "12345.67 24000.00\n");

	assert_int_equal(proc__list_pids(fixture__dir(fx), &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 42);
	assert_int_equal(pids[2], 300);
	free(pids);
	assert_int_equal(proc__uptime(fixture__dir(fx), &uptime), 0);
	assert_true(fabs(uptime - 12345.67) < 1e-9);
	fixture__free(fx);
	assert_int_equal(proc__list_pids("/nonexistent-proc", &pids, &n), -ENOENT);
}

/* ps: (utime + stime) / Hz over the seconds since the process started. */
static void test_cpu_percent_formula(void **state)
{
	struct proc_info p = { 0 };

	(void)state;
	/* started 10 s after boot, now 30 s: 20 s alive, 5 s of CPU at 100 Hz = 25% */
	p.start_ticks = 1000;
	p.cpu_ticks = 500;
	assert_true(fabs(proc__cpu_percent(&p, 30.0, 100) - 25.0) < 1e-9);
	/* four busy threads for 20 s: 400% */
	p.cpu_ticks = 8000;
	assert_true(fabs(proc__cpu_percent(&p, 30.0, 100) - 400.0) < 1e-9);
	/* another clock rate */
	p.start_ticks = 2500;
	p.cpu_ticks = 250;
	assert_true(fabs(proc__cpu_percent(&p, 20.0, 250) - 10.0) < 1e-9);
	/* not started yet by our clock, or no clock: 0 */
	assert_true(proc__cpu_percent(&p, 9.0, 250) == 0);
	assert_true(proc__cpu_percent(&p, 20.0, 0) == 0);
}

static void test_real_processes(void **state)
{
	struct proc_info p;
	char exe[PATH_MAX];
	ssize_t n;

	(void)state;
	assert_int_equal(proc__read("/proc", getpid(), &p), 0);
	assert_int_equal(p.ppid, getppid());
	assert_false(p.kthread);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_string_equal(p.exe, exe);
	/* The kernel names a process after its file, cut to 15 characters. */
	assert_int_equal(strncmp(p.comm, strrchr(exe, '/') + 1, 15), 0);
	assert_true(strlen(p.comm) > 0 && strlen(p.comm) <= 15);
	assert_true(p.cgroup[0] == '/');

	/* kthreadd: a kernel thread, no exe */
	assert_int_equal(proc__read("/proc", 2, &p), 0);
	assert_true(p.kthread);
	assert_string_equal(p.exe, "");

	assert_int_equal(proc__read("/proc", 1, &p), 0);
	assert_false(p.kthread);
}

static void *spin(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;)
		x++;
	return NULL;
}

/* A child that keeps nthreads busy until killed. */
static pid_t start_spinner(int nthreads)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t t;

		for (int i = 1; i < nthreads; i++)
			pthread_create(&t, NULL, spin, NULL);
		spin(NULL);
		_exit(0);
	}
	return pid;
}

static double our_percent(pid_t pid)
{
	struct proc_info p;
	double uptime;

	if (proc__uptime("/proc", &uptime) == 0 && proc__read("/proc", pid, &p) == 0)
		return proc__cpu_percent(&p, uptime, sysconf(_SC_CLK_TCK));
	return -1;
}

/* Our figure just before and just after ps's for the same process: a spinner's %CPU (its
 * CPU time over its lifetime) moves while ps starts, the more so on a loaded machine, so
 * ps's figure is checked against ours at both ends of its own read. */
static void measure(pid_t pid, double ours[2], double *theirs)
{
	struct fixture *fx = fixture__new();
	char *out;

	ours[0] = ours[1] = *theirs = -1;
	if (!fx)
		return;
	ours[0] = our_percent(pid);
	out = fixture__sh_output(fx, "ps -o pcpu= -p %d", pid);
	ours[1] = our_percent(pid);
	if (out)
		*theirs = strtod(out, NULL);
	free(out);
	fixture__free(fx);
}

static void test_cpu_percent_like_ps(void **state)
{
	double ours[3][2], theirs[3];
	pid_t pids[3];

	(void)state;
	pids[0] = start_spinner(1);
	pids[1] = start_spinner(2);
	pids[2] = 1; /* and a long-lived process */
	sleep(2);
	for (int i = 0; i < 3; i++)
		measure(pids[i], ours[i], &theirs[i]);
	/* Killed before any assertion can end the test. */
	for (int i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	for (int i = 0; i < 3; i++) {
		double lo = fmin(ours[i][0], ours[i][1]), hi = fmax(ours[i][0], ours[i][1]);

		if (lo < 0 || theirs[i] < 0)
			fail_msg("pid %d: could not read its %%CPU (ours %.1f, ps %.1f)", pids[i],
				 lo, theirs[i]);
		if (theirs[i] < lo - 3.0 || theirs[i] > hi + 3.0)
			fail_msg("pid %d: %.1f%% to %.1f%% CPU, ps says %.1f%%", pids[i], lo, hi,
				 theirs[i]);
	}
	/* The spinners burnt CPU: the comparison is not of two zeros. */
	assert_true(ours[0][0] >= 1.0 && ours[0][1] >= 1.0);
	assert_true(ours[1][0] >= 1.0 && ours[1][1] >= 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_fields),
		cmocka_unit_test(test_cgroup_line),
		cmocka_unit_test(test_list_and_uptime),
		cmocka_unit_test(test_cpu_percent_formula),
		cmocka_unit_test(test_real_processes),
		cmocka_unit_test(test_cpu_percent_like_ps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

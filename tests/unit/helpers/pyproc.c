// SPDX-License-Identifier: MIT
/* Real Python interpreters for tests (see pyproc.h). */
#include "helpers/pyproc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *pyproc__pyenv(unsigned minor)
{
	const char *home = getenv("HOME");
	char pattern[512];
	char *found = NULL;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/.pyenv/versions/3.%u.*/bin/python3.%u",
		 home ? home : "/root", minor, minor);
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0)
		found = strdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return found;
}

char *pyproc__pyenv_or_skip(unsigned minor)
{
	char *python = pyproc__pyenv(minor);

	if (!python) {
		fprintf(stderr, "skipped: pyenv's CPython 3.%u is not installed "
				"(~/.pyenv/versions/3.%u.*)\n", minor, minor);
		skip();
	}
	return python;
}

/* Started and not yet stopped: a failed assertion leaves its test early, and what it
 * started must not spin on after it. */
#define MAX_LIVE 64
static pid_t live[MAX_LIVE];

void pyproc__stop_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] > 0) {
			kill(live[i], SIGKILL);
			waitpid(live[i], NULL, 0);
			live[i] = 0;
		}
	}
}

static void track(pid_t pid, pid_t old)
{
	static int registered;

	if (!registered) {
		atexit(pyproc__stop_all);
		registered = 1;
	}
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == old) {
			live[i] = pid;
			return;
		}
	}
}

int pyproc__start(struct pyproc *p, const char *python, const char *script)
{
	int pipefd[2];

	memset(p, 0, sizeof(*p));
	p->out = p->mem = -1;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	p->pid = fork();
	if (p->pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (p->pid == 0) {
		dup2(pipefd[1], 1);
		execl(python, python, "-S", script, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	p->out = pipefd[0];
	track(p->pid, 0);
	return 0;
}

int pyproc__read_line(struct pyproc *p, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		if (read(p->out, buf + len, 1) != 1) {
			buf[len] = '\0';
			return -1;
		}
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return 0;
}

int pyproc__open_mem(struct pyproc *p)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", p->pid);
	p->mem = open(path, O_RDONLY | O_CLOEXEC);
	return p->mem < 0 ? -errno : 0;
}

int pyproc__read(void *ctx, void *dst, __u32 size, __u64 addr)
{
	const struct pyproc *p = ctx;
	ssize_t n = pread(p->mem, dst, size, (off_t)addr);

	return n == (ssize_t)size ? 0 : -EFAULT;
}

void pyproc__stop(struct pyproc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		track(0, p->pid);
		p->pid = 0;
	}
	if (p->mem >= 0)
		close(p->mem);
	if (p->out >= 0)
		close(p->out);
	p->mem = p->out = -1;
}

int pyproc__find_python(pid_t pid, struct python_proc *proc, struct python_binary *bin)
{
	char path[64], line[4096], file[4096], perms[8];
	uint64_t start, end, offset;
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		int fd;

		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %4095s", &start,
			   &end, perms, &offset, file) < 4)
			continue;
		if (perms[2] != 'x' || file[0] != '/' || !python_binary__is_candidate(file))
			continue;
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (python_binary__read(fd, file, bin) == 0)
			err = python_proc__init(bin, start, offset, proc);
		close(fd);
	}
	fclose(f);
	return err;
}

/* dir/tests/workloads/name, resolved, if it is a file. */
static char *workload_in(const char *dir, const char *sub, const char *name)
{
	char path[PATH_MAX + 64];

	if (snprintf(path, sizeof(path), "%s%s/%s", dir, sub, name) >= (int)sizeof(path))
		return NULL;
	if (access(path, R_OK) != 0)
		return NULL;
	return realpath(path, NULL);
}

char *pyproc__workload(const char *name)
{
	const char *env = getenv("SLIDEOPS_WORKLOADS");
	char dir[PATH_MAX], *found, *slash;
	ssize_t n;

	if (env && *env)
		return workload_in(env, "", name);
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n > 0) {
		dir[n] = '\0';
		while ((slash = strrchr(dir, '/')) != NULL) {
			*slash = '\0';
			found = workload_in(*dir ? dir : "/", "/tests/workloads", name);
			if (found)
				return found;
		}
	}
	return workload_in(".", "/tests/workloads", name);
}

int pyproc__line_of(const char *path, const char *marker)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0, found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	fclose(f);
	return found;
}

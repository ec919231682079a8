// SPDX-License-Identifier: MIT
/*
 * The process table as /proc tells it. Everything is read from a root directory
 * ("/proc" normally) so tests can hand us a tree of their own. A process may exit
 * between any two reads: that is -ENOENT, never an error worth reporting.
 *
 * Workload: `top` reads every process once; a capture reads each new pid once and its
 * ancestors as the owner rules need them. Files are small; one read each.
 */
#include "proc/proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* include/linux/sched.h: "I am a kernel thread". */
#define PF_KTHREAD 0x00200000UL

/* Reads a whole small file into buf (NUL-terminated). Returns its length or -errno;
 * a process that exited while we read says ESRCH, which we report as -ENOENT. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno == ESRCH ? -ENOENT : -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/*
 * /proc/PID/stat: "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt
 * majflt cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
 * starttime ...". comm may hold spaces and parentheses, so it ends at the last ')'.
 */
static int parse_stat(const char *buf, struct proc_info *out)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long long v[16];
	unsigned long flags;
	int ppid, tty_nr;
	size_t len;
	char state;

	if (!open || !close || close < open)
		return -EINVAL;
	len = close - open - 1;
	if (len > PROC_COMM_MAX)
		len = PROC_COMM_MAX;
	memcpy(out->comm, open + 1, len);
	out->comm[len] = '\0';

	/* Fields 3..22; the ones we do not need are read into v and dropped. */
	if (sscanf(close + 1,
		   " %c %d %llu %llu %d %llu %lu %llu %llu %llu %llu %llu %llu %llu %llu %llu"
		   " %llu %llu %llu %llu",
		   &state, &ppid, &v[0], &v[1], &tty_nr, &v[2], &flags, &v[3], &v[4], &v[5],
		   &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14],
		   &v[15]) != 20)
		return -EINVAL;
	out->ppid = ppid;
	out->tty_nr = tty_nr;
	out->kthread = flags & PF_KTHREAD;
	out->cpu_ticks = v[7] + v[8];	/* utime + stime */
	out->start_ticks = v[15];
	return 0;
}

/*
 * The cgroup path: the unified hierarchy's ("0::") when it says more than "/", else the
 * name=systemd hierarchy's. Hybrid machines keep everything at "/" in the unified one
 * and the real placement in name=systemd (or the other way round).
 */
static void parse_cgroup(char *buf, char *out, size_t size)
{
	const char *unified = NULL, *named = NULL;

	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "0::", 3) == 0)
			unified = line + 3;
		else if (strstr(line, ":name=systemd:"))
			named = strstr(line, ":name=systemd:") + strlen(":name=systemd:");
	}
	if (unified && strcmp(unified, "/") == 0 && named && *named && strcmp(named, "/") != 0)
		unified = NULL;
	if (!unified)
		unified = named;
	snprintf(out, size, "%s", unified ? unified : "");
}

static int proc__read_some(const char *root, int pid, bool exe, bool cgroup,
			   struct proc_info *out)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int err;

	memset(out, 0, sizeof(*out));
	out->pid = pid;

	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = parse_stat(buf, out);
	if (err)
		return err;

	/* Unreadable for kernel threads (no mm) and, without privileges, for others'. */
	if (exe) {
		snprintf(path, sizeof(path), "%s/%d/exe", root, pid);
		n = readlink(path, out->exe, sizeof(out->exe) - 1);
		out->exe[n > 0 ? n : 0] = '\0';
	}
	if (!cgroup)
		return 0;

	snprintf(path, sizeof(path), "%s/%d/cgroup", root, pid);
	n = read_small(path, buf, sizeof(buf));
	if (n > 0) {
		parse_cgroup(buf, out->cgroup, sizeof(out->cgroup));
	} else if (n == -ENOENT) {
		/* Gone now, or a kernel without cgroups (then the directory is still there). */
		snprintf(path, sizeof(path), "%s/%d", root, pid);
		if (access(path, F_OK) != 0)
			return -ENOENT;
	}
	return 0;
}

int proc__read(const char *root, int pid, struct proc_info *out)
{
	return proc__read_some(root, pid, true, true, out);
}

int proc__read_stat(const char *root, int pid, bool exe, struct proc_info *out)
{
	return proc__read_some(root, pid, exe, false, out);
}

/* "Name:\t   1234 kB" lines; a line it lacks reads as -1. */
static long long status_kb(const char *status, const char *name)
{
	size_t len = strlen(name);

	const char *line = status;

	while (*line) {
		const char *end = strchr(line, '\n');
		long long kb;

		if (strncmp(line, name, len) == 0 && line[len] == ':' &&
		    sscanf(line + len + 1, "%lld kB", &kb) == 1 && kb >= 0)
			return kb;
		if (!end)
			break;
		line = end + 1;
	}
	return -1;
}

int proc__parse_rss(const char *status, uint64_t *anon_shmem, uint64_t *file)
{
	long long anon = status_kb(status, "RssAnon"), shmem = status_kb(status, "RssShmem");
	long long file_kb = status_kb(status, "RssFile");

	/* Kernel threads and zombies have no Rss lines: no memory of their own. */
	if (anon < 0 || shmem < 0 || file_kb < 0)
		return -ENODATA;
	*anon_shmem = ((uint64_t)anon + (uint64_t)shmem) << 10;
	*file = (uint64_t)file_kb << 10;
	return 0;
}

int proc__read_rss(const char *root, int pid, uint64_t *anon_shmem, uint64_t *file)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return proc__parse_rss(buf, anon_shmem, file);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int proc__list_pids(const char *root, int **pids, size_t *n)
{
	size_t count = 0, cap = 256;
	struct dirent *de;
	int *list, *grown;
	DIR *dir;
	int err;

	dir = opendir(root);
	if (!dir)
		return -errno;
	list = malloc(cap * sizeof(*list));
	if (!list) {
		err = -ENOMEM;
		goto out_close;
	}
	while ((de = readdir(dir))) {
		char *end;
		long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		if (count == cap) {
			grown = realloc(list, 2 * cap * sizeof(*list));
			if (!grown) {
				err = -ENOMEM;
				goto out_free;
			}
			list = grown;
			cap *= 2;
		}
		list[count++] = pid;
	}
	closedir(dir);
	qsort(list, count, sizeof(*list), cmp_int);
	*pids = list;
	*n = count;
	return 0;

out_free:
	free(list);
out_close:
	closedir(dir);
	return err;
}

/*
 * procps's pr_pcpu: (utime + stime) / Hz over the seconds since the process started.
 * ps works in whole seconds and per-mille; we keep the fraction, so a process younger
 * than a second still shows what it burns.
 */
double proc__cpu_percent(const struct proc_info *p, double uptime_s, long ticks_per_s)
{
	double alive, cpu;

	if (ticks_per_s <= 0)
		return 0;
	alive = uptime_s - (double)p->start_ticks / ticks_per_s;
	cpu = (double)p->cpu_ticks / ticks_per_s;
	if (alive <= 0)
		return 0;
	return 100.0 * cpu / alive;
}

int proc__uptime(const char *root, double *uptime_s)
{
	char path[PATH_MAX], buf[128];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/uptime", root);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sscanf(buf, "%lf", uptime_s) != 1)
		return -EINVAL;
	return 0;
}

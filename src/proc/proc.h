/* SPDX-License-Identifier: MIT */
/* The process table as /proc tells it: one process's facts, and ps-style %CPU. */
#ifndef SLIDEOPS_PROC_H
#define SLIDEOPS_PROC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_COMM_MAX 16
#define PROC_CGROUP_MAX 512

struct proc_info {
	int pid, ppid;
	char comm[PROC_COMM_MAX + 1];
	char exe[PATH_MAX];          /* "" for kernel threads or when unreadable */
	char cgroup[PROC_CGROUP_MAX]; /* the unified (0::) path, else name=systemd's */
	bool kthread;                /* PF_KTHREAD */
	int tty_nr;                  /* controlling terminal, 0 for none */
	uint64_t start_ticks;        /* since boot, clock ticks */
	uint64_t cpu_ticks;          /* utime + stime */
};

/* 0, -ENOENT when the process is gone, -errno. root: "/proc" normally. */
int proc__read(const char *root, int pid, struct proc_info *out);
/* The same from its stat alone, and its exe when exe: cgroup left empty, exe too when not
 * asked (an ancestor in the process tree needs neither, unless services are known by
 * their executables). */
int proc__read_stat(const char *root, int pid, bool exe, struct proc_info *out);
/* A process's resident memory in bytes, from ROOT/PID/status: anonymous and shared
 * (RssAnon + RssShmem) and file-backed (RssFile). 0, -ENOENT when the process is gone,
 * -ENODATA when it has no memory of its own (a kernel thread, a zombie), -errno. */
int proc__read_rss(const char *root, int pid, uint64_t *anon_shmem, uint64_t *file);
/* The same from the text of a status file. 0 or -ENODATA. */
int proc__parse_rss(const char *status, uint64_t *anon_shmem, uint64_t *file);
/* Every pid now, ascending. */
int proc__list_pids(const char *root, int **pids, size_t *n);
/* As ps: CPU time since start / time since start, in percent (can exceed 100). */
double proc__cpu_percent(const struct proc_info *p, double uptime_s, long ticks_per_s);
/* Seconds since boot from ROOT/uptime. */
int proc__uptime(const char *root, double *uptime_s);

#endif

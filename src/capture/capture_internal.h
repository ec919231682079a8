/* SPDX-License-Identifier: MIT */
/* What the questions' capture engines and `check` share inside src/capture/. */
#ifndef SLIDEOPS_CAPTURE_INTERNAL_H
#define SLIDEOPS_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

struct bpf_object;

/* libbpf's own messages go to stderr only with SLIDEOPS_DEBUG set: a refused load is
 * explained by our message, and `check` probes features that may well be missing. */
void capture__quiet_libbpf(void);
bool capture__debug(void);

/* Root, or CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in the effective set. detail
 * says who we run as and, when not enough, what is missing. */
bool capture__privileged(char *detail, size_t size);

/* This build captures q (the kernel may support more: `check` says). */
bool capture__question_built(enum question q);

/* The online CPUs (/sys/devices/system/cpu/online): malloc'd ids into *cpus. */
int capture__online_cpus(int **cpus, int *n);

/* A cpu-clock perf event on one CPU for every task (pid -1), sampling at hz. fd or -errno. */
int capture__open_cpu_clock(int cpu, unsigned hz);

/*
 * Loads obj (opened and configured: autoload, map sizes) with an in-kernel loader, so
 * the kernel's BTF is never parsed in user space. Fills the descriptors of its maps and
 * programs in the object's order (-1: a program not loaded); they are the caller's to
 * close. 0 or -errno; obj cannot be loaded again either way (close it).
 */
int capture__load_in_kernel(struct bpf_object *obj, int *map_fds, int nmaps, int *prog_fds,
			    int nprogs);
/* Links owned by the returned descriptor: closing it detaches. fd or -errno. */
int capture__attach_perf_event(int prog_fd, int perf_fd);
int capture__attach_tracing(int prog_fd);

/* The header every profile of this server carries (hostname, kernel, CPUs, version). */
int capture__fill_header(struct profile *p, unsigned ncpus, unsigned hz);

/* The mapping kernel frames belong to: [kernel.kallsyms] with the kernel's build id. */
uint32_t capture__kernel_mapping(struct profile *p);

/* Names every kernel frame from /proc/kallsyms (true only on this boot, so now).
 * 0, -ENOMEM; kernel frames stay unnamed when kallsyms cannot be read. */
int capture__name_kernel_frames(struct profile *p, uint32_t kernel_mapping);

/* The same, asking the kernel (ksym.bpf.c): 0, -ENOMEM, or -errno when the program
 * cannot run here (then /proc/kallsyms is read instead). */
int capture__name_kernel_frames_bpf(struct profile *p, uint32_t kernel_mapping);

/* Shows "N s left" on stderr once a second while a capture runs. */
void capture__progress(const struct capture_options *opts, uint64_t left_ns);
void capture__progress_done(const struct capture_options *opts);

int capture__cpu(const struct capture_options *opts, struct profile **out);
/* Loads the cpu question's programs and attaches them for a moment. 0, or -errno with
 * detail saying what failed. */
int capture__cpu_probe(char *detail, size_t size);

#endif

// SPDX-License-Identifier: MIT
/*
 * `slideops check`: can this server be profiled? Every answer is found by doing the
 * thing (load a program, make a map, open an event, attach to a tracepoint), never by
 * reading a version number: distributions backport features and configure them out.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "capture/unwinding.h"
#include "util/messages.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define TRACEFS_PATH "/sys/kernel/tracing"

static struct requirement *add(struct check_result *out, enum msg_id name)
{
	struct requirement *r = &out->requirements[out->nrequirements++];

	r->name = msg_text(name);
	r->ok = false;
	r->detail[0] = '\0';
	return r;
}

static bool denied(int err)
{
	return err == -EPERM || err == -EACCES;
}

static void check_btf(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_BTF);

	if (access(BTF_PATH, R_OK) == 0) {
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BTF_OK, BTF_PATH);
	} else {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BTF_MISSING, BTF_PATH,
			   strerror(errno));
	}
}

/* "r0 = 0; exit": the smallest program the verifier accepts. */
static void check_bpf(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_BPF);
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, NULL, "GPL", insns, 2, NULL);

	if (fd >= 0) {
		close(fd);
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BPF_OK);
	} else if (denied(-errno)) {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BPF_DENIED, strerror(errno));
	} else if (errno == EINVAL || errno == ENOSYS) {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BPF_UNSUPPORTED);
	} else {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_BPF_FAILED, strerror(errno));
	}
}

static void check_ringbuf(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_RINGBUF);
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, sysconf(_SC_PAGESIZE), NULL);

	if (fd >= 0) {
		close(fd);
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_RINGBUF_OK);
	} else if (denied(-errno)) {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_RINGBUF_DENIED, strerror(errno));
	} else {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_RINGBUF_UNSUPPORTED);
	}
}

/* The kernel memory unwind tables may take (the budget), found by making the rows map a
 * capture makes: where it cannot be made, stacks come from frame pointers alone. */
static void check_unwind(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_UNWIND);
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	struct unwind_maps_plan plan;
	int fd;

	if (unwinding__plan(0, &plan)) {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_UNWIND_FAILED, strerror(EINVAL));
		return;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32), sizeof(struct unwind_row),
			    plan.rows, &opts);
	if (fd >= 0) {
		close(fd);
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_UNWIND_OK,
			   (unsigned long long)(plan.budget >> 20),
			   (unsigned long long)((uint64_t)plan.rows * sizeof(struct unwind_row) >> 20),
			   plan.procs);
	} else {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_UNWIND_FAILED, strerror(errno));
	}
}

/* The event the cpu question samples with, on every CPU it will sample. */
static void check_perf(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_PERF);
	int *cpus = NULL, ncpus = 0, err;

	err = capture__online_cpus(&cpus, &ncpus);
	if (err) {
		msg_format(r->detail, sizeof(r->detail), MSG_CAPTURE_NO_CPUS, strerror(-err));
		return;
	}
	for (int i = 0; i < ncpus; i++) {
		int fd = capture__open_cpu_clock(cpus[i], 99);

		if (fd < 0) {
			msg_format(r->detail, sizeof(r->detail),
				   denied(fd) ? MSG_CHECK_PERF_DENIED : MSG_CHECK_PERF_FAILED,
				   cpus[i], strerror(-fd));
			free(cpus);
			return;
		}
		close(fd);
	}
	r->ok = true;
	msg_format(r->detail, sizeof(r->detail), MSG_CHECK_PERF_OK, ncpus);
	free(cpus);
}

static bool tracefs_mounted(void)
{
	struct statfs st;

	return statfs(TRACEFS_PATH, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

/* Classic tracepoints (the futex syscalls) are found through tracefs; many systems
 * without systemd do not mount it. */
static void check_tracefs(struct check_result *out)
{
	struct requirement *r = add(out, MSG_CHECK_REQ_TRACEFS);

	if (tracefs_mounted()) {
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_TRACEFS_OK, TRACEFS_PATH);
	} else if (mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL) == 0) {
		r->ok = true;
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_TRACEFS_MOUNTED, TRACEFS_PATH);
	} else {
		msg_format(r->detail, sizeof(r->detail), MSG_CHECK_TRACEFS_MISSING, strerror(errno),
			   TRACEFS_PATH);
	}
}

/* What a question's programs need, tried for real: its own programs, loaded by the
 * engine's loader and attached for a moment (its row's probe), as a capture would. */
static int probe_question(const struct capture_question *row, char *detail, size_t size)
{
	struct bpf_loaded l;
	int err, exec_link, exit_link;

	err = bpf_loaded__load(&l, row, 256 << 10, NULL);
	if (err) {
		char missing[256];

		capture__kernel_missing(row->id, missing, sizeof(missing));
		if (missing[0])
			msg_format(detail, size, MSG_CHECK_Q_KERNEL_MISSING, strerror(-err), missing);
		else
			msg_format(detail, size, MSG_CHECK_Q_LOAD_FAILED, strerror(-err));
		return err;
	}
	exec_link = capture__attach_tracing(l.on_exec);
	exit_link = exec_link < 0 ? exec_link : capture__attach_tracing(l.on_exit);
	if (exit_link < 0) {
		err = exit_link;
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "sched_process_exec/exit",
			   strerror(-err));
	} else {
		err = row->probe(&l, detail, size);
	}
	if (exec_link >= 0)
		close(exec_link);
	if (exit_link >= 0)
		close(exit_link);
	bpf_loaded__close(&l);
	return err;
}

void capture__check(struct check_result *out)
{
	struct requirement *priv;

	memset(out, 0, sizeof(*out));
	capture__quiet_libbpf();
	priv = add(out, MSG_CHECK_REQ_PRIVILEGES);
	priv->ok = capture__privileged(priv->detail, sizeof(priv->detail));
	check_btf(out);
	check_bpf(out);
	check_ringbuf(out);
	check_perf(out);
	check_tracefs(out);
	check_unwind(out);

	for (int q = 0; q < QUESTION__COUNT; q++) {
		char *detail = out->question_details[q];
		size_t size = sizeof(out->question_details[q]);

		if (!priv->ok) {
			msg_format(detail, size, MSG_CHECK_Q_NEEDS_PRIVILEGES);
			continue;
		}
		/* Every question has its row: what the kernel supports, this build captures. */
		out->kernel_supports[q] = probe_question(capture_question__get(q), detail, size) == 0;
		capture__walker_refusal(q, &out->walker[q]);
		out->questions[q] = out->kernel_supports[q];
		if (out->questions[q]) {
			char less[sizeof(out->question_details[q])];

			capture__kernel_less(q, less, sizeof(less));
			if (less[0])
				msg_format(detail, size, MSG_CHECK_Q_OK_LESS, less);
			else
				msg_format(detail, size, MSG_CHECK_Q_OK);
		}
	}
}

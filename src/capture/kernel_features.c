// SPDX-License-Identifier: MIT
/*
 * What this kernel takes: its BPF features, probed once with features.bpf.c's programs
 * (SLIDEOPS_KERNEL_LACKS pretends some away), what each question needs of them, and the
 * sentences that say what a question misses or does with less here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "features.skel.h"
#include "util/messages.h"

/* Why each question runs the smaller walker here (the kernel refused the full one):
 * set by bpf_loaded__load (loader.c), said by capture__kernel_less; "" when it does not. */
char reduced_because[QUESTION__COUNT][256];

/* Loads features.bpf.c's program name alone: 0 when the kernel takes it. In the kernel
 * as a question's object is loaded; by libbpf where the kernel cannot run the loader. */
static int probe_feature(const char *name)
{
	/* features.bpf.c has no maps and a few programs: their descriptors fit here. */
	int prog_fds[8];

	for (int in_kernel = 1; in_kernel >= 0; in_kernel--) {
		struct features_bpf *skel = features_bpf__open();
		struct bpf_program *prog;
		int nprogs = 0, err;

		if (!skel)
			return -errno;
		bpf_object__for_each_program(prog, skel->obj) {
			bpf_program__set_autoload(prog, strcmp(bpf_program__name(prog), name) == 0);
			nprogs++;
		}
		if (in_kernel && nprogs <= 8 && !bpf_object__next_map(skel->obj, NULL)) {
			err = load_in_kernel(skel->obj, NULL, 0, prog_fds, nprogs);
			for (int i = 0; !err && i < nprogs; i++)
				if (prog_fds[i] >= 0)
					close(prog_fds[i]);
		} else {
			err = features_bpf__load(skel);
		}
		features_bpf__destroy(skel);
		/* Refused by the verifier or not privileged: that is the answer. Anything else
		 * from the in-kernel loader: libbpf's load says. */
		if (err == -EACCES || err == -EINVAL || err == -EPERM || err == -ESRCH ||
		    !in_kernel || !err)
			return err;
	}
	return -EINVAL;
}

/* SLIDEOPS_KERNEL_LACKS: a comma-separated list of features to pretend are missing. */
bool pretend_lacks(const char *name)
{
	const char *v = getenv("SLIDEOPS_KERNEL_LACKS");
	size_t n = strlen(name);

	for (const char *p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* pretend_lacks for a feature's probe name; bpf_loop's probe is named loop, and both
 * names pretend it away. */
static bool pretend_lacks_feature(const char *name)
{
	return pretend_lacks(name) || (strcmp(name, "loop") == 0 && pretend_lacks("bpf_loop"));
}

static bool has_feature(const char *name)
{
	bool has = !pretend_lacks_feature(name) && probe_feature(name) == 0;

	if (capture__debug())
		msg_error(MSG_CAPTURE_DEBUG_FEATURE, name, has ? "yes" : "no");
	return has;
}

const struct kernel_features *capture__kernel_features(void)
{
	static struct kernel_features k;
	static bool probed;

	if (!probed) {
		k.exit_group_dead = has_feature("exit_group_dead");
		k.task_vmas = k.exit_group_dead && has_feature("task_vmas");
		k.trusted_args = has_feature("trusted_args");
		k.rss_stat_count = has_feature("rss_stat_count");
		k.loop = has_feature("loop");
		k.walker = BPF_WALKER_FULL;
		probed = true;
	}
	return &k;
}

/* What the questions need and no variant does without (docs/kernel.md): what a
 * question's row says it needs (enum kernel_need); 0: every question. */
static const struct {
	const char *feature;
	enum msg_id what;
	unsigned need;
} needs[] = {
	{ "loop", MSG_KERNEL_MISSING_LOOP, KERNEL_NEEDS_SLEEPABLE_ITER },
	{ "sleepable_iter", MSG_KERNEL_MISSING_SLEEPABLE_ITER, KERNEL_NEEDS_SLEEPABLE_ITER },
	{ "lock_contention", MSG_KERNEL_MISSING_LOCK_CONTENTION, KERNEL_NEEDS_LOCK_CONTENTION },
};

static bool question_needs(enum question q, size_t i)
{
	const struct capture_question *row = capture_question__get(q);

	/* bpf_loop: only the task walk of kernels before 6.8 cannot do without it (its
	 * frames in a bpf_loop callback); every other build has one without it. */
	if (strcmp(needs[i].feature, "loop") == 0)
		return row && (row->kernel_needs & KERNEL_NEEDS_SLEEPABLE_ITER) &&
		       !capture__kernel_features()->trusted_args;
	return !needs[i].need || (row && (row->kernel_needs & needs[i].need));
}

/* SLIDEOPS_KERNEL_LACKS names a feature q cannot do without: its load fails, as it would
 * on a kernel without it. */
bool pretend_missing(enum question q)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(*needs); i++)
		if (question_needs(q, i) && pretend_lacks_feature(needs[i].feature))
			return true;
	return false;
}

void capture__kernel_missing(enum question q, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(needs) / sizeof(*needs) && used < size; i++) {
		if (!question_needs(q, i) || has_feature(needs[i].feature))
			continue;
		if (used)
			used += snprintf(out + used, size - used, ", ");
		if (used < size) {
			msg_format(out + used, size - used, needs[i].what);
			used = strlen(out);
		}
	}
}

void capture__kernel_less(enum question q, char *out, size_t size)
{
	const struct kernel_features *k = capture__kernel_features();
	const struct capture_question *row = capture_question__get(q);
	size_t used = 0;

	out[0] = '\0';
	if (!row)
		return;
	if ((unsigned)q < QUESTION__COUNT && reduced_because[q][0]) {
		msg_format(out, size, MSG_KERNEL_LESS_REDUCED, reduced_because[q]);
		used = strlen(out);
	}
	if (!k->loop && !reduced_because[q][0] && used < size) {
		if (used)
			used += snprintf(out + used, size - used, "; ");
		if (used < size)
			msg_format(out + used, size - used, MSG_KERNEL_LESS_NO_LOOP);
		used = strlen(out);
	}
	/* A snapshot is a moment: no process exits in it that it needs to name. */
	if (!k->task_vmas && !question__is_snapshot(q) && used < size) {
		if (used)
			used += snprintf(out + used, size - used, "; ");
		if (used < size)
			msg_format(out + used, size - used, MSG_KERNEL_LESS_EXIT_MAPPINGS);
		used = strlen(out);
	}
	if (!k->trusted_args && row->python_off_cpu_needs_trusted_args) {
		if (used)
			used += snprintf(out + used, size - used, "; ");
		if (used < size)
			msg_format(out + used, size - used, MSG_KERNEL_LESS_TASK_PYTHON);
	}
}

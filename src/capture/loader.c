// SPDX-License-Identifier: MIT
/*
 * A question's BPF object in the kernel (struct bpf_loaded): opened in the variant for
 * this kernel's features, loaded by the kernel itself (loader_in_kernel.c) or, where it
 * cannot run that loader, by libbpf; the verifier's time bounded, and a refusal of the
 * full walker answered with the smaller one (said by capture__kernel_less).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "unwind/unwind.h"
#include "util/messages.h"

static struct walker_refusal refusals[QUESTION__COUNT];
/* The facts of the last refusal refusal_from_log read (bpf_loaded__load keeps them). */
static struct walker_refusal last_refusal;

void capture__walker_refusal(int q, struct walker_refusal *out)
{
	memset(out, 0, sizeof(*out));
	if (q >= 0 && q < QUESTION__COUNT && reduced_because[q][0])
		*out = refusals[q];
}


static void bpf_loaded__init(struct bpf_loaded *l)
{
	memset(l, 0, sizeof(*l));
	l->records = l->counters = l->on_exec = l->on_exit = -1;
}

/* Names of obj's maps and programs in its order, as the descriptors are laid out. */
static int bpf_loaded__names(struct bpf_loaded *l, struct bpf_object *obj)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	int i;

	bpf_object__for_each_map(map, obj)
		l->nmaps++;
	bpf_object__for_each_program(prog, obj)
		l->nprogs++;
	l->map_fds = calloc(l->nmaps + 1, sizeof(*l->map_fds));
	l->prog_fds = calloc(l->nprogs + 1, sizeof(*l->prog_fds));
	l->map_names = calloc(l->nmaps + 1, sizeof(*l->map_names));
	l->prog_names = calloc(l->nprogs + 1, sizeof(*l->prog_names));
	if (!l->map_fds || !l->prog_fds || !l->map_names || !l->prog_names)
		return -ENOMEM;
	for (i = 0; i < l->nmaps; i++)
		l->map_fds[i] = -1;
	for (i = 0; i < l->nprogs; i++)
		l->prog_fds[i] = -1;
	i = 0;
	bpf_object__for_each_map(map, obj)
		if (!(l->map_names[i++] = strdup(bpf_map__name(map))))
			return -ENOMEM;
	i = 0;
	bpf_object__for_each_program(prog, obj)
		if (!(l->prog_names[i++] = strdup(bpf_program__name(prog))))
			return -ENOMEM;
	return 0;
}

/* The unwind maps sized to the plan (NULL: as declared, the smallest). */
static int size_unwind_maps(struct bpf_object *obj, const struct unwind_maps_plan *plan)
{
	struct bpf_map *rows = bpf_object__find_map_by_name(obj, "unwind_rows");
	struct bpf_map *procs = bpf_object__find_map_by_name(obj, "unwind_procs");

	if (!plan)
		return 0;
	if (!rows || !procs || bpf_map__set_max_entries(rows, plan->rows) ||
	    bpf_map__set_max_entries(procs, plan->procs))
		return -EINVAL;
	return 0;
}

/* The exit program for this kernel (bpf/stack.h): with mappings, facts, or facts from
 * the tracepoint's one argument. */
static const char *exit_program(const struct kernel_features *k)
{
	if (!k->exit_group_dead)
		return "on_exit_task";
	return k->task_vmas ? "on_exit" : "on_exit_facts";
}

static const char *const exit_programs[] = { "on_exit", "on_exit_facts", "on_exit_task" };

/* Opens q's object, the variant for the kernel's features, with its ring buffer and
 * unwind maps sized, and the one exit program this kernel takes. */
static struct bpf_object *open_object(const struct capture_question *q, void **skel,
				      size_t ringbuf_size, const struct unwind_maps_plan *plan,
				      const struct kernel_features *k)
{
	struct bpf_object *obj = q->open(skel, k);
	struct bpf_map *records;

	if (!obj)
		return NULL;
	records = bpf_object__find_map_by_name(obj, "records");
	if (!records || bpf_map__set_max_entries(records, ringbuf_size) ||
	    size_unwind_maps(obj, plan))
		goto fail;
	for (size_t i = 0; i < sizeof(exit_programs) / sizeof(*exit_programs); i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, exit_programs[i]);

		if (!p)
			goto fail;
		bpf_program__set_autoload(p, strcmp(exit_programs[i], exit_program(k)) == 0);
	}
	return obj;

fail:
	q->destroy(*skel);
	*skel = NULL;
	errno = EINVAL;
	return NULL;
}

/*
 * The verifier's time on one object, bounded: past seconds, a signal every few
 * milliseconds makes the verifier give up (it stops with EAGAIN when a signal is
 * pending; libbpf tries a load again five times). A kernel that refuses a program at its
 * million instructions takes tens of seconds to say so, and `check` answers in seconds.
 * The signal goes to this thread only, and its handler does nothing.
 */
#define VERIFY_SIGNAL (SIGRTMIN + 4)
#define VERIFY_SECONDS_DEFAULT 3.0

struct verify_deadline {
	timer_t timer;
	bool armed;
};

/* Signals of the deadline this thread took (the timer signals this thread alone). */
static __thread volatile sig_atomic_t verify_fired;

static void verify_interrupted(int sig)
{
	(void)sig;
	verify_fired = 1;
}

/* SLIDEOPS_VERIFY_SECONDS: the bound (the kernel matrix's guests, under emulation, need
 * longer; a test sets a tiny one to see a refusal). */
static double verify_seconds(void)
{
	const char *v = getenv("SLIDEOPS_VERIFY_SECONDS");
	double s = v && *v ? strtod(v, NULL) : VERIFY_SECONDS_DEFAULT;

	return s > 0 ? s : VERIFY_SECONDS_DEFAULT;
}

static void verify_deadline_arm(struct verify_deadline *d)
{
	struct sigaction sa = { .sa_handler = verify_interrupted }; /* no SA_RESTART */
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = VERIFY_SIGNAL };
	double s = verify_seconds();
	struct itimerspec when = {
		.it_value = { (time_t)s, (long)((s - (time_t)s) * 1e9) },
		.it_interval = { 0, 2 * 1000 * 1000 },
	};
	sigset_t set;

	d->armed = false;
	verify_fired = 0;
	if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0)
		when.it_value.tv_nsec = 1;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, VERIFY_SIGNAL);
	ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which glibc 2.36 names not */
	if (sigaction(VERIFY_SIGNAL, &sa, NULL) ||
	    pthread_sigmask(SIG_UNBLOCK, &set, NULL) ||
	    timer_create(CLOCK_MONOTONIC, &ev, &d->timer))
		return;
	if (timer_settime(d->timer, 0, &when, NULL)) {
		timer_delete(d->timer);
		return;
	}
	d->armed = true;
}

/* Once it returns, no signal of the deadline is left to come: one pending was delivered
 * on the way back from the last system call. */
static bool verify_deadline_disarm(struct verify_deadline *d)
{
	if (!d->armed)
		return false;
	timer_delete(d->timer);
	d->armed = false;
	return verify_fired != 0;
}

/* What the verifier said of a refused program, from its log (BPF_LOG_STATS: its errors
 * and its statistics): "too large: N instructions", or its last line of words. */
static void refusal_from_log(const char *prog, const char *log, char *out, size_t size)
{
	const char *at = strstr(log, "BPF program is too large. Processed ");
	const char *processed = strstr(log, "processed ");
	char last[160] = "";

	memset(&last_refusal, 0, sizeof(last_refusal));
	last_refusal.refused = true;
	snprintf(last_refusal.program, sizeof(last_refusal.program), "%s", prog);
	last_refusal.instructions = processed ? strtol(processed + 10, NULL, 10) : -1;
	if (at) {
		snprintf(last_refusal.verifier_said, sizeof(last_refusal.verifier_said),
			 "BPF program is too large");
		msg_format(out, size, MSG_KERNEL_REFUSED_TOO_LARGE, prog,
			   strtol(at + strlen("BPF program is too large. Processed "), NULL, 10));
		return;
	}
	/* The last line that is not a statistic. */
	for (const char *line = log; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		if (n && strncmp(line, "verification time", 17) && strncmp(line, "stack depth", 11) &&
		    strncmp(line, "processed ", 10)) {
			if (n >= sizeof(last))
				n = sizeof(last) - 1;
			memcpy(last, line, n);
			last[n] = '\0';
		}
		if (!end)
			break;
		line = end + 1;
	}
	snprintf(last_refusal.verifier_said, sizeof(last_refusal.verifier_said), "%s", last);
	msg_format(out, size, MSG_KERNEL_REFUSED_SAID, prog, last[0] ? last : "no reason given");
}

/* The verifier's log of each program: large enough that its closing lines are always
 * read (BPF_LOG_STATS holds errors and statistics, not the trace). */
#define VERIFIER_LOG_SIZE (64 << 10)

static int bpf_loaded__try(struct bpf_loaded *l, const struct capture_question *q,
			   size_t ringbuf_size, const struct unwind_maps_plan *plan,
			   const struct kernel_features *k, bool in_kernel, char *refusal,
			   size_t refusal_size)
{
	struct verify_deadline deadline;
	struct bpf_program *prog;
	struct bpf_map *map;
	void *skel = NULL;
	struct bpf_object *obj = open_object(q, &skel, ringbuf_size, plan, k);
	char *logs = NULL;
	int err, i;

	if (!obj)
		return -errno;
	err = bpf_loaded__names(l, obj);
	if (err)
		goto out_destroy;
	if (!in_kernel) {
		logs = calloc(l->nprogs, VERIFIER_LOG_SIZE);
		i = 0;
		bpf_object__for_each_program(prog, obj) {
			if (!logs)
				break;
			bpf_program__set_log_level(prog, 4);
			bpf_program__set_log_buf(prog, logs + (size_t)VERIFIER_LOG_SIZE * i++,
						 VERIFIER_LOG_SIZE);
		}
	}
	/* The smaller walker is small on every kernel: only the full one is bounded. */
	if (k->walker == BPF_WALKER_FULL)
		verify_deadline_arm(&deadline);
	else
		deadline.armed = false;
	if (in_kernel)
		err = load_in_kernel(obj, l->map_fds, l->nmaps, l->prog_fds, l->nprogs);
	else
		err = bpf_object__load(obj);
	if (verify_deadline_disarm(&deadline) && err) {
		msg_format(refusal, refusal_size, MSG_KERNEL_REFUSED_SLOW, verify_seconds());
		memset(&last_refusal, 0, sizeof(last_refusal));
		last_refusal.refused = true;
		last_refusal.instructions = -1;
		snprintf(last_refusal.verifier_said, sizeof(last_refusal.verifier_said), "%s",
			 refusal);
		err = -ETIME;
		goto out_destroy;
	}
	if (in_kernel)
		goto out_destroy; /* the descriptors are ours; the skeleton is not needed */
	if (err) {
		/* libbpf loads in order and stops at the first refusal: the last program
		 * with a log is the one refused. */
		const char *name = NULL, *log = NULL;

		i = 0;
		bpf_object__for_each_program(prog, obj) {
			const char *this = logs ? logs + (size_t)VERIFIER_LOG_SIZE * i : NULL;

			if (this && this[0]) {
				name = bpf_program__name(prog);
				log = this;
			}
			i++;
		}
		if (name)
			refusal_from_log(name, log, refusal, refusal_size);
		goto out_destroy;
	}
	free(logs);
	i = 0;
	bpf_object__for_each_map(map, obj)
		l->map_fds[i++] = bpf_map__fd(map);
	i = 0;
	bpf_object__for_each_program(prog, obj)
		l->prog_fds[i++] = bpf_program__fd(prog);
	l->skel = skel;
	return 0;

out_destroy:
	free(logs);
	q->destroy(skel);
	return err;
}

/* A refusal by the verifier, as the loader tells one from anything else. */
static bool refused(int err)
{
	return err == -E2BIG || err == -EACCES || err == -EINVAL || err == -ETIME ||
	       err == -EAGAIN || err == -EINTR || err == -ENOSPC;
}

int bpf_loaded__load(struct bpf_loaded *l, const struct capture_question *q,
		     size_t ringbuf_size, const struct unwind_maps_plan *plan)
{
	const struct kernel_features *k = capture__kernel_features();
	struct kernel_features kv = *k;
	char refusal[sizeof(reduced_because[0])] = "";
	int err = 0;

	if (pretend_missing(q->id)) {
		bpf_loaded__init(l);
		return -EOPNOTSUPP;
	}
	memset(&last_refusal, 0, sizeof(last_refusal));
	/*
	 * The full walker, then the smaller one (frame pointers, no Python frames) where the
	 * kernel refuses the full one; each by the in-kernel loader, then by libbpf (kernels
	 * that cannot run the loader; it also says which program the verifier refused and
	 * why). A refusal that took the deadline is not tried again the same way.
	 * SLIDEOPS_KERNEL_LACKS=walker pretends the full one is refused.
	 */
	for (int walker = BPF_WALKER_FULL; walker <= BPF_WALKER_FRAME_POINTERS; walker++) {
		kv.walker = walker;
		if (walker == BPF_WALKER_FULL && pretend_lacks("walker")) {
			msg_format(refusal, sizeof(refusal), MSG_KERNEL_REFUSED_PRETEND);
			last_refusal.instructions = -1;
			snprintf(last_refusal.verifier_said, sizeof(last_refusal.verifier_said),
				 "%s", refusal);
			continue;
		}
		for (int attempt = 0; attempt < 2; attempt++) {
			bpf_loaded__init(l);
			l->q = q;
			err = bpf_loaded__try(l, q, ringbuf_size, plan, &kv, attempt == 0, refusal,
					      sizeof(refusal));
			if (!err) {
				l->records = bpf_loaded__map(l, "records");
				l->counters = bpf_loaded__map(l, "counters");
				l->on_exec = bpf_loaded__prog(l, "on_exec");
				l->on_exit = bpf_loaded__prog(l, exit_program(k));
				if (l->records >= 0 && l->counters >= 0 && l->on_exec >= 0 &&
				    l->on_exit >= 0) {
					if ((unsigned)q->id < QUESTION__COUNT) {
						snprintf(reduced_because[q->id],
							 sizeof(reduced_because[q->id]), "%s",
							 walker == BPF_WALKER_FULL ? "" : refusal);
						refusals[q->id] = last_refusal;
						refusals[q->id].refused = walker != BPF_WALKER_FULL;
					}
					return 0;
				}
				err = -EINVAL;
			}
			if (capture__debug())
				msg_error(MSG_CAPTURE_DEBUG_LOAD, attempt, strerror(-err));
			bpf_loaded__close(l);
			if (err == -EPERM || err == -ENOMEM || err == -ETIME)
				break;
		}
		if (err == -EPERM || err == -ENOMEM || !refused(err))
			break;
		if (!refusal[0])
			msg_format(refusal, sizeof(refusal), MSG_KERNEL_REFUSED_ERRNO, strerror(-err));
	}
	return err;
}

int capture__verifier_stats(const struct capture_question *q, bool reduced,
			    void (*fn)(const char *prog, long insns, long usec, const char *refusal,
				       void *arg),
			    void *arg)
{
	struct kernel_features k = *capture__kernel_features();
	struct bpf_program *prog;
	void *skel = NULL;
	struct bpf_object *obj;
	char *names[32];
	int n = 0, failed = 0;

	/* The programs a capture loads, by name; then each alone, with its own log, so that
	 * one refused says which and why and the others still report. */
	k.walker = reduced ? BPF_WALKER_FRAME_POINTERS : BPF_WALKER_FULL;
	obj = open_object(q, &skel, 1 << 20, NULL, &k);
	if (!obj)
		return -errno;
	bpf_object__for_each_program(prog, obj)
		if (bpf_program__autoload(prog) && n < 32)
			names[n++] = strdup(bpf_program__name(prog));
	q->destroy(skel);
	for (int i = 0; i < n; i++) {
		char *log = calloc(1, VERIFIER_LOG_SIZE), refusal[256] = "";
		long insns = -1, usec = -1;
		const char *at;
		int err;

		obj = names[i] && log ? open_object(q, &skel, 1 << 20, NULL, &k) : NULL;
		if (!obj) {
			free(log);
			failed = -ENOMEM;
			continue;
		}
		bpf_object__for_each_program(prog, obj) {
			bool this = strcmp(bpf_program__name(prog), names[i]) == 0;

			bpf_program__set_autoload(prog, this);
			if (this) {
				bpf_program__set_log_level(prog, 4);
				bpf_program__set_log_buf(prog, log, VERIFIER_LOG_SIZE);
			}
		}
		err = bpf_object__load(obj);
		if ((at = strstr(log, "verification time ")))
			usec = strtol(at + strlen("verification time "), NULL, 10);
		if ((at = strstr(log, "processed ")))
			insns = strtol(at + strlen("processed "), NULL, 10);
		if (err) {
			refusal_from_log(names[i], log, refusal, sizeof(refusal));
			failed = err;
		}
		fn(names[i], insns, usec, err ? refusal : NULL, arg);
		q->destroy(skel);
		free(log);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	return failed;
}

static int find_fd(const int *fds, char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return fds[i];
	return -1;
}

int bpf_loaded__map(const struct bpf_loaded *l, const char *name)
{
	return find_fd(l->map_fds, l->map_names, l->nmaps, name);
}

int bpf_loaded__prog(const struct bpf_loaded *l, const char *name)
{
	return find_fd(l->prog_fds, l->prog_names, l->nprogs, name);
}

void bpf_loaded__close(struct bpf_loaded *l)
{
	if (l->skel) {
		l->q->destroy(l->skel);
	} else {
		for (int i = 0; l->map_fds && i < l->nmaps; i++)
			if (l->map_fds[i] >= 0)
				close(l->map_fds[i]);
		for (int i = 0; l->prog_fds && i < l->nprogs; i++)
			if (l->prog_fds[i] >= 0)
				close(l->prog_fds[i]);
	}
	for (int i = 0; l->map_names && i < l->nmaps; i++)
		free(l->map_names[i]);
	for (int i = 0; l->prog_names && i < l->nprogs; i++)
		free(l->prog_names[i]);
	free(l->map_names);
	free(l->prog_names);
	free(l->map_fds);
	free(l->prog_fds);
	bpf_loaded__init(l);
}

// SPDX-License-Identifier: MIT
/*
 * A capture session, whatever the question: load its object, attach the exec and exit
 * programs then the question's own, drain the ring buffer in the caller's loop until the
 * duration or a stop, detach, take the last records. The records become samples as they
 * arrive (processes.c); binaries are only opened, never read, on this path.
 *
 * The ring buffer never wakes user space for a sample (only for a process's first), so
 * the caller's loop runs on a timer: at most POLL_INTERVAL_MS between steps, which is
 * also how soon a stop or the end of the duration is seen.
 *
 * Every BPF object is owned by a file descriptor of this process (links, perf events,
 * maps): a profiler killed in any way leaves nothing attached.
 *
 * The steps share one struct capture_session (session_internal.h); the unwind worker and
 * the runtimes' readers are started by session_unwinding.c; the last step, taking what
 * the capture saw into the profile, is session_end.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/binaries.h"
#include "capture/capture_internal.h"
#include "capture/cgroups.h"
#include "capture/processes.h"
#include "capture/profiler.h"
#include "capture/jvm_memory.h"
#include "capture/jvm_procs.h"
#include "capture/v8_procs.h"
#include "capture/python_procs.h"
#include "capture/session_internal.h"
#include "capture/unwinding.h"
#include "util/clock.h"
#include "util/messages.h"

#define POLL_INTERVAL_MS 100
/*
 * A JavaScript function is named when its sample is drained (processes_frames.c), by
 * the JSFunction* the kernel's walk read; a young one (node's own startup functions
 * where node has no startup snapshot, Debian's Node 18; closures) that a scavenge moves
 * or frees before then cannot be named and stays [JavaScript]. So while a node's
 * functions are new (a node was first sampled or its walk began, or the last step met
 * a function not seen before in its process) the drain runs every NAMING_POLL_MS, for NAMING_HOLD_NS after
 * the last: at most 1000 / NAMING_POLL_MS steps a second, each a few microseconds when
 * the ring buffer is empty; what is named, and its cost, is the same, only sooner.
 * Java's Method* do not move: JVMs keep the usual pace.
 */
#define NAMING_POLL_MS 5
#define NAMING_HOLD_NS (1000ULL * 1000000)
#define NSEC_PER_SEC 1000000000ULL
/* Ring buffer: a second of events at ~1 kB each, so a slow /proc read or a burst of
 * exits never loses one; at least 256 kB. */
#define RINGBUF_PER_EVENT 1024ULL
#define RINGBUF_MIN (256ULL << 10)
#define RINGBUF_MAX (256ULL << 20)

static uint64_t now_ns(void)
{
	return (uint64_t)clock__monotonic_ns();
}

static size_t ringbuf_size(uint64_t events_per_s)
{
	uint64_t want = events_per_s * RINGBUF_PER_EVENT, size = RINGBUF_MIN;

	while (size < want && size < RINGBUF_MAX)
		size <<= 1;
	return size;
}

/* More descriptors than the default 1024: one stays open per binary met. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int capture_session__add_link(struct capture_session *s, int fd)
{
	if (s->nlinks == s->cap_links) {
		int cap = s->cap_links ? s->cap_links * 2 : 16;
		int *links = realloc(s->links, cap * sizeof(*links));

		if (!links) {
			close(fd);
			report__error(s->config.report, MSG_OUT_OF_MEMORY);
			return -ENOMEM;
		}
		s->links = links;
		s->cap_links = cap;
	}
	s->links[s->nlinks++] = fd;
	return 0;
}

int capture_session__attach_tracing(struct capture_session *s, const struct bpf_loaded *l,
				    const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		int link = capture__attach_tracing(bpf_loaded__prog(l, names[i]));

		if (link < 0) {
			report__error(s->config.report, MSG_CAPTURE_ATTACH_FAILED, names[i],
				      strerror(-link));
			return link;
		}
		if (capture_session__add_link(s, link))
			return -ENOMEM;
	}
	return 0;
}

void **capture_session__state(struct capture_session *s)
{
	return &s->question_state;
}

/* Threads visited per read of an iterator: the ring buffer holds this many samples at
 * once, whatever the machine runs. */
#define ITER_TASKS_PER_READ 64

int capture__run_task_iterator(int prog, struct capture_session *s)
{
	char buf[ITER_TASKS_PER_READ];
	int link, fd, err = 0;
	ssize_t n;

	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		return -errno;
	fd = bpf_iter_create(link);
	if (fd < 0) {
		err = -errno;
		close(link);
		return err;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (s && (err = capture_session__drain(s)))
			break;
	}
	if (n < 0 && !err)
		err = -errno;
	close(fd);
	close(link);
	return err;
}

int capture_session__drain(struct capture_session *s)
{
	int r = ring_buffer__consume(s->rb);

	if (s->err)
		return s->err;
	return r < 0 && r != -EINTR ? r : 0;
}

const struct report *capture_session__report(const struct capture_session *s)
{
	return s->config.report;
}

const struct capture_config *capture_session__config(const struct capture_session *s)
{
	return &s->config;
}

struct processes *capture_session__processes(struct capture_session *s)
{
	return s->processes;
}

struct profile *capture_session__profile(struct capture_session *s)
{
	return s->p;
}

struct binaries *capture_session__binaries(struct capture_session *s)
{
	return s->binaries;
}

struct profile *capture_session__take_profile(struct capture_session *s)
{
	struct profile *p = s->p;

	s->p = NULL;
	return p;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct capture_session *s = ctx;
	__u32 kind;
	int err = 0;

	if (size < sizeof(kind) || s->discarding)
		return 0;
	memcpy(&kind, data, sizeof(kind));
	switch (kind) {
	case RECORD_SAMPLE:
		s->received++;
		err = processes__sample(s->processes, data, size);
		break;
	case RECORD_EXEC:
		err = processes__exec(s->processes, data, size);
		break;
	case RECORD_EXIT:
		err = processes__exit(s->processes, data, size);
		break;
	case RECORD_PYTHON_CODE:
		err = processes__python_code(s->processes, data, size);
		break;
	default:
		if (kind >= RECORD_QUESTION && s->q->fold)
			err = s->q->fold(s, data, size);
		break;
	}
	if (err)
		s->err = err;
	return err;
}

/* Builds what the records are turned into: the profile, its kernel mapping, the tables
 * of binaries, cgroups and processes. */
static int capture_session__prepare(struct capture_session *s, int ncpus)
{
	const struct capture_config *c = &s->config;
	int64_t defaults[RECORD_MAX_VALUES] = { 0 };

	s->p = profile__new(c->question);
	if (!s->p || capture__fill_header(s->p, ncpus, c->hz))
		return -ENOMEM;
	s->kernel_mapping = capture__kernel_mapping(s->p);
	s->binaries = binaries__new();
	s->cgroups = cgroups__new(NULL);
	if (s->kernel_mapping == UINT32_MAX || !s->binaries || !s->cgroups)
		return -ENOMEM;
	if (s->q->default_values)
		s->q->default_values(c, defaults);
	s->processes = processes__new(s->p, c->owners, s->binaries, s->cgroups, "/proc",
				      s->kernel_mapping, defaults);
	if (!s->processes)
		return -ENOMEM;
	return processes__set_lock_kinds(s->processes, s->q->lock_kinds, s->q->nlock_kinds);
}

static int capture_session__attach_processes(struct capture_session *s)
{
	s->process_links[0] = capture__attach_tracing(s->bpf->on_exec);
	if (s->process_links[0] < 0)
		return s->process_links[0];
	s->process_links[1] = capture__attach_tracing(s->bpf->on_exit);
	return s->process_links[1] < 0 ? s->process_links[1] : 0;
}

static void capture_session__detach_samples(struct capture_session *s)
{
	for (int i = 0; i < s->nlinks; i++)
		close(s->links[i]);
	s->nlinks = 0;
	s->sampling = false;
}

/* Sampling is over: detach, keep the duration, and let the question account for what
 * is still under way. 0 or -errno. */
int capture_session__end_sampling(struct capture_session *s)
{
	int err = 0;

	capture_session__detach_samples(s);
	s->p->header.duration_ns = now_ns() - s->start_ns;
	if (s->q->sweep) {
		err = s->q->sweep(s, s->bpf);
		if (err && err != -ENOMEM)
			report__error(s->config.report, MSG_CAPTURE_RINGBUF_FAILED, strerror(-err));
	}
	return err;
}

void capture_session__detach_processes(struct capture_session *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->process_links[i] >= 0)
			close(s->process_links[i]);
		s->process_links[i] = -1;
	}
}

/* The question's object: the resident profiler's (loaded now if it is not), or one of
 * this capture's own. */
static int capture_session__load(struct capture_session *s, size_t ringbuf)
{
	if (s->config.profiler) {
		int err = profiler__take(s->config.profiler, s->q, ringbuf, &s->unwind_plan,
					 &s->bpf, &s->resident_maps, &s->installed);

		s->held = err == 0;
		if (err == -EBUSY)
			report__error(s->config.report, MSG_CAPTURE_PROFILER_BUSY);
		return err;
	}
	s->bpf = &s->own_bpf;
	s->installed = true;
	return bpf_loaded__load(s->bpf, s->q, ringbuf, &s->unwind_plan);
}

bool capture_session__installed(const struct capture_session *s)
{
	return s->installed;
}

struct capture_session *capture_session__open(const struct capture_config *c)
{
	const struct capture_question *q = capture_question__get(c->question);
	const struct report *r = c->report;
	struct capture_session *s;
	int *cpus = NULL, ncpus = 0, err;

	if (!q) {
		report__error(r, MSG_CAPTURE_NOT_AVAILABLE, question__id(c->question),
			      question__title(c->question));
		errno = EOPNOTSUPP;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		report__error(r, MSG_OUT_OF_MEMORY);
		return NULL;
	}
	s->config = *c;
	s->q = q;
	s->bpf = &s->own_bpf;
	bpf_loaded__close(s->bpf); /* its empty state */
	s->process_links[0] = s->process_links[1] = -1;
	if (c->profiler && !c->cache_dir)
		s->config.cache_dir = profiler__unwind_dir(c->profiler);
	capture__quiet_libbpf();

	err = capture__online_cpus(&cpus, &ncpus);
	if (err) {
		report__error(r, MSG_CAPTURE_NO_CPUS, strerror(-err));
		goto out_free;
	}
	raise_nofile();
	err = capture_session__prepare(s, ncpus);
	if (err) {
		report__error(r, MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	err = unwinding__plan(c->unwind_budget, &s->unwind_plan);
	if (err) {
		report__error(r, MSG_CAPTURE_UNWIND_BUDGET, (unsigned long long)(c->unwind_budget >> 20));
		goto out_free;
	}
	err = capture_session__load(s, ringbuf_size(ncpus * q->events_per_cpu(c)));
	/* The tables' memory refused (a memory-limited cgroup): a sixteenth of the budget,
	 * then the smallest, so the capture still runs and the busiest binaries still get
	 * tables (measured: under a 40 MB memory limit, 4 MB was taken). */
	while (err == -ENOMEM && s->unwind_plan.budget > UNWINDING_BUDGET_MIN) {
		uint64_t less = s->unwind_plan.budget / 16;

		if (unwinding__plan(less > UNWINDING_BUDGET_MIN ? less : UNWINDING_BUDGET_MIN,
				    &s->unwind_plan))
			break;
		err = capture_session__load(s, ringbuf_size(ncpus * q->events_per_cpu(c)));
	}
	if (err) {
		report__error(r, MSG_CAPTURE_LOAD_FAILED, strerror(-err));
		goto out_free;
	}
	{
		char less[512];

		capture__kernel_less(q->id, less, sizeof(less));
		if (less[0])
			report__error(r, MSG_CAPTURE_KERNEL_LESS, less);
	}
	capture_session__start_unwinding(s);
	s->rb = ring_buffer__new(s->bpf->records, on_record, s, NULL);
	if (!s->rb) {
		err = -errno;
		report__error(r, MSG_CAPTURE_RINGBUF_FAILED, strerror(-err));
		goto out_free;
	}
	/* A kept object's ring buffer: what a capture that failed on its way left. */
	s->discarding = true;
	ring_buffer__consume(s->rb);
	s->discarding = false;
	/* Exec and exit first, so no sampled process can exit unseen. */
	err = capture_session__attach_processes(s);
	if (err) {
		report__error(r, MSG_CAPTURE_ATTACH_FAILED, "sched_process_exec/exit",
			      strerror(-err));
		goto out_free;
	}
	s->sampling = true;
	err = q->attach(s, s->bpf, cpus, ncpus);
	if (err)
		goto out_free;
	s->start_ns = now_ns();
	s->deadline_ns = s->start_ns +
			 (question__is_snapshot(c->question) ? 0 : (uint64_t)c->seconds * NSEC_PER_SEC);
	s->p->header.started_at_ns = clock__realtime_ns();
	s->p->header.profiler_pid = getpid();
	free(cpus);
	return s;

out_free:
	free(cpus);
	capture_session__free(s);
	errno = -err;
	return NULL;
}

int capture_session__fd(const struct capture_session *s)
{
	return s->rb ? ring_buffer__epoll_fd(s->rb) : -1;
}

int capture_session__timeout_ms(const struct capture_session *s)
{
	uint64_t now = now_ns(), left_ms, interval;

	if (!s->sampling || s->stop || now >= s->deadline_ns)
		return 0;
	left_ms = (s->deadline_ns - now + 999999) / 1000000;
	interval = now < s->naming_until_ns ? NAMING_POLL_MS : POLL_INTERVAL_MS;
	return left_ms < interval ? (int)left_ms : (int)interval;
}

void capture_session__stop(struct capture_session *s)
{
	s->stop = 1;
}

void capture_session__elapsed(const struct capture_session *s, uint64_t *done_ms,
			      uint64_t *total_ms)
{
	uint64_t now = s->sampling || !s->p ? now_ns() : s->start_ns + s->p->header.duration_ns;

	*total_ms = (s->deadline_ns - s->start_ns) / 1000000;
	*done_ms = (now - s->start_ns) / 1000000;
	if (*done_ms > *total_ms)
		*done_ms = *total_ms;
}

/* After a step's drain: a node sampled for the first time, a node whose walk began, or
 * JavaScript functions new since the last step hold the sooner pace (NAMING_POLL_MS) a
 * while longer. */
static void capture_session__pace(struct capture_session *s)
{
	const struct processes_stats *st = processes__stats(s->processes);
	uint64_t met = st->javascript_functions + st->javascript_processes;
	uint32_t added = s->v8 ? v8_procs__added(s->v8) : 0;

	if (met == s->javascript_met && added == s->nodes_added)
		return;
	s->javascript_met = met;
	s->nodes_added = added;
	s->naming_until_ns = now_ns() + NAMING_HOLD_NS;
}

int capture_session__step(struct capture_session *s)
{
	int r;

	if (!s->sampling)
		return 1;
	r = ring_buffer__consume(s->rb);
	if (s->err)
		return s->err;
	capture_session__pace(s);
	if (r < 0 && r != -EINTR) {
		report__error(s->config.report, MSG_CAPTURE_RINGBUF_FAILED, strerror(-r));
		return r;
	}
	if (s->stop || now_ns() >= s->deadline_ns) {
		int err = capture_session__end_sampling(s);

		return err ? err : 1;
	}
	return 0;
}

void capture_session__free(struct capture_session *s)
{
	if (!s)
		return;
	capture_session__detach_samples(s);
	capture_session__detach_processes(s);
	/* Before the binaries whose descriptors it reads, and the maps it writes. */
	unwinding__free(s->unwinding);
	python_procs__free(s->python);
	jvm_procs__free(s->jvm);
	v8_procs__free(s->v8);
	if (!s->jvm_memory_kept)
		jvm_memory__free(s->jvm_memory);
	free(s->links);
	ring_buffer__free(s->rb);
	/* Every link closed above: the profiler's object samples nothing now. */
	if (s->held)
		profiler__give_back(s->config.profiler, s->q, true);
	else
		bpf_loaded__close(&s->own_bpf);
	if (s->q && s->q->free_state)
		s->q->free_state(s->question_state);
	processes__free(s->processes);
	cgroups__free(s->cgroups);
	binaries__free(s->binaries);
	profile__free(s->p);
	free(s);
}

/* A question's tick on every CPU (capture_internal.h): a cpu-clock perf event each, its
 * link kept by the session. */
int capture_session__attach_ticks(struct capture_session *s, int on_tick, const int *cpus,
				  int ncpus)
{
	const struct report *r = capture_session__report(s);

	for (int i = 0; i < ncpus; i++) {
		int fd = capture__open_cpu_clock(cpus[i], capture_session__config(s)->hz), link;

		if (fd < 0) {
			report__error(r, MSG_CAPTURE_PERF_FAILED, cpus[i], strerror(-fd));
			return fd;
		}
		link = capture__attach_perf_event(on_tick, fd);
		/* The link holds the perf event; closing the link stops it. */
		close(fd);
		if (link < 0) {
			report__error(r, MSG_CAPTURE_ATTACH_FAILED, "cpu-clock", strerror(-link));
			return link;
		}
		if (capture_session__add_link(s, link))
			return -ENOMEM;
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * "What is using the CPU": a cpu-clock perf event on every online CPU runs cpu.bpf.c's
 * on_tick, which sends each non-idle tick's stacks through a ring buffer; exec and exit
 * tracepoints follow the sampled processes. User space drains the ring buffer every
 * 100 ms (and at once for a process's first sample) and builds the profile as it goes.
 *
 * Every BPF object is owned by a file descriptor of this process (links, perf events,
 * maps): a profiler killed in any way leaves nothing attached.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/binaries.h"
#include "capture/capture_internal.h"
#include "capture/cgroups.h"
#include "capture/processes.h"
#include "cpu.skel.h"
#include "util/messages.h"
#include "util/clock.h"

#define POLL_INTERVAL_MS 100
#define NSEC_PER_SEC 1000000000ULL
/* Ring buffer: a second of samples at ~1 kB each, so a slow /proc read or a burst of
 * exits never loses one; at least 256 kB. */
#define RINGBUF_PER_SAMPLE 1024ULL
#define RINGBUF_MIN (256ULL << 10)
#define RINGBUF_MAX (256ULL << 20)
/* cpu.bpf.c's maps and programs. */
#define CPU_MAPS 5
#define CPU_PROGS 4

/*
 * cpu.bpf.c in the kernel, whichever way it was loaded: by the in-kernel loader (we own
 * every descriptor) or by libbpf (skel owns them).
 */
struct cpu_objects {
	struct cpu_bpf *skel;
	int map_fds[CPU_MAPS], prog_fds[CPU_PROGS];
	int records, counters;         /* map descriptors */
	int on_tick, on_exec, on_exit; /* program descriptors (on_exit: either variant) */
	int links[2];                  /* exec and exit; -1 when not attached */
};

struct cpu_capture {
	const struct capture_options *opts;
	struct cpu_objects bpf;
	int *ticks;  /* one link per online CPU */
	int nticks;
	struct ring_buffer *rb;
	struct profile *p;
	struct binaries *binaries;
	struct cgroups *cgroups;
	struct processes *processes;
	uint32_t kernel_mapping;
	uint64_t counters[CPU_COUNTER__COUNT];
	uint64_t received; /* sample records */
	int err; /* from the record callback: -ENOMEM */
};

static size_t ringbuf_size(int ncpus, unsigned hz)
{
	uint64_t want = (uint64_t)ncpus * hz * RINGBUF_PER_SAMPLE, size = RINGBUF_MIN;

	while (size < want && size < RINGBUF_MAX)
		size <<= 1;
	return size;
}

static void cpu_objects__init(struct cpu_objects *o)
{
	o->skel = NULL;
	for (int i = 0; i < CPU_MAPS; i++)
		o->map_fds[i] = -1;
	for (int i = 0; i < CPU_PROGS; i++)
		o->prog_fds[i] = -1;
	o->records = o->counters = o->on_tick = o->on_exec = o->on_exit = -1;
	o->links[0] = o->links[1] = -1;
}

/* Opens cpu.bpf.c with its ring buffer sized, and one of the two exit programs: the
 * exit record's mappings need the task vma iterator (Linux 6.7); where the kernel
 * refuses it, on_exit_facts sends the facts alone. */
static struct cpu_bpf *cpu_objects__open(size_t rb_size, bool with_vmas)
{
	struct cpu_bpf *skel = cpu_bpf__open();

	if (!skel)
		return NULL;
	if (bpf_map__set_max_entries(skel->maps.records, rb_size)) {
		cpu_bpf__destroy(skel);
		errno = EINVAL;
		return NULL;
	}
	bpf_program__set_autoload(skel->progs.on_exit, with_vmas);
	bpf_program__set_autoload(skel->progs.on_exit_facts, !with_vmas);
	return skel;
}

static int fd_by_name(struct bpf_object *obj, const int *fds, bool maps, const char *name)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	int i = 0;

	if (maps) {
		bpf_object__for_each_map(map, obj) {
			if (strcmp(bpf_map__name(map), name) == 0)
				return fds[i];
			i++;
		}
	} else {
		bpf_object__for_each_program(prog, obj) {
			if (strcmp(bpf_program__name(prog), name) == 0)
				return fds[i];
			i++;
		}
	}
	return -1;
}

static int cpu_objects__in_kernel(struct cpu_objects *o, size_t rb_size, bool with_vmas)
{
	struct cpu_bpf *skel = cpu_objects__open(rb_size, with_vmas);
	struct bpf_object *obj;
	int err;

	if (!skel)
		return -errno;
	obj = skel->obj;
	err = capture__load_in_kernel(obj, o->map_fds, CPU_MAPS, o->prog_fds, CPU_PROGS);
	if (!err) {
		o->records = fd_by_name(obj, o->map_fds, true, "records");
		o->counters = fd_by_name(obj, o->map_fds, true, "counters");
		o->on_tick = fd_by_name(obj, o->prog_fds, false, "on_tick");
		o->on_exec = fd_by_name(obj, o->prog_fds, false, "on_exec");
		o->on_exit = fd_by_name(obj, o->prog_fds, false,
					with_vmas ? "on_exit" : "on_exit_facts");
		if (o->records < 0 || o->counters < 0 || o->on_tick < 0 || o->on_exec < 0 ||
		    o->on_exit < 0)
			err = -EINVAL;
	}
	cpu_bpf__destroy(skel);
	return err;
}

static int cpu_objects__libbpf(struct cpu_objects *o, size_t rb_size, bool with_vmas)
{
	struct cpu_bpf *skel = cpu_objects__open(rb_size, with_vmas);
	int err;

	if (!skel)
		return -errno;
	err = cpu_bpf__load(skel);
	if (err) {
		cpu_bpf__destroy(skel);
		return err;
	}
	o->skel = skel;
	o->records = bpf_map__fd(skel->maps.records);
	o->counters = bpf_map__fd(skel->maps.counters);
	o->on_tick = bpf_program__fd(skel->progs.on_tick);
	o->on_exec = bpf_program__fd(skel->progs.on_exec);
	o->on_exit = bpf_program__fd(with_vmas ? skel->progs.on_exit : skel->progs.on_exit_facts);
	return 0;
}

static void cpu_objects__detach(struct cpu_objects *o)
{
	for (int i = 0; i < 2; i++) {
		if (o->links[i] >= 0)
			close(o->links[i]);
		o->links[i] = -1;
	}
}

static void cpu_objects__close(struct cpu_objects *o)
{
	cpu_objects__detach(o);
	if (o->skel) {
		cpu_bpf__destroy(o->skel);
	} else {
		for (int i = 0; i < CPU_MAPS; i++)
			if (o->map_fds[i] >= 0)
				close(o->map_fds[i]);
		for (int i = 0; i < CPU_PROGS; i++)
			if (o->prog_fds[i] >= 0)
				close(o->prog_fds[i]);
	}
	cpu_objects__init(o);
}

/*
 * The in-kernel loader first (no BTF parsed here), then libbpf's load; each with the
 * exit program that reads mappings, then without.
 */
static int cpu_objects__load(struct cpu_objects *o, size_t rb_size)
{
	int err = 0;

	for (int attempt = 0; attempt < 4; attempt++) {
		bool with_vmas = attempt % 2 == 0;

		cpu_objects__init(o);
		err = attempt < 2 ? cpu_objects__in_kernel(o, rb_size, with_vmas) :
				    cpu_objects__libbpf(o, rb_size, with_vmas);
		if (!err)
			return 0;
		if (capture__debug())
			msg_error(MSG_CAPTURE_DEBUG_LOAD, attempt, strerror(-err));
		cpu_objects__close(o);
		if (err == -EPERM || err == -EACCES)
			break;
	}
	return err;
}

static int cpu_objects__attach_tracing(struct cpu_objects *o)
{
	o->links[0] = capture__attach_tracing(o->on_exec);
	if (o->links[0] < 0)
		return o->links[0];
	o->links[1] = capture__attach_tracing(o->on_exit);
	return o->links[1] < 0 ? o->links[1] : 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct cpu_capture *c = ctx;
	__u32 kind;
	int err = 0;

	if (size < sizeof(kind))
		return 0;
	memcpy(&kind, data, sizeof(kind));
	switch (kind) {
	case CPU_RECORD_SAMPLE:
		c->received++;
		err = processes__sample(c->processes, data, size);
		break;
	case CPU_RECORD_EXEC:
		err = processes__exec(c->processes, data, size);
		break;
	case CPU_RECORD_EXIT:
		err = processes__exit(c->processes, data, size);
		break;
	}
	if (err)
		c->err = err;
	return err;
}

/* Starts sampling on every online CPU. */
static int cpu_capture__attach_ticks(struct cpu_capture *c, const int *cpus, int ncpus)
{
	c->ticks = calloc(ncpus, sizeof(*c->ticks));
	if (!c->ticks) {
		msg_error(MSG_OUT_OF_MEMORY);
		return -ENOMEM;
	}
	for (int i = 0; i < ncpus; i++) {
		int fd = capture__open_cpu_clock(cpus[i], c->opts->hz), link;

		if (fd < 0) {
			msg_error(MSG_CAPTURE_PERF_FAILED, cpus[i], strerror(-fd));
			return fd;
		}
		link = capture__attach_perf_event(c->bpf.on_tick, fd);
		/* The link holds the perf event; closing the link stops it. */
		close(fd);
		if (link < 0) {
			msg_error(MSG_CAPTURE_ATTACH_FAILED, "cpu-clock", strerror(-link));
			return link;
		}
		c->ticks[c->nticks++] = link;
	}
	return 0;
}

static void cpu_capture__detach_ticks(struct cpu_capture *c)
{
	for (int i = 0; i < c->nticks; i++)
		close(c->ticks[i]);
	c->nticks = 0;
}

/* Drains the ring buffer every POLL_INTERVAL_MS until the time is up or Ctrl-C. */
static int cpu_capture__loop(struct cpu_capture *c, uint64_t start_ns)
{
	const struct capture_options *opts = c->opts;
	uint64_t deadline = start_ns + (uint64_t)opts->seconds * NSEC_PER_SEC;
	uint64_t next_progress = start_ns;

	while (!(opts->stop && *opts->stop)) {
		uint64_t now = clock__monotonic_ns();
		int timeout_ms, r;

		if (now >= deadline)
			break;
		if (now >= next_progress) {
			capture__progress(opts, deadline - now);
			next_progress += NSEC_PER_SEC;
		}
		timeout_ms = (deadline - now) / 1000000 + 1;
		if (timeout_ms > POLL_INTERVAL_MS)
			timeout_ms = POLL_INTERVAL_MS;
		/* Returns early only for a first sample; the rest is drained on the timer. */
		r = ring_buffer__poll(c->rb, timeout_ms);
		if (r >= 0 || r == -EINTR)
			r = ring_buffer__consume(c->rb);
		if (c->err)
			return c->err;
		if (r < 0 && r != -EINTR) {
			msg_error(MSG_CAPTURE_RINGBUF_FAILED, strerror(-r));
			return r;
		}
	}
	return 0;
}

static void cpu_capture__read_counters(struct cpu_capture *c)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *values;

	if (ncpus <= 0)
		return;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return;
	for (uint32_t k = 0; k < CPU_COUNTER__COUNT; k++) {
		if (bpf_map_lookup_elem(c->bpf.counters, &k, values))
			continue;
		for (int i = 0; i < ncpus; i++)
			c->counters[k] += values[i];
	}
	free(values);
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

static void cpu_capture__debug_stats(const struct cpu_capture *c)
{
	const struct processes_stats *st = processes__stats(c->processes);

	if (!capture__debug())
		return;
	msg_error(MSG_CAPTURE_DEBUG_STATS, (unsigned long long)c->received,
		  (unsigned long long)c->counters[CPU_COUNTER_IDLE],
		  (unsigned long long)c->counters[CPU_COUNTER_LOST],
		  (unsigned long long)c->counters[CPU_COUNTER_KSTACK_FAILED],
		  (unsigned long long)c->counters[CPU_COUNTER_USTACK_FAILED],
		  (unsigned long long)c->counters[CPU_COUNTER_EVENT_LOST],
		  (unsigned long long)st->samples, (unsigned long long)st->processes,
		  (unsigned long long)st->from_exit, (unsigned long long)st->unresolved,
		  (unsigned long long)st->unknown_frames, (unsigned long long)st->truncated);
}

static void cpu_capture__free(struct cpu_capture *c)
{
	cpu_capture__detach_ticks(c);
	free(c->ticks);
	ring_buffer__free(c->rb);
	cpu_objects__close(&c->bpf);
	processes__free(c->processes);
	cgroups__free(c->cgroups);
	binaries__free(c->binaries);
	profile__free(c->p);
}

/* Builds what the records are turned into: the profile, its kernel mapping, the tables
 * of binaries, cgroups and processes. */
static int cpu_capture__prepare(struct cpu_capture *c, int ncpus)
{
	const struct capture_options *opts = c->opts;

	c->p = profile__new(QUESTION_CPU);
	if (!c->p || capture__fill_header(c->p, ncpus, opts->hz))
		return -ENOMEM;
	c->kernel_mapping = capture__kernel_mapping(c->p);
	c->binaries = binaries__new();
	c->cgroups = cgroups__new(NULL);
	if (c->kernel_mapping == UINT32_MAX || !c->binaries || !c->cgroups)
		return -ENOMEM;
	c->processes = processes__new(c->p, opts->owners, c->binaries, c->cgroups, "/proc",
				      c->kernel_mapping, NSEC_PER_SEC / opts->hz);
	if (!c->processes)
		return -ENOMEM;
	return 0;
}

/* After sampling: names for what only this boot or this moment can name. */
static int cpu_capture__finish(struct cpu_capture *c)
{
	struct profile *p = c->p;
	int err;

	err = processes__finish(c->processes);
	if (!err)
		err = capture__name_kernel_frames(p, c->kernel_mapping);
	if (!err)
		err = binaries__finish(c->binaries, p, c->opts->store);
	p->header.lost = c->counters[CPU_COUNTER_LOST];
	p->header.stacks_truncated = processes__stats(c->processes)->truncated;
	return err;
}

int capture__cpu(const struct capture_options *opts, struct profile **out)
{
	struct cpu_capture c = { .opts = opts };
	uint64_t start_ns;
	int *cpus = NULL, ncpus = 0, err;

	cpu_objects__init(&c.bpf);
	err = capture__online_cpus(&cpus, &ncpus);
	if (err) {
		msg_error(MSG_CAPTURE_NO_CPUS, strerror(-err));
		return err;
	}
	raise_nofile();
	err = cpu_capture__prepare(&c, ncpus);
	if (err) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	err = cpu_objects__load(&c.bpf, ringbuf_size(ncpus, opts->hz));
	if (err) {
		msg_error(MSG_CAPTURE_LOAD_FAILED, strerror(-err));
		goto out_free;
	}
	c.rb = ring_buffer__new(c.bpf.records, on_record, &c, NULL);
	if (!c.rb) {
		err = -errno;
		msg_error(MSG_CAPTURE_RINGBUF_FAILED, strerror(-err));
		goto out_free;
	}
	/* Exec and exit first, so no sampled process can exit unseen. */
	err = cpu_objects__attach_tracing(&c.bpf);
	if (err) {
		msg_error(MSG_CAPTURE_ATTACH_FAILED, "sched_process_exec/exit", strerror(-err));
		goto out_free;
	}
	err = cpu_capture__attach_ticks(&c, cpus, ncpus);
	if (err)
		goto out_free;
	start_ns = clock__monotonic_ns();
	c.p->header.started_at_ns = clock__realtime_ns();

	err = cpu_capture__loop(&c, start_ns);
	cpu_capture__detach_ticks(&c);
	c.p->header.duration_ns = clock__monotonic_ns() - start_ns;
	capture__progress_done(opts);
	if (!err) {
		/* What was sent before the last tick, and the exits that follow it. */
		ring_buffer__consume(c.rb);
		err = c.err;
	}
	cpu_objects__detach(&c.bpf);
	if (!err) {
		cpu_capture__read_counters(&c);
		err = cpu_capture__finish(&c);
	}
	if (err) {
		if (err == -ENOMEM)
			msg_error(MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	cpu_capture__debug_stats(&c);
	*out = c.p;
	c.p = NULL;

out_free:
	cpu_capture__free(&c);
	free(cpus);
	return err;
}

int capture__cpu_probe(char *detail, size_t size)
{
	struct cpu_objects o;
	int *cpus = NULL, ncpus = 0, fd, link, err;

	cpu_objects__init(&o);
	err = cpu_objects__load(&o, RINGBUF_MIN);
	if (err) {
		msg_format(detail, size, MSG_CHECK_Q_LOAD_FAILED, strerror(-err));
		return err;
	}
	err = cpu_objects__attach_tracing(&o);
	if (err) {
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "sched_process_exec/exit",
			   strerror(-err));
		goto out_close;
	}
	err = capture__online_cpus(&cpus, &ncpus);
	fd = err ? err : capture__open_cpu_clock(cpus[0], 99);
	if (fd < 0) {
		err = fd;
		msg_format(detail, size, MSG_CHECK_Q_PERF_FAILED, strerror(-err));
		goto out_close;
	}
	link = capture__attach_perf_event(o.on_tick, fd);
	close(fd);
	if (link < 0) {
		err = link;
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "cpu-clock", strerror(-err));
		goto out_close;
	}
	close(link);

out_close:
	free(cpus);
	cpu_objects__close(&o);
	return err;
}

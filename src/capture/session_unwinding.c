// SPDX-License-Identifier: MIT
/*
 * What a capture session starts beside sampling: the unwind worker over the loaded maps,
 * and the readers of Python, Java and JavaScript frames it hands each process to; and a
 * snapshot's wait for the tables of every process before its one moment. The session's
 * other steps are session.c; its end, session_end.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "capture/jvm_memory.h"
#include "capture/jvm_procs.h"
#include "capture/processes.h"
#include "capture/profiler.h"
#include "capture/python_procs.h"
#include "capture/session_internal.h"
#include "capture/unwinding.h"
#include "capture/v8_procs.h"
#include "util/clock.h"
#include "util/messages.h"
#include "util/time_factor.h"

/* Python frames: the worker that loads tables also finds CPython in each process it is
 * handed. Without it (memory refused), interpreter frames stay native ones. */
static void capture_session__start_python(struct capture_session *s)
{
	int procs = bpf_loaded__map(s->bpf, "python_procs");

	if (procs < 0)
		return;
	s->python = python_procs__new(procs);
	if (!s->python)
		return;
	unwinding__set_python(s->unwinding, s->python);
	processes__set_python(s->processes, s->python);
}

/* Java frames: the same worker finds JVMs and reads their layout through the kernel
 * (jvm_memory.h), with the reader asked for here when it meets the first JVM (a machine
 * without one loads none): a resident profiler keeps its reader with its programs; a
 * capture alone loads its own, freed with it. Without the reader (a kernel without
 * sleepable task iterators), each JVM is refused as unreadable and keeps its one [Java]
 * frame, said in the profile. */
static struct jvm_memory *capture_session__jvm_reader(void *ctx)
{
	struct capture_session *s = ctx;

	if (s->jvm_memory)
		return s->jvm_memory; /* asked already, for a JVM or a node */
	if (s->config.profiler) {
		s->jvm_memory = profiler__jvm_memory(s->config.profiler);
		s->jvm_memory_kept = true;
	} else {
		s->jvm_memory = jvm_memory__new();
	}
	return s->jvm_memory;
}

static void capture_session__start_jvm(struct capture_session *s)
{
	int procs = bpf_loaded__map(s->bpf, "jvm_procs");

	if (procs < 0)
		return;
	s->jvm = jvm_procs__new(procs, capture_session__jvm_reader, s);
	if (!s->jvm)
		return;
	unwinding__set_jvm(s->unwinding, s->jvm);
	processes__set_jvm(s->processes, s->jvm);
}

/* JavaScript frames: node processes found by the same worker, their functions named
 * through the same reader as the JVMs' (asked for when the first of either is met). */
static void capture_session__start_v8(struct capture_session *s)
{
	int procs = bpf_loaded__map(s->bpf, "v8_procs");

	if (procs < 0)
		return;
	s->v8 = v8_procs__new(procs, capture_session__jvm_reader, s);
	if (!s->v8)
		return;
	unwinding__set_v8(s->unwinding, s->v8);
	processes__set_v8(s->processes, s->v8);
}

/* The unwind worker over the loaded maps. Without it (a thread or memory refused) every
 * stack is the kernel's frame-pointer walk, as the walker does for a process without
 * tables: worse stacks, not a failed capture. */
void capture_session__start_unwinding(struct capture_session *s)
{
	int rows = bpf_loaded__map(s->bpf, "unwind_rows");
	int tables = bpf_loaded__map(s->bpf, "unwind_tables");
	int procs = bpf_loaded__map(s->bpf, "unwind_procs");

	/* SLIDEOPS_NO_UNWIND: frame pointers only, so that benchmarks can measure what the
	 * tables cost against the same build (bench/unwind). */
	if (rows < 0 || tables < 0 || procs < 0 || getenv("SLIDEOPS_NO_UNWIND"))
		return;
	if (s->resident_maps)
		s->unwinding = unwinding__new_on(s->resident_maps, s->config.cache_dir);
	else
		s->unwinding = unwinding__new(&s->unwind_plan, rows, tables, procs,
					      s->config.cache_dir);
	if (!s->unwinding) {
		report__error(s->config.report, MSG_CAPTURE_UNWIND_FAILED, strerror(errno));
		return;
	}
	if (s->held)
		unwinding__set_facts(s->unwinding, profiler__facts(s->config.profiler));
	processes__set_unwinding(s->processes, s->unwinding);
	capture_session__start_python(s);
	capture_session__start_jvm(s);
	capture_session__start_v8(s);
}

/* How often a snapshot's wait for tables says where it is. */
#define TABLES_PROGRESS_NS (250ull * 1000000ull)

/* Waits for the worker's queue until deadline, a stop, or none is left, saying where it
 * is (a snapshot's preparation is its sampling phase); keeps how long and how many are
 * still pending. */
static void capture_session__wait_tables(struct capture_session *s, uint64_t start,
					 uint64_t deadline, uint32_t unread, bool say_progress)
{
	const struct capture_config *c = &s->config;

	for (;;) {
		uint64_t now = (uint64_t)clock__monotonic_ns(), next = now + TABLES_PROGRESS_NS;

		if (say_progress && c->progress)
			c->progress(c->progress_ctx, (now - start) / 1000000,
				    (deadline - start) / 1000000);
		if (next > deadline)
			next = deadline;
		if (now >= deadline || (c->stop && *c->stop) ||
		    unwinding__wait(s->unwinding, (int64_t)next) == 0)
			break;
	}
	s->tables_ns = (uint64_t)clock__monotonic_ns() - start;
	s->tables_pending = unwinding__pending(s->unwinding) + unread;
	s->tables_waited = true;
}

int capture_session__load_all_tables(struct capture_session *s)
{
	/* Emulated CPUs (the kernel matrix's guests): 6.1 under TCG read 67 processes and
	 * built the tables of one in 5 s, leaving 14 to frame pointers. */
	uint64_t wait = CAPTURE_SNAPSHOT_TABLES_NS * time_factor__read();
	uint64_t start = (uint64_t)clock__monotonic_ns();
	int unread;

	if (!s->unwinding)
		return 0;
	unread = processes__read_all(s->processes, (int64_t)(start + wait));
	if (unread < 0)
		return unread;
	capture_session__wait_tables(s, start, start + wait, (uint32_t)unread, true);
	return 0;
}

void capture_session__tables_before_sweep(struct capture_session *s)
{
	uint64_t start = (uint64_t)clock__monotonic_ns();

	if (!s->unwinding)
		return;
	/* The samples not taken yet: a process met only there is queued now. */
	ring_buffer__consume(s->rb);
	if (unwinding__pending(s->unwinding) == 0)
		return;
	capture_session__wait_tables(s, start,
				     start + CAPTURE_SWEEP_TABLES_NS * time_factor__read(), 0, false);
	s->tables_for_sweep = true;
}

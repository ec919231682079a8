// SPDX-License-Identifier: MIT
/*
 * The end of a capture session: sampling detached, the last records taken, the BPF
 * counters read into the profile's header (lost events, the walker's early exits), its
 * kernel frames named, and with SLIDEOPS_DEBUG the session's statistics reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "capture/processes.h"
#include "capture/profiler.h"
#include "capture/jvm_procs.h"
#include "capture/v8_procs.h"
#include "capture/python_procs.h"
#include "capture/session_internal.h"
#include "capture/unwinding.h"
#include "util/messages.h"

static void capture_session__read_counters(struct capture_session *s)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *values;

	if (ncpus <= 0)
		return;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return;
	for (uint32_t k = 0; k < RECORD_MAX_COUNTERS; k++) {
		if (bpf_map_lookup_elem(s->bpf->counters, &k, values))
			continue;
		for (int i = 0; i < ncpus; i++)
			s->counters[k] += values[i];
	}
	free(values);
}

static void capture_session__debug_stats(const struct capture_session *s)
{
	const struct processes_stats *st = processes__stats(s->processes);

	if (!capture__debug())
		return;
	report__error(s->config.report, MSG_CAPTURE_DEBUG_STATS, (unsigned long long)s->received,
		      (unsigned long long)s->counters[STACK_COUNTER_IDLE],
		      (unsigned long long)s->counters[STACK_COUNTER_LOST],
		      (unsigned long long)s->counters[STACK_COUNTER_KSTACK_FAILED],
		      (unsigned long long)s->counters[STACK_COUNTER_USTACK_FAILED],
		      (unsigned long long)s->counters[STACK_COUNTER_EVENT_LOST],
		      (unsigned long long)st->samples, (unsigned long long)st->processes,
		      (unsigned long long)st->from_exit, (unsigned long long)st->unresolved,
		      (unsigned long long)st->unknown_frames, (unsigned long long)st->truncated);
}

/* The walker's early exits, by kind, into the header (analysis adds the share of stacks
 * that reach a root, which needs names). */
static void capture_session__stack_quality(struct capture_session *s)
{
	static const enum stack_counter of[STACK_EXIT__COUNT] = {
		[STACK_EXIT_NO_TABLE] = STACK_COUNTER_UNWIND_NO_TABLE,
		[STACK_EXIT_TABLE_MISS] = STACK_COUNTER_UNWIND_TABLE_MISS,
		[STACK_EXIT_READ_FAULT] = STACK_COUNTER_UNWIND_READ_FAULT,
		[STACK_EXIT_DEPTH] = STACK_COUNTER_UNWIND_DEPTH,
		[STACK_EXIT_UNSUPPORTED] = STACK_COUNTER_UNWIND_UNSUPPORTED,
		[STACK_EXIT_BP_UNKNOWN] = STACK_COUNTER_UNWIND_BP_UNKNOWN,
		[STACK_EXIT_NOT_GROWING] = STACK_COUNTER_UNWIND_NOT_GROWING,
		[STACK_EXIT_NO_PROCESS_TABLES] = STACK_COUNTER_UNWIND_NO_PROCESS,
	};
	struct prof_header *h = &s->p->header;

	for (int i = 0; i < STACK_EXIT__COUNT; i++)
		h->stack_exits[i] = s->counters[of[i]];
	h->stack_exits_recorded = true;
}

static void capture_session__debug_python(const struct capture_session *s)
{
	const uint64_t *c = s->counters;

	if (!capture__debug() || !s->python)
		return;
	report__error(s->config.report, MSG_CAPTURE_DEBUG_PYTHON, python_procs__count(s->python),
		      (unsigned long long)c[STACK_COUNTER_PYTHON_NO_THREAD],
		      (unsigned long long)c[STACK_COUNTER_PYTHON_READ],
		      (unsigned long long)c[STACK_COUNTER_PYTHON_DEPTH],
		      (unsigned long long)c[STACK_COUNTER_PYTHON_BAD],
		      (unsigned long long)c[STACK_COUNTER_PYTHON_CODE_LOST]);
}

static void capture_session__debug_jvm(const struct capture_session *s)
{
	const struct processes_stats *st = processes__stats(s->processes);
	uint32_t refused = 0, walked;

	if (!capture__debug() || !s->jvm)
		return;
	walked = jvm_procs__count(s->jvm, &refused);
	report__error(s->config.report, MSG_CAPTURE_DEBUG_JVM, walked, refused,
		      (unsigned long long)st->java_methods, (unsigned long long)st->java_unnamed,
		      (unsigned long long)st->java_lines, (unsigned long long)st->java_inlined,
		      (unsigned long long)jvm_procs__memory_reads(s->jvm));
}

static void capture_session__debug_v8(const struct capture_session *s)
{
	const struct processes_stats *st = processes__stats(s->processes);
	uint32_t refused = 0, walked;

	if (!capture__debug() || !s->v8)
		return;
	walked = v8_procs__count(s->v8, &refused);
	report__error(s->config.report, MSG_CAPTURE_DEBUG_V8, walked, refused,
		      (unsigned long long)st->javascript_functions,
		      (unsigned long long)st->javascript_unnamed,
		      (unsigned long long)st->javascript_lines,
		      (unsigned long long)st->javascript_places,
		      (unsigned long long)st->javascript_at_line,
		      (unsigned long long)st->javascript_inlined);
}

static void capture_session__debug_unwinding(const struct capture_session *s)
{
	struct unwinding_stats st;

	if (!capture__debug() || !s->unwinding)
		return;
	if (s->tables_waited)
		report__error(s->config.report,
			      s->tables_for_sweep ? MSG_CAPTURE_DEBUG_SWEEP_TABLES :
			      MSG_CAPTURE_DEBUG_SNAPSHOT_TABLES,
			      (unsigned long long)(s->tables_ns / 1000000), s->tables_pending);
	unwinding__stats(s->unwinding, &st);
	report__error(s->config.report, MSG_CAPTURE_DEBUG_UNWIND, st.binaries, st.tables, st.cached,
		      st.not_read, st.processes, (unsigned long long)(st.build_ns / 1000000),
		      (unsigned long long)(st.load_ns / 1000000),
		      (unsigned long long)(st.maps.used >> 10),
		      (unsigned long long)(st.maps.budget >> 10), st.maps.evictions,
		      st.maps.over_budget, (unsigned long long)(st.wait_max_ns / 1000000),
		      (unsigned long long)(st.waited ? st.wait_total_ns / st.waited / 1000000 : 0));
}

int capture_session__end(struct capture_session *s)
{
	int err;

	if (s->ended)
		return -EINVAL;
	s->ended = true;
	if (s->sampling && (err = capture_session__end_sampling(s)))
		return err;
	/* What was sent before the last sample, and the exits that follow it. */
	ring_buffer__consume(s->rb);
	capture_session__detach_processes(s);
	/* No more samples to unwind: the worker's queue is dropped. */
	processes__set_unwinding(s->processes, NULL);
	unwinding__stop(s->unwinding);
	err = s->err;
	if (!err) {
		capture_session__read_counters(s);
		err = processes__finish(s->processes);
	}
	if (!err && s->held) {
		err = profiler__name_kernel_frames(s->config.profiler, s->p, s->kernel_mapping);
		if (err && err != -ENOMEM)
			err = capture__name_kernel_frames(s->p, s->kernel_mapping);
	} else if (!err) {
		err = capture__name_kernel_frames(s->p, s->kernel_mapping);
	}
	if (!err && s->q->finish)
		err = s->q->finish(s);
	if (err) {
		report__error(s->config.report, err == -ENOMEM ? MSG_OUT_OF_MEMORY :
				 MSG_CAPTURE_RINGBUF_FAILED, strerror(-err));
		return err;
	}
	s->p->header.lost = s->counters[STACK_COUNTER_LOST];
	/* A question's own counters are events it could not keep (records.h). */
	for (uint32_t k = STACK_COUNTER__COUNT; k < RECORD_MAX_COUNTERS; k++)
		s->p->header.lost += s->counters[k];
	capture_session__stack_quality(s);
	s->p->header.stacks_truncated = processes__stats(s->processes)->truncated;
	if (s->unwinding) {
		struct unwinding_stats st;

		unwinding__stats(s->unwinding, &st);
		s->p->header.mappings_past_limit = st.maps.maps_dropped;
		s->p->header.processes_past_limit = st.maps.procs_dropping;
		s->p->header.mappings_limit = st.maps.maps_limit;
	}
	/* A JVM or node whose layout could not be read says why, as a binary not read. */
	if ((s->jvm && jvm_procs__refusals(s->jvm, s->p)) ||
	    (s->v8 && v8_procs__refusals(s->v8, s->p))) {
		report__error(s->config.report, MSG_OUT_OF_MEMORY, strerror(ENOMEM));
		return -ENOMEM;
	}
	capture_session__debug_stats(s);
	capture_session__debug_unwinding(s);
	capture_session__debug_python(s);
	capture_session__debug_jvm(s);
	capture_session__debug_v8(s);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * "What is using the CPU": a cpu-clock perf event on every online CPU runs cpu.bpf.c's
 * on_tick, which sends each non-idle tick's stacks with the CPU time it stands for. The
 * engine (src/capture/session.c) does the rest. Its samples count ticks and the CPU time
 * they stand for; its shares are of the server's CPU time; the answer names the two
 * groups that used the most, or says first that the server was nearly idle.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "analysis/analysis_internal.h"
#include "capture/capture_internal.h"
#include "cpu_answer.h"
#include "cpu.skel.h"
#include "cpu_fp.skel.h"
#include "cpu_no_loop.skel.h"
#include "questions/question.h"
#include "util/messages.h"

#define NSEC_PER_SEC 1000000000ULL

static struct bpf_object *cpu_open(void **skel, const struct kernel_features *k)
{
	struct cpu_bpf *s = QUESTION_SKEL_OPEN(cpu, k, cpu_bpf__open());

	*skel = s;
	return s ? s->obj : NULL;
}

static void cpu_destroy(void *skel)
{
	cpu_bpf__destroy(skel);
}

static uint64_t cpu_events_per_cpu(const struct capture_config *c)
{
	return c->hz;
}

/* Starts sampling on every online CPU. */
static int cpu_attach(struct capture_session *s, const struct bpf_loaded *l, const int *cpus,
		      int ncpus)
{
	return capture_session__attach_ticks(s, bpf_loaded__prog(l, "on_tick"), cpus, ncpus);
}

static int cpu_probe(const struct bpf_loaded *l, char *detail, size_t size)
{
	int *cpus = NULL, ncpus = 0, fd, link, err;

	err = capture__online_cpus(&cpus, &ncpus);
	fd = err ? err : capture__open_cpu_clock(cpus[0], 99);
	free(cpus);
	if (fd < 0) {
		msg_format(detail, size, MSG_CHECK_Q_PERF_FAILED, strerror(-fd));
		return fd;
	}
	link = capture__attach_perf_event(bpf_loaded__prog(l, "on_tick"), fd);
	close(fd);
	if (link < 0) {
		msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, "cpu-clock", strerror(-link));
		return link;
	}
	close(link);
	return 0;
}

static void cpu_default_values(const struct capture_config *c, int64_t values[RECORD_MAX_VALUES])
{
	values[0] = 1;
	values[1] = c->hz ? (int64_t)(NSEC_PER_SEC / c->hz) : 0;
}

static const struct capture_question capture = {
	.id = QUESTION_CPU,
	.open = cpu_open,
	.destroy = cpu_destroy,
	.events_per_cpu = cpu_events_per_cpu,
	.attach = cpu_attach,
	.probe = cpu_probe,
	.default_values = cpu_default_values,
};

/* ---- the analysis ---- */

/*
 * Under 5% of the server's CPU time used, all groups together, the server is nearly idle
 * and the answer says that first. Why 5%: an idle server is never at 0 (timer ticks,
 * kernel threads, agents and this profiler's own sampling take some), and below 5% no
 * group holds enough to act on: the largest is at most 1/20 of the server,
 * which could take twenty times its load. "System used <1%, most of it in
 * __cond_resched" read as if that were the problem; "nearly idle" says there is none.
 */
#define CPU_IDLE_SHARE 0.05

static char *cpu_answer(const struct analysis *a)
{
	const struct prof_header *h = &a->profile->header;
	struct answer_group first;
	double used;

	/* Without its CPUs and duration (another tool's pprof) the server's time is unknown. */
	if (!h->ncpus || !h->duration_ns || a->total <= 0 || !a->ngroups)
		return analysis__answer_largest(a, cpu_answer__sentence);
	used = (double)a->total / ((double)h->ncpus * (double)h->duration_ns);
	if (used >= CPU_IDLE_SHARE)
		return analysis__answer_largest(a, cpu_answer__sentence);
	first = analysis_group__answer(&a->groups[0]);
	return cpu_answer__idle(h->duration_ns, used, &first);
}

/* ---- the question ---- */

/* A pprof of two columns, nanoseconds the second: another tool's CPU profile. */
static int cpu_pprof_match(const struct question_pprof_types *t, int cols[QUESTION_MAX_VALUES])
{
	if (t->n < 2 || question_pprof__column(t, "nanoseconds", false) != 1)
		return -1;
	cols[0] = 0;
	cols[1] = 1;
	return 2;
}

const struct question_plugin question_cpu = {
	.id = "cpu",
	.title = "What is using the CPU",
	.primary = true,
	.share_of_server = true,
	.clock_sampled = true,
	.value_types = { { "samples", "count" }, { "cpu", "nanoseconds" } },
	.main_value = 1,
	.folded_value = 0,
	.max_value = -1,
	.value_bounds = { VALUE_BOUND_TICKS, VALUE_BOUND_CPU_TIME },
	.views = { "groups", "flamegraph", "functions" },
	.pprof_match = cpu_pprof_match,
	.capture = &capture,
	.answer = cpu_answer,
};

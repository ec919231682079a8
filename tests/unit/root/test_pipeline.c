// SPDX-License-Identifier: MIT
/*
 * The capture pipeline driven as the workspace server drives it: its own epoll loop on
 * pipeline__fd, progress and errors collected through callbacks, nothing printed. On the
 * real kernel (root), with a busy program built here: its samples, its group and its
 * function come back, the symbol table read for its build comes back for the caller to
 * keep, and a stop ends sampling early with what was sampled kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "helpers/fixture.h"
#include "pipeline/pipeline.h"
#include "profile/profile.h"

static const char program[] =
	"#include <stdint.h>\n"
	"volatile uint64_t sink;\n"
	"__attribute__((noinline)) void spin_for_pipeline(void)\n"
	"{ for (int i = 0; i < 1000000; i++) sink += (uint64_t)i * i; }\n"
	"int main(void) { for (;;) spin_for_pipeline(); }\n";

struct seen {
	unsigned progress[PIPELINE_PHASE__COUNT];
	uint64_t sampling_total;
	unsigned errors;
	enum msg_id last_error;
	char error_text[256];
};

static void on_progress(void *ctx, const struct pipeline_progress *pr)
{
	struct seen *s = ctx;

	s->progress[pr->phase]++;
	if (pr->phase == PIPELINE_SAMPLING)
		s->sampling_total = pr->total;
}

static void on_error(void *ctx, enum msg_id id, const char *text)
{
	struct seen *s = ctx;

	s->errors++;
	s->last_error = id;
	snprintf(s->error_text, sizeof(s->error_text), "%s", text);
}

struct env {
	struct fixture *fx;
	const char *bin;
	pid_t child;
	int saved_out, saved_err;
	char out_path[64], err_path[64];
};

static int setup(void **state)
{
	struct env *e;

	if (geteuid() != 0) {
		fprintf(stderr, "test_pipeline: needs root (it loads BPF programs)\n");
		return -1;
	}
	e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->fx = fixture__new();
	assert_non_null(e->fx);
	e->bin = fixture__compile(e->fx, "pipeline_burner", program, "-O1 -fno-omit-frame-pointer");
	assert_non_null(e->bin);
	e->child = fork();
	assert_true(e->child >= 0);
	if (e->child == 0) {
		execl(e->bin, "pipeline_burner", (char *)NULL);
		_exit(127);
	}
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	if (!e)
		return 0; /* setup refused: not root */
	kill(e->child, SIGKILL);
	waitpid(e->child, NULL, 0);
	fixture__free(e->fx);
	free(e);
	return 0;
}

/* Standard output and error go to files while the pipeline runs: it must print nothing. */
static void quiet_begin(struct env *e)
{
	int out, err;

	snprintf(e->out_path, sizeof(e->out_path), "%s/stdout", fixture__dir(e->fx));
	snprintf(e->err_path, sizeof(e->err_path), "%s/stderr", fixture__dir(e->fx));
	out = open(e->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = open(e->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(out >= 0 && err >= 0);
	fflush(stdout);
	fflush(stderr);
	e->saved_out = dup(1);
	e->saved_err = dup(2);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
}

static void quiet_end(struct env *e)
{
	struct stat so, se;

	fflush(stdout);
	fflush(stderr);
	dup2(e->saved_out, 1);
	dup2(e->saved_err, 2);
	close(e->saved_out);
	close(e->saved_err);
	assert_int_equal(stat(e->out_path, &so), 0);
	assert_int_equal(stat(e->err_path, &se), 0);
	assert_int_equal(so.st_size, 0);
	assert_int_equal(se.st_size, 0);
}

/* The server's way: an epoll set of its own, waiting on the pipeline's descriptor. */
static int run_own_loop(struct pipeline *pl, int stop_after_steps)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), r = 0, steps = 0;
	struct epoll_event ev = { .events = EPOLLIN };

	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, pipeline__fd(pl), &ev), 0);
	while (r == 0) {
		struct epoll_event out;

		epoll_wait(ep, &out, 1, pipeline__timeout_ms(pl));
		r = pipeline__step(pl);
		if (++steps == stop_after_steps)
			pipeline__stop(pl);
	}
	close(ep);
	return r;
}

static bool has_sample_of(const struct profile *p, pid_t pid)
{
	for (uint32_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].labels.pid == pid)
			return true;
	return false;
}

static void test_own_event_loop(void **state)
{
	struct env *e = *state;
	struct seen seen = { 0 };
	struct pipeline_callbacks cb = { on_progress, on_error, &seen };
	struct pipeline_options opts = { .question = QUESTION_CPU, .seconds = 2, .hz = 99 };
	struct pipeline_result result;
	const struct analysis *a;
	struct pipeline *pl;
	bool named = false, in_group = false;

	quiet_begin(e);
	pl = pipeline__start(&opts, &cb);
	assert_non_null(pl);
	assert_int_equal(run_own_loop(pl, 0), 1);
	assert_int_equal(pipeline__finish(pl, &result), 0);
	pipeline__free(pl);
	quiet_end(e);

	assert_int_equal(seen.errors, 0);
	assert_true(seen.progress[PIPELINE_SAMPLING] >= 2); /* at the start, and each second */
	assert_int_equal(seen.sampling_total, 2000);
	assert_true(seen.progress[PIPELINE_READING] >= 1);
	assert_int_equal(seen.progress[PIPELINE_FAILED], 0);

	assert_true(has_sample_of(result.profile, e->child));
	a = result.analysis;
	assert_non_null(a->answer);
	for (size_t i = 0; i < a->nfunctions; i++)
		named |= strcmp(a->functions[i].name, "spin_for_pipeline") == 0;
	assert_true(named);
	for (size_t g = 0; g < a->ngroups; g++)
		for (size_t i = 0; i < a->groups[g].nprocesses; i++)
			in_group |= a->groups[g].processes[i].pid == e->child;
	assert_true(in_group);
	/* The burner's own table came back for the caller to keep, under its build id. */
	assert_true(result.nsymbols >= 1);
	for (size_t i = 0; i < result.nsymbols; i++)
		assert_true(strlen(result.symbols[i].build_id) > 0 && result.symbols[i].tab);
	pipeline_result__release(&result);
}

static void test_stop_keeps_what_was_sampled(void **state)
{
	struct env *e = *state;
	struct seen seen = { 0 };
	struct pipeline_callbacks cb = { on_progress, on_error, &seen };
	struct pipeline_options opts = { .question = QUESTION_CPU, .seconds = 600, .hz = 99 };
	struct pipeline_result result;
	struct pipeline *pl;

	quiet_begin(e);
	pl = pipeline__start(&opts, &cb);
	assert_non_null(pl);
	/* Ten steps are about a second of a 600-second capture. */
	assert_int_equal(run_own_loop(pl, 10), 1);
	assert_int_equal(pipeline__finish(pl, &result), 0);
	pipeline__free(pl);
	quiet_end(e);

	assert_int_equal(seen.errors, 0);
	assert_true(result.profile->header.duration_ns < 600ULL * 1000000000ULL);
	assert_true(has_sample_of(result.profile, e->child));
	pipeline_result__release(&result);
}

static void test_refusal_is_reported_not_printed(void **state)
{
	struct env *e = *state;
	struct seen seen = { 0 };
	struct pipeline_callbacks cb = { on_progress, on_error, &seen };
	struct pipeline_options opts = { .question = QUESTION__COUNT, .seconds = 1, .hz = 99 };
	struct pipeline_result result;

	quiet_begin(e);
	assert_int_equal(pipeline__run(&opts, &cb, NULL, &result), -EOPNOTSUPP);
	quiet_end(e);
	assert_int_equal(seen.errors, 1);
	assert_int_equal(seen.last_error, MSG_CAPTURE_NOT_AVAILABLE);
	assert_true(strstr(seen.error_text, "not available") != NULL);
	assert_int_equal(seen.progress[PIPELINE_FAILED], 1);
	assert_null(result.profile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_event_loop),
		cmocka_unit_test(test_stop_keeps_what_was_sampled),
		cmocka_unit_test(test_refusal_is_reported_not_printed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

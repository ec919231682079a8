// SPDX-License-Identifier: MIT
/*
 * Analysis of hand-made symbolized profiles: group shares of the server's CPU time, "most
 * of it in" the group's own code, every question's answer word for word, functions by
 * self and total, the stripped-binary card, and the JSON document.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/answer.h"
#include "analysis/folded.h"
#include "util/format.h"
#include "elf/elf_file.h"
#include "profile_builder.h"
#include "unwind/python.h"
#include "unwind/python.h"

#define BUILD_ID "b65a313cbf47d2e0a1c9b8f7e6d5c4b3a2910f8e"

static const struct pb_who gunicorn = { "Service billing", GROUP_SERVICE, 4242, "gunicorn" };
static const struct pb_who gunicorn2 = { "Service billing", GROUP_SERVICE, 4243, "gunicorn" };
static const struct pb_who worker = { "Service billing", GROUP_SERVICE, 4300, "billing-worker" };
static const struct pb_who nginx = { "Unit nginx.service", GROUP_UNIT, 800, "nginx" };
static const struct pb_who kworker = { "System", GROUP_SYSTEM, 50, "kworker/0:1" };
static const struct pb_who cron = { "Other processes", GROUP_OTHER, 900, "cron" };

/*
 * The spec's server: 2 CPUs for 30 seconds (60 s of CPU time). Service billing burns
 * 32.4 s (54%), mostly in the Python function build_report under the interpreter and
 * libc; Unit nginx.service 8.4 s (14%); System 1.2 s of kernel work; cron 0.6 s in libc.
 */
static struct profile *spec_server(void)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 30 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t py = pb_mapping(p, "/usr/bin/python3.11", "bb", MAPPING_EXE, true);
	uint32_t w = pb_mapping(p, "/usr/local/bin/billing-worker", BUILD_ID, MAPPING_EXE, true);
	uint32_t ng = pb_mapping(p, "/usr/sbin/nginx", "cc", MAPPING_EXE, true);

	uint32_t memcpy_ = pb_frame(p, libc, 0x100, "memcpy", true, LANGUAGE_C);
	uint32_t write_ = pb_frame(p, libc, 0x200, "write", true, LANGUAGE_C);
	uint32_t nanosleep_ = pb_frame(p, libc, 0x300, "nanosleep", true, LANGUAGE_C);
	uint32_t eval = pb_frame(p, py, 0x1000, "_PyEval_EvalFrameDefault", true, LANGUAGE_C);
	uint32_t runmain = pb_frame(p, py, 0x2000, "Py_RunMain", true, LANGUAGE_C);
	uint32_t build_report = pb_script_frame(p, py, "build_report", "billing/report.py");
	uint32_t render_row = pb_script_frame(p, py, "render_row", "billing/report.py");
	uint32_t handle = pb_script_frame(p, py, "handle_request", "billing/app.py");
	uint32_t copy_user = pb_frame(p, k, 0xffffffff81001000, "copy_user_generic", true,
				      LANGUAGE_KERNEL);
	uint32_t syscall = pb_frame(p, k, 0xffffffff81002000, "do_syscall_64", true,
				    LANGUAGE_KERNEL);
	uint32_t epoll = pb_frame(p, k, 0xffffffff81003000, "ep_poll", true, LANGUAGE_KERNEL);
	uint32_t memset_ = pb_frame(p, k, 0xffffffff81004000, "memset_orig", true,
				    LANGUAGE_KERNEL);
	uint32_t work = pb_frame(p, k, 0xffffffff81005000, "process_one_work", true,
				 LANGUAGE_KERNEL);
	uint32_t w1 = pb_frame(p, w, 0x1a20, "billing-worker+0x1a20", false, LANGUAGE_C);
	uint32_t w2 = pb_frame(p, w, 0x1000, "billing-worker+0x1000", false, LANGUAGE_C);
	uint32_t ngx = pb_frame(p, ng, 0x4000, "ngx_process_events_and_timers", true, LANGUAGE_C);
	uint32_t ngx_main = pb_frame(p, ng, 0x5000, "main", true, LANGUAGE_C);

	pb_sample(p, &gunicorn, 20 * SEC, 0, 7, memcpy_, eval, build_report, eval, handle, eval,
		  runmain);
	pb_sample(p, &gunicorn2, 10 * SEC, 0, 9, copy_user, syscall, write_, render_row, eval,
		  build_report, eval, handle, runmain);
	pb_sample(p, &worker, 2400 * MS, 0, 2, w1, w2);
	pb_sample(p, &nginx, 8400 * MS, 0, 4, epoll, syscall, ngx, ngx_main);
	pb_sample(p, &kworker, 1200 * MS, 0, 2, memset_, work);
	pb_sample(p, &cron, 600 * MS, 0, 1, nanosleep_);
	return p;
}

static const struct analysis_group *find_group(const struct analysis *a, const char *label)
{
	for (size_t i = 0; i < a->ngroups; i++)
		if (strcmp(a->groups[i].label, label) == 0)
			return &a->groups[i];
	fail_msg("no group %s", label);
	return NULL;
}

static const struct analysis_function *find_function(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nfunctions; i++)
		if (strcmp(a->functions[i].name, name) == 0)
			return &a->functions[i];
	fail_msg("no function %s", name);
	return NULL;
}

static void test_cpu_answer_is_the_spec_sentence(void **state)
{
	struct profile *p = spec_server();
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, Service billing used 54% of the CPU time on this "
			    "server, most of it in build_report. Next was Unit nginx.service, "
			    "at 14%.");
	analysis__free(a);
	profile__free(p);
}

static void test_groups_are_shares_of_the_servers_cpu_time(void **state)
{
	struct profile *p = spec_server();
	struct analysis *a = analysis__new(p);
	const struct analysis_group *g;

	(void)state;
	assert_non_null(a);
	assert_int_equal(a->ngroups, 4);
	assert_int_equal(a->share_of, 60 * SEC);
	assert_string_equal(a->groups[0].label, "Service billing");
	assert_string_equal(a->groups[1].label, "Unit nginx.service");
	assert_string_equal(a->groups[2].label, "System");
	assert_string_equal(a->groups[3].label, "Other processes");

	g = &a->groups[0];
	assert_int_equal(g->kind, GROUP_SERVICE);
	assert_string_equal(g->name, "billing");
	assert_int_equal(g->value, 32400 * MS);
	assert_float_equal(g->share, 0.54, 1e-9);
	assert_int_equal(g->nprocesses, 3);
	assert_int_equal(g->processes[0].pid, 4242);
	assert_string_equal(g->processes[0].comm, "gunicorn");
	assert_float_equal(g->processes[0].share, 20.0 / 60, 1e-9);
	assert_int_equal(g->processes[1].pid, 4243);
	assert_int_equal(g->processes[2].pid, 4300);
	assert_string_equal(g->processes[2].comm, "billing-worker");

	g = find_group(a, "Unit nginx.service");
	assert_string_equal(g->name, "nginx.service");
	assert_float_equal(g->share, 0.14, 1e-9);
	assert_string_equal(find_group(a, "System")->name, "System");
	analysis__free(a);
	profile__free(p);
}

static void test_most_of_it_in_skips_kernel_runtime_and_system_libraries(void **state)
{
	struct profile *p = spec_server();
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	/* libc's memcpy and the interpreter sit under build_report: they are not named. */
	assert_string_equal(find_group(a, "Service billing")->top_function, "build_report");
	/* nginx's leaf is in the kernel; its own code is the answer. */
	assert_string_equal(find_group(a, "Unit nginx.service")->top_function,
			    "ngx_process_events_and_timers");
	/* No own code: the deepest user frame (libc), else the kernel frame. */
	assert_string_equal(find_group(a, "Other processes")->top_function, "nanosleep");
	assert_string_equal(find_group(a, "System")->top_function, "memset_orig");
	analysis__free(a);
	profile__free(p);
}

static void test_most_of_it_in_weighs_by_value(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/app/app", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB, true);
	uint32_t a_ = pb_frame(p, app, 0x10, "parse", true, LANGUAGE_C);
	uint32_t b_ = pb_frame(p, app, 0x20, "encode", true, LANGUAGE_C);
	uint32_t m_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	uint32_t lc = pb_frame(p, libc, 0x30, "memchr", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* parse is the leaf in three small samples; encode, under libc, in one large one. */
	pb_sample(p, &gunicorn, 1 * SEC, 1, 2, a_, m_);
	pb_sample(p, &gunicorn, 1 * SEC, 2, 2, a_, m_);
	pb_sample(p, &gunicorn, 1 * SEC, 3, 2, a_, m_);
	pb_sample(p, &gunicorn, 4 * SEC, 1, 3, lc, b_, m_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->groups[0].top_function, "encode");
	assert_string_equal(a->answer, "Over 10 seconds, Service billing used 70% of the CPU "
				       "time on this server, most of it in encode.");
	analysis__free(a);
	profile__free(p);
}

/* Python's standard library and installed packages are where time goes, not what the
 * answer names: the user's function that called them is. */
static void test_most_of_it_in_skips_python_libraries(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 10 * SEC);
	uint32_t py = pb_mapping(p, "/usr/bin/python3.11", "bb", MAPPING_EXE, true);
	uint32_t enc = pb_script_frame(p, py, "JSONEncoder.iterencode",
				       "/usr/lib/python3.11/json/encoder.py");
	uint32_t req = pb_script_frame(p, py, "Session.request",
				       "/srv/venv/lib/python3.11/site-packages/requests/api.py");
	uint32_t boot = pb_script_frame(p, py, "_call_with_frames_removed",
					"<frozen importlib._bootstrap>");
	uint32_t report = pb_script_frame(p, py, "build_report", "/srv/billing/report.py");
	uint32_t main_ = pb_script_frame(p, py, "main", "/srv/billing/app.py");
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 3 * SEC, 1, 3, enc, report, main_);
	pb_sample(p, &gunicorn, 2 * SEC, 1, 3, req, report, main_);
	pb_sample(p, &gunicorn, 1 * SEC, 1, 2, boot, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->groups[0].top_function, "build_report");
	analysis__free(a);
	profile__free(p);

	assert_true(python__is_library_file("/root/.pyenv/versions/3.8.18/lib/python3.8/abc.py"));
	assert_true(python__is_library_file("/usr/lib64/python3.12/os.py"));
	assert_true(python__is_library_file("/usr/lib/python3/dist-packages/yaml/__init__.py"));
	assert_false(python__is_library_file("/srv/app/lib/python3x/app.py"));
	assert_false(python__is_library_file("/home/me/python3.11/tool.py"));
	assert_false(python__is_library_file("<string>"));
	assert_false(python__is_library_file(NULL));
}

static void test_cpu_answer_edge_cases(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 1400 * MS);
	uint32_t app = pb_mapping(p, "/srv/app/app", "dd", MAPPING_EXE, true);
	uint32_t f = pb_frame(p, app, 0x10, "spin", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* One second (singular), a group whose stacks are empty (no "most of it in"). */
	pb_sample(p, &kworker, 200 * MS, 0, 0);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 1 second, System used 14% of the CPU time on this server.");
	assert_null(a->groups[0].top_function);
	analysis__free(a);

	/* A next group under 1% reads "<1%". */
	pb_sample(p, &cron, 10 * MS, 0, 1, f);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 1 second, System used 14% of the CPU time on this "
				       "server. Next was Other processes, at <1%.");
	analysis__free(a);
	profile__free(p);
}

/* The idle server: 2 CPUs for 10 s (20 s of CPU time), all of it together under
 * 5% of that. The answer says it was nearly idle first, then where the little went. */
static struct profile *quiet_server(int64_t system_ns, int64_t cron_ns)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t resched = pb_frame(p, k, 0xffffffff81006000, "__cond_resched", true,
				    LANGUAGE_KERNEL);
	uint32_t work = pb_frame(p, k, 0xffffffff81005000, "process_one_work", true,
				 LANGUAGE_KERNEL);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t nanosleep_ = pb_frame(p, libc, 0x300, "nanosleep", true, LANGUAGE_C);

	pb_sample(p, &kworker, system_ns, 0, 2, resched, work);
	if (cron_ns)
		pb_sample(p, &cron, cron_ns, 0, 1, nanosleep_);
	return p;
}

static void test_cpu_answer_says_a_quiet_server_was_nearly_idle(void **state)
{
	struct profile *p = quiet_server(120 * MS, 40 * MS);
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	/* 160 ms of 20 s: 0.8%. The groups and their shares are as ever. */
	assert_string_equal(a->answer, "Over 10 seconds, this server was nearly idle: 0.8% of its "
				       "CPU time was used. Most of it was System, in "
				       "__cond_resched.");
	assert_int_equal(a->ngroups, 2);
	assert_float_equal(a->groups[0].share, 0.006, 1e-9);
	analysis__free(a);
	profile__free(p);

	/* Almost nothing. */
	p = quiet_server(5 * MS, 0);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 10 seconds, this server was nearly idle: <0.1% of its "
				       "CPU time was used. Most of it was System, in "
				       "__cond_resched.");
	analysis__free(a);
	profile__free(p);

	/* Just under the line: 4.9%. */
	p = quiet_server(900 * MS, 80 * MS);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 10 seconds, this server was nearly idle: 4.9% of its "
				       "CPU time was used. Most of it was System, in "
				       "__cond_resched.");
	analysis__free(a);
	profile__free(p);
}

static void test_cpu_answer_of_a_busy_server_keeps_its_form(void **state)
{
	/* 5% exactly (1 s of 20 s) is not idle: the answer names the groups as ever. */
	struct profile *p = quiet_server(800 * MS, 200 * MS);
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 10 seconds, System used 4% of the CPU time on this "
				       "server, most of it in __cond_resched. Next was Other "
				       "processes, at 1%.");
	analysis__free(a);
	profile__free(p);

	/* The spec's server, 54% and 14%, is far from idle. */
	p = spec_server();
	a = analysis__new(p);
	assert_non_null(a);
	assert_null(strstr(a->answer, "idle"));
	analysis__free(a);
	profile__free(p);
}

static void test_no_samples_says_so(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 10 seconds, no process used the CPU on this server: "
				       "the profile has no samples.");
	assert_int_equal(a->ngroups, 0);
	assert_int_equal(a->nfunctions, 0);
	assert_int_equal(a->nstripped, 0);
	analysis__free(a);
	profile__free(p);

	p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, no process grew its memory: the profile "
				       "has no samples.");
	analysis__free(a);
	profile__free(p);
}

static void test_functions_self_and_total_count_recursion_once(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/app/app", "dd", MAPPING_EXE, true);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t fib1 = pb_frame(p, app, 0x10, "fib", true, LANGUAGE_C);
	uint32_t fib2 = pb_frame(p, app, 0x18, "fib", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	uint32_t rust = pb_frame(p, app, 0x40, "app::hash", true, LANGUAGE_RUST);
	uint32_t irq = pb_frame(p, k, 0xffffffff81000000, "irq_exit", true, LANGUAGE_KERNEL);
	struct analysis *a;
	const struct analysis_function *f;

	(void)state;
	pb_sample(p, &gunicorn, 6 * SEC, 0, 5, fib1, fib2, fib2, fib1, main_);
	pb_sample(p, &gunicorn, 3 * SEC, 0, 3, rust, fib1, main_);
	pb_sample(p, &gunicorn, 1 * SEC, 0, 2, irq, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nfunctions, 4);
	assert_int_equal(a->total, 10 * SEC);

	f = &a->functions[0];
	assert_string_equal(f->name, "fib");
	assert_float_equal(f->self, 0.6, 1e-9);
	assert_float_equal(f->total, 0.9, 1e-9); /* not 0.6 * 4 + 0.3 */
	assert_int_equal(f->language, LANGUAGE_C);
	f = &a->functions[1];
	assert_string_equal(f->name, "app::hash");
	assert_int_equal(f->language, LANGUAGE_RUST);
	assert_float_equal(f->self, 0.3, 1e-9);
	f = find_function(a, "main");
	assert_float_equal(f->self, 0.0, 1e-9);
	assert_float_equal(f->total, 1.0, 1e-9);
	f = find_function(a, "irq_exit");
	assert_int_equal(f->language, LANGUAGE_KERNEL);
	assert_float_equal(f->self, 0.1, 1e-9);
	/* Largest self first. */
	for (size_t i = 1; i < a->nfunctions; i++)
		assert_true(a->functions[i - 1].self >= a->functions[i].self);
	analysis__free(a);
	profile__free(p);
}

/*
 * The card: our stripped binaries with 1% or more; never a runtime or a system library,
 * even when stripped; a sample counts once per binary.
 */
static struct profile *stripped_server(bool recorded)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t w = pb_mapping(p, "/usr/local/bin/billing-worker", recorded ? BUILD_ID : "",
				MAPPING_EXE, recorded);
	uint32_t noid = pb_mapping(p, "/opt/ledger/ledger", "", MAPPING_EXE, true);
	uint32_t tiny = pb_mapping(p, "/opt/tiny/tiny", "ee", MAPPING_EXE, true);
	uint32_t libz = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libz.so.1", "ff", MAPPING_LIB,
				   true);
	uint32_t node = pb_mapping(p, "/usr/bin/node", "11", MAPPING_EXE, true);
	uint32_t jit = pb_mapping(p, "[jit]", "", MAPPING_JIT, true);
	uint32_t w1 = pb_frame(p, w, 0x1a20, "billing-worker+0x1a20", false, LANGUAGE_C);
	uint32_t w2 = pb_frame(p, w, 0x1b00, "billing-worker+0x1b00", false, LANGUAGE_C);
	uint32_t wn = pb_frame(p, w, 0x1c00, "main", true, LANGUAGE_C);
	uint32_t l1 = pb_frame(p, noid, 0x10, "ledger+0x10", false, LANGUAGE_GO);
	uint32_t t1 = pb_frame(p, tiny, 0x10, "tiny+0x10", false, LANGUAGE_C);
	uint32_t z1 = pb_frame(p, libz, 0x10, "libz.so.1+0x10", false, LANGUAGE_C);
	uint32_t n1 = pb_frame(p, node, 0x10, "node+0x10", false, LANGUAGE_C);
	uint32_t j1 = pb_frame(p, jit, 0x7f0000001000, "[jit]+0x7f0000001000", false,
			       LANGUAGE_JAVASCRIPT);

	/* 31% of the profile in the worker, with two unnamed frames in one stack. */
	pb_sample(p, &worker, 2 * SEC, 0, 3, w1, w2, wn);
	pb_sample(p, &worker, 1100 * MS, 0, 2, w2, wn);
	/* Named frames of the worker do not count towards the card. */
	pb_sample(p, &worker, 1 * SEC, 0, 1, wn);
	pb_sample(p, &cron, 1 * SEC, 0, 1, l1);
	pb_sample(p, &cron, 50 * MS, 0, 1, t1); /* 0.5%: not listed */
	pb_sample(p, &nginx, 2 * SEC, 0, 1, z1);
	pb_sample(p, &nginx, 2 * SEC, 0, 1, n1);
	pb_sample(p, &nginx, 850 * MS, 0, 1, j1);
	return p;
}

static void test_card_lists_our_stripped_binaries(void **state)
{
	struct profile *p = stripped_server(true);
	struct analysis *a = analysis__new(p);

	(void)state;
	assert_non_null(a);
	assert_int_equal(a->total, 10 * SEC);
	assert_int_equal(a->nstripped, 2);
	assert_string_equal(a->stripped[0].path, "/usr/local/bin/billing-worker");
	assert_float_equal(a->stripped[0].share, 0.31, 1e-9);
	assert_string_equal(a->stripped[0].build_id, BUILD_ID);
	assert_true(a->stripped[0].has_build_id);
	assert_string_equal(a->stripped[1].path, "/opt/ledger/ledger");
	assert_float_equal(a->stripped[1].share, 0.10, 1e-9);
	assert_string_equal(a->stripped[1].build_id, "");
	assert_false(a->stripped[1].has_build_id);
	assert_false(a->build_ids_missing);
	analysis__free(a);
	profile__free(p);
}

/*
 * One predicate decides "system" for the card and for "most of it in": a stripped
 * binary a distribution package owns (/usr/bin/dash, found so at capture) is neither
 * listed nor the answer; the user's own .deb (/usr/bin/mytool, no archive) is both.
 */
static void test_package_owned_binaries_are_system(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 10 * SEC);
	uint32_t dash = pb_mapping(p, "/usr/bin/dash", "d1", MAPPING_EXE, true);
	uint32_t mine = pb_mapping(p, "/usr/bin/mytool", "d2", MAPPING_EXE, true);
	uint32_t d1, d2, m1, mm;
	struct analysis *a;

	(void)state;
	p->mappings[dash].from_package = true;
	d1 = pb_frame(p, dash, 0x10, "dash+0x10", false, LANGUAGE_C);
	d2 = pb_frame(p, dash, 0x20, "dash+0x20", false, LANGUAGE_C);
	m1 = pb_frame(p, mine, 0x10, "mytool+0x10", false, LANGUAGE_C);
	mm = pb_frame(p, mine, 0x40, "run_report", true, LANGUAGE_C);
	/* dash calls the tool's report runner, and burns most of the time itself. */
	pb_sample(p, &gunicorn, 6 * SEC, 1, 3, d1, mm, d2);
	pb_sample(p, &cron, 2 * SEC, 2, 1, m1);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nstripped, 1);
	assert_string_equal(a->stripped[0].path, "/usr/bin/mytool");
	assert_string_equal(find_group(a, "Service billing")->top_function, "run_report");
	analysis__free(a);
	profile__free(p);
	/* The same profile with nothing recorded: dash is as any other path (old profiles). */
	assert_false(binary__is_system("/usr/bin/dash", false));
	assert_true(binary__is_system("/usr/bin/dash", true));
	assert_true(binary__is_system("/usr/lib/x86_64-linux-gnu/libc.so.6", false));
	assert_true(binary__is_system("/usr/bin/python3.11", false));
}

static char *card_text(const struct analysis *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	analysis__print_card(a, f);
	fclose(f);
	return buf;
}

static void test_card_text_is_the_spec_wording(void **state)
{
	struct profile *p = stripped_server(true);
	struct analysis *a = analysis__new(p);
	char *text;

	(void)state;
	assert_non_null(a);
	text = card_text(a);
	assert_string_equal(
		text,
		"Some functions have no names, because their binaries were stripped\n"
		"/usr/local/bin/billing-worker 31% of this profile, build b65a313cbf47\n"
		"/opt/ledger/ledger 10% of this profile, no build id: rebuild with "
		"-Wl,--build-id (gcc/clang) or -ldflags=-B=gobuildid (Go)\n"
		"To name their functions, upload the unstripped build or the debug file made "
		"from it: slideops symbols upload FILE\n");
	free(text);
	analysis__free(a);
	profile__free(p);
}

static void test_card_says_when_build_ids_were_not_kept(void **state)
{
	struct profile *p = stripped_server(false);
	struct analysis *a = analysis__new(p);
	char *text;

	(void)state;
	assert_non_null(a);
	assert_true(a->build_ids_missing);
	assert_false(a->stripped[0].build_id_recorded);
	text = card_text(a);
	assert_non_null(strstr(text, "/usr/local/bin/billing-worker 31% of this profile\n"));
	assert_non_null(strstr(text, "This profile was captured before SlideOps kept build ids: "
				     "capture again, then upload.\n"));
	free(text);
	analysis__free(a);
	profile__free(p);
}

static void test_no_card_when_everything_is_named(void **state)
{
	struct profile *p = spec_server();
	struct analysis *a;
	char *text;

	(void)state;
	for (uint32_t i = 0; i < p->nlocations; i++)
		p->locations[i].named = true;
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nstripped, 0);
	text = card_text(a);
	assert_string_equal(text, "");
	free(text);
	analysis__free(a);
	profile__free(p);
}

static void test_json_document(void **state)
{
	struct profile *p = spec_server();
	struct analysis *a = analysis__new(p);
	json_t *doc, *g, *proc, *f, *s;
	char *text;

	(void)state;
	assert_non_null(a);
	doc = analysis__to_json(a, "20261202-150405-cpu-1a2b");
	assert_non_null(doc);
	/* Through text and back, as a script reads it. */
	text = json_dumps(doc, 0);
	json_decref(doc);
	doc = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(doc);

	assert_string_equal(json_string_value(json_object_get(doc, "id")),
			    "20261202-150405-cpu-1a2b");
	assert_string_equal(json_string_value(json_object_get(doc, "question")), "cpu");
	assert_string_equal(json_string_value(json_object_get(doc, "server")), "web-1");
	assert_string_equal(json_string_value(json_object_get(doc, "started_at")),
			    "2026-12-02T15:04:05Z");
	assert_int_equal(json_integer_value(json_object_get(doc, "seconds")), 30);
	assert_int_equal(json_integer_value(json_object_get(doc, "lost")), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "answer")), a->answer);

	assert_int_equal(json_array_size(json_object_get(doc, "groups")), 4);
	g = json_array_get(json_object_get(doc, "groups"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "label")), "Service billing");
	assert_string_equal(json_string_value(json_object_get(g, "kind")), "service");
	assert_string_equal(json_string_value(json_object_get(g, "name")), "billing");
	assert_float_equal(json_real_value(json_object_get(g, "share")), 0.54, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(g, "value")), 32400 * MS);
	assert_string_equal(json_string_value(json_object_get(g, "unit")), "nanoseconds");
	assert_string_equal(json_string_value(json_object_get(g, "top_function")), "build_report");
	proc = json_array_get(json_object_get(g, "processes"), 0);
	assert_int_equal(json_integer_value(json_object_get(proc, "pid")), 4242);
	assert_string_equal(json_string_value(json_object_get(proc, "comm")), "gunicorn");
	assert_true(json_is_number(json_object_get(proc, "share")));

	f = json_array_get(json_object_get(doc, "functions"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "name")), "memcpy");
	assert_string_equal(json_string_value(json_object_get(f, "language")), "C/C++");
	assert_true(json_is_number(json_object_get(f, "self")));
	assert_true(json_is_number(json_object_get(f, "total")));

	s = json_array_get(json_object_get(doc, "stripped"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "path")),
			    "/usr/local/bin/billing-worker");
	assert_string_equal(json_string_value(json_object_get(s, "build_id")), BUILD_ID);
	assert_true(json_is_true(json_object_get(s, "has_build_id")));
	assert_true(json_is_number(json_object_get(s, "share")));
	json_decref(doc);

	doc = analysis__to_json_top(a, NULL, 2);
	assert_true(json_is_null(json_object_get(doc, "id")));
	assert_int_equal(json_array_size(json_object_get(doc, "functions")), 2);
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

static bool json_lists_function(json_t *doc, const char *name)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(doc, "functions"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
			return true;
	return false;
}

static void test_json_lists_callers_beyond_the_top(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/app/app", "dd", MAPPING_EXE, true);
	uint32_t main_ = pb_frame(p, app, 0x1, "main", true, LANGUAGE_C);
	uint32_t dispatch = pb_frame(p, app, 0x2, "dispatch", true, LANGUAGE_C);
	struct analysis *a;
	json_t *doc;
	char name[32];

	(void)state;
	/* 1500 leaves, each under 0.1%, push main and dispatch (no self time) past 100. */
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "handler_%04d", i);
		pb_sample(p, &gunicorn, 10 * MS, 0, 3, pb_frame(p, app, 0x100 + i, name, true,
								LANGUAGE_C),
			  dispatch, main_);
	}
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nfunctions, 1502);
	doc = analysis__to_json(a, NULL);
	assert_int_equal(json_array_size(json_object_get(doc, "functions")), 102);
	assert_true(json_lists_function(doc, "main"));
	assert_true(json_lists_function(doc, "dispatch"));
	json_decref(doc);
	doc = analysis__to_json_top(a, NULL, 100);
	assert_int_equal(json_array_size(json_object_get(doc, "functions")), 100);
	assert_false(json_lists_function(doc, "main"));
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

static void test_json_survives_names_that_are_not_utf8(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/app/app", "dd", MAPPING_EXE, true);
	/* A process may name itself any bytes (prctl PR_SET_NAME); symbols are bytes too. */
	struct pb_who odd = { "Other processes", GROUP_OTHER, 77, "w\xff\xfeker" };
	struct analysis *a;
	json_t *doc, *proc;
	char *text;

	(void)state;
	pb_sample(p, &odd, 1 * SEC, 0, 1, pb_frame(p, app, 0x10, "f\xc3(", true, LANGUAGE_C));
	a = analysis__new(p);
	assert_non_null(a);
	doc = analysis__to_json(a, NULL);
	assert_non_null(doc);
	text = json_dumps(doc, 0);
	assert_non_null(text);
	proc = json_array_get(json_object_get(json_array_get(json_object_get(doc, "groups"), 0),
					      "processes"),
			      0);
	assert_string_equal(json_string_value(json_object_get(proc, "comm")),
			    "w\\xff\\xfeker"); /* each bad byte as the text \xNN */
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(doc, "functions"), 0), "name")),
			    "f\\xc3(");
	free(text);
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/* ---- the other questions ---- */

/* Threads that barely run do not rank however long they wait, the profiler's own never
 * does (it stays a row of System), and the answer says why its group waited. */
static void test_wall_answer_ranks_threads_that_ran_and_says_why_they_waited(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t poller = pb_mapping(p, "/opt/poller/poller", "ee", MAPPING_EXE, true);
	uint32_t self = pb_mapping(p, "/opt/slideops/slideops", "ff", MAPPING_EXE, true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t price = pb_frame(p, app, 0x20, "price_orders", true, LANGUAGE_C);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t poll_queue = pb_frame(p, poller, 0x10, "poll_queue", true, LANGUAGE_C);
	uint32_t pipeline = pb_frame(p, self, 0x10, "pipeline__run", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who crowded = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting",
				  "runqueue" };
	struct pb_who napping = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting",
				  "sleep" };
	struct pb_who prun = { "Unit poller.service", GROUP_UNIT, 700, "poller", "running" };
	struct pb_who pwait = { "Unit poller.service", GROUP_UNIT, 700, "poller", "waiting",
				"other" };
	struct pb_who srun = { "System", GROUP_SYSTEM, 999, "slideops", "running" };
	struct pb_who swait = { "System", GROUP_SYSTEM, 999, "slideops", "waiting", "other" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting", "other" };
	const struct analysis_group *sys;
	struct analysis *a;

	(void)state;
	p->header.profiler_pid = 999;
	pb_sample(p, &run, 2 * SEC, 4242, 2, price, wait_orders);
	pb_sample(p, &crowded, 15 * SEC, 4242, 2, schedule, wait_orders);
	pb_sample(p, &napping, 5 * SEC, 4242, 2, schedule, wait_orders);
	/* 40 pollers waiting the whole capture, each running 20 ms: under 0.1% of 30 s. */
	for (int t = 0; t < 40; t++) {
		pb_sample(p, &prun, 20 * MS, 700 + t, 1, poll_queue);
		pb_sample(p, &pwait, 30 * SEC, 700 + t, 2, schedule, poll_queue);
	}
	/* The profiler runs a lot, and waits the whole capture. */
	pb_sample(p, &srun, 5 * SEC, 999, 1, pipeline);
	pb_sample(p, &swait, 25 * SEC, 999, 2, schedule, pipeline);
	pb_sample(p, &kwait, 30 * SEC, 10, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing spent 2.0 s running and "
			    "20.0 s waiting, 15.0 s of it for a CPU, most of the waiting in "
			    "wait_for_orders.");
	/* Everything still counts in the totals; the profiler is a row of System. */
	assert_int_equal(find_group(a, "Unit poller.service")->waiting, 40 * 30 * SEC);
	sys = find_group(a, "System");
	assert_int_equal(sys->running, 5 * SEC);
	assert_int_equal(sys->nprocesses, 2);
	assert_int_equal(sys->waiting_by_reason[4], 55 * SEC);
	assert_string_not_equal(sys->top_function, "pipeline__run");
	assert_int_equal(a->waiting_by_reason[0], 15 * SEC);
	assert_int_equal(a->waiting_by_reason[3], 5 * SEC);
	analysis__free(a);
	profile__free(p);
}

static void test_wall_answer_is_not_swamped_by_idle_kernel_threads(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t futex = pb_frame(p, libc, 0x10, "__futex_abstimed_wait_common", true,
				  LANGUAGE_C);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t compute = pb_frame(p, app, 0x20, "price_orders", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who wait = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting" };
	struct pb_who nrun = { "Unit nginx.service", GROUP_UNIT, 800, "nginx", "running" };
	struct pb_who nwait = { "Unit nginx.service", GROUP_UNIT, 800, "nginx", "waiting" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting" };
	struct analysis *a;

	(void)state;
	pb_sample(p, &run, 3 * SEC, 4242, 2, compute, main_);
	pb_sample(p, &wait, 7 * SEC, 4242, 4, schedule, futex, wait_orders, main_);
	pb_sample(p, &wait, 2 * SEC, 4243, 2, schedule, main_);
	pb_sample(p, &nrun, 1 * SEC, 800, 1, main_);
	pb_sample(p, &nwait, 2500 * MS, 800, 1, schedule);
	/* Sixty kernel threads asleep for the whole capture: 1800 s of waiting. */
	for (int t = 0; t < 60; t++)
		pb_sample(p, &kwait, 30 * SEC, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing spent 3.0 s running and "
			    "9.0 s waiting, most of the waiting in wait_for_orders. Next was Unit "
			    "nginx.service, 1.0 s running and 2.5 s waiting.");
	/* The table itself keeps every group's real share of the profile. */
	assert_string_equal(a->groups[0].label, "System");
	analysis__free(a);
	profile__free(p);
}

static void test_threads_answer_names_the_largest_set_waiting_in_one_place(void **state)
{
	struct profile *p = pb_new(QUESTION_THREADS, 2, 0);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	uint32_t smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true,
				    LANGUAGE_KERNEL);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t accept_ = pb_frame(p, app, 0x20, "accept_loop", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct pb_who run = { "Service billing", GROUP_SERVICE, 4242, "billing", "running" };
	struct pb_who wait = { "Service billing", GROUP_SERVICE, 4242, "billing", "waiting" };
	struct pb_who kwait = { "System", GROUP_SYSTEM, 10, "ksoftirqd/0", "waiting" };
	struct analysis *a;

	(void)state;
	pb_sample(p, &run, 1, 4242, 1, main_);
	for (int t = 0; t < 6; t++)
		pb_sample(p, &wait, 1, 4250 + t, 3, schedule, wait_orders, main_);
	pb_sample(p, &wait, 1, 4260, 3, schedule, accept_, main_);
	for (int t = 0; t < 20; t++)
		pb_sample(p, &kwait, 1, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "This server had 28 threads: 1 running and 27 waiting. The largest "
			    "set waiting in the same place was 6 threads of Service billing in "
			    "wait_for_orders.");
	analysis__free(a);
	profile__free(p);

	/* Only kernel threads wait: then they are the answer. One thread is singular. */
	p = pb_new(QUESTION_THREADS, 2, 0);
	k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	schedule = pb_frame(p, k, 0xffffffff81000000, "schedule", true, LANGUAGE_KERNEL);
	smpboot = pb_frame(p, k, 0xffffffff81000100, "smpboot_thread_fn", true, LANGUAGE_KERNEL);
	for (int t = 0; t < 3; t++)
		pb_sample(p, &kwait, 1, 10 + t, 2, schedule, smpboot);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "This server had 3 threads: 0 running and 3 waiting. The largest set "
			    "waiting in the same place was 3 threads of System in schedule.");
	analysis__free(a);
	profile__free(p);

	{
		char *s = answer__threads(&(struct answer_threads){ 1, 1, 0, 0, NULL, NULL });

		assert_string_equal(s, "This server had 1 thread: 1 running and 0 waiting.");
		free(s);
	}
}

static void test_locks_answer(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t post = pb_frame(p, app, 0x10, "ledger_post", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 12400 * MS, 4242, 3, lll, post, main_);
	pb_sample(p, &nginx, 300 * MS, 800, 2, lll, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing waited 12.4 s on locks, "
			    "most of it in ledger_post. Next was Unit nginx.service, 0.3 s.");
	assert_float_equal(a->groups[0].share, 12.4 / 12.7, 1e-9); /* of the profile */
	analysis__free(a);
	profile__free(p);
}

static void test_memory_answer(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t memset_ = pb_frame(p, libc, 0x10, "memset", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x10, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 212LL << 20, 4242, 3, memset_, load, main_);
	pb_sample(p, &nginx, 3LL << 20, 800, 2, memset_, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Service billing grew by 212 MB, most of "
				       "it in load_dataset. Next was Unit nginx.service, 3 MB.");
	analysis__free(a);
	profile__free(p);
}


/* A sample with all its values and the labels pb_sample leaves out. */
static void add_full(struct profile *p, const struct pb_who *who, int tid, const int64_t *values,
		     const char *state, const char *lock_kind, uint32_t wait_leaf, uint32_t caller)
{
	uint32_t locs[2] = { wait_leaf, caller };
	struct prof_labels l = {
		.pid = who->pid, .tid = tid,
		.comm = profile__intern(p, who->comm),
		.group = profile__intern(p, who->group), .group_kind = who->kind,
		.state = profile__intern(p, state ? state : ""),
		.lock_kind = profile__intern(p, lock_kind ? lock_kind : ""),
	};
	uint32_t stack = profile__add_stack(p, locs, 2);

	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__add_sample(p, stack, values, &l), 0);
}

/* A thread pool idle in a condition variable waits a lot on futexes: not on locks. */
static void test_locks_leave_out_condition_variables_and_joins(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t kernel = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t cond = pb_frame(p, libc, 0x10, "pthread_cond_wait", true, LANGUAGE_C);
	uint32_t unnamed = pb_frame(p, libc, 0x20, "libc.so.6+0x20", false, LANGUAGE_C);
	uint32_t rwsem = pb_frame(p, kernel, 0x30, "rwsem_down_read_slowpath", true,
				  LANGUAGE_KERNEL);
	uint32_t wait_orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t post = pb_frame(p, app, 0x20, "ledger_post", true, LANGUAGE_C);
	uint32_t fault = pb_frame(p, app, 0x30, "load_page", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* Named: a condition variable, 100 s; unnamed, by the futex operation: a mutex
	 * (FUTEX_WAIT) 2 s and a join or condition variable (FUTEX_WAIT_BITSET) 50 s. */
	add_full(p, &worker, 1, (int64_t[]){ 10, 100 * SEC, 50 * SEC }, "waiting", "futex", cond,
		 wait_orders);
	/* The same thread and place twice: the waits add up, the longest is the longest. */
	add_full(p, &gunicorn, 2, (int64_t[]){ 30, 1500 * MS, 300 * MS }, "waiting", "futex",
		 unnamed, post);
	add_full(p, &gunicorn, 2, (int64_t[]){ 10, 500 * MS, 200 * MS }, "waiting", "futex",
		 unnamed, post);
	add_full(p, &gunicorn, 3, (int64_t[]){ 5, 50 * SEC, 40 * SEC }, "waiting", "futex_bitset",
		 unnamed, wait_orders);
	/* The kernel's own locks always count. */
	add_full(p, &nginx, 4, (int64_t[]){ 3, 1 * SEC, 1 * SEC }, "waiting", "kernel rwsem", rwsem,
		 fault);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer,
			    "Over 30 seconds, threads of Service billing waited 2.0 s on locks, "
			    "most of it in ledger_post. Next was Unit nginx.service, 1.0 s.");
	assert_int_equal(a->total, 3 * SEC);
	assert_int_equal(a->ngroups, 2);
	assert_int_equal(a->groups[0].contentions, 40);
	assert_int_equal(a->groups[0].longest, 300 * MS);
	for (size_t i = 0; i < a->nfunctions; i++)
		assert_string_not_equal(a->functions[i].name, "wait_for_orders");
	/* The folded export draws what the answer counts; pprof keeps every wait. */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		assert_int_equal(folded__write(p, f), 0);
		fclose(f);
		assert_non_null(strstr(text, "ledger_post"));
		assert_null(strstr(text, "wait_for_orders"));
		free(text);
	}
	analysis__free(a);
	profile__free(p);
}

/* A wait on the lock at addr (add_full's, with the lock's address). */
static void add_lock(struct profile *p, const struct pb_who *who, const int64_t *values,
		     const char *kind, uint64_t addr, uint32_t wait_leaf, uint32_t caller)
{
	uint32_t locs[2] = { wait_leaf, caller };
	struct prof_labels l = {
		.pid = who->pid, .tid = who->pid,
		.comm = profile__intern(p, who->comm),
		.group = profile__intern(p, who->group), .group_kind = who->kind,
		.state = profile__intern(p, "waiting"),
		.lock = addr, .lock_kind = profile__intern(p, kind),
	};
	uint32_t stack = profile__add_stack(p, locs, 2);

	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__add_sample(p, stack, values, &l), 0);
}

/*
 * Locks by address: one address in two processes is two locks (each its own mutex); a
 * kernel lock's address is one lock whoever waits; waits that are not for a lock (a
 * condition variable) are in none. Each lock: its waits, total, longest, and its largest
 * waiters by function and by process. The document carries them, names as text.
 */
static void test_locks_by_address(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t kernel = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t cond = pb_frame(p, libc, 0x20, "pthread_cond_wait", true, LANGUAGE_C);
	uint32_t rwsem = pb_frame(p, kernel, 0x30, "rwsem_down_read_slowpath", true,
				  LANGUAGE_KERNEL);
	uint32_t post = pb_frame(p, app, 0x10, "ledger_post", true, LANGUAGE_C);
	uint32_t close_ = pb_frame(p, app, 0x20, "close_books", true, LANGUAGE_C);
	uint32_t evil = pb_frame(p, app, 0x30, "</script><script>x()", true, LANGUAGE_C);
	const uint64_t mutex = 0x55d0c0de1040, sem = 0xffff888100a0b0c0;
	struct analysis *a;
	json_t *doc, *locks, *l0;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 30, 3 * SEC, 400 * MS }, "futex", mutex, lll, post);
	add_lock(p, &gunicorn, (int64_t[]){ 10, 1 * SEC, 600 * MS }, "futex", mutex, lll, close_);
	add_lock(p, &gunicorn2, (int64_t[]){ 5, 2 * SEC, 1 * SEC }, "futex", mutex, lll, evil);
	add_lock(p, &nginx, (int64_t[]){ 2, 500 * MS, 300 * MS }, "kernel rwsem", sem, rwsem, post);
	add_lock(p, &gunicorn, (int64_t[]){ 1, 100 * MS, 100 * MS }, "kernel rwsem", sem, rwsem,
		 close_);
	add_lock(p, &worker, (int64_t[]){ 9, 90 * SEC, 50 * SEC }, "futex", 0x7f0000001000, cond,
		 post);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nlocks, 3);
	/* The longest total wait first: gunicorn's mutex, then gunicorn2's, then the rwsem. */
	assert_int_equal(a->locks[0].address, mutex);
	assert_int_equal(a->locks[0].pid, 4242);
	assert_string_equal(a->locks[0].kind, "futex");
	assert_int_equal(a->locks[0].contentions, 40);
	assert_int_equal(a->locks[0].wait_ns, 4 * SEC);
	assert_int_equal(a->locks[0].longest_ns, 600 * MS);
	assert_string_equal(a->locks[0].functions[0].name, "ledger_post");
	assert_int_equal(a->locks[0].functions[0].wait_ns, 3 * SEC);
	assert_string_equal(a->locks[0].functions[1].name, "close_books");
	assert_null(a->locks[0].functions[2].name);
	assert_string_equal(a->locks[0].processes[0].name, "gunicorn");
	assert_int_equal(a->locks[0].processes[0].pid, 4242);
	assert_null(a->locks[0].processes[1].name);
	assert_int_equal(a->locks[1].address, mutex);
	assert_int_equal(a->locks[1].pid, 4243);
	assert_int_equal(a->locks[2].address, sem);
	assert_int_equal(a->locks[2].pid, 0); /* the kernel's: one lock for all */
	assert_int_equal(a->locks[2].contentions, 3);
	assert_int_equal(a->locks[2].wait_ns, 600 * MS);
	assert_string_equal(a->locks[2].processes[0].name, "nginx");
	assert_string_equal(a->locks[2].processes[1].name, "gunicorn");
	assert_float_equal(a->locks[0].share, 4.0 / 6.6, 1e-9);

	doc = analysis__to_json(a, "x");
	assert_non_null(doc);
	locks = json_object_get(doc, "locks");
	assert_int_equal(json_array_size(locks), 3);
	l0 = json_array_get(locks, 0);
	assert_string_equal(json_string_value(json_object_get(l0, "address")), "0x55d0c0de1040");
	assert_int_equal(json_integer_value(json_object_get(l0, "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(l0, "wait_ns")), 4 * SEC);
	assert_int_equal(json_integer_value(json_object_get(l0, "longest_ns")), 600 * MS);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(l0, "functions"), 0), "name")), "ledger_post");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(l0, "processes"), 0), "comm")), "gunicorn");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(json_array_get(locks, 1), "functions"), 0), "name")),
			    "</script><script>x()");
	assert_true(json_is_null(json_object_get(json_array_get(locks, 2), "pid")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(locks, 2), "address")),
			    "0xffff888100a0b0c0");
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/*
 * Who held the lock: the releases (futex_wake samples: the waker's stack, the waiting it
 * ended) of an address, by function, beside its waiters, and named by the answer when
 * one function made most of them. Releases count nowhere else: not in the groups, the
 * total or the contentions. A release of an address nobody counted a wait on (a
 * condition variable's) belongs to no lock; nor does one in another process.
 */
static void test_lock_holders(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t wake = pb_frame(p, libc, 0x18, "__lll_lock_wake", true, LANGUAGE_C);
	uint32_t read = pb_frame(p, app, 0x10, "read_balance", true, LANGUAGE_C);
	uint32_t apply = pb_frame(p, app, 0x20, "apply_batch", true, LANGUAGE_C);
	const uint64_t ledger = 0x55d0c0de1040;
	struct analysis *a;
	json_t *doc, *h0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 40, 9 * SEC, 50 * MS }, "futex", ledger, lll, read);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 2 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 200 * MS, 0 }, "futex_wake", ledger, wake, read);
	add_lock(p, &gunicorn2, (int64_t[]){ 0, 5 * SEC, 0 }, "futex_wake", ledger, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 7 * SEC, 0 }, "futex_wake", 0x7f0000001000, wake,
		 apply);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->total, 9 * SEC);
	assert_int_equal(a->ngroups, 1);
	assert_int_equal(a->groups[0].contentions, 40);
	assert_int_equal(a->nlocks, 1);
	assert_string_equal(a->locks[0].holders[0].function, "apply_batch");
	assert_int_equal(a->locks[0].holders[0].ns, 3 * SEC);
	assert_string_equal(a->locks[0].holders[0].process, "gunicorn");
	assert_int_equal(a->locks[0].holders[0].pid, 4242);
	assert_string_equal(a->locks[0].holders[1].function, "read_balance");
	assert_null(a->locks[0].holders[2].function);
	assert_int_equal(a->locks[0].held_ns, 3200 * MS);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Service billing waited 9.0 s "
				       "on locks, most of it in read_balance, waiting for "
				       "apply_batch to release the lock.");

	doc = analysis__to_json(a, "x");
	assert_non_null(doc);
	h0 = json_array_get(json_object_get(json_array_get(json_object_get(doc, "locks"), 0),
					    "holders"), 0);
	assert_string_equal(json_string_value(json_object_get(h0, "function")), "apply_batch");
	assert_int_equal(json_integer_value(json_object_get(h0, "ns")), 3 * SEC);
	assert_string_equal(json_string_value(json_object_get(h0, "process")), "gunicorn");
	json_decref(doc);

	f = open_memstream(&text, &len);
	analysis__print_report(a, f, 0);
	fclose(f);
	assert_non_null(strstr(text, "held by apply_batch in gunicorn [4242], released while "
				     "others waited 3.0 s"));
	free(text);
	analysis__free(a);
	profile__free(p);
}

/* No function made most of the releases: the answer names none. */
static void test_lock_holders_none_stands_out(void **state)
{
	struct profile *p = pb_new(QUESTION_LOCKS, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t libc = pb_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "aa", MAPPING_LIB,
				   true);
	uint32_t lll = pb_frame(p, libc, 0x10, "__lll_lock_wait", true, LANGUAGE_C);
	uint32_t wake = pb_frame(p, libc, 0x18, "__lll_lock_wake", true, LANGUAGE_C);
	uint32_t read = pb_frame(p, app, 0x10, "read_balance", true, LANGUAGE_C);
	uint32_t apply = pb_frame(p, app, 0x20, "apply_batch", true, LANGUAGE_C);
	uint32_t audit = pb_frame(p, app, 0x30, "audit", true, LANGUAGE_C);
	uint32_t close_ = pb_frame(p, app, 0x40, "close_books", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	add_lock(p, &gunicorn, (int64_t[]){ 40, 9 * SEC, 50 * MS }, "futex", 0x1040, lll, read);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, apply);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, audit);
	add_lock(p, &gunicorn, (int64_t[]){ 0, 1 * SEC, 0 }, "futex_wake", 0x1040, wake, close_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->locks[0].held_ns, 3 * SEC);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Service billing waited 9.0 s "
				       "on locks, most of it in read_balance.");
	analysis__free(a);
	profile__free(p);
}

/* What grew and was given back is not growth: the answer is the net. */
static void test_memory_answer_is_net_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t churn = pb_frame(p, app, 0x10, "churn_buffers", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x20, "load_dataset", true, LANGUAGE_C);
	uint32_t map = pb_frame(p, app, 0x30, "map_file", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	/* billing grew 500 MB and gave 498 MB back; nginx grew 20 MB, and read 64 MB of files. */
	add_full(p, &gunicorn, 1, (int64_t[]){ 500LL << 20, 0, 0 }, NULL, NULL, churn, main_);
	add_full(p, &gunicorn, 1, (int64_t[]){ 0, 0, 498LL << 20 }, NULL, NULL, churn, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 20LL << 20, 0, 0 }, NULL, NULL, load, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 0, 64LL << 20, 0 }, NULL, NULL, map, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Unit nginx.service grew by 20 MB, most "
				       "of it in load_dataset. Next was Service billing, 2 MB.");
	assert_string_equal(a->groups[0].label, "Service billing"); /* by what grew */
	assert_int_equal(a->groups[0].net_bytes, 2LL << 20);
	assert_int_equal(a->groups[1].file_bytes, 64LL << 20);
	analysis__free(a);
	profile__free(p);
}

/* An owner's resident memory from start to end leads the answer, whatever its stacks: a
 * leak through many stacks reads as the owner's growth. An owner whose memory changed
 * without a sample is a group of its own. */
static void test_memory_answer_leads_with_owner_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t leak = pb_frame(p, app, 0x10, "leak_cache", true, LANGUAGE_C);
	uint32_t fill = pb_frame(p, app, 0x20, "fill_index", true, LANGUAGE_C);
	uint32_t load = pb_frame(p, app, 0x30, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct prof_owner_memory *billing, *ng, *redis;
	const struct analysis_group *gone = NULL;
	struct analysis *a;
	json_t *doc, *g;

	(void)state;
	/* billing's stacks saw 120 MB grow, nginx's 300 MB (its workers gave it back by
	 * exiting: they are no stack's frees); by their resident memory billing grew by
	 * 212 MB, nginx by 12 MB, and redis, unsampled, shrank by 40 MB. */
	add_full(p, &gunicorn, 1, (int64_t[]){ 70LL << 20, 0, 0 }, NULL, NULL, leak, main_);
	add_full(p, &gunicorn, 1, (int64_t[]){ 50LL << 20, 0, 0 }, NULL, NULL, fill, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 300LL << 20, 0, 0 }, NULL, NULL, load, main_);
	billing = profile__owner_memory(p, "Service billing", GROUP_SERVICE);
	assert_non_null(billing);
	*billing = (struct prof_owner_memory){ billing->group, GROUP_SERVICE, 100LL << 20,
					       312LL << 20, 8LL << 20, 11LL << 20, 0, 0 };
	ng = profile__owner_memory(p, "Unit nginx.service", GROUP_UNIT);
	assert_non_null(ng);
	*ng = (struct prof_owner_memory){ ng->group, GROUP_UNIT, 40LL << 20, 52LL << 20, 0, 0,
					  1, 3 };
	redis = profile__owner_memory(p, "Container redis", GROUP_CONTAINER);
	assert_non_null(redis);
	*redis = (struct prof_owner_memory){ redis->group, GROUP_CONTAINER, 40LL << 20, 0,
					     1LL << 20, 0, 0, 1 };
	assert_ptr_equal(profile__owner_memory(p, "Service billing", GROUP_SERVICE), billing);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Service billing grew by 212 MB (RSS), "
				       "most of it allocated in leak_cache. Next was Unit "
				       "nginx.service, 12 MB.");
	assert_int_equal(a->ngroups, 3);
	for (size_t i = 0; i < a->ngroups; i++)
		if (strcmp(a->groups[i].label, "Container redis") == 0)
			gone = &a->groups[i];
	assert_non_null(gone);
	assert_string_equal(gone->name, "redis");
	assert_int_equal(gone->value, 0);
	assert_int_equal(gone->rss_grown, -(40LL << 20));
	assert_int_equal(gone->file_grown, -(1LL << 20));
	assert_int_equal(gone->processes_exited, 1);

	doc = analysis__to_json(a, NULL);
	assert_non_null(doc);
	g = json_array_get(json_object_get(doc, "groups"), 1); /* by the stacks: billing 2nd */
	assert_string_equal(json_string_value(json_object_get(g, "label")), "Service billing");
	assert_int_equal(json_integer_value(json_object_get(g, "rss_start_bytes")), 100LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "rss_grown_bytes")), 212LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "file_start_bytes")), 8LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "file_grown_bytes")), 3LL << 20);
	assert_int_equal(json_integer_value(json_object_get(g, "processes_started")), 0);
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/* An older profile, or one where no owner grew: the answer by the stacks, as before. */
static void test_memory_answer_without_owner_growth(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t load = pb_frame(p, app, 0x20, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x40, "main", true, LANGUAGE_C);
	struct prof_owner_memory *om;
	struct analysis *a;
	json_t *doc;

	(void)state;
	add_full(p, &nginx, 2, (int64_t[]){ 20LL << 20, 0, 0 }, NULL, NULL, load, main_);
	om = profile__owner_memory(p, "Unit nginx.service", GROUP_UNIT);
	assert_non_null(om);
	om->rss_start = om->rss_end = 40LL << 20;
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, Unit nginx.service grew by 20 MB, most "
				       "of it in load_dataset.");
	analysis__free(a);
	/* Without the header's owners: no growth fields at all. */
	p->header.nowner_memory = 0;
	a = analysis__new(p);
	assert_non_null(a);
	assert_false(a->groups[0].owner_memory);
	doc = analysis__to_json(a, NULL);
	assert_non_null(doc);
	assert_null(json_object_get(json_array_get(json_object_get(doc, "groups"), 0),
				    "rss_grown_bytes"));
	json_decref(doc);
	analysis__free(a);
	profile__free(p);
}

/* wall: threads that never ran are kept but out of the groups and the answer. */
static void test_wall_leaves_out_threads_that_never_ran(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t recv_ = pb_frame(p, app, 0x10, "read_request", true, LANGUAGE_C);
	uint32_t pool = pb_frame(p, app, 0x20, "pool_wait", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	add_full(p, &nginx, 2, (int64_t[]){ 1 * SEC }, "running", NULL, recv_, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 29 * SEC }, "waiting", NULL, recv_, main_);
	for (int t = 0; t < 40; t++)
		add_full(p, &gunicorn, 100 + t, (int64_t[]){ 30 * SEC }, "idle", NULL, pool, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->answer, "Over 30 seconds, threads of Unit nginx.service spent "
				       "1.0 s running and 29.0 s waiting, most of the waiting in "
				       "read_request.");
	assert_int_equal(a->ngroups, 1);
	assert_int_equal(a->groups[0].running, 1 * SEC);
	assert_int_equal(a->groups[0].waiting, 29 * SEC);
	assert_int_equal(p->nsamples, 42); /* kept in the profile */
	analysis__free(a);
	profile__free(p);
}

/* threads: threads of one group in the same place with the same stack are one set. */
static void test_thread_sets(void **state)
{
	struct profile *p = pb_new(QUESTION_THREADS, 2, 0);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t orders = pb_frame(p, app, 0x10, "wait_for_orders", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x30, "main", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	for (int t = 0; t < 6; t++)
		add_full(p, &gunicorn, 10 + t, (int64_t[]){ 1 }, "waiting", NULL, orders, main_);
	add_full(p, &nginx, 2, (int64_t[]){ 1 }, "running", NULL, main_, main_);
	a = analysis__new(p);
	assert_non_null(a);
	assert_int_equal(a->nthread_sets, 2);
	assert_int_equal(a->thread_sets[0].threads, 6);
	assert_string_equal(a->thread_sets[0].group, "Service billing");
	assert_string_equal(a->thread_sets[0].state, "waiting");
	assert_int_equal(a->thread_sets[1].threads, 1);
	assert_int_equal(a->groups[0].waiting, 6);
	analysis__free(a);
	profile__free(p);
}

static void test_answer_templates_directly(void **state)
{
	struct answer_group billing = { "Service billing", 0.54, 0, 0, "build_report" };
	struct answer_group nginx_ = { "Unit nginx.service", 0.004, 0, 0, NULL };
	char *s;

	(void)state;
	s = answer__cpu(29600 * MS, &billing, &nginx_);
	assert_string_equal(s, "Over 30 seconds, Service billing used 54% of the CPU time on "
			       "this server, most of it in build_report. Next was Unit "
			       "nginx.service, at <1%.");
	free(s);
	s = answer__cpu(2 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 2 seconds, no process used the CPU on this server: the "
			       "profile has no samples.");
	free(s);
	s = answer__wall(30 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 30 seconds, no thread was seen running or waiting: the "
			       "profile has no samples.");
	free(s);
	s = answer__locks(1 * SEC, NULL, NULL);
	assert_string_equal(s, "Over 1 second, no thread waited on a lock: the profile has no "
			       "samples.");
	free(s);
	s = answer__threads(&(struct answer_threads){ 0 });
	assert_string_equal(s, "No threads were seen on this server: the profile has no samples.");
	free(s);
	billing.value = 40 * MS;
	s = answer__locks(30 * SEC, &billing, NULL);
	assert_string_equal(s, "Over 30 seconds, threads of Service billing waited 40 ms on "
			       "locks, most of it in build_report.");
	free(s);
	billing.value = 1536LL << 20;
	s = answer__memory(30 * SEC, &billing, NULL);
	assert_string_equal(s, "Over 30 seconds, Service billing grew by 1.5 GB, most of it in "
			       "build_report.");
	free(s);
}

static void test_number_formats(void **state)
{
	char b[FORMAT_MAX];

	(void)state;
	format_percent(0.0, b, sizeof(b));
	assert_string_equal(b, "0%");
	format_percent(0.0049, b, sizeof(b));
	assert_string_equal(b, "<1%");
	format_percent(0.015, b, sizeof(b));
	assert_string_equal(b, "2%");
	format_percent(1.0, b, sizeof(b));
	assert_string_equal(b, "100%");
	format_duration(499 * MS, b, sizeof(b));
	assert_string_equal(b, "0 seconds");
	format_duration(1499 * MS, b, sizeof(b));
	assert_string_equal(b, "1 second");
	format_duration(1500 * MS, b, sizeof(b));
	assert_string_equal(b, "2 seconds");
	format_seconds(12440 * MS, b, sizeof(b));
	assert_string_equal(b, "12.4 s");
	format_seconds(312 * SEC, b, sizeof(b));
	assert_string_equal(b, "312 s");
	format_seconds(45 * MS, b, sizeof(b));
	assert_string_equal(b, "45 ms");
	format_seconds(1000, b, sizeof(b));
	assert_string_equal(b, "<1 ms");
	format_bytes(512, b, sizeof(b));
	assert_string_equal(b, "512 bytes");
	format_bytes(3 << 10, b, sizeof(b));
	assert_string_equal(b, "3 kB");
	format_points(-0.031, b, sizeof(b));
	assert_string_equal(b, "-3");
	format_points(0.16, b, sizeof(b));
	assert_string_equal(b, "+16");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_answer_is_the_spec_sentence),
		cmocka_unit_test(test_groups_are_shares_of_the_servers_cpu_time),
		cmocka_unit_test(test_most_of_it_in_skips_kernel_runtime_and_system_libraries),
		cmocka_unit_test(test_most_of_it_in_weighs_by_value),
		cmocka_unit_test(test_most_of_it_in_skips_python_libraries),
		cmocka_unit_test(test_cpu_answer_edge_cases),
		cmocka_unit_test(test_cpu_answer_says_a_quiet_server_was_nearly_idle),
		cmocka_unit_test(test_cpu_answer_of_a_busy_server_keeps_its_form),
		cmocka_unit_test(test_no_samples_says_so),
		cmocka_unit_test(test_functions_self_and_total_count_recursion_once),
		cmocka_unit_test(test_card_lists_our_stripped_binaries),
		cmocka_unit_test(test_package_owned_binaries_are_system),
		cmocka_unit_test(test_card_text_is_the_spec_wording),
		cmocka_unit_test(test_card_says_when_build_ids_were_not_kept),
		cmocka_unit_test(test_no_card_when_everything_is_named),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_json_lists_callers_beyond_the_top),
		cmocka_unit_test(test_json_survives_names_that_are_not_utf8),
		cmocka_unit_test(test_wall_answer_is_not_swamped_by_idle_kernel_threads),
		cmocka_unit_test(test_wall_answer_ranks_threads_that_ran_and_says_why_they_waited),
		cmocka_unit_test(test_threads_answer_names_the_largest_set_waiting_in_one_place),
		cmocka_unit_test(test_locks_answer),
		cmocka_unit_test(test_memory_answer),
		cmocka_unit_test(test_locks_leave_out_condition_variables_and_joins),
		cmocka_unit_test(test_locks_by_address),
		cmocka_unit_test(test_lock_holders),
		cmocka_unit_test(test_lock_holders_none_stands_out),
		cmocka_unit_test(test_memory_answer_is_net_growth),
		cmocka_unit_test(test_memory_answer_leads_with_owner_growth),
		cmocka_unit_test(test_memory_answer_without_owner_growth),
		cmocka_unit_test(test_wall_leaves_out_threads_that_never_ran),
		cmocka_unit_test(test_thread_sets),
		cmocka_unit_test(test_answer_templates_directly),
		cmocka_unit_test(test_number_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

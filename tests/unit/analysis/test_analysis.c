// SPDX-License-Identifier: MIT
/*
 * Analysis of hand-made symbolized profiles: group shares of the server's CPU time, "most
 * of it in" the group's own code, the CPU answer word for word, functions by self and
 * total, the stripped-binary card, and the JSON document. The other questions' answers:
 * test_analysis_questions.c.
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
#include "views/analysis_view.h"
#include "analysis/answer.h"
#include "analysis/folded.h"
#include "util/format.h"
#include "elf/elf_file.h"
#include "analysis_fixtures.h"
#include "profile_builder.h"
#include "unwind/python.h"
#include "unwind/python.h"

#define BUILD_ID "b65a313cbf47d2e0a1c9b8f7e6d5c4b3a2910f8e"

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

/* The JDK's own classes are where a Java service's time goes, not what the answer names:
 * the service's method that called them is. */
static void test_most_of_it_in_skips_jdk_classes(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 1, 10 * SEC);
	uint32_t jit = pb_mapping(p, "[Java]", "", MAPPING_JIT, false);
	uint32_t jvm = pb_mapping(p, "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
				  "cc", MAPPING_LIB, true);
	uint32_t get = pb_frame(p, jit, 0x10, "java.util.HashMap.getNode", true, LANGUAGE_JAVA);
	uint32_t fmt = pb_frame(p, jit, 0x20, "jdk.internal.math.FloatingDecimal.dtoa", true,
				LANGUAGE_JAVA);
	uint32_t sun = pb_frame(p, jit, 0x30, "sun.nio.ch.SocketDispatcher.read", true,
				LANGUAGE_JAVA);
	uint32_t totals = pb_frame(p, jit, 0x40, "com.acme.billing.Invoices.computeTotals", true,
				   LANGUAGE_JAVA);
	uint32_t main_ = pb_frame(p, jit, 0x50, "com.acme.billing.Main.main", true,
				  LANGUAGE_JAVA);
	uint32_t helper = pb_frame(p, jvm, 0x60, "JavaCalls::call_helper", true, LANGUAGE_C);
	struct analysis *a;

	(void)state;
	pb_sample(p, &gunicorn, 3 * SEC, 1, 4, get, totals, main_, helper);
	pb_sample(p, &gunicorn, 2 * SEC, 1, 4, fmt, totals, main_, helper);
	pb_sample(p, &gunicorn, 1 * SEC, 1, 3, sun, main_, helper);
	a = analysis__new(p);
	assert_non_null(a);
	assert_string_equal(a->groups[0].top_function, "com.acme.billing.Invoices.computeTotals");
	analysis__free(a);
	profile__free(p);

	assert_true(java__is_library_method("java.lang.String.hashCode"));
	assert_true(java__is_library_method("javax.crypto.Cipher.doFinal"));
	assert_true(java__is_library_method("com.sun.crypto.provider.GHASH.processBlocks"));
	assert_false(java__is_library_method("javanese.Script.run"));
	assert_false(java__is_library_method("com.sunrise.Report.build"));
	assert_false(java__is_library_method("org.acme.java.Util.run"));
	assert_false(java__is_library_method(NULL));
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
	analysis_view__print_card(a, f);
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
	doc = analysis_view__to_json(a, "20261202-150405-cpu-1a2b");
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

	doc = analysis_view__to_json_top(a, NULL, 2);
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
	doc = analysis_view__to_json(a, NULL);
	assert_int_equal(json_array_size(json_object_get(doc, "functions")), 102);
	assert_true(json_lists_function(doc, "main"));
	assert_true(json_lists_function(doc, "dispatch"));
	json_decref(doc);
	doc = analysis_view__to_json_top(a, NULL, 100);
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
	doc = analysis_view__to_json(a, NULL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_answer_is_the_spec_sentence),
		cmocka_unit_test(test_groups_are_shares_of_the_servers_cpu_time),
		cmocka_unit_test(test_most_of_it_in_skips_kernel_runtime_and_system_libraries),
		cmocka_unit_test(test_most_of_it_in_weighs_by_value),
		cmocka_unit_test(test_most_of_it_in_skips_python_libraries),
		cmocka_unit_test(test_most_of_it_in_skips_jdk_classes),
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

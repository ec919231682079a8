// SPDX-License-Identifier: MIT
/*
 * The views a person opens or pipes elsewhere: the flame graph page (one file, the tree
 * root -> group -> process -> frames root to leaf, names that cannot break out of the
 * page) and folded stacks (one line per distinct stack, FlameGraph's convention).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "profile_builder.h"

static const struct pb_who gunicorn = { "Service billing", GROUP_SERVICE, 4242, "gunicorn" };
static const struct pb_who gunicorn2 = { "Service billing", GROUP_SERVICE, 4243, "gunicorn" };
static const struct pb_who nginx = { "Unit nginx.service", GROUP_UNIT, 800, "nginx" };

static const char *const hostile = "</script><script>alert(1)</script>";

/* billing: 6 s in main > report > build_row, 2 s in main > report; nginx 1 s in the kernel. */
static struct profile *small_server(void)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t py = pb_mapping(p, "/usr/bin/python3.11", "bb", MAPPING_EXE, true);
	uint32_t main_ = pb_frame(p, app, 0x10, "main", true, LANGUAGE_C);
	uint32_t report = pb_frame(p, app, 0x20, "report", true, LANGUAGE_C);
	uint32_t row = pb_frame(p, app, 0x30, "build_row", true, LANGUAGE_C);
	uint32_t epoll = pb_frame(p, k, 0xffffffff81000000, "ep_poll", true, LANGUAGE_KERNEL);
	uint32_t evil = pb_script_frame(p, py, hostile, "evil.py");
	uint32_t semi = pb_frame(p, app, 0x40, "a;b\nc", true, LANGUAGE_C);

	pb_sample(p, &gunicorn, 4 * SEC, 0, 3, row, report, main_);
	pb_sample(p, &gunicorn2, 2 * SEC, 0, 3, row, report, main_);
	pb_sample(p, &gunicorn, 2 * SEC, 0, 2, report, main_);
	pb_sample(p, &nginx, 1 * SEC, 0, 1, epoll);
	pb_sample(p, &nginx, 500 * MS, 0, 2, evil, main_);
	pb_sample(p, &nginx, 500 * MS, 0, 2, semi, main_);
	return p;
}

static char *write_page(const struct profile *p, enum flamegraph_colour colour)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(flamegraph__write(p, f, colour), 0);
	fclose(f);
	return buf;
}

/* The JSON the page carries. */
static json_t *page_data(const char *page)
{
	const char *open = "<script id=\"profile\" type=\"application/json\">";
	const char *start = strstr(page, open), *stop;
	json_error_t err;
	json_t *doc;

	assert_non_null(start);
	start += strlen(open);
	stop = strstr(start, "</script>");
	assert_non_null(stop);
	doc = json_loadb(start, (size_t)(stop - start), 0, &err);
	if (!doc)
		fail_msg("the page's data is not JSON: %s", err.text);
	return doc;
}

static int64_t jint(json_t *arr, size_t i)
{
	return json_integer_value(json_array_get(arr, i));
}

/* Every node as "a;b;c" (names from the root's first child down) -> its value. */
static char *paths_of(json_t *d)
{
	json_t *names = json_object_get(d, "names"), *name = json_object_get(d, "name"),
	       *depth = json_object_get(d, "depth"), *value = json_object_get(d, "value");
	const char *path[64];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 1; i < json_array_size(depth); i++) {
		int64_t dep = jint(depth, i);

		assert_true(dep >= 1 && dep < 64);
		path[dep] = json_string_value(json_array_get(names, (size_t)jint(name, i)));
		for (int64_t k = 1; k <= dep; k++)
			fprintf(f, "%s%s", k > 1 ? ";" : "", path[k]);
		fprintf(f, " %lld\n", (long long)(jint(value, i) / MS));
	}
	fclose(f);
	return buf;
}

static void test_page_is_self_contained_with_the_profile_inside(void **state)
{
	struct profile *p = small_server();
	char *page = write_page(p, FLAMEGRAPH_COLOUR_LANGUAGE);
	json_t *d;

	(void)state;
	assert_memory_equal(page, "<!doctype html>", 15);
	assert_null(strstr(page, "/*SLIDEOPS_PROFILE*/"));
	/* Nothing from the network: no remote scripts, styles, fonts or images. */
	assert_null(strstr(page, "src=\"http"));
	assert_null(strstr(page, "href=\"http"));
	assert_null(strstr(page, "url(http"));
	assert_null(strstr(page, "@import"));
	assert_non_null(strstr(page, "</html>"));

	d = page_data(page);
	assert_string_equal(json_string_value(json_object_get(d, "question")), "cpu");
	assert_string_equal(json_string_value(json_object_get(d, "title")),
			    "What is using the CPU");
	assert_string_equal(json_string_value(json_object_get(d, "server")), "web-1");
	assert_string_equal(json_string_value(json_object_get(d, "colour")), "language");
	assert_string_equal(json_string_value(json_object_get(d, "unit")), "nanoseconds");
	assert_int_equal(json_integer_value(json_object_get(d, "total")), 10 * SEC);
	assert_non_null(strstr(json_string_value(json_object_get(d, "answer")),
			       "Service billing used 40% of the CPU time"));
	json_decref(d);
	free(page);
	profile__free(p);
}

static void test_tree_is_groups_then_processes_then_frames_root_first(void **state)
{
	struct profile *p = small_server();
	char *page = write_page(p, FLAMEGRAPH_COLOUR_GROUP);
	json_t *d = page_data(page);
	char *paths = paths_of(d);

	(void)state;
	/* Pre-order, largest child first; values in ms. */
	assert_string_equal(paths, "Service billing 8000\n"
				   "Service billing;gunicorn 8000\n"
				   "Service billing;gunicorn;main 8000\n"
				   "Service billing;gunicorn;main;report 8000\n"
				   "Service billing;gunicorn;main;report;build_row 6000\n"
				   "Unit nginx.service 2000\n"
				   "Unit nginx.service;nginx 2000\n"
				   "Unit nginx.service;nginx;ep_poll 1000\n"
				   "Unit nginx.service;nginx;main 1000\n"
				   "Unit nginx.service;nginx;main;"
				   "</script><script>alert(1)</script> 500\n"
				   "Unit nginx.service;nginx;main;a;b\nc 500\n");
	assert_int_equal(jint(json_object_get(d, "depth"), 0), 0);
	assert_int_equal(jint(json_object_get(d, "value"), 0), 10 * SEC);
	assert_string_equal(json_string_value(json_object_get(d, "colour")), "group");
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "groups"), 0)),
			    "Service billing");
	json_decref(d);
	free(paths);
	free(page);
	profile__free(p);
}

static void test_names_cannot_close_the_script(void **state)
{
	struct profile *p = small_server();
	char *page = write_page(p, FLAMEGRAPH_COLOUR_LANGUAGE);
	const char *data = strstr(page, "application/json\">");
	const char *close;

	(void)state;
	assert_non_null(data);
	close = strstr(data, "</script>");
	/* The first "</script>" after the data opens is the data's own end, and the hostile
	 * name is nowhere in the page as markup. */
	assert_non_null(close);
	assert_null(strstr(page, "<script>alert"));
	assert_true(close > strstr(data, "alert(1)"));
	free(page);
	profile__free(p);
}

static void test_languages_keep_their_colours(void **state)
{
	struct profile *p = small_server();
	char *page = write_page(p, FLAMEGRAPH_COLOUR_LANGUAGE);
	json_t *d = page_data(page), *langs = json_object_get(d, "languages");
	json_t *lang = json_object_get(d, "lang"), *depth = json_object_get(d, "depth");
	json_t *names = json_object_get(d, "names"), *name = json_object_get(d, "name");

	(void)state;
	assert_int_equal(json_array_size(langs), LANGUAGE__COUNT);
	for (int l = 0; l < LANGUAGE__COUNT; l++) {
		json_t *pair = json_array_get(langs, (size_t)l);

		assert_string_equal(json_string_value(json_array_get(pair, 0)),
				    language__name((enum language)l));
		assert_string_equal(json_string_value(json_array_get(pair, 1)),
				    language__colour((enum language)l));
	}
	for (size_t i = 0; i < json_array_size(depth); i++) {
		const char *n = json_string_value(json_array_get(names, (size_t)jint(name, i)));

		if (jint(depth, i) < 3)
			assert_int_equal(jint(lang, i), -1);
		else if (strcmp(n, "ep_poll") == 0)
			assert_int_equal(jint(lang, i), LANGUAGE_KERNEL);
		else if (strcmp(n, hostile) == 0)
			assert_int_equal(jint(lang, i), LANGUAGE_PYTHON);
		else
			assert_int_equal(jint(lang, i), LANGUAGE_C);
	}
	json_decref(d);
	free(page);
	profile__free(p);
}

static void test_file_is_put_in_place_whole(void **state)
{
	struct profile *p = small_server();
	char dir[] = "/tmp/slideops-fg.XXXXXX", path[256];
	struct dirent *e;
	int files = 0;
	DIR *dh;
	FILE *f;
	long size;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/flame.html", dir);
	assert_int_equal(flamegraph__write_file(p, path, FLAMEGRAPH_COLOUR_LANGUAGE), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_true(size > 1000);
	dh = opendir(dir);
	while ((e = readdir(dh)))
		files += e->d_name[0] != '.';
	closedir(dh);
	assert_int_equal(files, 1); /* no temporary file left beside it */
	unlink(path);

	/* A directory that does not exist: an error, not a crash. */
	snprintf(path, sizeof(path), "%s/missing/flame.html", dir);
	assert_int_equal(flamegraph__write_file(p, path, FLAMEGRAPH_COLOUR_LANGUAGE), -ENOENT);
	rmdir(dir);
	profile__free(p);
}

static void test_large_profile(void **state)
{
	struct profile *p = pb_new(QUESTION_CPU, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/big/big", "dd", MAPPING_EXE, true);
	uint32_t main_ = pb_frame(p, app, 0x1, "main", true, LANGUAGE_C);
	char name[32];
	char *page;
	json_t *d;

	(void)state;
	/* 25k distinct two-frame stacks under main: ~50k nodes. */
	for (uint32_t i = 0; i < 25000; i++) {
		uint32_t mid, leaf;

		snprintf(name, sizeof(name), "mid_%u", i);
		mid = pb_frame(p, app, 0x1000 + i * 2, name, true, LANGUAGE_C);
		snprintf(name, sizeof(name), "leaf_%u", i);
		leaf = pb_frame(p, app, 0x1001 + i * 2, name, true, LANGUAGE_C);
		pb_sample(p, &gunicorn, 10 * MS, 0, 3, leaf, mid, main_);
	}
	page = write_page(p, FLAMEGRAPH_COLOUR_LANGUAGE);
	d = page_data(page);
	assert_int_equal(json_array_size(json_object_get(d, "depth")), 4 + 50000);
	assert_int_equal(json_array_size(json_object_get(d, "names")), 3 + 50001);
	json_decref(d);
	free(page);
	profile__free(p);
}

/* ---- folded ---- */

static char *folded_text(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(folded__write(p, f), 0);
	fclose(f);
	return buf;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted: the format does not promise an order. */
static char *sorted_lines(char *text)
{
	char *lines[64], *save = NULL, *out;
	size_t n = 0, len = strlen(text) + 1;

	for (char *l = strtok_r(text, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(*lines), line_cmp);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	return out;
}

/* The tree as the web UI reads it (GET /api/profiles/ID/flamegraph). */
static json_t *tree_data(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t err;
	json_t *doc;

	assert_non_null(f);
	assert_int_equal(flamegraph__write_data(p, f, FLAMEGRAPH_COLOUR_LANGUAGE), 0);
	fclose(f);
	doc = json_loads(buf, 0, &err);
	if (!doc)
		fail_msg("the tree is not JSON: %s", err.text);
	free(buf);
	return doc;
}

/* The node at this path ("a;b;c", names from the root's first child down); -1: none. */
static long node_at(json_t *d, const char *want)
{
	json_t *names = json_object_get(d, "names"), *name = json_object_get(d, "name"),
	       *depth = json_object_get(d, "depth");
	const char *path[64];
	char buf[512];

	for (size_t i = 1; i < json_array_size(depth); i++) {
		int64_t dep = jint(depth, i);
		size_t n = 0;

		path[dep] = json_string_value(json_array_get(names, (size_t)jint(name, i)));
		for (int64_t k = 1; k <= dep; k++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", k > 1 ? ";" : "",
					      path[k]);
		if (strcmp(buf, want) == 0)
			return (long)i;
	}
	return -1;
}

static int64_t waited(json_t *d, const char *reason, long node)
{
	return jint(json_object_get(json_object_get(d, "waiting_by_reason"), reason),
		    (size_t)node);
}

/* A wall profile's tree carries each node's waiting by why, as value is its total: the
 * oversubscribed spin waits for a CPU, the napper sleeps, and running counts in none. */
static void test_tree_carries_the_waiting_by_reason(void **state)
{
	struct profile *p = pb_new(QUESTION_WALL, 2, 10 * SEC);
	uint32_t app = pb_mapping(p, "/srv/crowd/crowd", "dd", MAPPING_EXE, true);
	uint32_t k = pb_mapping(p, "[kernel.kallsyms]", "", MAPPING_KERNEL, true);
	uint32_t main_ = pb_frame(p, app, 0x10, "main", true, LANGUAGE_C);
	uint32_t spin = pb_frame(p, app, 0x20, "spin_forever", true, LANGUAGE_C);
	uint32_t nap = pb_frame(p, app, 0x30, "nap", true, LANGUAGE_C);
	uint32_t preempt = pb_frame(p, k, 0xffffffff81000000, "preempt_schedule_irq", true,
				    LANGUAGE_KERNEL);
	uint32_t sleep_ = pb_frame(p, k, 0xffffffff81000100, "hrtimer_nanosleep", true,
				   LANGUAGE_KERNEL);
	struct pb_who run = { "Unit crowd.service", GROUP_UNIT, 70, "crowd", "running" };
	struct pb_who queued = { "Unit crowd.service", GROUP_UNIT, 70, "crowd", "waiting",
				 "runqueue" };
	struct pb_who asleep = { "Unit crowd.service", GROUP_UNIT, 70, "crowd", "waiting",
				 "sleep" };
	json_t *d;
	long root = 0, crowd, spinning, napping;

	(void)state;
	pb_sample(p, &run, 2 * SEC, 71, 2, spin, main_);
	pb_sample(p, &queued, 6 * SEC, 71, 3, preempt, spin, main_);
	pb_sample(p, &asleep, 3 * SEC, 72, 3, sleep_, nap, main_);
	d = tree_data(p);
	crowd = node_at(d, "Unit crowd.service");
	spinning = node_at(d, "Unit crowd.service;crowd;main;spin_forever");
	napping = node_at(d, "Unit crowd.service;crowd;main;nap");
	assert_true(crowd > 0 && spinning > 0 && napping > 0);
	assert_int_equal(jint(json_object_get(d, "value"), (size_t)spinning), 8 * SEC);
	assert_int_equal(waited(d, "runqueue", spinning), 6 * SEC);
	assert_int_equal(waited(d, "sleep", spinning), 0);
	assert_int_equal(waited(d, "sleep", napping), 3 * SEC);
	assert_int_equal(waited(d, "runqueue", napping), 0);
	for (long n = root; n <= crowd; n += crowd - root) {
		assert_int_equal(waited(d, "runqueue", n), 6 * SEC);
		assert_int_equal(waited(d, "sleep", n), 3 * SEC);
		assert_int_equal(waited(d, "io", n), 0);
		assert_int_equal(waited(d, "lock", n), 0);
		assert_int_equal(waited(d, "other", n), 0);
	}
	assert_int_equal(json_array_size(json_object_get(json_object_get(d, "waiting_by_reason"),
							 "other")),
			 json_array_size(json_object_get(d, "value")));
	json_decref(d);
	profile__free(p);

	/* A cpu profile's samples say nothing of waiting: no reasons. */
	p = small_server();
	d = tree_data(p);
	assert_null(json_object_get(d, "waiting_by_reason"));
	json_decref(d);
	profile__free(p);
}

static void test_folded_one_line_per_distinct_stack_in_samples(void **state)
{
	struct profile *p = small_server();
	char *text = folded_text(p), *sorted = sorted_lines(text);

	(void)state;
	/* gunicorn's two processes share a line; cpu counts samples (10 ms each here);
	 * ';' and newlines in a name cannot split a frame or a line. */
	assert_string_equal(sorted, "Service billing;gunicorn;main;report 200\n"
				    "Service billing;gunicorn;main;report;build_row 600\n"
				    "Unit nginx.service;nginx;ep_poll 100\n"
				    "Unit nginx.service;nginx;main;"
				    "</script><script>alert(1)</script> 50\n"
				    "Unit nginx.service;nginx;main;a:b c 50\n");
	free(sorted);
	free(text);
	profile__free(p);
}

static void test_folded_uses_the_questions_unit(void **state)
{
	struct profile *p = pb_new(QUESTION_MEMORY, 2, 30 * SEC);
	uint32_t app = pb_mapping(p, "/srv/billing/billing", "dd", MAPPING_EXE, true);
	uint32_t load = pb_frame(p, app, 0x10, "load_dataset", true, LANGUAGE_C);
	uint32_t main_ = pb_frame(p, app, 0x20, "main", true, LANGUAGE_C);
	char *text;

	(void)state;
	pb_sample(p, &gunicorn, 4096, 0, 2, load, main_);
	pb_sample(p, &gunicorn, 8192, 4250, 2, load, main_);
	text = folded_text(p);
	assert_string_equal(text, "Service billing;gunicorn;main;load_dataset 12288\n");
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_is_self_contained_with_the_profile_inside),
		cmocka_unit_test(test_tree_is_groups_then_processes_then_frames_root_first),
		cmocka_unit_test(test_names_cannot_close_the_script),
		cmocka_unit_test(test_languages_keep_their_colours),
		cmocka_unit_test(test_file_is_put_in_place_whole),
		cmocka_unit_test(test_large_profile),
		cmocka_unit_test(test_tree_carries_the_waiting_by_reason),
		cmocka_unit_test(test_folded_one_line_per_distinct_stack_in_samples),
		cmocka_unit_test(test_folded_uses_the_questions_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

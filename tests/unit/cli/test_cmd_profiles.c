// SPDX-License-Identifier: MIT
/*
 * `slideops profiles`: past profiles newest first, as text and as architecture.md's JSON
 * document ({"profiles": [{"id", "question", "server", "started_at", "seconds",
 * "answer"}]}), read from a real workspace the test fills through the store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli/cli.h"
#include "profile/profile.h"
#include "store/store.h"

struct fixture {
	char dir[64];
	char out[1 << 16];
	char err[4096];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/slideops-cmdprofiles.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* Runs `slideops [--json] profiles ARGS...` in process, capturing stdout and stderr. */
static int run(struct fixture *f, bool json, const char *data_dir, int argc, ...)
{
	struct cli_env env = { .json = json, .data_dir = data_dir };
	char *argv[8] = { "profiles" };
	char out_path[128], err_path[128];
	int out_fd, err_fd, saved_out, saved_err, rc;
	va_list ap;

	va_start(ap, argc);
	for (int i = 1; i < argc && i < 7; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);

	snprintf(out_path, sizeof(out_path), "%s/stdout", f->dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", f->dir);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(out_fd >= 0 && err_fd >= 0);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	rc = cmd_profiles(argc, argv, &env);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	slurp(out_fd, f->out, sizeof(f->out));
	slurp(err_fd, f->err, sizeof(f->err));
	close(out_fd);
	close(err_fd);
	unlink(out_path);
	unlink(err_path);
	return rc;
}

static void save(const char *dir, const char *host, int64_t start_s, uint64_t duration_ns,
		 enum question q, const char *answer, char id[STORE_ID_MAX])
{
	struct store *s = store__open(dir);
	struct profile *p = profile__new(q);

	assert_non_null(s);
	assert_non_null(p);
	p->header.hostname = profile__intern(p, host);
	p->header.started_at_ns = start_s * 1000000000LL + 123456789;
	p->header.duration_ns = duration_ns;
	assert_int_equal(store__save_profile(s, p, answer, id), 0);
	profile__free(p);
	store__close(s);
}

static void test_empty_workspace(void **state)
{
	struct fixture *f = *state;
	json_t *doc, *list;

	assert_int_equal(run(f, true, f->dir, 1), EXIT_OK);
	doc = json_loads(f->out, 0, NULL);
	assert_non_null(doc);
	list = json_object_get(doc, "profiles");
	assert_true(json_is_array(list));
	assert_int_equal(json_array_size(list), 0);
	json_decref(doc);

	assert_int_equal(run(f, false, f->dir, 1), EXIT_OK);
	assert_non_null(strstr(f->out, "slideops capture cpu"));
}

static void test_lists_newest_first_as_json_and_text(void **state)
{
	struct fixture *f = *state;
	char old_id[STORE_ID_MAX], new_id[STORE_ID_MAX];
	const char *keys[] = { "id", "question", "server", "started_at", "seconds", "answer" };
	json_t *doc, *list, *item;

	save(f->dir, "web-1", 1796223845, 29600000000ULL, QUESTION_CPU,
	     "Over 30 seconds, Service billing used 54% of the CPU time on this server, "
	     "most of it in build_report. Next was Unit nginx.service, at 14%.",
	     old_id);
	save(f->dir, "db-2", 1796227445, 10000000000ULL, QUESTION_LOCKS,
	     "Over 10 seconds, threads of Service billing waited 12.4 s on locks.", new_id);

	assert_int_equal(run(f, true, f->dir, 1), EXIT_OK);
	doc = json_loads(f->out, 0, NULL);
	assert_non_null(doc);
	list = json_object_get(doc, "profiles");
	assert_int_equal(json_array_size(list), 2);

	item = json_array_get(list, 0);
	assert_int_equal(json_object_size(item), 6);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(json_object_get(item, keys[i]));
	assert_string_equal(json_string_value(json_object_get(item, "id")), new_id);
	assert_string_equal(json_string_value(json_object_get(item, "question")), "locks");
	assert_string_equal(json_string_value(json_object_get(item, "server")), "db-2");
	assert_string_equal(json_string_value(json_object_get(item, "started_at")),
			    "2026-12-02T16:04:05Z");
	assert_int_equal(json_integer_value(json_object_get(item, "seconds")), 10);

	item = json_array_get(list, 1);
	assert_string_equal(json_string_value(json_object_get(item, "id")), old_id);
	assert_string_equal(json_string_value(json_object_get(item, "question")), "cpu");
	assert_string_equal(json_string_value(json_object_get(item, "started_at")),
			    "2026-12-02T15:04:05Z");
	/* 29.6 s of capture reads as the 30 it was asked for. */
	assert_true(json_is_integer(json_object_get(item, "seconds")));
	assert_int_equal(json_integer_value(json_object_get(item, "seconds")), 30);
	assert_non_null(strstr(json_string_value(json_object_get(item, "answer")),
			       "most of it in build_report"));
	json_decref(doc);

	assert_int_equal(run(f, false, f->dir, 1), EXIT_OK);
	assert_non_null(strstr(f->out, new_id));
	assert_non_null(strstr(f->out, old_id));
	assert_true(strstr(f->out, new_id) < strstr(f->out, old_id));
	assert_non_null(strstr(f->out, "2026-12-02T15:04:05Z"));
	assert_non_null(strstr(f->out, "Next was Unit nginx.service, at 14%."));
	assert_string_equal(f->err, "");
}

static void test_refuses_arguments_and_reports_a_bad_dir(void **state)
{
	struct fixture *f = *state;
	char file[128];

	assert_int_equal(run(f, false, f->dir, 2, "extra"), EXIT_REFUSED);
	assert_non_null(strstr(f->err, "slideops: "));
	assert_int_equal(run(f, false, f->dir, 2, "--bogus"), EXIT_REFUSED);
	assert_non_null(strstr(f->err, "--bogus"));
	assert_int_equal(run(f, false, f->dir, 2, "--help"), EXIT_OK);
	assert_non_null(strstr(f->out, "usage: slideops profiles"));

	/* A data dir that is a file: said on stderr, exit 1, nothing on stdout. */
	snprintf(file, sizeof(file), "%s/a-file", f->dir);
	fclose(fopen(file, "w"));
	assert_int_equal(run(f, true, file, 1), EXIT_FAIL);
	assert_string_equal(f->out, "");
	assert_non_null(strstr(f->err, "slideops: "));
	assert_non_null(strstr(f->err, file));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lists_newest_first_as_json_and_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refuses_arguments_and_reports_a_bad_dir,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

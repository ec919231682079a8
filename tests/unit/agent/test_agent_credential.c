// SPDX-License-Identifier: MIT
/*
 * The agent's data directory and credential (src/agent/credential.c): the credential
 * kept 0600 and read back; a credential or data directory that is a symbolic link, or
 * that others may write (or read, for the credential), refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/fixture.h"
#include "agent/credential.h"

static const struct agent_credential sample = {
	.server_id = "srv-1",
	.credential = "c2VjcmV0LWNyZWRlbnRpYWw",
	.name = "web-1",
};

static void test_saved_0600_and_read_back(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char path[512];
	struct agent_credential got;
	struct stat st;

	(void)state;
	assert_int_equal(credential__load(dir, &got), -ENOENT);
	assert_int_equal(credential__save(dir, &sample), 0);
	snprintf(path, sizeof(path), "%s/credential", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(credential__load(dir, &got), 0);
	assert_string_equal(got.server_id, "srv-1");
	assert_string_equal(got.credential, sample.credential);
	assert_string_equal(got.name, "web-1");
	/* Saved again (a new enrolment): replaced whole, still 0600. */
	assert_int_equal(credential__save(dir, &sample), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(credential__delete(dir), 0);
	assert_int_equal(credential__load(dir, &got), -ENOENT);
	assert_int_equal(credential__delete(dir), 0);
	fixture__free(fx);
}

static void test_symlink_credential_refused(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	struct fixture *fx_elsewhere = fixture__new();
	const char *elsewhere = fixture__dir(fx_elsewhere);
	char path[512];
	struct agent_credential got;

	(void)state;
	/* A link to a credential that would otherwise be read fine. */
	assert_int_equal(credential__save(elsewhere, &sample), 0);
	snprintf(path, sizeof(path), "%s/credential", dir);
	{
		char target[512];

		snprintf(target, sizeof(target), "%s/credential", elsewhere);
		assert_int_equal(symlink(target, path), 0);
	}
	assert_int_equal(credential__load(dir, &got), -ELOOP);
	assert_string_equal(got.credential, "");
	fixture__free(fx);
	fixture__free(fx_elsewhere);
}

static void test_open_mode_refused(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char path[512];
	struct agent_credential got;

	(void)state;
	assert_int_equal(credential__save(dir, &sample), 0);
	snprintf(path, sizeof(path), "%s/credential", dir);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(credential__load(dir, &got), -EPERM);
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(credential__load(dir, &got), -EPERM);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(credential__load(dir, &got), 0);
	fixture__free(fx);
}

static void test_not_ours_refused(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char path[512];
	struct agent_credential got;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/credential", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"server_id\": \"x\"}", 18), 18);
	close(fd);
	assert_int_equal(credential__load(dir, &got), -EBADMSG);
	fixture__free(fx);
}

static void test_data_dir_checked(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char sub[512], link[512];
	struct stat st;

	(void)state;
	/* Made when missing, ours alone. */
	snprintf(sub, sizeof(sub), "%s/agent", dir);
	assert_int_equal(agent_data__prepare(sub), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(agent_data__prepare(sub), 0);
	/* A link to it is not it. */
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(agent_data__prepare(link), -ELOOP);
	/* Others may write it: refused. */
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(agent_data__prepare(sub), -EPERM);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(agent_data__prepare(sub), 0);
	fixture__free(fx);
}

static void test_identity(void **state)
{
	struct agent_identity id;

	(void)state;
	assert_int_equal(agent_identity__read(&id), 0);
	assert_int_equal(strlen(id.boot_id), 36);
	assert_true(id.cpus >= 1);
	assert_true(id.kernel[0] != '\0');
	assert_true(id.hostname[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_0600_and_read_back),
		cmocka_unit_test(test_symlink_credential_refused),
		cmocka_unit_test(test_open_mode_refused),
		cmocka_unit_test(test_not_ours_refused),
		cmocka_unit_test(test_data_dir_checked),
		cmocka_unit_test(test_identity),
	};

	return cmocka_run_group_tests_name("agent credential", tests, NULL, NULL);
}

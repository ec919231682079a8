// SPDX-License-Identifier: MIT
/* A PostgreSQL server of a test's own (pgserver.h). */
#include "pgserver.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pgserver {
	char dir[64];
	char base[PATH_MAX];
	char url[PATH_MAX + 128];
	char script[PATH_MAX];
	int watchdog_fd;   /* its end closes when this process ends */
	pid_t watchdog;
};

static char why[256];
static int missing;

const char *pgserver__why(void)
{
	return why;
}

int pgserver__missing(void)
{
	return missing;
}

/* tests/tools/pg-server.sh, from the test binary (build/tests/X, build/asan/tests/X). */
static int find_script(char out[PATH_MAX])
{
	static const char *const up[] = { "/../../tests/tools/pg-server.sh",
					  "/../../../tests/tools/pg-server.sh" };
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (access("tests/tools/pg-server.sh", X_OK) == 0)
		return realpath("tests/tools/pg-server.sh", out) ? 0 : -1;
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s%s", exe, up[i]);
		if (access(path, X_OK) == 0 && realpath(path, out))
			return 0;
	}
	return -1;
}

static int script(struct pgserver *pg, const char *cmd, const char *arg)
{
	char line[PATH_MAX * 2];

	snprintf(line, sizeof(line), "'%s' %s '%s' %s >&2", pg->script, cmd, pg->dir,
		 arg ? arg : "");
	return system(line);
}

struct pgserver *pgserver__start(void)
{
	struct pgserver *pg = calloc(1, sizeof(*pg));
	int fds[2], rc;
	FILE *f;

	why[0] = '\0';
	missing = 0;
	if (!pg)
		return NULL;
	if (find_script(pg->script)) {
		snprintf(why, sizeof(why), "tests/tools/pg-server.sh not found");
		free(pg);
		return NULL;
	}
	strcpy(pg->dir, "/tmp/slideops-pg.XXXXXX");
	if (!mkdtemp(pg->dir) || pipe2(fds, O_CLOEXEC)) {
		snprintf(why, sizeof(why), "no temporary directory");
		free(pg);
		return NULL;
	}
	/* The watchdog: waits for this process to end (its pipe closes), then stops the
	 * server and removes its directory, even after a crash. */
	pg->watchdog = fork();
	if (pg->watchdog == 0) {
		char c;

		close(fds[1]);
		setsid();
		signal(SIGINT, SIG_IGN);
		while (read(fds[0], &c, 1) > 0)
			;
		script(pg, "stop", NULL);
		_exit(0);
	}
	close(fds[0]);
	pg->watchdog_fd = fds[1];
	rc = script(pg, "start", NULL);
	if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
		missing = WIFEXITED(rc) && WEXITSTATUS(rc) == 77;
		snprintf(why, sizeof(why), "%s", missing ? "PostgreSQL 15 is not installed "
							   "(apt-get install postgresql-15)" :
							 "PostgreSQL did not start (see above)");
		pgserver__stop(pg);
		return NULL;
	}
	snprintf(pg->base, sizeof(pg->base), "%s/url", pg->dir);
	f = fopen(pg->base, "r");
	if (!f || !fgets(pg->base, sizeof(pg->base), f)) {
		if (f)
			fclose(f);
		snprintf(why, sizeof(why), "pg-server.sh wrote no URL");
		pgserver__stop(pg);
		return NULL;
	}
	fclose(f);
	snprintf(pg->url, sizeof(pg->url), "%s/pgpass", pg->dir);
	setenv("PGPASSFILE", pg->url, 1);
	return pg;
}

const char *pgserver__url(struct pgserver *pg, const char *name)
{
	snprintf(pg->url, sizeof(pg->url), "%s/%.100s", pg->base, name);
	return pg->url;
}

const char *pgserver__createdb(struct pgserver *pg, const char *name)
{
	int rc = script(pg, "createdb", name);

	if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0)
		return NULL;
	return pgserver__url(pg, name);
}

void pgserver__stop(struct pgserver *pg)
{
	if (!pg)
		return;
	/* The watchdog stops the server and removes the directory. */
	close(pg->watchdog_fd);
	if (pg->watchdog > 0)
		waitpid(pg->watchdog, NULL, 0);
	free(pg);
}

// SPDX-License-Identifier: MIT
/* Programs built at test time in a temporary directory (see fixture.h). */
#include "helpers/fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct fixture {
	char dir[PATH_MAX];
	char **paths; /* handed out, freed with the fixture */
	size_t npaths, cap;
};

struct fixture *fixture__new(void)
{
	const char *tmp = getenv("TMPDIR");
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return NULL;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(fx->dir, sizeof(fx->dir), "%s/slideops-fixture-XXXXXX", tmp);
	if (!mkdtemp(fx->dir)) {
		fprintf(stderr, "fixture: mkdtemp %s: %s\n", fx->dir, strerror(errno));
		free(fx);
		return NULL;
	}
	return fx;
}

void fixture__free(struct fixture *fx)
{
	if (!fx)
		return;
	/* The directory name came from mkdtemp: no quoting needed. */
	if (fx->dir[0])
		fixture__sh(fx, "rm -rf '%s'", fx->dir);
	for (size_t i = 0; i < fx->npaths; i++)
		free(fx->paths[i]);
	free(fx->paths);
	free(fx);
}

const char *fixture__dir(const struct fixture *fx)
{
	return fx->dir;
}

static const char *keep(struct fixture *fx, char *s)
{
	if (s && fx->npaths == fx->cap) {
		size_t cap = fx->cap ? 2 * fx->cap : 16;
		char **p = realloc(fx->paths, cap * sizeof(*p));

		if (p) {
			fx->paths = p;
			fx->cap = cap;
		}
	}
	if (!s || fx->npaths == fx->cap) {
		fprintf(stderr, "fixture: out of memory\n");
		free(s);
		return NULL;
	}
	fx->paths[fx->npaths++] = s;
	return s;
}

const char *fixture__path(struct fixture *fx, const char *name)
{
	char *s;

	if (name[0] == '/')
		return keep(fx, strdup(name));
	if (asprintf(&s, "%s/%s", fx->dir, name) < 0)
		s = NULL;
	return keep(fx, s);
}

const char *fixture__write(struct fixture *fx, const char *name, const char *text)
{
	const char *path = fixture__path(fx, name);
	FILE *f;

	if (!path)
		return NULL;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "fixture: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fputs(text, f);
	if (fclose(f) != 0) {
		fprintf(stderr, "fixture: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	return path;
}

static int run(struct fixture *fx, const char *cmd)
{
	char *full;
	int status;

	if (asprintf(&full, "cd '%s' && %s", fx->dir, cmd) < 0)
		return -1;
	fflush(NULL);
	status = system(full);
	free(full);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int fixture__sh(struct fixture *fx, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int ret, n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	ret = run(fx, cmd);
	free(cmd);
	return ret;
}

char *fixture__sh_output(struct fixture *fx, const char *fmt, ...)
{
	char *cmd, *full, *out = NULL;
	size_t len = 0;
	va_list ap;
	FILE *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	n = asprintf(&full, "cd '%s' && %s", fx->dir, cmd);
	free(cmd);
	if (n < 0)
		return NULL;
	fflush(NULL);
	p = popen(full, "r");
	free(full);
	if (!p)
		return NULL;
	{
		FILE *mem = open_memstream(&out, &len);
		char buf[4096];
		size_t got;

		if (!mem) {
			pclose(p);
			return NULL;
		}
		while ((got = fread(buf, 1, sizeof(buf), p)) > 0)
			fwrite(buf, 1, got, mem);
		fclose(mem);
	}
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	while (len > 0 && out[len - 1] == '\n')
		out[--len] = '\0';
	return out;
}

/* Runs cmd; on failure says which file it was making, and returns NULL. */
static const char *make(struct fixture *fx, const char *path, const char *cmd)
{
	int status = run(fx, cmd);

	if (status != 0) {
		fprintf(stderr, "fixture: making %s failed (exit %d): %s\n", path, status, cmd);
		return NULL;
	}
	return path;
}

const char *fixture__compile(struct fixture *fx, const char *name, const char *source,
			     const char *flags)
{
	const char *src, *out;
	char *src_name, *cmd;
	const char *ret;

	if (asprintf(&src_name, "%s.c", name) < 0)
		return NULL;
	src = fixture__write(fx, src_name, source);
	free(src_name);
	out = fixture__path(fx, name);
	if (!src || !out)
		return NULL;
	if (asprintf(&cmd, "gcc %s -o '%s' '%s'", flags ? flags : "", out, src) < 0)
		return NULL;
	ret = make(fx, out, cmd);
	free(cmd);
	return ret;
}

const char *fixture__objcopy(struct fixture *fx, const char *args, const char *in,
			     const char *out)
{
	const char *path = fixture__path(fx, out), *ret;
	char *cmd;

	if (!path || asprintf(&cmd, "objcopy %s '%s' '%s'", args, in, path) < 0)
		return NULL;
	ret = make(fx, path, cmd);
	free(cmd);
	return ret;
}

const char *fixture__strip(struct fixture *fx, const char *in, const char *out)
{
	const char *path = fixture__path(fx, out), *ret;
	char *cmd;

	if (!path || asprintf(&cmd, "strip -o '%s' '%s'", path, in) < 0)
		return NULL;
	ret = make(fx, path, cmd);
	free(cmd);
	return ret;
}

const char *fixture__only_keep_debug(struct fixture *fx, const char *in, const char *out)
{
	return fixture__objcopy(fx, "--only-keep-debug", in, out);
}

const char *fixture__truncated_copy(struct fixture *fx, const char *in, size_t len,
				    const char *out)
{
	const char *path = fixture__path(fx, out);
	char buf[65536];
	int src = -1, dst = -1;
	size_t left = len;

	if (!path)
		return NULL;
	src = open(in, O_RDONLY | O_CLOEXEC);
	dst = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (src < 0 || dst < 0)
		goto fail;
	while (left) {
		ssize_t n = read(src, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n <= 0 || write(dst, buf, (size_t)n) != n)
			goto fail;
		left -= (size_t)n;
	}
	close(src);
	if (close(dst) != 0)
		return NULL;
	return path;
fail:
	fprintf(stderr, "fixture: copying %zu bytes of %s to %s failed\n", len, in, path);
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	return NULL;
}

int fixture__line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	int line = 1;

	if (!at)
		return 0;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

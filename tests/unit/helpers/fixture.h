/* SPDX-License-Identifier: MIT */
/*
 * Real programs for tests, built at test time: a fixture is a fresh temporary directory
 * in which a test writes C sources, compiles them with gcc (any flags), and turns the
 * result into the shapes users have (stripped, a debug file made with objcopy
 * --only-keep-debug, ...). fixture__free removes the directory and everything in it.
 *
 *	struct fixture *fx = fixture__new();
 *	const char *app = fixture__compile(fx, "app", "int work(void) { return 1; } ...",
 *					   "-O1 -g -no-pie");
 *	const char *dbg = fixture__only_keep_debug(fx, app, "app.debug");
 *	const char *bin = fixture__strip(fx, app, "app.stripped");
 *	...
 *	fixture__free(fx);
 *
 * Every function that makes a file returns its absolute path (valid until fixture__free)
 * or NULL after printing why to stderr (the compiler's own errors included), so a test
 * can assert_non_null() on it. Paths never contain spaces or shell metacharacters,
 * so they can go into fixture__sh commands as they are.
 */
#ifndef SLIDEOPS_TESTS_FIXTURE_H
#define SLIDEOPS_TESTS_FIXTURE_H

#include <stddef.h>

struct fixture;

/* A new empty directory under $TMPDIR (or /tmp). NULL on failure. */
struct fixture *fixture__new(void);
/* Removes the directory and everything in it. NULL is a no-op. */
void fixture__free(struct fixture *fx);

/* The directory, and DIR/name (valid until fixture__free). */
const char *fixture__dir(const struct fixture *fx);
const char *fixture__path(struct fixture *fx, const char *name);

/* Writes text to DIR/name. */
const char *fixture__write(struct fixture *fx, const char *name, const char *text);

/* The line (from 1) of the first place of needle in text (a script a test writes), or 0
 * when it is not there. */
int fixture__line_of(const char *text, const char *needle);

/*
 * Writes source to DIR/name.c and runs `gcc FLAGS -o DIR/name DIR/name.c`: flags may
 * make it a PIE or not (-pie / -no-pie), a shared library (-shared -fPIC, name it
 * "libx.so"), add debug info (-g, -gz for compressed debug sections), drop the build id
 * (-Wl,--build-id=none), link other fixture files (pass their paths), and so on.
 */
const char *fixture__compile(struct fixture *fx, const char *name, const char *source,
			     const char *flags);

/* `strip -o DIR/out in`: all symbols gone (.symtab and debug info; .dynsym stays). */
const char *fixture__strip(struct fixture *fx, const char *in, const char *out);
/* `objcopy --only-keep-debug in DIR/out`: the debug file made before stripping. */
const char *fixture__only_keep_debug(struct fixture *fx, const char *in, const char *out);
/* `objcopy ARGS in DIR/out`, any objcopy options. */
const char *fixture__objcopy(struct fixture *fx, const char *args, const char *in,
			     const char *out);
/* A copy of in's first len bytes at DIR/out (a truncated file). */
const char *fixture__truncated_copy(struct fixture *fx, const char *in, size_t len,
				    const char *out);

/* Runs a shell command (printf-style) with the fixture directory as working directory.
 * Returns its exit status (0 ok), or -1 when it could not run or was killed. */
int fixture__sh(struct fixture *fx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Runs a shell command and returns its standard output (trailing newline removed),
 * malloc'd; NULL when it fails. */
char *fixture__sh_output(struct fixture *fx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

// SPDX-License-Identifier: MIT
/*
 * Demangling through libstdc++'s __cxa_demangle, found with dlopen so that slideops does
 * not link the C++ runtime for one function. Names are demangled as a profile is read,
 * once per location: tens of thousands at most.
 */
#include "symbols/demangle.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	void *sym;

	if (!lib)
		return;
	sym = dlsym(lib, "__cxa_demangle");
	/* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
	memcpy(&cxa_demangle, &sym, sizeof(cxa_demangle));
}

/* Rust's legacy names end "::h" and 16 hex digits: a hash of the crate, not a name. */
static void drop_rust_hash(char *s)
{
	size_t len = strlen(s);
	char *h;

	if (len < 19)
		return;
	h = s + len - 19;
	if (strncmp(h, "::h", 3) != 0)
		return;
	for (int i = 3; i < 19; i++) {
		if (!isxdigit((unsigned char)h[i]))
			return;
	}
	*h = '\0';
}

char *symbol__demangle(const char *name)
{
	char *out;
	int status = -1;

	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	pthread_once(&resolve_once, resolve);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !out) {
		free(out);
		return NULL;
	}
	drop_rust_hash(out);
	return out;
}

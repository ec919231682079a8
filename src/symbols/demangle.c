// SPDX-License-Identifier: MIT
/*
 * Demangling with libiberty's cplus_demangle, the demangler binutils and gdb use: C++
 * (Itanium ABI), and Rust, both its legacy mangling (the "::h<hash>" suffix dropped)
 * and v0 ("_R..."). Names are demangled as a profile is read, once per location: tens
 * of thousands at most. Anything it cannot read is shown as it is.
 */
#include "symbols/demangle.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* Hostile names are as long as a linker allows; past this one is not worth reading. */
#define DEMANGLE_MAX_INPUT 4096

/* Where name's symbol version starts ("@GLIBC_2.2.5", "@@GLIBC_2.17"), or NULL. A PLT
 * stub's "@plt" is a part of its name, not a version, and stays. */
static const char *version_suffix(const char *name)
{
	const char *at = strchr(name, '@');

	if (!at || at == name || strcmp(at, "@plt") == 0)
		return NULL;
	for (const char *c = at[1] == '@' ? at + 2 : at + 1; *c; c++) {
		if (!(*c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')))
			return NULL;
	}
	return at[1] == '@' ? (at[2] ? at : NULL) : (at[1] ? at : NULL);
}

char *symbol__readable(const char *name)
{
	const char *version = name ? version_suffix(name) : NULL;
	char *bare, *out;

	if (!version)
		return symbol__demangle(name);
	bare = strndup(name, (size_t)(version - name));
	if (!bare)
		return NULL;
	out = symbol__demangle(bare);
	if (out) {
		free(bare);
		return out;
	}
	return bare;
}

char *symbol__demangle(const char *name)
{
	char *out;

	if (!name || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "_R", 2) != 0))
		return NULL;
	if (strnlen(name, DEMANGLE_MAX_INPUT + 1) > DEMANGLE_MAX_INPUT)
		return NULL;
	/* DMGL_AUTO tries Rust first (legacy and v0), then GNU v3. The default recursion
	 * limit stays on: a hostile name must not exhaust the stack. */
	out = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (out && !*out) {
		free(out);
		return NULL;
	}
	return out;
}

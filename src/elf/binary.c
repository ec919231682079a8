// SPDX-License-Identifier: MIT
/*
 * What a binary is to a profile, by its path: a language's runtime, a system library,
 * the kernel, or code of yours (architecture.md); with what the capture recorded of its
 * package (binary__is_system), the one "system" predicate. Called once per mapping when
 * a profile is read, so plain string matching is enough.
 */
#include "elf/elf_file.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

struct runtime {
	const char *stem;     /* file name starts with it, then an optional version */
	bool library;         /* lib*.so: ".so" follows the stem and version */
	enum language language;
};

static const struct runtime runtimes[] = {
	{ "python", false, LANGUAGE_PYTHON },
	{ "libpython", true, LANGUAGE_PYTHON },
	{ "java", false, LANGUAGE_JAVA },
	{ "libjvm", true, LANGUAGE_JAVA },
	{ "node", false, LANGUAGE_JAVASCRIPT },
	{ "nodejs", false, LANGUAGE_JAVASCRIPT },
	{ "libnode", true, LANGUAGE_JAVASCRIPT },
	{ "ruby", false, LANGUAGE_RUBY },
	{ "libruby", true, LANGUAGE_RUBY },
	{ "php", false, LANGUAGE_PHP },
	{ "php-fpm", false, LANGUAGE_PHP },
	{ "php-cgi", false, LANGUAGE_PHP },
	{ "libphp", true, LANGUAGE_PHP },
	{ "perl", false, LANGUAGE_PERL },
	{ "libperl", true, LANGUAGE_PERL },
	{ "dotnet", false, LANGUAGE_DOTNET },
	{ "libcoreclr", true, LANGUAGE_DOTNET },
	{ "libclrjit", true, LANGUAGE_DOTNET },
};

/*
 * name is stem, then a version ("3.11", "-3.1", "5.36.0") and ABI letters ("3.11d"),
 * then nothing (executables) or ".so" and anything (libraries: "libpython3.11.so.1.0").
 * So "python3.11" and "libruby3.1.so.3.1" match; "pythonista" and "nodemon" do not.
 */
static bool matches(const char *name, const struct runtime *rt)
{
	size_t n = strlen(rt->stem);
	const char *p = name + n;

	if (strncmp(name, rt->stem, n) != 0)
		return false;
	if (*p == '-' && isdigit((unsigned char)p[1]))
		p++;
	if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p) || *p == '.') {
			/* ".so" ends the version of a library */
			if (rt->library && strncmp(p, ".so", 3) == 0)
				break;
			p++;
		}
		while (*p == 'd' || *p == 'm' || *p == 'u')
			p++;
	}
	if (rt->library)
		return strncmp(p, ".so", 3) == 0 && (p[3] == '\0' || p[3] == '.');
	return *p == '\0';
}

static const struct runtime *runtime_of(const char *path)
{
	const char *name;

	if (!path)
		return NULL;
	name = basename(path);
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		if (matches(name, &runtimes[i]))
			return &runtimes[i];
	}
	return NULL;
}

bool binary__is_runtime(const char *path)
{
	return runtime_of(path) != NULL;
}

/* Under /lib*, /usr/lib* (any directory whose name starts "lib"), or the vdso. */
bool binary__is_system_library(const char *path)
{
	if (!path)
		return false;
	if (strcmp(path, "[vdso]") == 0 || strcmp(path, "[vsyscall]") == 0)
		return true;
	if (strncmp(path, "/usr/lib", 8) == 0)
		return strchr(path + 8, '/') != NULL;
	if (strncmp(path, "/lib", 4) == 0)
		return strchr(path + 4, '/') != NULL;
	return false;
}

bool binary__is_system(const char *path, bool from_package)
{
	return from_package || binary__is_runtime(path) || binary__is_system_library(path);
}

static bool is_kernel(const char *path)
{
	const char *name = basename(path);

	return strcmp(path, "[kernel]") == 0 || strcmp(path, "[kernel.kallsyms]") == 0 ||
	       strncmp(name, "vmlinux", 7) == 0;
}

/*
 * A runtime's own binary (python3.11, libpython, libjvm, node) is C/C++ code: the
 * language it runs is the frames read from it (Python functions) or made by it (JIT
 * code), never its C functions (architecture.md).
 */
enum language binary__language(const char *path, const struct elf_info *info)
{
	if (path && is_kernel(path))
		return LANGUAGE_KERNEL;
	if (runtime_of(path))
		return LANGUAGE_C;
	if (info && info->is_go)
		return LANGUAGE_GO;
	return LANGUAGE_C;
}

enum language binary__runtime_language(const char *path)
{
	const struct runtime *rt = runtime_of(path);

	return rt ? rt->language : LANGUAGE_OTHER;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/*
 * Rust's manglings: v0 is "_R", an optional decimal version, then a path that starts with
 * one of C N M X Y I B. Legacy is Itanium-like "_ZN...17h<16 hex>E", the hash last,
 * possibly followed by a suffix the compiler added (".llvm.1234").
 */
static bool is_rust_symbol(const char *name)
{
	const char *p, *e;

	if (strncmp(name, "_R", 2) == 0) {
		p = name + 2;
		while (isdigit((unsigned char)*p))
			p++;
		return *p && strchr("CNMXYIB", *p);
	}
	if (strncmp(name, "_ZN", 3) != 0)
		return false;
	e = strchr(name, '.');
	if (!e)
		e = name + strlen(name);
	/* ...17h + 16 hex + E: 20 characters before the end */
	if (e - name < 3 + 20)
		return false;
	p = e - 20;
	return strncmp(p, "17h", 3) == 0 && is_hex(p + 3, 16) && p[19] == 'E';
}

/*
 * The mapping decides first: the kernel and the runtimes keep their colour whatever
 * their symbols look like (libjvm is all C++). Code of yours is refined by symbol: Rust
 * mangling is Rust, C++ mangling inside a Go or Rust binary (cgo, C++ dependencies) is
 * C/C++.
 */
enum language symbol__language(const char *name, enum language binary_language)
{
	if (!name)
		return binary_language;
	switch (binary_language) {
	case LANGUAGE_C:
	case LANGUAGE_RUST:
	case LANGUAGE_GO:
	case LANGUAGE_OTHER:
		break;
	default:
		return binary_language;
	}
	if (is_rust_symbol(name))
		return LANGUAGE_RUST;
	if (strncmp(name, "_Z", 2) == 0)
		return LANGUAGE_C;
	return binary_language;
}

bool java__is_library_method(const char *name)
{
	static const char *const packages[] = { "java.", "javax.", "jdk.", "sun.", "com.sun." };

	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++)
		if (strncmp(name, packages[i], strlen(packages[i])) == 0)
			return true;
	return false;
}

bool python__is_library_file(const char *file)
{
	const char *p;

	if (!file)
		return false;
	if (strncmp(file, "<frozen ", 8) == 0)
		return true;
	if (strstr(file, "/site-packages/") || strstr(file, "/dist-packages/"))
		return true;
	/* the standard library: DIR/lib/python3.X/ or DIR/lib64/python3.X/ */
	for (p = strstr(file, "/python3."); p; p = strstr(p + 1, "/python3.")) {
		const char *d = p + 9;

		if (!(p - file >= 4 && strncmp(p - 4, "/lib", 4) == 0) &&
		    !(p - file >= 6 && strncmp(p - 6, "/lib64", 6) == 0))
			continue;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == '/')
			return true;
	}
	return false;
}

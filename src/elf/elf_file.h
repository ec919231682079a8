/* SPDX-License-Identifier: MIT */
/*
 * Reading ELF files we did not make: executables, shared libraries, debug files, and
 * whatever a user uploads. Every offset and size is checked against the file; no input
 * crashes the reader or makes it allocate without bound. Headers and tables are read with
 * pread, in pieces (elf_reader.h): nothing is mapped, so a 1 GB debug file costs what its
 * symbol table holds, not what the file weighs.
 */
#ifndef SLIDEOPS_ELF_FILE_H
#define SLIDEOPS_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/build_id.h"
#include "elf/language.h"

#define ELF_MAX_SEGMENTS 16

struct elf_limits;
struct elf_segment {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};

struct elf_info {
	char build_id[BUILD_ID_HEX_MAX + 1]; /* GNU build id, lowercase hex; "" when none */
	uint16_t type;       /* ET_EXEC, ET_DYN, ET_REL, ... */
	bool has_symtab;     /* .symtab with at least one function symbol */
	bool has_dynsym;     /* .dynsym with at least one function defined here */
	bool debug_only;     /* .text is NOBITS: made by objcopy --only-keep-debug */
	bool is_go;          /* .go.buildinfo or .note.go.buildid */
	enum language language; /* by file contents (Go) or C/C++ */
	struct elf_segment segments[ELF_MAX_SEGMENTS]; /* PT_LOAD, in file order */
	unsigned nsegments;
};

/* 0; -ENOEXEC when fd is not a whole, readable ELF file; -errno on I/O errors. */
int elf_info__read(int fd, struct elf_info *info);
/* The same within limits (elf_reader.h; NULL: none), with their errors. */
int elf_info__read_limited(int fd, struct elf_limits *limits, struct elf_info *info);
/* The same but for has_symtab and has_dynsym, left false: the symbol tables are not
 * looked into (a table of a million symbols and no function is read whole to say so).
 * For what needs only the build id and segments (the unwind worker). */
int elf_info__read_identity(int fd, struct elf_limits *limits, struct elf_info *info);

/* The ELF virtual address of a file offset inside a PT_LOAD segment. false when none. */
bool elf_info__offset_to_vaddr(const struct elf_info *info, uint64_t offset, uint64_t *vaddr);

enum elf_symbols_from {
	ELF_SYMBOLS_SYMTAB, /* .symtab only */
	ELF_SYMBOLS_DYNSYM, /* .dynsym only */
};

/* One function symbol: its address, size and name (name[len] is not NUL); declared is
 * false for a symbol that declares no size (hand-written assembly without .size, _init),
 * whose size is then up to its section's end. A non-zero return stops the walk and is
 * returned by elf__each_symbol. */
typedef int (*elf_symbol_fn)(void *ctx, uint64_t addr, uint64_t size, bool declared,
			     const char *name, size_t len);

/* Each function symbol (STT_FUNC, STT_GNU_IFUNC, with a section) of one table. In bounded
 * memory: the table and its strings are read in pieces, not mapped whole.
 * 0, -ENOENT (no such table), -ENOEXEC (corrupt), -errno. */
int elf__each_symbol(int fd, enum elf_symbols_from from, elf_symbol_fn fn, void *ctx);
/* The same within limits (elf_reader.h; NULL: none). */
int elf__each_symbol_limited(int fd, enum elf_symbols_from from, struct elf_limits *limits,
			     elf_symbol_fn fn, void *ctx);

/*
 * The PLT stubs of an x86-64 executable or library, named from the dynamic relocation
 * of the GOT slot each jumps through: fn gets the stub's address, size and "memcpy@plt".
 * Other machines, and files without a PLT, call fn for nothing. Within caps (relocations
 * kept and scanned, PLT bytes). 0, the first non-zero of fn, -ENOEXEC, -errno.
 */
int elf__each_plt_stub(int fd, elf_symbol_fn fn, void *ctx);
/* The same within limits (elf_reader.h; NULL: none), with their errors. */
int elf__each_plt_stub_limited(int fd, struct elf_limits *limits, elf_symbol_fn fn, void *ctx);

/* One function's bounds. A non-zero return stops the walk and is returned. */
typedef int (*elf_range_fn)(void *ctx, uint64_t start, uint64_t size);

/*
 * The bounds of every function that has an FDE in .eh_frame (stripping keeps them: the
 * program needs them), named or not. Nothing for relocatable objects and debug files.
 * Within caps (64 MB of .eh_frame: -EFBIG past it; 2M FDEs). 0, the first non-zero of
 * fn, -EFBIG, -ENOEXEC, -errno. A damaged entry is skipped, or ends the walk.
 */
int elf__each_function_range(int fd, elf_range_fn fn, void *ctx);
/* The same within limits (elf_reader.h; NULL: none), with their errors. */
int elf__each_function_range_limited(int fd, struct elf_limits *limits, elf_range_fn fn,
				     void *ctx);

/*
 * What a binary is to a profile, by its path (architecture.md). A runtime is a language's
 * own interpreter or VM (python, libpython, java, libjvm, node, ruby, php, perl, dotnet);
 * a system library lives under /lib*, /usr/lib* (or is the vdso). Neither is ever listed
 * as a stripped binary of yours, and "most of it in" skips both.
 */
bool binary__is_runtime(const char *path);
bool binary__is_system_library(const char *path);
/*
 * The one predicate for "system" (architecture.md), used by the stripped-binary card and by
 * "most of it in": a runtime, a system library, or a file owned by a package of the
 * distribution's archive (from_package, found when the profile was captured: a path
 * alone cannot tell /usr/bin/dash from /usr/bin/your-service).
 */
bool binary__is_system(const char *path, bool from_package);
/*
 * True when a Python frame's file is CPython's standard library (.../lib/python3.X/...,
 * a frozen module "<frozen ...>") or an installed package (site-packages, dist-packages):
 * where time is spent, not the user's own code that "most of it in" names (architecture.md).
 */
bool python__is_library_file(const char *file);
/* A Java method of the JDK's own classes (java.*, javax.*, jdk.*, sun.*, com.sun.*): the
 * runtime's library, which "most of it in" passes over as it does Python's. */
bool java__is_library_method(const char *name);
/* The language of a binary's frames by its path and contents (info may be NULL): a
 * runtime's own binary is C/C++. */
enum language binary__language(const char *path, const struct elf_info *info);
/* The language a runtime runs (python3.11: Python; libjvm: Java), else LANGUAGE_OTHER. */
enum language binary__runtime_language(const char *path);
/* A frame's language refined by its symbol: Rust mangling, else the binary's. */
enum language symbol__language(const char *name, enum language binary_language);

#endif

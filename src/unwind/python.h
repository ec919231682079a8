/* SPDX-License-Identifier: MIT */
/*
 * CPython in a process, as user space prepares it for the BPF frame walker
 * (bpf/python_walk.h) and names what it sends back.
 *
 * Per binary (once per build, off the sampling path): python_binary__read tells whether
 * an executable or a libpython is CPython 3.6-3.13, which version (Py_Version, else its
 * SONAME, else its file name), where _PyRuntime is (.dynsym, else .symtab: Debian's
 * stripped python3.11 exports it), and the offsets for that version (a table row, or
 * 3.13's _Py_DebugOffsets read from the file's own data). Per process: python_proc__init
 * turns that and the binary's mapping into the struct python_proc the BPF side is
 * handed. Per code object: struct python_code_cache keeps the names and line table BPF
 * read once (names as UTF-8).
 *
 * Nothing here reads a process's memory: the file gives everything but the addresses,
 * and the mapping gives those.
 *
 * How the capture engine uses this (tests/bpf/python_walk.bpf.c and
 * tests/unit/root/test_python_bpf.c do all of it, on the real kernel):
 *
 *   1. Per process, when its mappings are read: for each executable file mapping with
 *      python_binary__is_candidate(path), python_binary__read (once per binary, cached
 *      by build id) then python_proc__init(bin, vma start, vma file offset); put the
 *      struct python_proc in a BPF hash map keyed by tgid. Delete it on exec and exit.
 *   2. In BPF (bpf/python_walk.h), per sample of a tgid in that map: python_walk(NULL,
 *      proc, tid, pthread_id, hint, scratch, stack), where pthread_id is
 *      task->thread.fsbase on x86-64 (3.8-3.10 only know threads by it) and hint the
 *      thread state this tid had last time (an LRU map tid -> stack->tstate). Send
 *      stack->frames[0 .. nframes) with the sample and count stack->exit per reason.
 *      For each frame's code object not yet sent for this tgid (an LRU map), send a
 *      struct python_code filled by python_walk__code first. A task iterator (threads
 *      question, wall's sweep) passes a reader whose ctx is the task instead of NULL.
 *   3. In user space: python_code_cache__add each struct python_code; for a sample,
 *      python__interleave its native frames (is_eval: the frame's file-relative address
 *      lies in [bin->eval_start, bin->eval_end) of the CPython binary) with its Python
 *      frames. A Python frame becomes a location whose function is the entry's name,
 *      file its file, start line its firstlineno and line python_code__line(entry,
 *      frame.instr), in a mapping whose language is Python (architecture.md).
 */
#ifndef SLIDEOPS_UNWIND_PYTHON_H
#define SLIDEOPS_UNWIND_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../bpf/python_records.h" /* what user space and BPF share */

#define PYTHON_MIN_MINOR 6
#define PYTHON_MAX_MINOR 13
#define PYTHON_MAX_SEGMENTS 8

/* The offsets of CPython 3.minor (a table row), or NULL for a version we do not walk. */
const struct python_offsets *python_offsets__for(unsigned minor);
/* Sizes o's windows to the fields the walker reads from each (python_offsets.c); false
 * when a field lies beyond the largest window (the walker would refuse the row). */
bool python_offsets__size_windows(struct python_offsets *o);

/* How the version was told. */
enum python_version_from {
	PYTHON_VERSION_PY_VERSION = 1, /* the exported Py_Version (3.11+) */
	PYTHON_VERSION_SONAME = 2,     /* a library's DT_SONAME: libpython3.X.so.1.0 */
	PYTHON_VERSION_FILE_NAME = 3,  /* python3.X, libpython3.X.so */
};

struct python_binary {
	unsigned major, minor, micro;  /* micro: 0 when only the name told the version */
	enum python_version_from version_from;
	uint64_t runtime_vaddr;        /* ELF virtual address of _PyRuntime */
	/* [eval_start, eval_end): _PyEval_EvalFrameDefault, whose native frames the Python
	 * frames replace (ELF virtual addresses; 0, 0 when the file does not name it). */
	uint64_t eval_start, eval_end;
	bool from_debug_offsets;       /* off came from the file's _Py_DebugOffsets */
	struct python_offsets off;
	struct {
		uint64_t offset, vaddr, filesz;
		uint32_t flags; /* PF_X, PF_W, PF_R */
	} segments[PYTHON_MAX_SEGMENTS]; /* PT_LOAD, to place a mapping */
	unsigned nsegments;
};

/*
 * True when path's file name could be CPython (python3.X, python3, libpython3.X.so...):
 * the mappings worth opening. The file decides: python_binary__read.
 */
bool python_binary__is_candidate(const char *path);

/*
 * Reads what the file fd (named path, for its version when it exports no Py_Version and
 * has no SONAME that says it)
 * says about CPython. 0; -ENOENT: not CPython (no _PyRuntime); -ENOTSUP: CPython but a
 * version or build we do not walk (2.x, 3.7 and older, 3.14+, free-threaded 3.13);
 * -ENOEXEC: not a whole ELF file; -errno.
 */
int python_binary__read(int fd, const char *path, struct python_binary *out);

/*
 * What the BPF side needs for one process in which bin is mapped: map_start is where an
 * executable mapping of the file begins and map_offset the file offset it maps (as
 * /proc/PID/maps says). 0, or -ERANGE when that offset is in no executable segment.
 */
int python_proc__init(const struct python_binary *bin, uint64_t map_start, uint64_t map_offset,
		      struct python_proc *out);

/* Where a frame of an interleaved stack comes from. */
struct python_mixed {
	bool python;    /* true: the Python stack's frames[index]; false: native frame index */
	uint32_t index;
};

/*
 * Interleaves a sample's native stack (nnative frames, leaf first; is_eval[i] true when
 * frame i is in _PyEval_EvalFrameDefault) with its Python stack (newest first) into out,
 * leaf first: each evaluator frame becomes the Python frames it ran (the next ones, up to
 * and including the next PYTHON_FRAME_ENTRY frame). Evaluator frames left without Python
 * frames stay as they are; Python frames left when the native stack ends (cut short) go
 * at the root end. Returns the frames written (at most max).
 */
size_t python__interleave(const bool *is_eval, size_t nnative, const struct python_stack *py,
			  struct python_mixed *out, size_t max);

/* A code object's names, once known: UTF-8, NUL-terminated. */
struct python_code_entry {
	uint32_t pid;
	uint64_t code;
	char *name;       /* qualified name (3.11+), else the function's name */
	char *file;
	int32_t firstlineno;
	uint8_t *table;   /* the line table as BPF read it (NULL when none) */
	uint32_t table_len;
	uint8_t line_kind; /* enum python_line_kind */
};

/*
 * The line that instruction instr (struct python_frame's, in 2-byte code units) of a
 * code object runs, from its line table. 0 when it cannot be told: no instruction, no
 * table, an instruction past the part of the table kept, or one without a line.
 */
int32_t python_code__line(const struct python_code_entry *e, uint32_t instr);

struct python_code_cache;

struct python_code_cache *python_code_cache__new(void);
void python_code_cache__free(struct python_code_cache *c);

/*
 * Keeps what rec says about a code object of process pid (replacing what was known of
 * that address: code objects are freed and their addresses reused). 0 or -ENOMEM.
 */
int python_code_cache__add(struct python_code_cache *c, uint32_t pid,
			   const struct python_code *rec);
/* The names of code object code in process pid, or NULL when they were never sent. */
const struct python_code_entry *python_code_cache__find(const struct python_code_cache *c,
							uint32_t pid, uint64_t code);
/* Forgets process pid's code objects (it exited or exec'd). */
void python_code_cache__forget(struct python_code_cache *c, uint32_t pid);

/*
 * A unicode object's data (kind 1, 2 or 4 bytes per character, len bytes) as UTF-8 into
 * out (size > 0; always NUL-terminated, cut on a character boundary). "?" for a
 * character that is not one (a lone surrogate). Returns the bytes written.
 */
size_t python__utf8(unsigned kind, const void *data, size_t len, char *out, size_t size);

#endif

// SPDX-License-Identifier: MIT
/*
 * A sample's frames into the profile: each address to a location in its process's
 * mappings, kernel and special frames, what runtimes ran (Python functions, JIT code)
 * interleaved, and samples kept until their process is known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "capture/binaries.h"
#include "capture/cgroups.h"
#include "capture/jvm_procs.h"
#include "capture/v8_procs.h"
#include "capture/maps.h"
#include "capture/processes_internal.h"
#include "capture/python_procs.h"
#include "capture/unwinding.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "profile/profile.h"
#include "jvm_records.h"
#include "v8_records.h"
#include "python_frames.h"
#include "unwind/jvm.h"
#include "unwind/v8.h"
#include "unwind/python.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/clock.h"

_Static_assert(WAIT_REASON__COUNT - 1 == PROFILE_WAIT_REASONS, "one list of wait reasons");

/* ---- frames ---- */

static uint32_t processes__special_mapping(struct processes *ps, uint32_t *cache,
					   const char *path, enum mapping_kind kind,
					   enum language language, const char *build_id)
{
	struct prof_mapping m = { 0 };

	if (*cache != UINT32_MAX)
		return *cache;
	m.path = profile__intern(ps->p, path);
	m.build_id = profile__intern(ps->p, build_id);
	if (m.path == UINT32_MAX || m.build_id == UINT32_MAX)
		return UINT32_MAX;
	m.kind = kind;
	m.language = language;
	m.build_id_recorded = true;
	*cache = profile__add_mapping(ps->p, &m);
	return *cache;
}

/* Where a user address of proc is: (mapping, ELF address). 1: in no mapping we know. */
static int processes__user_location(struct processes *ps, struct process *proc, uint64_t addr,
				    struct prof_location *loc)
{
	struct vma *v = vma_list__find(&proc->maps, addr);
	struct binary *bin = NULL;
	uint64_t offset = 0;

	if (!v && proc->maps_ok && proc->alive && proc->facts &&
	    clock__monotonic_ns() - proc->maps_read_ns >= MAPS_REREAD_NS) {
		/* Mapped since we read them (dlopen): read again, once in a while. */
		int err = process__read_maps(ps, proc);

		if (err)
			return err;
		v = vma_list__find(&proc->maps, addr);
	}
	if (v && v->kind == VMA_FILE && v->binary) {
		bin = v->binary;
		offset = addr - v->start + v->offset;
	} else if (v && v->kind == VMA_VDSO) {
		bin = binaries__vdso(ps->binaries);
		offset = addr - v->start;
	}
	if (bin) {
		/* The file offset: binaries__read makes it an ELF address after sampling. */
		loc->mapping = binary__mapping(bin, ps->p, v->start, v->end, v->offset);
		loc->address = offset;
	} else if (v && v->kind == VMA_ANON) {
		loc->mapping = processes__special_mapping(ps, &ps->anon_mapping, "[anon]",
							  MAPPING_ANON, LANGUAGE_OTHER, "");
		loc->address = addr;
	} else {
		loc->mapping = processes__special_mapping(ps, &ps->unknown_mapping, "[unknown]",
							  MAPPING_ANON, LANGUAGE_OTHER, "");
		loc->address = addr;
		if (loc->mapping != UINT32_MAX)
			return 1;
	}
	return loc->mapping == UINT32_MAX ? -ENOMEM : 0;
}

/* The frame that ends a stack cut short: one location, in a mapping of its own. */
static uint32_t processes__truncated(struct processes *ps)
{
	struct prof_location loc = { 0 };

	if (ps->truncated_location != UINT32_MAX)
		return ps->truncated_location;
	loc.mapping = processes__special_mapping(ps, &ps->truncated_mapping,
						 PROFILE_TRUNCATED_FRAME, MAPPING_ANON,
						 LANGUAGE_OTHER, "");
	loc.function = profile__intern(ps->p, PROFILE_TRUNCATED_FRAME);
	if (loc.mapping == UINT32_MAX || loc.function == UINT32_MAX)
		return UINT32_MAX;
	ps->truncated_location = profile__add_location(ps->p, &loc);
	return ps->truncated_location;
}

/* ---- what runtimes ran: Python functions, JIT code ---- */

/* A Python frame of process tgid: its function, file and line, in the Python mapping. */
static uint32_t processes__python_location(struct processes *ps, uint32_t tgid,
					   const struct python_frame *f)
{
	const struct python_code_entry *e = python_code_cache__find(ps->codes, tgid, f->code);
	struct prof_location loc = { 0 };

	loc.mapping = processes__special_mapping(ps, &ps->python_mapping, "[python]",
						 MAPPING_ANON, LANGUAGE_PYTHON, "");
	if (loc.mapping == UINT32_MAX)
		return UINT32_MAX;
	if (e) {
		loc.function = profile__intern(ps->p, e->name[0] ? e->name : PYTHON_UNKNOWN_FRAME);
		loc.file = profile__intern(ps->p, e->file);
		loc.line = python_code__line(e, f->instr);
		loc.start_line = e->firstlineno;
	} else {
		loc.function = profile__intern(ps->p, PYTHON_UNKNOWN_FRAME);
	}
	if (loc.function == UINT32_MAX || loc.file == UINT32_MAX)
		return UINT32_MAX;
	return profile__add_location(ps->p, &loc);
}

/* The frame in the evaluator of CPython binary e (file offsets)? */
static bool process__is_eval(const struct process *proc, const struct python_procs_entry *e,
			     uint64_t addr)
{
	const struct vma *v = vma_list__find(&proc->maps, addr);
	uint64_t offset;

	if (!v || v->kind != VMA_FILE || !v->binary || v->binary->dev != e->dev ||
	    v->binary->ino != e->ino)
		return false;
	offset = addr - v->start + v->offset;
	return offset >= e->eval_start && offset < e->eval_end;
}

/*
 * The language a process's JIT code is in: a run of frames in anonymous executable
 * memory of a java or node process is that runtime's compiled code (architecture.md).
 * LANGUAGE_OTHER for any other process.
 */
static enum language process__jit_language(struct processes *ps, const struct process *proc)
{
	const char *comm = proc->facts ? profile__str(ps->p, proc->labels.comm) : NULL;
	const char *exe = proc->facts ? profile__str(ps->p, proc->labels.exe) : NULL;
	const char *base = exe ? strrchr(exe, '/') : NULL;

	base = base ? base + 1 : exe;
	if ((comm && strcmp(comm, "java") == 0) || (base && strcmp(base, "java") == 0))
		return LANGUAGE_JAVA;
	if ((comm && (strcmp(comm, "node") == 0 || strncmp(comm, "node-", 5) == 0)) ||
	    (base && (strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0)))
		return LANGUAGE_JAVASCRIPT;
	return LANGUAGE_OTHER;
}

/* The one frame a run of lang's JIT code becomes. */
static uint32_t processes__jit_location(struct processes *ps, enum language lang)
{
	bool java = lang == LANGUAGE_JAVA;
	uint32_t *cache = java ? &ps->java_location : &ps->javascript_location;
	const char *name = java ? JAVA_FRAME : JAVASCRIPT_FRAME;
	struct prof_location loc = { 0 };
	uint32_t *mapping = java ? &ps->java_mapping : &ps->javascript_mapping;

	if (*cache != UINT32_MAX)
		return *cache;
	loc.mapping = processes__special_mapping(ps, mapping, name, MAPPING_JIT, lang, "");
	loc.function = profile__intern(ps->p, name);
	if (loc.mapping == UINT32_MAX || loc.function == UINT32_MAX)
		return UINT32_MAX;
	*cache = profile__add_location(ps->p, &loc);
	return *cache;
}

/* ---- Java and JavaScript frames: what the kernel's walk read, named once per process ---- */

/* What is named once: a JavaScript frame's JSFunction (at JAVASCRIPT_FUNCTION), a
 * JavaScript frame's place (at JAVASCRIPT_PLACE: its PC and JSFunction, its functions,
 * inlined ones included), a Java frame's word (at JAVA_WORD: its methods, inlined ones
 * included), a Java method at a bytecode index (at the index, -1 when not known). */
#define JAVA_WORD INT32_MIN
#define JAVASCRIPT_FUNCTION (INT32_MIN + 1)
#define JAVASCRIPT_PLACE (INT32_MIN + 2)

struct java_key {
	uint64_t key;
	uint32_t tgid;
	int32_t at;
	uint64_t fn; /* a JavaScript place's JSFunction (at JAVASCRIPT_PLACE), else 0 */
};

static bool java_method__equal(const void *key, uint32_t id, void *ctx)
{
	const struct java_key *k = key;
	const struct processes *ps = ctx;
	const struct java_method *m = &ps->java_methods[id];

	return m->key == k->key && m->tgid == k->tgid && m->at == k->at && m->fn == k->fn;
}

static uint64_t java_key__hash(const struct java_key *k)
{
	return hash_u64(hash_u64(hash_u64(hash_u64(0, k->key), k->tgid), (uint32_t)k->at), k->fn);
}

/* The entry of k, or NULL (*h its hash). */
static struct java_method *java_method__find(struct processes *ps, const struct java_key *k,
					     uint64_t *h)
{
	uint32_t id;

	*h = java_key__hash(k);
	if (!ps->java_index)
		return NULL;
	id = hashmap__find(ps->java_index, *h, k, java_method__equal, ps);
	return id == HASHMAP_NONE ? NULL : &ps->java_methods[id];
}

/* A new entry for k (its hash h), its other fields to be filled. NULL: out of memory. */
static struct java_method *java_method__add(struct processes *ps, const struct java_key *k,
					    uint64_t h)
{
	struct java_method *m;

	if (!ps->java_index && !(ps->java_index = hashmap__new()))
		return NULL;
	if (ps->njava_methods == ps->cap_java_methods) {
		uint32_t cap = ps->cap_java_methods ? ps->cap_java_methods * 2 : 64;
		struct java_method *grown = realloc(ps->java_methods, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		ps->java_methods = grown;
		ps->cap_java_methods = cap;
	}
	if (hashmap__insert(ps->java_index, h, ps->njava_methods))
		return NULL;
	m = &ps->java_methods[ps->njava_methods++];
	memset(m, 0, sizeof(*m));
	m->key = k->key;
	m->tgid = k->tgid;
	m->at = k->at;
	m->fn = k->fn;
	return m;
}

/* The location of a named method or function: name, file and line, in lang's runtime
 * mapping, the function's first line as its start_line. UINT32_MAX when out of memory. */
static uint32_t processes__named_location(struct processes *ps, enum language lang,
					  const char *name, const char *file, int32_t line,
					  int32_t first)
{
	bool java = lang == LANGUAGE_JAVA;
	struct prof_location loc = { 0 };

	loc.mapping = java ? processes__special_mapping(ps, &ps->java_mapping, JAVA_FRAME,
							MAPPING_JIT, LANGUAGE_JAVA, "")
			   : processes__special_mapping(ps, &ps->javascript_mapping,
							JAVASCRIPT_FRAME, MAPPING_JIT,
							LANGUAGE_JAVASCRIPT, "");
	loc.function = profile__intern(ps->p, name);
	/* Its file: a Java class's source file, a JavaScript function's script. */
	loc.file = file[0] ? profile__intern(ps->p, file) : 0;
	loc.line = line > 0 ? line : 0;
	loc.start_line = first > 0 ? first : 0;
	if (loc.mapping == UINT32_MAX || loc.function == UINT32_MAX || loc.file == UINT32_MAX)
		return UINT32_MAX;
	return profile__add_location(ps->p, &loc);
}

/*
 * The location of a JavaScript frame (a tagged JSFunction, bpf/v8_records.h) of process
 * tgid: the function's name, script and first line, read through the kernel the first
 * time the process's pointer is met; [JavaScript] when it cannot be read (the process
 * is gone, or what the walk read was no JSFunction). UINT32_MAX when out of memory.
 */
static uint32_t processes__javascript_location(struct processes *ps, uint32_t tgid, uint64_t frame)
{
	struct java_key k = { frame & V8_FRAME_FUNCTION_MASK, tgid, JAVASCRIPT_FUNCTION };
	char name[V8_MAX_NAME], file[V8_MAX_SCRIPT] = "";
	struct java_method *m;
	int32_t line = 0;
	uint32_t location;
	uint64_t h;

	if ((m = java_method__find(ps, &k, &h)))
		return m->location;
	ps->stats.javascript_functions++;
	if ((ps->v8 ? v8_procs__function_name(ps->v8, (int)tgid, k.key, name, file, &line)
		    : -ENOENT) != 0) {
		ps->stats.javascript_unnamed++;
		location = processes__jit_location(ps, LANGUAGE_JAVASCRIPT);
	} else {
		if (line > 0)
			ps->stats.javascript_lines++;
		/* the function's first line is all the frame carries */
		location = processes__named_location(ps, LANGUAGE_JAVASCRIPT, name, file, line,
						     line);
	}
	if (location == UINT32_MAX || !(m = java_method__add(ps, &k, h)))
		return UINT32_MAX;
	m->location = location;
	return location;
}

/* Room for n more locations in java_frame_locs: false when out of memory. */
static bool processes__frame_locs_room(struct processes *ps, uint32_t n)
{
	if (ps->njava_frame_locs + n > ps->cap_java_frame_locs) {
		uint32_t cap = ps->cap_java_frame_locs ? ps->cap_java_frame_locs * 2 : 256;
		uint32_t *grown;

		while (cap < ps->njava_frame_locs + n)
			cap *= 2;
		grown = realloc(ps->java_frame_locs, cap * sizeof(*grown));
		if (!grown)
			return false;
		ps->java_frame_locs = grown;
		ps->cap_java_frame_locs = cap;
	}
	return true;
}

/* A new entry for k (its hash h) holding the frame's locations from first to the end of
 * java_frame_locs. NULL: out of memory. */
static struct java_method *processes__keep_frames(struct processes *ps, const struct java_key *k,
						  uint64_t h, uint32_t first)
{
	struct java_method *m = java_method__add(ps, k, h);

	if (m) {
		m->location = first;
		m->count = ps->njava_frame_locs - first;
	}
	return m;
}

/* The locations m keeps (a frame's) into out: their count, 0 when more than max. */
static uint32_t processes__kept_frames(const struct processes *ps, const struct java_method *m,
				       uint32_t *out, uint32_t max)
{
	if (m->count > max)
		return 0;
	memcpy(out, &ps->java_frame_locs[m->location], m->count * sizeof(*out));
	return m->count;
}

/*
 * The locations of a JavaScript frame of process tgid, its function (the frame's word,
 * bpf/v8_records.h) at pc (leaf: the interrupted instruction), into out (at most max),
 * innermost first: the functions TurboFan inlined at that place, then the function
 * itself, each at the line the place is at; the function alone at its first line where
 * its place is not read (v8_procs__frames). Read once a (process, function, PC). The
 * count written; 0 when more than max; UINT32_MAX when out of memory.
 */
static uint32_t processes__javascript_frames(struct processes *ps, uint32_t tgid, uint64_t frame,
					     uint64_t pc, bool leaf, uint32_t *out, uint32_t max)
{
	struct java_key k = { pc, tgid, JAVASCRIPT_PLACE, frame & V8_FRAME_FUNCTION_MASK };
	struct v8_named named[V8_MAX_INLINED];
	uint32_t own, first;
	struct java_method *m;
	uint64_t h;
	int got;

	if (!(m = java_method__find(ps, &k, &h))) {
		/* the function first: counted, named (or [JavaScript]) once */
		own = processes__javascript_location(ps, tgid, frame);
		if (own == UINT32_MAX)
			return UINT32_MAX;
		got = own != ps->javascript_location && ps->v8
			      ? v8_procs__frames(ps->v8, (int)tgid, k.fn, pc, leaf, named,
						 V8_MAX_INLINED)
			      : 0;
		if (!processes__frame_locs_room(ps, V8_MAX_INLINED + 1))
			return UINT32_MAX;
		first = ps->njava_frame_locs;
		ps->stats.javascript_places++;
		for (int i = 0; i < got; i++) {
			uint32_t loc = processes__named_location(
				ps, LANGUAGE_JAVASCRIPT, named[i].name, named[i].script,
				named[i].line, named[i].first);

			if (loc == UINT32_MAX)
				return UINT32_MAX;
			ps->java_frame_locs[ps->njava_frame_locs++] = loc;
			ps->stats.javascript_at_line += named[i].at_line;
		}
		if (got > 1)
			ps->stats.javascript_inlined += (uint64_t)got - 1;
		if (got <= 0)
			ps->java_frame_locs[ps->njava_frame_locs++] = own;
		if (!(m = processes__keep_frames(ps, &k, h, first)))
			return UINT32_MAX;
	}
	return processes__kept_frames(ps, m, out, max);
}

/*
 * The location of Java method at bytecode index bci (< 0: not known) of process tgid:
 * the method's name, its class's source file, the line of bci (its first line when not
 * known), read through the kernel the first time; [Java] when it cannot be read.
 * UINT32_MAX when out of memory.
 */
static uint32_t processes__java_method_location(struct processes *ps, uint32_t tgid,
						uint64_t method, int32_t bci)
{
	struct java_key k = { method, tgid, bci < 0 ? -1 : bci };
	char name[JVM_MAX_METHOD_NAME], file[JVM_MAX_SOURCE_FILE] = "";
	int32_t line = 0, first = 0;
	struct java_method *m;
	uint32_t location;
	uint64_t h;

	if ((m = java_method__find(ps, &k, &h)))
		return m->location;
	ps->stats.java_methods++;
	if ((ps->jvm ? jvm_procs__method_name(ps->jvm, (int)tgid, method, bci, name, file,
					      &line, &first)
		     : -ENOENT) != 0) {
		ps->stats.java_unnamed++;
		location = processes__jit_location(ps, LANGUAGE_JAVA);
	} else {
		if (line > 0)
			ps->stats.java_lines++;
		location = processes__named_location(ps, LANGUAGE_JAVA, name, file, line, first);
	}
	if (location == UINT32_MAX || !(m = java_method__add(ps, &k, h)))
		return UINT32_MAX;
	m->location = location;
	return location;
}

/*
 * The frames of a Java frame's word (bpf/jvm_records.h) of process tgid into out (at
 * most max), innermost first: a compiled PC's inlined methods, then the method they were
 * inlined into, each at its line; an interpreted frame's method at its line. Named once
 * per (process, word): each word's locations are kept in ps->java_frame_locs. Returns
 * the count (at least 1: [Java] when nothing could be read), or UINT32_MAX when out of
 * memory.
 */
static uint32_t processes__java_frames(struct processes *ps, uint32_t tgid, uint64_t word,
				       uint32_t *out, uint32_t max)
{
	struct java_key k = { word, tgid, JAVA_WORD };
	struct jvm_scope scopes[JVM_MAX_SCOPES];
	struct java_method *m;
	unsigned n = 0;
	uint64_t h;

	if (!(m = java_method__find(ps, &k, &h))) {
		uint32_t first = ps->njava_frame_locs;

		if (!ps->jvm || jvm_procs__frame_scopes(ps->jvm, (int)tgid, word, scopes,
							JVM_MAX_SCOPES, &n))
			n = 0;
		if (!processes__frame_locs_room(ps, JVM_MAX_SCOPES))
			return UINT32_MAX;
		for (unsigned i = 0; i < n; i++) {
			uint32_t loc = processes__java_method_location(ps, tgid, scopes[i].method,
								       scopes[i].bci);

			if (loc == UINT32_MAX)
				return UINT32_MAX;
			ps->java_frame_locs[ps->njava_frame_locs++] = loc;
		}
		if (!n) {
			ps->stats.java_unnamed++;
			if ((ps->java_frame_locs[ps->njava_frame_locs++] =
				     processes__jit_location(ps, LANGUAGE_JAVA)) == UINT32_MAX)
				return UINT32_MAX;
		}
		if (n > 1)
			ps->stats.java_inlined += n - 1;
		if (!(m = processes__keep_frames(ps, &k, h, first)))
			return UINT32_MAX;
	}
	return processes__kept_frames(ps, m, out, max);
}

/*
 * Puts the sample's Python frames in place of the evaluator's native frames of its
 * user stack ulocs (nu frames, leaf first; is_eval says which) into out. Returns the
 * frames written, or UINT32_MAX when out of memory.
 */
static uint32_t processes__interleave(struct processes *ps, const struct stack_sample *s,
				      const uint32_t *ulocs, const bool *is_eval, uint32_t nu,
				      uint32_t *out, uint32_t max)
{
	struct python_mixed mixed[2 * RECORD_MAX_STACK + RECORD_MAX_PYFRAMES];
	struct python_stack py;
	uint32_t n = 0;
	size_t nm;

	memset(&py, 0, sizeof(py));
	py.nframes = (uint16_t)s->pystack_len;
	py.exit = (uint16_t)s->pystack_exit;
	memcpy(py.frames, &s->ips[s->kstack_len + s->ustack_len],
	       s->pystack_len * sizeof(struct python_frame));
	if (max > sizeof(mixed) / sizeof(mixed[0]))
		max = sizeof(mixed) / sizeof(mixed[0]);
	nm = python__interleave(is_eval, nu, &py, mixed, max);
	for (size_t i = 0; i < nm; i++) {
		uint32_t loc;

		if (mixed[i].python)
			loc = processes__python_location(ps, s->tgid, &py.frames[mixed[i].index]);
		else
			loc = ulocs[mixed[i].index];
		if (loc == UINT32_MAX)
			return UINT32_MAX;
		out[n++] = loc;
	}
	return n;
}

/*
 * Adds one sample of proc. Frames after the first of each part are return addresses:
 * one is taken off, so each points into its call instruction and names the caller even
 * when the call was the last instruction of its function.
 */
int processes__emit(struct processes *ps, struct process *proc, const struct stack_sample *s)
{
	uint32_t locs[2 * RECORD_MAX_STACK + RECORD_MAX_PYFRAMES + 1], n = 0;
	uint32_t ulocs[RECORD_MAX_STACK], nu = 0;
	bool is_eval[RECORD_MAX_STACK];
	uint32_t klen = s->kstack_len, ulen = s->ustack_len;
	enum language jit = LANGUAGE_OTHER;
	struct python_procs_entry py;
	bool python = false;
	/* The walker stopped short of the root, or the kernel's walk filled the sample. */
	bool cut = (s->flags & SAMPLE_USTACK_CUT) || ulen >= RECORD_MAX_STACK;
	struct prof_labels labels = proc->labels;
	int64_t values[RECORD_MAX_VALUES];
	uint32_t stack;
	int err;

	if (klen >= RECORD_MAX_STACK || ulen >= RECORD_MAX_STACK)
		ps->stats.truncated++;
	for (uint32_t i = 0; i < klen; i++) {
		struct prof_location loc = { 0 };

		loc.mapping = ps->kernel_mapping;
		loc.address = s->ips[i] - (i > 0);
		locs[n] = profile__add_location(ps->p, &loc);
		if (locs[n++] == UINT32_MAX)
			return -ENOMEM;
	}
	if (s->pystack_len && ps->python)
		python = python_procs__find(ps->python, proc->tgid, &py);
	if (ulen)
		jit = process__jit_language(ps, proc);
	if (jit == LANGUAGE_JAVASCRIPT && !proc->javascript) {
		proc->javascript = true;
		ps->stats.javascript_processes++;
	}
	for (uint32_t i = 0; i < ulen; i++) {
		struct prof_location loc = { 0 };
		uint64_t addr = s->ips[klen + i] - (i > 0);

		if (nu >= RECORD_MAX_STACK) {
			/* runtimes' inlined frames filled it before the words ended */
			ps->stats.truncated++;
			break;
		}
		if (JVM_FRAME_IS_JAVA(s->ips[klen + i]) ||
		    (s->ips[klen + i] & V8_FRAME_TAG_MASK) == V8_FRAME_TAG) {
			/* A runtime's frame, what the kernel's walk read: a Java frame's
			 * methods; a JavaScript frame's function and where in it (the next
			 * word, when the walk had room for it); inlined ones as their own
			 * frames. */
			uint64_t frame = s->ips[klen + i];
			uint32_t got;

			if (JVM_FRAME_IS_JAVA(frame)) {
				got = processes__java_frames(ps, s->tgid, frame, &ulocs[nu],
							     RECORD_MAX_STACK - nu);
			} else if (i + 1 < ulen &&
				   (s->ips[klen + i + 1] & V8_FRAME_TAG_MASK) == V8_PC_TAG) {
				got = processes__javascript_frames(
					ps, s->tgid, frame, s->ips[klen + i + 1] & V8_PC_MASK, i == 0,
					&ulocs[nu], RECORD_MAX_STACK - nu);
				i++;
			} else {
				ulocs[nu] = processes__javascript_location(ps, s->tgid, frame);
				got = ulocs[nu] == UINT32_MAX ? UINT32_MAX : 1;
			}
			if (got == UINT32_MAX)
				return -ENOMEM;
			if (!got) {
				ps->stats.truncated++;
				break;
			}
			for (uint32_t j = 0; j < got; j++)
				is_eval[nu + j] = false;
			nu += got;
			continue;
		}
		err = processes__user_location(ps, proc, addr, &loc);
		if (err < 0)
			return err;
		if (err == 1) {
			ps->stats.unknown_frames++;
			/*
			 * A caller outside every mapping of a process whose mappings we have
			 * is where the frame-pointer walk went astray (code built without
			 * frame pointers uses the register for data): it and what follows it
			 * are not frames.
			 */
			if (i > 0 && proc->maps_ok) {
				cut = true;
				break;
			}
		}
		if (jit != LANGUAGE_OTHER && loc.mapping == ps->anon_mapping) {
			/* A run of JIT code is one frame of its language. */
			uint32_t id = processes__jit_location(ps, jit);

			if (id == UINT32_MAX)
				return -ENOMEM;
			if (nu && ulocs[nu - 1] == id)
				continue;
			ulocs[nu] = id;
		} else {
			ulocs[nu] = profile__add_location(ps->p, &loc);
		}
		if (ulocs[nu] == UINT32_MAX)
			return -ENOMEM;
		is_eval[nu++] = python && process__is_eval(proc, &py, addr);
	}
	if (python) {
		uint32_t m = processes__interleave(ps, s, ulocs, is_eval, nu, &locs[n],
						   RECORD_MAX_STACK + RECORD_MAX_PYFRAMES);

		if (m == UINT32_MAX)
			return -ENOMEM;
		n += m;
	} else {
		memcpy(&locs[n], ulocs, nu * sizeof(*ulocs));
		n += nu;
	}
	if (ulen && cut) {
		locs[n] = processes__truncated(ps);
		if (locs[n++] == UINT32_MAX)
			return -ENOMEM;
	}
	stack = profile__add_stack(ps->p, locs, n);
	if (stack == UINT32_MAX)
		return -ENOMEM;

	labels.tid = s->pid;
	labels.thread = profile__intern(ps->p, s->comm);
	if (labels.thread == UINT32_MAX)
		return -ENOMEM;
	for (uint32_t i = 0; i < RECORD_MAX_VALUES; i++)
		values[i] = s->values[i] ? s->values[i] : ps->default_values[i];
	if (s->state <= SAMPLE_STATE_IDLE)
		labels.state = ps->state_ids[s->state];
	labels.lock = s->lock;
	if (s->wait_reason > WAIT_REASON_NONE && s->wait_reason < WAIT_REASON__COUNT) {
		labels.wait_reason =
			profile__intern(ps->p, profile_wait_reasons[s->wait_reason - 1]);
		if (labels.wait_reason == UINT32_MAX)
			return -ENOMEM;
	}
	labels.lock_kind = s->lock_kind < ps->nlock_kinds ? ps->lock_kind_ids[s->lock_kind] : 0;
	err = profile__add_sample(ps->p, stack, values, &labels);
	if (!err)
		ps->stats.samples++;
	return err;
}

int process__keep(struct process *proc, const struct stack_sample *s, size_t size)
{
	struct pending *pd;

	if (proc->npending == proc->cap_pending) {
		size_t cap = proc->cap_pending ? proc->cap_pending * 2 : 8;

		pd = realloc(proc->pending, cap * sizeof(*pd));
		if (!pd)
			return -ENOMEM;
		proc->pending = pd;
		proc->cap_pending = cap;
	}
	pd = &proc->pending[proc->npending];
	pd->record = malloc(size);
	if (!pd->record)
		return -ENOMEM;
	memcpy(pd->record, s, size);
	pd->size = size;
	proc->npending++;
	return 0;
}

/* The facts of a process nothing else told us about, from its first sample: its name,
 * parent, terminal and cgroup (a later sample has only its thread's name). */
static int process__facts_from_sample(struct processes *ps, struct process *proc,
				      const struct stack_sample *s)
{
	struct proc_info info = { 0 };

	info.pid = proc->tgid;
	if (s->flags & SAMPLE_FIRST) {
		snprintf(info.comm, sizeof(info.comm), "%.*s", RECORD_COMM_LEN, s->leader_comm);
		info.ppid = s->ppid;
		info.tty_nr = s->tty_nr;
		info.kthread = s->flags & SAMPLE_KTHREAD;
		if (cgroups__path(ps->cgroups, s->cgroup_id, info.cgroup, sizeof(info.cgroup)) ==
		    -ENOMEM)
			return -ENOMEM;
	} else {
		snprintf(info.comm, sizeof(info.comm), "%.*s", RECORD_COMM_LEN, s->comm);
	}
	ps->stats.unresolved++;
	return process__set_facts(ps, proc, &info);
}

/* Adds what proc kept aside, with what is known of it now. */
int process__flush(struct processes *ps, struct process *proc)
{
	int err = 0;

	if (proc->npending && !proc->facts) {
		const struct stack_sample *best = proc->pending[0].record;

		for (size_t i = 0; i < proc->npending; i++) {
			const struct stack_sample *s = proc->pending[i].record;

			if (s->flags & SAMPLE_FIRST) {
				best = s;
				break;
			}
		}
		err = process__facts_from_sample(ps, proc, best);
	}
	for (size_t i = 0; i < proc->npending && !err; i++)
		err = processes__emit(ps, proc, proc->pending[i].record);
	for (size_t i = 0; i < proc->npending; i++)
		free(proc->pending[i].record);
	proc->npending = 0;
	return err;
}

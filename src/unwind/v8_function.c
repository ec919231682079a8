// SPDX-License-Identifier: MIT
/*
 * One JavaScript function described from a process's heap (v8.h): its JSFunction's
 * SharedFunctionInfo and ScopeInfo read once for its name (or the name V8 inferred), its
 * script's name and where it starts. Every read goes through the caller's reader, bounded.
 * The layout it follows is v8_structs.c's, read from the binary.
 */
#include "unwind/v8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/v8_heap.h"

/* Parts of a string followed at most (a cons of conses: a path built piece by piece). */
#define STRING_MAX_PARTS 16

struct string_out {
	char *buf;
	size_t size, len; /* len < size: the NUL's place kept */
	int parts;
};

/*
 * s's characters appended to out, up to its size: a sequential string's own; a cons
 * string's first then second part; a thin string's actual one. 0, 1 (not a string of
 * those kinds, or past STRING_MAX_PARTS), <0 (the reader's error, -EINVAL).
 */
static int string_append(const struct heap *h, uint64_t s, struct string_out *out)
{
	const struct v8_layout *l = h->l;
	uint64_t tag = (uint64_t)(uint32_t)l->c[V8_HEAP_TAG], part;
	uint16_t type;
	int32_t len, repr;
	size_t room;
	int err;

	if (!heap__is_object(h, s) || ++out->parts > STRING_MAX_PARTS)
		return 1;
	err = heap__type(h, s, &type);
	if (err)
		return err;
	if (type >= (uint32_t)l->c[V8_FIRST_NONSTRING_TYPE])
		return 1;
	repr = type & l->c[V8_STRING_REPR_MASK];
	if (repr == l->c[V8_THIN_STRING_TAG]) {
		err = heap__field(h, s, l->c[V8_THIN_ACTUAL], &part);
		return err ? err : string_append(h, part, out);
	}
	if (repr == l->c[V8_CONS_STRING_TAG]) {
		err = heap__field(h, s, l->c[V8_CONS_FIRST], &part);
		if (!err)
			err = string_append(h, part, out);
		if (!err)
			err = heap__field(h, s, l->c[V8_CONS_SECOND], &part);
		return err ? err : string_append(h, part, out);
	}
	if (repr != l->c[V8_SEQ_STRING_TAG])
		return 1;
	err = h->read(h->ctx, s - tag + (uint64_t)(uint32_t)l->c[V8_STRING_LENGTH], &len,
		      sizeof(len));
	if (err)
		return err;
	if (len < 0)
		return -EINVAL;
	room = out->size - 1 - out->len;
	if ((size_t)len > room)
		len = (int32_t)room;
	if ((type & l->c[V8_STRING_ENC_MASK]) == l->c[V8_ONE_BYTE_STRING_TAG]) {
		err = h->read(h->ctx, s - tag + (uint64_t)(uint32_t)l->c[V8_SEQ_ONE_BYTE_CHARS],
			      out->buf + out->len, (size_t)len);
	} else {
		uint16_t wide[V8_MAX_SCRIPT > V8_MAX_NAME ? V8_MAX_SCRIPT : V8_MAX_NAME];

		err = h->read(h->ctx, s - tag + (uint64_t)(uint32_t)l->c[V8_SEQ_TWO_BYTE_CHARS],
			      wide, (size_t)len * 2);
		for (int32_t i = 0; !err && i < len; i++)
			out->buf[out->len + (size_t)i] = wide[i] < 0x80 ? (char)wide[i] : '?';
	}
	if (err)
		return err;
	out->len += (size_t)len;
	return 0;
}

/* A String's characters into name (size bytes, its NUL included; size at most
 * V8_MAX_SCRIPT): 0, 1 (not a string read here), <0. Control characters become '?'. */
static int read_string(const struct heap *h, uint64_t s, char *name, size_t size)
{
	struct string_out out = { name, size, 0, 0 };
	int err = string_append(h, s, &out);

	name[err ? 0 : out.len] = '\0';
	for (size_t i = 0; i < out.len && !err; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			name[i] = '?';
	return err;
}

/* Forwarding addresses followed from a JSFunction's old place (heap__function). */
#define V8_FORWARDS 2

/*
 * The SharedFunctionInfo of the JSFunction *fn_at (v8_heap.h). A JSFunction a scavenge
 * moved after it was sampled is followed to where it went: its old place keeps, in its map word, its new address (V8's forwarding address: the
 * object's untagged address, a word with the Smi tag where a map's tagged pointer should
 * be) until a later scavenge reuses that semispace; what is found there must still be a
 * JSFunction.
 */
int heap__function(const struct heap *h, uint64_t *fn_at, uint64_t *shared)
{
	const struct v8_layout *l = h->l;
	uint64_t fn = *fn_at;
	uint16_t type;
	int err;

	if (l->c[V8_TAGGED_SIZE] != 8)
		return -EINVAL; /* pointer compression: not read yet */
	for (int i = 0; i < V8_FORWARDS; i++) {
		uint64_t map;
		bool smi;

		err = heap__field(h, fn, l->c[V8_HEAP_OBJECT_MAP], &map);
		if (err)
			return err;
		heap__smi(h, map, &smi);
		if (!smi || !map || (map & 7))
			break;
		fn = map + heap__tag(h);
	}
	err = heap__type(h, fn, &type);
	if (err)
		return err;
	if (type != (uint32_t)l->c[V8_JS_FUNCTION_TYPE])
		return -EINVAL;
	*fn_at = fn;
	return heap__field(h, fn, l->c[V8_JS_FUNCTION_SHARED], shared);
}

/*
 * The function's name in the ScopeInfo n: after the context locals' names and infos (a
 * name table's one slot past V8_SCOPE_INFO_INLINED_LOCALS), then the saved class
 * variable's slot if present; the first of those two slots holding a sequential String.
 * 0 and *at its slot (words after the map), or -1 when neither does (name ""); <0.
 */
static int scope_name(const struct heap *h, uint64_t n, char *name, int32_t *at)
{
	const struct v8_layout *l = h->l;
	int32_t nlocals, slot, ts = l->c[V8_TAGGED_SIZE];
	uint64_t nlocals_v;
	uint16_t type;
	bool ok;
	int err;

	*at = -1;
	name[0] = '\0';
	err = heap__type(h, n, &type);
	if (err)
		return err;
	if (type != (uint32_t)l->c[V8_SCOPE_INFO_TYPE])
		return -EINVAL;
	err = heap__field(h, n, ts * (1 + l->c[V8_SCOPE_INFO_NLOCALS]), &nlocals_v);
	if (err)
		return err;
	nlocals = heap__smi(h, nlocals_v, &ok);
	if (!ok || nlocals < 0 || nlocals > 4096 / 8)
		return -EINVAL;
	slot = l->c[V8_SCOPE_INFO_FIRST_VARS] +
	       (nlocals > V8_SCOPE_INFO_INLINED_LOCALS ? 1 + nlocals : 2 * nlocals);
	for (int i = 0; i < 2; i++) {
		uint64_t s;

		err = heap__field(h, n, ts * (1 + slot + i), &s);
		if (err)
			return err;
		err = read_string(h, s, name, V8_MAX_NAME);
		if (err < 0)
			return err;
		if (err == 0) {
			*at = slot + i;
			return 0;
		}
	}
	name[0] = '\0';
	return 0; /* no name in either slot: anonymous */
}

/* The name of the Script s (a file's path, a module's URL) into script: "" when s is not
 * a Script (undefined for a builtin, a DebugInfo for a function being debugged) or its
 * name not a String read here. 1 when s is a Script, 0 when not, or the reader's error. */
static int script_of(const struct heap *h, uint64_t s, char *script)
{
	const struct v8_layout *l = h->l;
	uint16_t type;
	uint64_t n;
	int err;

	script[0] = '\0';
	if (!heap__is_object(h, s) || heap__type(h, s, &type) != 0 ||
	    type != (uint32_t)l->c[V8_SCRIPT_TYPE])
		return 0;
	err = heap__field(h, s, l->c[V8_SCRIPT_NAME], &n);
	if (!err)
		err = read_string(h, n, script, V8_MAX_SCRIPT);
	if (err)
		script[0] = '\0'; /* undefined, or a string not read: no name */
	return err < 0 ? err : 1;
}

/*
 * Where the function of ScopeInfo n starts (StartPosition): the two Smis (start, end)
 * after its name's slot at, the name's context slot and the inferred name when that is
 * there (a String or undefined: a heap object). -1 when they are not two such Smis.
 */
static int32_t start_of(const struct heap *h, uint64_t n, int32_t at)
{
	int32_t ts = h->l->c[V8_TAGGED_SIZE], start, end;
	uint64_t w[2];
	bool ok[2];

	at += 2;
	if (heap__field(h, n, ts * (1 + at), &w[0]))
		return -1;
	if (heap__is_object(h, w[0]))
		at++;
	if (heap__field(h, n, ts * (1 + at), &w[0]) || heap__field(h, n, ts * (2 + at), &w[1]))
		return -1;
	start = heap__smi(h, w[0], &ok[0]);
	end = heap__smi(h, w[1], &ok[1]);
	return ok[0] && ok[1] && start >= 0 && end > start ? start : -1;
}

int v8_function__describe(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
			  struct v8_function *out)
{
	struct heap h = { l, read, ctx };
	uint64_t shared;
	int err;

	out->name[0] = out->script[0] = '\0';
	out->script_at = 0;
	out->start = -1;
	err = heap__function(&h, &fn, &shared);
	if (!err)
		err = v8_shared__describe(l, read, ctx, shared, out);
	if (!err && out->start < 0)
		out->script_at = 0; /* no start: nothing to find a line for */
	return err;
}

int v8_shared__describe(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t shared,
			struct v8_function *out)
{
	struct heap h = { l, read, ctx };
	uint64_t n, s, inferred;
	int32_t at = -1;
	int err;

	out->name[0] = out->script[0] = '\0';
	out->script_at = 0;
	out->start = -1;
	err = heap__field(&h, shared, l->c[V8_SFI_NAME], &n);
	if (err)
		return err;
	err = read_string(&h, n, out->name, V8_MAX_NAME);
	if (err < 0)
		return err;
	if (err > 0) {
		/* not a String: the ScopeInfo of a compiled function */
		err = scope_name(&h, n, out->name, &at);
		if (err)
			return err;
		/* No name of its own (a function expression): the name V8 inferred from
		 * where it was put ("Ledger.settle" for Ledger.settle = function ...), two
		 * slots after the name's, when it holds a String (else undefined: it stays
		 * anonymous). */
		if (!out->name[0] && at >= 0) {
			err = heap__field(&h, n, l->c[V8_TAGGED_SIZE] * (1 + at + 2), &inferred);
			if (err)
				return err;
			if (heap__is_object(&h, inferred) &&
			    read_string(&h, inferred, out->name, V8_MAX_NAME) != 0)
				out->name[0] = '\0';
		}
	}
	/* The rest is extra: a script or start not read leaves them "" and -1. */
	if (heap__field(&h, shared, l->c[V8_SFI_SCRIPT], &s) || script_of(&h, s, out->script) <= 0)
		return 0;
	out->script_at = s;
	/* a name that is a String: never compiled, no ScopeInfo (a function sampled has one) */
	if (at >= 0)
		out->start = start_of(&h, n, at);
	return 0;
}

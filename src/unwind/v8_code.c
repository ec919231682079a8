// SPDX-License-Identifier: MIT
/*
 * Where a JavaScript frame was in its function's optimised or baseline code (v8.h): the
 * function's Code (the JSFunction's), the place of the frame's PC in its instructions,
 * the entry of V8's own source position table at or before it (a script offset and an
 * inlining id), and, up the inlining ids, each function TurboFan inlined there, from the
 * Code's deoptimization data (its inlined functions and where each was called); in
 * baseline code, the bytecode whose code holds the PC, and its place in the bytecodes'
 * own position table. The same data
 * V8 reads for its own stack traces and CPU profiler; every read bounded and checked.
 */
#include "unwind/v8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/v8_heap.h"

/* V8's SourcePosition: bit 0 external (a position in another file: not read here), the
 * script offset + 1 in the next 30 bits, the inlining id + 1 in the 16 after them. */
#define POSITION_EXTERNAL 1ull
#define POSITION_OFFSET_SHIFT 1
#define POSITION_OFFSET_MASK ((1ull << 30) - 1)
#define POSITION_INLINING_SHIFT 31
#define POSITION_INLINING_MASK ((1ull << 16) - 1)
#define POSITION_MAX ((int64_t)1 << 47) /* the 47 bits those use */
/* An InliningPosition: the call's SourcePosition, then the inlined function's index
 * among the deoptimization data's literals (an int), padded to 16 bytes. */
#define INLINING_POSITION_SIZE 16
#define INLINING_FUNCTION_AT 8
/* A weak reference's tag bit (the literal array is weak: its slots are tagged 0b11). */
#define WEAK_BIT 2ull

static int32_t position_offset(uint64_t pos)
{
	return (int32_t)((pos >> POSITION_OFFSET_SHIFT) & POSITION_OFFSET_MASK) - 1;
}

static int32_t position_inlining(uint64_t pos)
{
	return (int32_t)((pos >> POSITION_INLINING_SHIFT) & POSITION_INLINING_MASK) - 1;
}

/* A number of V8's tables at *at, 7 bits a byte, low first, the top bit saying more
 * follow (base::VLQEncodeUnsigned); a byte that would begin at bit `bits` or later makes
 * it malformed. -EINVAL then, or when it runs off the table. */
static int table_unsigned(const uint8_t *t, size_t len, size_t *at, unsigned bits,
			  uint64_t *v)
{
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (*at >= len || shift >= bits)
			return -EINVAL;
		b = t[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

/* A signed number of a source position table: as table_unsigned, then zigzag (the low
 * bit the sign). */
static int table_number(const uint8_t *t, size_t len, size_t *at, int64_t *v)
{
	uint64_t bits;
	int err = table_unsigned(t, len, at, 64, &bits);

	if (!err)
		*v = (int64_t)(bits >> 1) ^ -(int64_t)(bits & 1);
	return err;
}

int v8_positions__find(const uint8_t *table, size_t len, int32_t off, uint64_t *pos)
{
	int64_t code = 0, position = 0, dc, dp;
	bool found = false;
	size_t at = 0;

	while (at < len) {
		if (table_number(table, len, &at, &dc) || table_number(table, len, &at, &dp))
			return -EINVAL;
		/* the code offset's delta, its sign saying whether a statement begins there;
		 * both kept within what a Code and a SourcePosition can hold */
		if (dc < -(int64_t)INT32_MAX - 1 || dc > INT32_MAX || dp < -POSITION_MAX ||
		    dp > POSITION_MAX)
			return -EINVAL;
		if (dc < 0)
			dc = -(dc + 1);
		code += dc;
		position += dp;
		if (code > INT32_MAX || position < 0 || position > POSITION_MAX)
			return -EINVAL;
		if (code > off)
			break;
		*pos = (uint64_t)position;
		found = true;
	}
	return found ? 0 : -ENOENT;
}

/* A heap object of type want at the field off of obj: 0, -EINVAL, or the reader's error. */
static int typed_field(const struct heap *h, uint64_t obj, int32_t off, int32_t want,
		       uint64_t *v)
{
	uint16_t type;
	int err = heap__field(h, obj, off, v);

	if (!err && !heap__is_object(h, *v))
		err = -EINVAL;
	if (!err)
		err = heap__type(h, *v, &type);
	return err ? err : type == (uint32_t)want ? 0 : -EINVAL;
}

/* A FixedArrayBase's length (a Smi): 0, -EINVAL, or the reader's error. */
static int array_length(const struct heap *h, uint64_t a, int32_t *len)
{
	uint64_t v;
	bool ok;
	int err = heap__field(h, a, h->l->c[V8_FIXED_ARRAY_LENGTH], &v);

	if (err)
		return err;
	*len = heap__smi(h, v, &ok);
	return ok && *len >= 0 ? 0 : -EINVAL;
}

/* Element i of the FixedArray a (length len): 0, -EINVAL, or the reader's error. */
static int array_at(const struct heap *h, uint64_t a, int32_t len, int32_t i, uint64_t *v)
{
	if (i < 0 || i >= len)
		return -EINVAL;
	return h->read(h->ctx,
		       a - heap__tag(h) + (uint64_t)(uint32_t)h->l->c[V8_FIXED_ARRAY_DATA] +
			       8 * (uint64_t)i,
		       v, sizeof(*v));
}

/*
 * Where code's instructions start (and how long they are: V8_MAX_CODE_SIZE when the
 * layout does not say). V8 10: after the Code's header. V8 11: in the InstructionStream
 * among the Code's fields whose instructions' start is also among them (its entry point,
 * a raw address). 0, -ENOENT, or the reader's error.
 */
static int code_instructions(const struct heap *h, uint64_t code, uint64_t *start,
			     uint64_t *size)
{
	const struct v8_code_layout *c = &h->l->code;
	uint64_t w[11]; /* V8 11's Code: 88 bytes */
	int err;

	*size = V8_MAX_CODE_SIZE;
	if (c->start >= 0) {
		int32_t n;

		*start = code - heap__tag(h) + (uint64_t)c->start;
		if (c->size < 0)
			return 0;
		err = h->read(h->ctx, code - heap__tag(h) + (uint64_t)c->size, &n, sizeof(n));
		if (err)
			return err;
		if (n <= 0 || (uint32_t)n > V8_MAX_CODE_SIZE)
			return -ENOENT;
		*size = (uint64_t)n;
		return 0;
	}
	err = h->read(h->ctx, code - heap__tag(h), w, sizeof(w));
	if (err)
		return err;
	for (unsigned i = 1; i < sizeof(w) / sizeof(w[0]); i++) {
		uint64_t entry = w[i] - heap__tag(h) + (uint64_t)(uint32_t)h->l->c[V8_ISTREAM_START];
		uint16_t type;

		if (!heap__is_object(h, w[i]) || w[i] == code ||
		    heap__type(h, w[i], &type) != 0 || type != (uint32_t)h->l->c[V8_ISTREAM_TYPE])
			continue;
		for (unsigned j = 1; j < sizeof(w) / sizeof(w[0]); j++) {
			if (w[j] == entry) {
				*start = entry;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/*
 * The functions inlined at pos in code whose deoptimization data is deopt, innermost
 * first, into out (at most max): each the SharedFunctionInfo of the literal its
 * InliningPosition names, at pos's offset; then pos becomes the call's place, up to
 * the function's own place (no inlining id). 0 (*pos the function's own place, *n
 * written), -EINVAL, or the reader's error.
 */
static int inlined(const struct heap *h, uint64_t deopt, uint64_t *pos, struct v8_position *out,
		   unsigned max, unsigned *n)
{
	const struct v8_layout *l = h->l;
	int32_t len, count, nliterals, npositions, id;
	uint64_t v, literals, positions;
	bool ok;
	int err;

	*n = 0;
	if (position_inlining(*pos) < 0)
		return 0;
	if (!l->code.inlining)
		return -EINVAL;
	err = array_length(h, deopt, &len);
	if (!err)
		err = array_at(h, deopt, len, l->c[V8_DEOPT_INLINED_COUNT], &v);
	if (err)
		return err;
	count = heap__smi(h, v, &ok);
	if (!ok || count <= 0)
		return -EINVAL;
	err = array_at(h, deopt, len, l->c[V8_DEOPT_LITERALS], &literals);
	if (!err)
		err = array_length(h, literals, &nliterals);
	if (!err)
		err = array_at(h, deopt, len, l->c[V8_DEOPT_INLINING_POSITIONS], &positions);
	if (!err)
		err = array_length(h, positions, &npositions);
	if (err)
		return err;
	npositions /= INLINING_POSITION_SIZE;
	while ((id = position_inlining(*pos)) >= 0) {
		uint64_t at = positions - heap__tag(h) + (uint64_t)(uint32_t)l->c[V8_FIXED_ARRAY_DATA] +
			      (uint64_t)id * INLINING_POSITION_SIZE;
		uint64_t call, shared;
		int32_t literal;

		if (*n >= max || id >= npositions || (*pos & POSITION_EXTERNAL))
			return -EINVAL;
		err = h->read(h->ctx, at, &call, sizeof(call));
		if (!err)
			err = h->read(h->ctx, at + INLINING_FUNCTION_AT, &literal, sizeof(literal));
		if (!err)
			err = literal < count ? array_at(h, literals, nliterals, literal, &shared)
					      : -EINVAL;
		if (err)
			return err;
		if ((shared & 3) == 3)
			shared &= ~WEAK_BIT; /* a weak reference: the object's tagged pointer */
		if (!heap__is_object(h, shared))
			return -EINVAL;
		out[(*n)++] = (struct v8_position){ shared, position_offset(*pos) };
		/* the caller's place: before the callee's in the caller's own chain */
		if (position_inlining(call) >= id)
			return -EINVAL;
		*pos = call;
	}
	return 0;
}

/* A ByteArray's bytes (at most max of them): 0 and *bytes (free it) and *len, -ENOENT
 * (empty or longer), -ENOMEM, -EINVAL, or the reader's error. */
static int byte_array(const struct heap *h, uint64_t a, int32_t data, uint32_t max,
		      uint8_t **bytes, int32_t *len)
{
	int err = array_length(h, a, len);

	if (err)
		return err;
	if (!*len || (uint32_t)*len > max)
		return -ENOENT;
	*bytes = malloc((size_t)*len);
	if (!*bytes)
		return -ENOMEM;
	err = h->read(h->ctx, a - heap__tag(h) + (uint64_t)(uint32_t)data, *bytes, (size_t)*len);
	if (err) {
		free(*bytes);
		*bytes = NULL;
	}
	return err;
}

int v8_bytecode__at_pc(const struct v8_layout *l, const uint8_t *offsets, size_t noffsets,
		       const uint8_t *bytecodes, size_t nbytecodes, uint32_t pc_offset,
		       int32_t *bytecode)
{
	uint64_t end, step;
	size_t at = 0, bc = 0;
	int32_t current = -1;

	/* the prologue's end, then each bytecode's code's length, in the bytecodes' order */
	if (!l->nbytecodes || table_unsigned(offsets, noffsets, &at, 36, &end))
		return -EINVAL;
	while (end < pc_offset) {
		unsigned scale = 0, prefix = 0, size;
		uint8_t op;

		if (bc >= nbytecodes || at >= noffsets)
			return -ENOENT; /* past the code the table covers */
		op = bytecodes[bc];
		if (op == V8_BYTECODE_WIDE || op == V8_BYTECODE_EXTRA_WIDE) {
			scale = op == V8_BYTECODE_WIDE ? 1 : 2;
			prefix = 1;
			if (bc + 1 >= nbytecodes)
				return -EINVAL;
			op = bytecodes[bc + 1];
		}
		if (op >= l->nbytecodes)
			return -EINVAL;
		size = prefix + l->bytecode_sizes[scale][op];
		current = (int32_t)bc;
		bc += size;
		if (table_unsigned(offsets, noffsets, &at, 36, &step))
			return -EINVAL;
		end += step;
	}
	if (current < 0)
		return -ENOENT; /* the prologue: no bytecode yet */
	*bytecode = current;
	return 0;
}

/*
 * The place of baseline (Sparkplug) code's PC (its offset pc_offset: a return address's,
 * or a leaf's + 1, as V8 looks it up): the bytecode whose code holds it (the Code's
 * offset table, walked with the bytecodes' sizes), then that bytecode's position in the
 * BytecodeArray's own source position table (V8 makes it when it must: without it, no
 * place). 0 and *offset, -ENOENT, -EINVAL, or the reader's error.
 */
static int baseline_place(const struct heap *h, uint64_t bytecodes, uint64_t offsets,
			  uint32_t pc_offset, int32_t *offset)
{
	const struct v8_layout *l = h->l;
	uint8_t *table = NULL, *code = NULL, *positions = NULL;
	int32_t ntable, ncode, npositions, bytecode;
	uint64_t pos_table, pos = 0;
	int err;

	err = typed_field(h, bytecodes, l->code.bytecode_positions, l->c[V8_BYTE_ARRAY_TYPE],
			  &pos_table);
	if (err)
		return -ENOENT; /* no table yet (V8's lazy source positions) */
	err = byte_array(h, offsets, l->c[V8_FIXED_ARRAY_DATA], V8_MAX_POSITIONS, &table, &ntable);
	if (!err)
		err = byte_array(h, bytecodes, l->c[V8_BYTECODE_ARRAY_DATA], V8_MAX_POSITIONS, &code,
				 &ncode);
	if (!err)
		err = v8_bytecode__at_pc(l, table, (size_t)ntable, code, (size_t)ncode, pc_offset,
					 &bytecode);
	if (!err)
		err = byte_array(h, pos_table, l->c[V8_FIXED_ARRAY_DATA], V8_MAX_POSITIONS,
				 &positions, &npositions);
	if (!err)
		err = v8_positions__find(positions, (size_t)npositions, bytecode, &pos);
	free(table);
	free(code);
	free(positions);
	if (err)
		return err;
	if ((pos & POSITION_EXTERNAL) || position_inlining(pos) >= 0)
		return -ENOENT;
	*offset = position_offset(pos);
	return 0;
}

int v8_code__positions(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t fn,
		       uint64_t pc, bool leaf, struct v8_position *out, unsigned max, unsigned *n)
{
	struct heap h = { l, read, ctx };
	uint64_t shared, code, deopt, table, start = 0, size = 0, pos = 0;
	uint8_t *bytes = NULL;
	int32_t len, off;
	bool baseline;
	unsigned k = 0;
	int err;

	*n = 0;
	if (!l->code.found || !max)
		return -ENOENT;
	err = heap__function(&h, &fn, &shared);
	if (!err)
		err = typed_field(&h, fn, l->code.function_code, l->c[V8_CODE_TYPE], &code);
	if (err)
		return err;
	/* Optimised code: its deoptimization data and position table; baseline code keeps
	 * its BytecodeArray and its offset table in those two slots */
	if (typed_field(&h, code, l->code.positions, l->c[V8_BYTE_ARRAY_TYPE], &table))
		return -ENOENT;
	if (typed_field(&h, code, l->code.deopt, l->c[V8_FIXED_ARRAY_TYPE], &deopt) == 0)
		baseline = false;
	else if (l->code.baseline &&
		 typed_field(&h, code, l->code.deopt, l->c[V8_BYTECODE_ARRAY_TYPE], &deopt) == 0)
		baseline = true;
	else
		return -ENOENT;
	err = code_instructions(&h, code, &start, &size);
	if (err)
		return err;
	if (pc < start + !leaf || pc - start - !leaf >= size)
		return -ENOENT; /* not this code's: interpreted, or since replaced */
	off = (int32_t)(pc - start - !leaf);
	if (baseline) {
		/* V8 looks a return address up as is, a leaf's PC as the next byte */
		err = baseline_place(&h, deopt, table, (uint32_t)off + 1, &out[0].offset);
		if (err)
			return err;
		out[0].shared = shared;
		*n = 1;
		return 0;
	}
	err = byte_array(&h, table, l->c[V8_FIXED_ARRAY_DATA], V8_MAX_POSITIONS, &bytes, &len);
	if (!err)
		err = v8_positions__find(bytes, (size_t)len, off, &pos);
	free(bytes);
	if (err)
		return err;
	if (pos & POSITION_EXTERNAL)
		return -ENOENT;
	/* The inlined functions, when they can be read; else the function's own place is
	 * not known either (pos is an inlined one's): its place alone, no offset. */
	if (inlined(&h, deopt, &pos, out, max - 1, &k) != 0) {
		k = 0;
		pos = 0; /* offset -1 */
	}
	out[k++] = (struct v8_position){ shared, position_offset(pos) };
	*n = k;
	return 0;
}

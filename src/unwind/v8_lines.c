// SPDX-License-Identifier: MIT
/*
 * A JavaScript function's line (v8.h): its start position (v8_function__describe's) found
 * among its script's line ends, V8's own when it has computed them, otherwise counted in
 * the script's source, read through the reader a piece at a time and bounded
 * (V8_MAX_SOURCE characters, V8_MAX_LINE_ENDS lines). The caller keeps a script's line
 * ends, so each script is read once (src/capture/v8_procs.c).
 */
#include <stdlib.h>
#include <string.h>

#include "unwind/v8.h"
#include "unwind/v8_heap.h"

#define SOURCE_CHUNK 4096 /* bytes read at once */

static int ends__add(struct v8_line_ends *e, uint32_t *cap, int32_t at)
{
	if (e->n == *cap) {
		uint32_t grown = *cap ? *cap * 2 : 256;
		int32_t *p;

		if (grown > V8_MAX_LINE_ENDS)
			grown = V8_MAX_LINE_ENDS;
		if (e->n == grown)
			return 1; /* full: what follows is not covered */
		p = realloc(e->ends, grown * sizeof(*p));
		if (!p)
			return -ENOMEM;
		e->ends = p;
		*cap = grown;
	}
	e->ends[e->n++] = at;
	return 0;
}

/* V8's Script::line_ends, when a FixedArray of ascending Smis: 0, -ENOENT (not computed,
 * or not that), -ENOMEM, or the reader's error. */
static int ends__from_v8(const struct heap *h, uint64_t script, struct v8_line_ends *e)
{
	const struct v8_layout *l = h->l;
	uint64_t arr, len_v, words[64];
	uint32_t cap = 0;
	int32_t len, prev = -1;
	uint16_t type;
	bool ok;
	int err;

	err = heap__field(h, script, l->c[V8_SCRIPT_LINE_ENDS], &arr);
	if (err)
		return err;
	if (!heap__is_object(h, arr) || heap__type(h, arr, &type) != 0 ||
	    type != (uint32_t)l->c[V8_FIXED_ARRAY_TYPE])
		return -ENOENT;
	err = heap__field(h, arr, l->c[V8_FIXED_ARRAY_LENGTH], &len_v);
	if (err)
		return err;
	len = heap__smi(h, len_v, &ok);
	if (!ok || len <= 0 || (uint32_t)len > V8_MAX_LINE_ENDS || l->c[V8_FIXED_ARRAY_DATA] < 0)
		return -ENOENT;
	for (int32_t i = 0; i < len; i += 64) {
		uint32_t k = len - i < 64 ? (uint32_t)(len - i) : 64;

		err = h->read(h->ctx, arr - heap__tag(h) + (uint64_t)l->c[V8_FIXED_ARRAY_DATA] +
					      8ull * (uint64_t)i,
			      words, k * sizeof(words[0]));
		for (uint32_t j = 0; j < k && !err; j++) {
			int32_t at = heap__smi(h, words[j], &ok);

			if (!ok || at <= prev)
				err = -ENOENT; /* not line ends */
			else
				err = ends__add(e, &cap, prev = at) > 0 ? -ENOENT : 0;
		}
		if (err)
			return err;
	}
	e->known = prev + 1;
	return 0;
}

/* The '\n's of the script's source, when a sequential string (or a thin one to it). */
static int ends__from_source(const struct heap *h, uint64_t script, struct v8_line_ends *e)
{
	const struct v8_layout *l = h->l;
	uint8_t chunk[SOURCE_CHUNK];
	uint64_t s, chars;
	uint32_t cap = 0;
	int32_t len, repr, done = 0;
	uint16_t type;
	bool one_byte;
	int err;

	err = heap__field(h, script, l->c[V8_SCRIPT_SOURCE], &s);
	for (int thin = 0; !err; thin++) {
		if (!heap__is_object(h, s) || heap__type(h, s, &type) != 0 ||
		    type >= (uint32_t)l->c[V8_FIRST_NONSTRING_TYPE])
			return -ENOENT;
		repr = type & l->c[V8_STRING_REPR_MASK];
		if (repr != l->c[V8_THIN_STRING_TAG] || thin == 2)
			break;
		err = heap__field(h, s, l->c[V8_THIN_ACTUAL], &s);
	}
	if (err)
		return err;
	if (repr != l->c[V8_SEQ_STRING_TAG])
		return -ENOENT; /* external (node's own modules), cons, sliced: not read */
	err = h->read(h->ctx, s - heap__tag(h) + (uint64_t)(uint32_t)l->c[V8_STRING_LENGTH], &len,
		      sizeof(len));
	if (err)
		return err;
	if (len < 0)
		return -ENOENT;
	if ((uint32_t)len > V8_MAX_SOURCE)
		len = (int32_t)V8_MAX_SOURCE;
	one_byte = (type & l->c[V8_STRING_ENC_MASK]) == l->c[V8_ONE_BYTE_STRING_TAG];
	chars = s - heap__tag(h) +
		(uint64_t)(uint32_t)l->c[one_byte ? V8_SEQ_ONE_BYTE_CHARS : V8_SEQ_TWO_BYTE_CHARS];
	while (done < len) {
		uint32_t per = one_byte ? 1 : 2, k = (uint32_t)(len - done);
		int full = 0;

		if (k > SOURCE_CHUNK / per)
			k = SOURCE_CHUNK / per;
		err = h->read(h->ctx, chars + (uint64_t)done * per, chunk, (size_t)k * per);
		if (err)
			return err;
		for (uint32_t i = 0; i < k && !full; i++) {
			uint16_t c = one_byte ? chunk[i] : (uint16_t)(chunk[2 * i] | chunk[2 * i + 1] << 8);

			if (c == '\n' && (full = ends__add(e, &cap, done + (int32_t)i)) < 0)
				return full;
			if (full) {
				e->known = done + (int32_t)i; /* this line's end not kept */
				return 0;
			}
		}
		done += (int32_t)k;
	}
	e->known = done;
	return 0;
}

int v8_script__line_ends(const struct v8_layout *l, v8_read_fn read, void *ctx, uint64_t script,
			 struct v8_line_ends *out)
{
	struct heap h = { l, read, ctx };
	int err;

	memset(out, 0, sizeof(*out));
	if (!l->lines || l->c[V8_TAGGED_SIZE] != 8)
		return -ENOENT;
	err = ends__from_v8(&h, script, out);
	if (err == -ENOENT) {
		v8_line_ends__free(out);
		err = ends__from_source(&h, script, out);
	}
	if (err)
		v8_line_ends__free(out);
	return err;
}

int32_t v8_line_ends__line(const struct v8_line_ends *e, int32_t pos)
{
	uint32_t lo = 0, hi = e->n;

	if (pos < 0 || pos >= e->known)
		return 0;
	/* the first end at or after pos: its line */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo >= 0x7fffffff ? 0 : (int32_t)lo + 1;
}

void v8_line_ends__free(struct v8_line_ends *e)
{
	free(e->ends);
	memset(e, 0, sizeof(*e));
}

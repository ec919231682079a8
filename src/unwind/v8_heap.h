/* SPDX-License-Identifier: MIT */
/*
 * V8's heap as the readers of v8_function.c and v8_lines.c walk it (v8.h): tagged words
 * read through a reader of the process, each checked for what it must be (a heap object,
 * a Smi) before it is followed, every field offset bounded. Internal to src/unwind/.
 */
#ifndef SLIDEOPS_UNWIND_V8_HEAP_H
#define SLIDEOPS_UNWIND_V8_HEAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind/v8.h"

struct heap {
	const struct v8_layout *l;
	v8_read_fn read;
	void *ctx;
};

static inline uint64_t heap__tag(const struct heap *h)
{
	return (uint64_t)(uint32_t)h->l->c[V8_HEAP_TAG];
}

static inline bool heap__is_object(const struct heap *h, uint64_t v)
{
	return (v & (uint64_t)(uint32_t)h->l->c[V8_HEAP_TAG_MASK]) == heap__tag(h);
}

/* The tagged word at a heap object's field. */
static inline int heap__field(const struct heap *h, uint64_t obj, int32_t off, uint64_t *v)
{
	if (!heap__is_object(h, obj) || off < 0 || off > 4096)
		return -EINVAL;
	return h->read(h->ctx, obj - heap__tag(h) + (uint64_t)off, v, sizeof(*v));
}

static inline int heap__type(const struct heap *h, uint64_t obj, uint16_t *type)
{
	uint64_t map;
	int err = heap__field(h, obj, h->l->c[V8_HEAP_OBJECT_MAP], &map);

	if (err)
		return err;
	if (!heap__is_object(h, map) || h->l->c[V8_MAP_INSTANCE_TYPE] < 0)
		return -EINVAL;
	return h->read(h->ctx, map - heap__tag(h) + (uint64_t)h->l->c[V8_MAP_INSTANCE_TYPE], type,
		       sizeof(*type));
}

static inline int32_t heap__smi(const struct heap *h, uint64_t v, bool *ok)
{
	int shift = h->l->c[V8_SMI_SHIFT] + 1; /* the tag's bit and the shift */

	*ok = (v & (uint64_t)(uint32_t)h->l->c[V8_SMI_TAG_MASK]) ==
		      (uint64_t)(uint32_t)h->l->c[V8_SMI_TAG] &&
	      shift > 0 && shift < 64;
	return *ok ? (int32_t)((int64_t)v >> shift) : 0;
}

/* The JSFunction at *fn (followed to where a scavenge moved it: *fn updated) and its
 * SharedFunctionInfo: 0, -EINVAL (not a JSFunction), or the reader's error
 * (v8_function.c). */
int heap__function(const struct heap *h, uint64_t *fn, uint64_t *shared);

#endif

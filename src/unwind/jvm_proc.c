// SPDX-License-Identifier: MIT
/*
 * A JVM's struct jvm_proc (bpf/jvm_records.h) from its layout (jvm.h): the offsets the
 * frame walker reads, narrowed to the record's fields, and the code heaps as they are
 * when read. The heaps' reserved ranges never move; their committed ends grow as code is
 * added, so a record read early covers less than the heap will: read again at each of the
 * capture's polls (a few reads).
 */
#include "unwind/jvm.h"

#include <errno.h>
#include <string.h>

#include "../../bpf/jvm_records.h"

static int read_u64(jvm_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	return read(ctx, addr, v, sizeof(*v)) ? -EFAULT : 0;
}

int jvm_proc__init(const struct jvm_layout *l, jvm_read_fn read, void *ctx, struct jvm_proc *p)
{
	uint64_t heaps, data, low, high;
	uint32_t n;

	memset(p, 0, sizeof(*p));
	if (l->heap_block > 64 || l->blob_name > UINT16_MAX || l->compiled_method > UINT16_MAX)
		return -EINVAL;
	p->heap_block = (uint16_t)l->heap_block;
	p->blob_name = (uint16_t)l->blob_name;
	p->blob_frame_size = (uint16_t)l->blob_frame_size;
	p->blob_code_begin = (uint16_t)l->blob_code_begin;
	p->blob_frame_complete = (uint16_t)l->blob_frame_complete;
	p->compiled_method = (uint16_t)l->compiled_method;
	p->interp_method = (int16_t)l->interp_method;
	p->interp_bcp = (int16_t)l->interp_bcp;
	p->nmethod_verified_entry = (uint16_t)l->nmethod_verified_entry;
	if (read(ctx, l->code_cache_low, &p->code_low, sizeof(p->code_low)) ||
	    read(ctx, l->code_cache_high, &p->code_high, sizeof(p->code_high)) ||
	    read_u64(read, ctx, l->code_cache_heaps, &heaps) ||
	    read(ctx, heaps + l->growable_len, &n, sizeof(n)) ||
	    read_u64(read, ctx, heaps + l->growable_data, &data))
		return -EFAULT;
	if (p->code_low >= p->code_high || !n || n > 64)
		return -EINVAL;
	for (uint32_t i = 0; i < n && p->nheaps < JVM_MAX_HEAPS; i++) {
		struct jvm_heap *h = &p->heaps[p->nheaps];
		uint64_t heap;
		int32_t log2;

		if (read_u64(read, ctx, data + 8ull * i, &heap) ||
		    read_u64(read, ctx, heap + l->heap_memory + l->vspace_low, &low) ||
		    read_u64(read, ctx, heap + l->heap_memory + l->vspace_high, &high) ||
		    read(ctx, heap + l->heap_segmap + l->vspace_low, &h->segmap, sizeof(h->segmap)) ||
		    read(ctx, heap + l->heap_log2_segment, &log2, sizeof(log2)))
			return -EFAULT;
		/* a heap not yet committed is skipped; one outside the cache is a lie */
		if (low >= high)
			continue;
		if (low < p->code_low || high > p->code_high || log2 < 4 || log2 > 20 || !h->segmap)
			return -EINVAL;
		h->low = low;
		h->high = high;
		h->log2_segment = (uint32_t)log2;
		p->nheaps++;
	}
	return p->nheaps ? 0 : -EINVAL;
}

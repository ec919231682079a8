// SPDX-License-Identifier: MIT
/*
 * The methods a compiled PC runs (jvm.h, jvm_nmethod__scopes): C1 and C2 inline callees
 * into their caller's nmethod, so a PC of it may be in several methods at once, each at
 * a bytecode. HotSpot records that for every call and safepoint as a PcDesc (the PC's
 * offset from the code's start, and where its scope is in the scope data) and a chain
 * of scopes in the scope data, each (the sender's offset, the method's index in the
 * nmethod's metadata, the bci + 1), UNSIGNED5-coded (DebugInformationRecorder writes
 * them, ScopeDesc::decode_body reads them). An nmethod of JDK 17:
 *
 *   header | relocations | constants | code | stubs | oops | metadata | scope data |
 *   PcDescs | dependencies | ...
 *
 * Called once per sampled word (processes_frames.c caches the frames), off the sampling
 * path, through the reader the capture gives (the kernel's copy of the JVM's pages).
 * Everything read is the JVM's memory and so untrusted: every offset is checked against
 * the region it must fall in, the PcDesc search is a bounded binary search, and the
 * chain of scopes must go back through the data (each sender written before its scope)
 * within JVM_MAX_SCOPES.
 */
#include "unwind/jvm.h"

#include <errno.h>
#include <string.h>

#include "../../bpf/jvm_records.h"

/* The most PcDescs believed of one nmethod (a large C2 method has a few thousand). */
#define MAX_PC_DESCS (1u << 20)
/* One scope's header: three UNSIGNED5 ints, at most 5 bytes each. */
#define SCOPE_BYTES 15u

static int read_i32(jvm_read_fn read, void *ctx, uint64_t addr, int32_t *v)
{
	return read(ctx, addr, v, sizeof(*v)) ? -EFAULT : 0;
}

/* Whether blob is an nmethod: its name's first 8 bytes, as the frame walker tells
 * (bpf/jvm_walk.h's jvm_walk__kind, the names of bpf/jvm_records.h). */
static int is_nmethod(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t blob)
{
	uint64_t name, text;

	if (read(ctx, blob + l->blob_name, &name, sizeof(name)) || !name ||
	    read(ctx, name, &text, sizeof(text)))
		return -EFAULT;
	return text == JVM_BLOB_NMETHOD || text == JVM_BLOB_NATIVE_NMETHOD ? 0 : -EINVAL;
}

/* The first PcDesc of the n at pcs whose PC offset is at or after off (the search of
 * nmethod::find_pc_desc_internal, approximate): its index, or n when there is none. */
static int first_at_or_after(const struct jvm_layout *l, jvm_read_fn read, void *ctx,
			     uint64_t pcs, uint32_t n, int64_t off, uint32_t *at)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int32_t pc;

		if (read_i32(read, ctx, pcs + (uint64_t)mid * l->pc_desc_size + l->pc_desc_pc, &pc))
			return -EFAULT;
		if (pc < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

int jvm_nmethod__scopes(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t blob,
			uint64_t pc_offset, struct jvm_scope *out, unsigned max, unsigned *n)
{
	uint64_t method, code, code_end, pc = blob + pc_offset, data, pcs, pcs_end, meta;
	int32_t pcs_off, deps_off, meta_off, decode;
	uint32_t npcs, at;
	int err;

	*n = 0;
	if (!max || !blob || (blob & 7))
		return -EINVAL;
	if ((err = is_nmethod(l, read, ctx, blob)))
		return err;
	if (read(ctx, blob + l->compiled_method, &method, sizeof(method)) ||
	    read(ctx, blob + l->blob_code_begin, &code, sizeof(code)) ||
	    read(ctx, blob + l->blob_code_end, &code_end, sizeof(code_end)))
		return -EFAULT;
	if (!method || (method & 7) || code <= blob || code_end <= code || pc < code ||
	    pc > code_end)
		return -EINVAL;
	out[0].method = method;
	out[0].bci = -1;
	*n = 1;
	if (!l->has_scopes)
		return 0;
	if (read_i32(read, ctx, blob + l->nmethod_scopes_pcs, &pcs_off) ||
	    read_i32(read, ctx, blob + l->nmethod_dependencies, &deps_off) ||
	    read_i32(read, ctx, blob + l->nmethod_metadata, &meta_off) ||
	    read(ctx, blob + l->scopes_data, &data, sizeof(data)))
		return 0;
	pcs = blob + (uint64_t)(int64_t)pcs_off;
	pcs_end = blob + (uint64_t)(int64_t)deps_off;
	meta = blob + (uint64_t)(int64_t)meta_off;
	/* the order of the regions, each inside the nmethod past its code */
	if (pcs_off <= 0 || deps_off < pcs_off || meta_off <= 0 || meta < code_end ||
	    data < meta || data > pcs || (pcs_end - pcs) % l->pc_desc_size)
		return 0;
	npcs = (uint32_t)((pcs_end - pcs) / l->pc_desc_size);
	if (npcs > MAX_PC_DESCS ||
	    first_at_or_after(l, read, ctx, pcs, npcs, (int64_t)(pc - code), &at) || at >= npcs ||
	    read_i32(read, ctx, pcs + (uint64_t)at * l->pc_desc_size + l->pc_desc_scope, &decode))
		return 0;
	/* 0 (serialized_null): no scope recorded, the nmethod's method at its entry */
	for (unsigned k = 0; decode > 0 && k < max; k++) {
		uint8_t b[SCOPE_BYTES];
		uint32_t sender, index, bci1;
		uint64_t room = pcs - data, m;
		size_t len, pos = 0;

		if ((uint64_t)decode >= room)
			break;
		len = room - (uint64_t)decode < SCOPE_BYTES ? (size_t)(room - (uint64_t)decode)
							  : SCOPE_BYTES;
		if (read(ctx, data + (uint64_t)decode, b, len) ||
		    jvm_read_unsigned5(b, len, &pos, &sender) ||
		    jvm_read_unsigned5(b, len, &pos, &index) ||
		    jvm_read_unsigned5(b, len, &pos, &bci1))
			break;
		/* metadata_at(index): 1-based into the metadata before the scope data */
		if (!index || (uint64_t)index * 8 > data - meta ||
		    read(ctx, meta + 8ull * (index - 1), &m, sizeof(m)) || !m || (m & 7))
			break;
		out[k].method = m;
		out[k].bci = (int32_t)bci1 - 1; /* read_bci: + InvocationEntryBci */
		*n = k + 1;
		/* each sender was written before the scope that names it */
		if (sender >= (uint32_t)decode)
			break;
		decode = (int32_t)sender;
	}
	/* the chain must end at the nmethod's own method; otherwise its method alone */
	if (out[*n - 1].method != method) {
		out[0].method = method;
		out[0].bci = -1;
		*n = 1;
	}
	return 0;
}

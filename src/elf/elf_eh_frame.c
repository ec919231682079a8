// SPDX-License-Identifier: MIT
/*
 * Where the functions of a binary start and end, from .eh_frame: every function the
 * compiler emitted has an FDE (for C++ exceptions and for unwinders), and stripping
 * never removes it, since the program needs it at run time. Its initial location and
 * address range are the function's bounds. That is what groups the addresses of a
 * stripped binary by function: one row "app+0x4a1f20" per function, not one per address.
 *
 * Only the two fields of each FDE are read, not its instructions; CIEs are parsed for
 * the pointer encoding alone (the 'R' of a "z" augmentation). The section is hostile
 * input: it is read whole only under a cap, every length is checked against it, and the
 * number of FDEs reported is capped.
 */
#include "elf/elf_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"

/* python3.11's .eh_frame is ~1 MB with 10,221 FDEs; the largest binaries reach tens of MB. */
#define EH_FRAME_MAX_BYTES (64u << 20)
#define EH_FRAME_MAX_FDES (1u << 21)

#define DW_EH_PE_omit 0xff
#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_indirect 0x80

struct cursor {
	const unsigned char *p, *end;
	bool le;    /* the file is little-endian */
	bool is64;
	bool ok;
};

static uint64_t get_fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if (!c->ok || (size_t)(c->end - c->p) < n) {
		c->ok = false;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (c->le ? 8 * i : 8 * (n - 1 - i));
	c->p += n;
	return v;
}

static uint64_t get_uleb(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; c->ok && c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->ok = false;
	return 0;
}

static int64_t get_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->ok && c->p < c->end) {
		unsigned char b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->ok = false;
	return 0;
}

/*
 * A pointer of encoding enc whose first byte is at ELF address at. Absolute and
 * pc-relative pointers only: the others (text-, data-, function-relative, indirect) do
 * not occur in the FDEs of executables and libraries, and make the cursor fail.
 */
static uint64_t get_pointer(struct cursor *c, unsigned enc, uint64_t at)
{
	uint64_t v;

	if ((enc & 0x70) != DW_EH_PE_absptr && (enc & 0x70) != DW_EH_PE_pcrel) {
		c->ok = false;
		return 0;
	}
	if (enc & DW_EH_PE_indirect) {
		c->ok = false;
		return 0;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = get_fixed(c, c->is64 ? 8 : 4); break;
	case DW_EH_PE_uleb128: v = get_uleb(c); break;
	case DW_EH_PE_udata2: v = get_fixed(c, 2); break;
	case DW_EH_PE_udata4: v = get_fixed(c, 4); break;
	case DW_EH_PE_udata8: v = get_fixed(c, 8); break;
	case DW_EH_PE_sleb128: v = (uint64_t)get_sleb(c); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)get_fixed(c, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)get_fixed(c, 4); break;
	case DW_EH_PE_sdata8: v = get_fixed(c, 8); break;
	default: c->ok = false; return 0;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += at;
	if (!c->is64)
		v &= 0xffffffffu;
	return v;
}

struct eh_frame {
	const unsigned char *data;
	uint64_t size, addr; /* of the section: bytes, length, ELF address */
	bool le, is64;
	uint64_t cie_pos;    /* the last CIE parsed, and its FDE pointer encoding */
	int cie_enc;
};

static struct cursor eh_frame__cursor(const struct eh_frame *eh, uint64_t from, uint64_t to)
{
	struct cursor c = { eh->data + from, eh->data + to, eh->le, eh->is64, true };

	return c;
}

/*
 * The entry at pos: its body [*body, *end) after the length field. false at the zero
 * terminator, or when the length runs past the section.
 */
static bool eh_frame__entry(const struct eh_frame *eh, uint64_t pos, uint64_t *body,
			    uint64_t *end)
{
	struct cursor c = eh_frame__cursor(eh, pos, eh->size);
	uint64_t len = get_fixed(&c, 4);

	if (len == 0xffffffffu)
		len = get_fixed(&c, 8);
	if (!c.ok || len == 0)
		return false;
	*body = (uint64_t)(c.p - eh->data);
	if (len > eh->size - *body)
		return false;
	*end = *body + len;
	return true;
}

/* The FDE pointer encoding of the CIE at pos (absptr when it says none), or -1. */
static int eh_frame__cie_encoding(struct eh_frame *eh, uint64_t pos)
{
	uint64_t body, end;
	struct cursor c;
	const char *aug;
	const unsigned char *nul;
	int enc = DW_EH_PE_absptr;
	unsigned version;

	if (eh->cie_enc >= 0 && eh->cie_pos == pos)
		return eh->cie_enc;
	if (!eh_frame__entry(eh, pos, &body, &end))
		return -1;
	c = eh_frame__cursor(eh, body, end);
	if (get_fixed(&c, 4) != 0)
		return -1; /* not a CIE */
	version = (unsigned)get_fixed(&c, 1);
	if (!c.ok || (version != 1 && version != 3 && version != 4))
		return -1;
	nul = memchr(c.p, '\0', (size_t)(c.end - c.p));
	if (!nul)
		return -1;
	aug = (const char *)c.p;
	c.p = nul + 1;
	if (version == 4) {
		get_fixed(&c, 1); /* address size */
		get_fixed(&c, 1); /* segment selector size */
	}
	get_uleb(&c); /* code alignment */
	get_sleb(&c); /* data alignment */
	if (version == 1)
		get_fixed(&c, 1);
	else
		get_uleb(&c); /* return address register */
	if (aug[0] == 'z') {
		uint64_t len = get_uleb(&c);

		if (!c.ok || len > (uint64_t)(c.end - c.p))
			return -1;
		c.end = c.p + len;
		for (const char *a = aug + 1; *a && c.ok; a++) {
			if (*a == 'R') {
				enc = (int)get_fixed(&c, 1);
				break;
			} else if (*a == 'P') {
				unsigned penc = (unsigned)get_fixed(&c, 1);
				uint64_t at = eh->addr + (uint64_t)(c.p - eh->data);

				/* Only its size matters; one we cannot size ends the walk. */
				get_pointer(&c, penc & 0x7f, at);
			} else if (*a == 'L') {
				get_fixed(&c, 1);
			} else if (*a != 'S' && *a != 'B' && *a != 'G') {
				break;
			}
		}
	} else if (aug[0]) {
		return -1; /* an augmentation we cannot skip: FDE layout unknown */
	}
	if (!c.ok)
		return -1;
	eh->cie_pos = pos;
	eh->cie_enc = enc;
	return enc;
}

static int eh_frame__walk(struct eh_frame *eh, elf_range_fn fn, void *ctx)
{
	uint64_t pos = 0, body, end;
	unsigned nfdes = 0;
	int err = 0;

	while (!err && nfdes < EH_FRAME_MAX_FDES && eh_frame__entry(eh, pos, &body, &end)) {
		struct cursor c = eh_frame__cursor(eh, body, end);
		uint64_t id = get_fixed(&c, 4), start, range;
		int enc;

		pos = end;
		/* A CIE, or an FDE whose CIE pointer does not point back into the section. */
		if (!c.ok || id == 0 || id > body)
			continue;
		enc = eh_frame__cie_encoding(eh, body - id);
		if (enc < 0 || enc == DW_EH_PE_omit)
			continue;
		start = get_pointer(&c, (unsigned)enc, eh->addr + (uint64_t)(c.p - eh->data));
		range = get_pointer(&c, (unsigned)enc & 0x0f, 0);
		if (!c.ok || range == 0 || start == 0 || range > UINT64_MAX - start)
			continue;
		nfdes++;
		err = fn(ctx, start, range);
	}
	return err;
}

int elf__each_function_range(int fd, elf_range_fn fn, void *ctx)
{
	return elf__each_function_range_limited(fd, NULL, fn, ctx);
}

int elf__each_function_range_limited(int fd, struct elf_limits *limits, elf_range_fn fn,
				     void *ctx)
{
	struct eh_frame eh = { .cie_enc = -1 };
	const struct elf_shdr *sh = NULL;
	struct elf_reader r;
	unsigned char *data;
	int err;

	err = elf_reader__open_limited(&r, fd, limits);
	if (err)
		return err;
	/* Relocatable objects have not been relocated: their pc-relative pointers are not
	 * addresses yet. */
	if (r.type != ET_EXEC && r.type != ET_DYN)
		goto out_close;
	for (uint32_t i = 0; i < r.shnum; i++) {
		if (strcmp(elf_reader__section_name(&r, i), ".eh_frame") == 0) {
			sh = &r.shdrs[i];
			break;
		}
	}
	/* None, or a debug file's empty copy. */
	if (!sh || sh->type != SHT_PROGBITS || sh->size == 0 || (sh->flags & SHF_COMPRESSED))
		goto out_close;
	err = -EFBIG;
	if (sh->size > EH_FRAME_MAX_BYTES)
		goto out_close;
	data = malloc(sh->size);
	err = -ENOMEM;
	if (!data)
		goto out_close;
	err = elf_reader__pread(&r, data, sh->size, sh->offset);
	if (!err) {
		eh.data = data;
		eh.size = sh->size;
		eh.addr = sh->addr;
		eh.is64 = r.is64;
		eh.le = r.swap == (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__);
		err = eh_frame__walk(&eh, fn, ctx);
	}
	free(data);
out_close:
	elf_reader__close(&r);
	return err;
}

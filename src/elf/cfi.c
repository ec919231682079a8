// SPDX-License-Identifier: MIT
/* Call frame information's entries, CIEs and pointers: see cfi.h. */
#include "elf/cfi.h"

#include <errno.h>
#include <string.h>

static struct byte_cursor cfi__cursor(const struct cfi_section *s, uint64_t from, uint64_t to)
{
	struct byte_cursor c = byte_cursor__new(s->data + from, (size_t)(to - from));

	c.big_endian = s->big_endian;
	return c;
}

int cfi__next(const struct cfi_section *s, uint64_t *off, struct cfi_entry *e)
{
	struct byte_cursor c;
	uint64_t len, id, id_at;
	bool is64;

	if (*off >= s->len)
		return 0;
	c = cfi__cursor(s, *off, s->len);
	len = byte_cursor__uint(&c, 4);
	is64 = len == 0xffffffffu;
	if (is64)
		len = byte_cursor__uint(&c, 8);
	if (c.bad)
		return -EBADMSG;
	if (len == 0)
		return 0;
	if (len > byte_cursor__left(&c))
		return -EBADMSG;
	c.end = c.p + len;
	id_at = (uint64_t)(c.p - s->data);
	/* .eh_frame's CIE pointers are 4 bytes even in 64-bit entries. */
	id = byte_cursor__uint(&c, s->debug_frame && is64 ? 8 : 4);
	if (c.bad)
		return -EBADMSG;
	e->off = *off;
	e->body = c;
	*off = (uint64_t)(c.end - s->data);
	if (s->debug_frame) {
		e->is_cie = is64 ? id == ~0ULL : id == 0xffffffffu;
		e->cie_off = id < s->len ? id : CFI_NO_CIE;
	} else {
		e->is_cie = id == 0;
		/* Relative to where it is, and backwards. */
		e->cie_off = id <= id_at ? id_at - id : CFI_NO_CIE;
	}
	return 1;
}

int cfi__pointer(struct byte_cursor *c, const struct cfi_section *s, uint8_t enc, bool apply,
		 uint64_t *out)
{
	uint64_t at = s->vaddr + (uint64_t)(c->p - s->data);
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = byte_cursor__uint(c, s->address_size); break;
	case DW_EH_PE_uleb128: v = byte_cursor__uleb128(c); break;
	case DW_EH_PE_udata2: v = byte_cursor__uint(c, 2); break;
	case DW_EH_PE_udata4: v = byte_cursor__uint(c, 4); break;
	case DW_EH_PE_udata8: v = byte_cursor__uint(c, 8); break;
	case DW_EH_PE_sleb128: v = (uint64_t)byte_cursor__sleb128(c); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)byte_cursor__uint(c, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)byte_cursor__uint(c, 4); break;
	case DW_EH_PE_sdata8: v = byte_cursor__uint(c, 8); break;
	default: return -ENOTSUP;
	}
	if (c->bad)
		return -EBADMSG;
	if (apply) {
		if (enc & DW_EH_PE_indirect)
			return -ENOTSUP;
		switch (enc & 0x70) {
		case DW_EH_PE_absptr: break;
		case DW_EH_PE_pcrel: v += at; break;
		default: return -ENOTSUP;
		}
	}
	if (s->address_size == 4)
		v &= 0xffffffffu;
	*out = v;
	return 0;
}

/* The augmentation data of a "z" CIE: the letters we know, in order. */
static int cfi__augmentation(const struct cfi_section *s, const char *aug,
			     struct byte_cursor a, struct cfi_cie *cie)
{
	for (const char *l = aug + 1; *l; l++) {
		uint64_t ignored;

		switch (*l) {
		case 'L':
			(void)byte_cursor__uint(&a, 1);
			break;
		case 'P': {
			uint8_t enc = (uint8_t)byte_cursor__uint(&a, 1);

			/* Only its size matters. */
			if (!a.bad && cfi__pointer(&a, s, enc & 0x7f, false, &ignored) != 0)
				return -EBADMSG;
			break;
		}
		case 'R':
			cie->fde_enc = (uint8_t)byte_cursor__uint(&a, 1);
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':
		case 'G':
			break;
		default:
			/* Unknown letters: 'z' told us the data's length, so the FDEs can still
			 * be read; only what follows is unknown. */
			return a.bad ? -EBADMSG : 0;
		}
		if (a.bad)
			return -EBADMSG;
	}
	return 0;
}

int cfi__cie(const struct cfi_section *s, uint64_t off, struct cfi_cie *cie)
{
	struct cfi_entry e;
	struct byte_cursor *c = &e.body;
	const char *aug;
	uint64_t at = off;

	if (off == CFI_NO_CIE || cfi__next(s, &at, &e) != 1 || !e.is_cie)
		return -EBADMSG;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = DW_EH_PE_absptr;
	cie->version = (uint8_t)byte_cursor__uint(c, 1);
	if (c->bad || (cie->version != 1 && cie->version != 3 && cie->version != 4))
		return -EBADMSG;
	aug = byte_cursor__cstr(c);
	if (!aug)
		return -EBADMSG;
	if (cie->version == 4) {
		cie->address_size = (uint8_t)byte_cursor__uint(c, 1);
		cie->segment_size = (uint8_t)byte_cursor__uint(c, 1);
	}
	cie->code_align = byte_cursor__uleb128(c);
	cie->data_align = byte_cursor__sleb128(c);
	if (cie->version == 1)
		(void)byte_cursor__uint(c, 1); /* return address register */
	else
		(void)byte_cursor__uleb128(c);
	if (c->bad)
		return -EBADMSG;
	if (aug[0] == 'z') {
		uint64_t n = byte_cursor__uleb128(c);
		struct byte_cursor a = *c;
		int err;

		byte_cursor__skip(c, n);
		if (c->bad)
			return -EBADMSG;
		a.end = a.p + n;
		cie->aug_z = true;
		err = cfi__augmentation(s, aug, a, cie);
		if (err)
			return err;
	} else if (aug[0] != '\0') {
		/* "eh" (pre-GCC-3) and others without 'z': FDE layout unknown. */
		return -ENOTSUP;
	}
	cie->insns = c->p;
	cie->insns_end = c->end;
	return 0;
}

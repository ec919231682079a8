// SPDX-License-Identifier: MIT
/*
 * Where the functions of a binary start and end, from .eh_frame: every function the
 * compiler emitted has an FDE (for C++ exceptions and for unwinders), and stripping
 * never removes it, since the program needs it at run time. Its initial location and
 * address range are the function's bounds. That is what groups the addresses of a
 * stripped binary by function: one row "app+0x4a1f20" per function, not one per address.
 *
 * Only the two fields of each FDE are read, not its instructions; of its CIE (cfi.c) only
 * the pointer encoding is used (the 'R' of a "z" augmentation). The section is hostile
 * input: it is read whole only under a cap, every length is checked against it, and the
 * number of FDEs reported is capped.
 */
#include "elf/elf_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi.h"
#include "elf/elf_reader.h"

/* python3.11's .eh_frame is ~1 MB with 10,221 FDEs; the largest binaries reach tens of MB. */
#define EH_FRAME_MAX_BYTES (64u << 20)
#define EH_FRAME_MAX_FDES (1u << 21)

struct eh_frame {
	struct cfi_section s;
	uint64_t cie_pos;    /* the last CIE parsed, and its FDE pointer encoding */
	int cie_enc;
};

/* The FDE pointer encoding of the CIE at pos (absptr when it says none), or -1. */
static int eh_frame__cie_encoding(struct eh_frame *eh, uint64_t pos)
{
	struct cfi_cie cie;

	if (eh->cie_enc >= 0 && eh->cie_pos == pos)
		return eh->cie_enc;
	if (cfi__cie(&eh->s, pos, &cie) != 0)
		return -1;
	eh->cie_pos = pos;
	eh->cie_enc = cie.fde_enc;
	return cie.fde_enc;
}

static int eh_frame__walk(struct eh_frame *eh, elf_range_fn fn, void *ctx)
{
	uint64_t pos = 0;
	struct cfi_entry e;
	unsigned nfdes = 0;
	int err = 0;

	while (!err && nfdes < EH_FRAME_MAX_FDES && cfi__next(&eh->s, &pos, &e) == 1) {
		uint64_t start, range;
		int enc;

		/* A CIE, or an FDE whose CIE pointer does not point back into the section. */
		if (e.is_cie || e.cie_off == CFI_NO_CIE)
			continue;
		enc = eh_frame__cie_encoding(eh, e.cie_off);
		if (enc < 0 || enc == DW_EH_PE_omit)
			continue;
		if (cfi__pointer(&e.body, &eh->s, (uint8_t)enc, true, &start) ||
		    cfi__pointer(&e.body, &eh->s, (uint8_t)enc & 0x0f, false, &range))
			continue;
		if (range == 0 || start == 0 || range > UINT64_MAX - start)
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
		eh.s = (struct cfi_section){
			.data = data, .len = sh->size, .vaddr = sh->addr,
			.address_size = r.is64 ? 8 : 4,
			.big_endian = r.swap == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__),
		};
		err = eh_frame__walk(&eh, fn, ctx);
	}
	free(data);
out_close:
	elf_reader__close(&r);
	return err;
}

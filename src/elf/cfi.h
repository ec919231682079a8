/* SPDX-License-Identifier: MIT */
/*
 * Call frame information (.eh_frame, .debug_frame): its entries one by one, its CIEs
 * and its encoded pointers, for the two readers of it (the function bounds of a
 * stripped binary, elf_eh_frame.c; the unwind tables, unwind/eh_frame.c). The bytes are
 * hostile: every read is bounded by the entry it belongs to.
 *
 * References: DWARF 5 §6.4 (call frame information), the LSB's .eh_frame description
 * (pointer encodings, augmentation strings).
 */
#ifndef SLIDEOPS_ELF_CFI_H
#define SLIDEOPS_ELF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/byte_cursor.h"

/* DW_EH_PE_* pointer encodings: the format in the low nibble, the application above. */
enum {
	DW_EH_PE_absptr = 0x00, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10, DW_EH_PE_indirect = 0x80, DW_EH_PE_omit = 0xff,
};

struct cfi_section {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;       /* the address of data[0] */
	bool debug_frame;     /* .debug_frame: CIE ids all ones, CIE pointers offsets */
	bool big_endian;
	uint8_t address_size; /* of an absolute pointer: 4 or 8 */
};

#define CFI_NO_CIE UINT64_MAX

struct cfi_entry {
	uint64_t off;            /* of its length field */
	bool is_cie;
	uint64_t cie_off;        /* an FDE's CIE; CFI_NO_CIE when it points outside */
	struct byte_cursor body; /* after the CIE id or pointer, to the entry's end */
};

/*
 * The entry at *off, and *off moved past it: 1, 0 at the terminator or the section's
 * end, -EBADMSG when its length or id runs past the section.
 */
int cfi__next(const struct cfi_section *s, uint64_t *off, struct cfi_entry *e);

struct cfi_cie {
	uint8_t version;
	uint8_t address_size, segment_size; /* version 4 only; 0 otherwise */
	uint8_t fde_enc;                    /* DW_EH_PE_* of its FDEs' pointers */
	bool aug_z;                         /* its FDEs carry augmentation data */
	bool signal;                        /* 'S': frames of signal handlers */
	uint64_t code_align;
	int64_t data_align;
	const uint8_t *insns, *insns_end;   /* its initial instructions */
};

/* The CIE at off: 0; -EBADMSG when it is not one; -ENOTSUP when an augmentation leaves
 * its FDEs' layout unknown. */
int cfi__cie(const struct cfi_section *s, uint64_t off, struct cfi_cie *cie);

/*
 * A pointer of encoding enc at the cursor. apply: relative to where it is for pcrel
 * (absolute ones as they are); the other applications and indirect pointers need
 * addresses this layer does not have: -ENOTSUP. -EBADMSG when it does not fit.
 */
int cfi__pointer(struct byte_cursor *c, const struct cfi_section *s, uint8_t enc, bool apply,
		 uint64_t *out);

#endif

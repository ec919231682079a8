// SPDX-License-Identifier: MIT
/*
 * .eh_frame and .debug_frame to unwind table rows (unwind.h). The section's bytes are
 * hostile until proven otherwise: every read is checked against the entry it belongs to,
 * every count against the caps, and anything that does not parse refuses the whole
 * table (a half-read table would unwind some frames wrongly, which is worse than falling
 * back to frame pointers everywhere).
 *
 * Only what the walker can use is kept of the CFA program's state: the CFA rule, the
 * rule of rbp (DWARF register 6) and of the return address (16). Each FDE's program runs
 * once, from its CIE's initial instructions; a row is emitted at every advance where the
 * kept state changed, and a CFA_NONE row where the FDE ends. Rows of all FDEs are then
 * sorted and merged (table.c).
 *
 * The entries, CIEs and pointers are read by elf/cfi.c, as for the function bounds of
 * stripped binaries. References: DWARF 5 §6.4 (call frame information), the x86_64
 * psABI register numbers.
 */
#include "unwind/unwind_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi.h"
#include "util/byte_cursor.h"
#include "util/clock.h"

enum {
	DW_REG_RBP = 6,
	DW_REG_RSP = 7,
	DW_REG_RA = 16,
	/* remember_state nests this deep in real code twice at most. */
	STATE_STACK = 16,
	/* GCC's and LLVM's CIEs carry 3-10 bytes of initial instructions. */
	CIE_MAX_PROGRAM = 256,
};

/* v * factor in two's complement: hostile factors wrap instead of overflowing (UB). The
 * result is then checked against the ranges rows can hold. */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

/* The CIE at off, with what this reader needs of it (cfi.c reads it). -EBADMSG when it is
 * not one or is malformed; -ENOTSUP when its FDEs cannot be read. */
static int read_cie(const struct cfi_section *s, uint64_t off, struct cfi_cie *cie)
{
	int err = cfi__cie(s, off, cie);

	if (err)
		return err;
	if (cie->version == 4 && (cie->address_size != 8 || cie->segment_size != 0))
		return -ENOTSUP;
	if (cie->fde_enc == DW_EH_PE_omit || (cie->fde_enc & DW_EH_PE_indirect))
		return -ENOTSUP;
	if (cie->code_align == 0 || cie->code_align > 0xffff)
		return -EBADMSG;
	/* Each FDE runs its CIE's program again: real ones are a few bytes, and a long one
	 * shared by many FDEs would make the work quadratic in the section's size. */
	if (cie->insns_end - cie->insns > CIE_MAX_PROGRAM)
		return -EBADMSG;
	return 0;
}

/* The kept state of the CFA program. */
enum { RULE_SAME, RULE_OFFSET, RULE_UNDEF, RULE_OTHER };
enum { CFA_REG, CFA_PLT, CFA_EXPR };

struct cfa_state {
	uint8_t cfa, cfa_reg;
	uint8_t rbp, ra;
	int64_t cfa_off;   /* or the PLT threshold */
	int64_t rbp_off, ra_off;
};

/* DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litN; DW_OP_ge;
 * DW_OP_lit3; DW_OP_shl; DW_OP_plus: the PLT's CFA, N = 11 for .plt, 10 for .plt.sec. */
static int plt_threshold(const uint8_t *expr, uint64_t len)
{
	static const uint8_t head[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a };
	static const uint8_t tail[] = { 0x2a, 0x33, 0x24, 0x22 };

	if (len != sizeof(head) + 1 + sizeof(tail) || memcmp(expr, head, sizeof(head)) != 0 ||
	    memcmp(expr + sizeof(head) + 1, tail, sizeof(tail)) != 0)
		return -1;
	if (expr[sizeof(head)] < 0x30 || expr[sizeof(head)] > 0x4f)
		return -1;
	return expr[sizeof(head)] - 0x30;
}

/* The row the state makes, pc left 0. */
static struct unwind_row state_row(const struct cfa_state *st, bool signal)
{
	struct unwind_row r = { 0 };
	unsigned cfa = UNWIND_CFA_UNSUPPORTED, rbp = UNWIND_RBP_LOST;

	if (signal) {
		cfa = UNWIND_CFA_SIGNAL;
	} else if (st->ra == RULE_UNDEF) {
		cfa = UNWIND_CFA_END;
	} else if (st->ra != RULE_OFFSET || st->ra_off != -8) {
		cfa = UNWIND_CFA_UNSUPPORTED;
	} else if (st->cfa == CFA_PLT) {
		cfa = UNWIND_CFA_PLT;
		r.cfa_off = (uint16_t)st->cfa_off;
	} else if (st->cfa == CFA_REG && st->cfa_off > 0 && st->cfa_off <= 0xffff &&
		   (st->cfa_reg == DW_REG_RSP || st->cfa_reg == DW_REG_RBP)) {
		cfa = st->cfa_reg == DW_REG_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
		r.cfa_off = (uint16_t)st->cfa_off;
	}
	if (st->rbp == RULE_SAME) {
		rbp = UNWIND_RBP_SAME;
	} else if (st->rbp == RULE_OFFSET && st->rbp_off % 8 == 0 && st->rbp_off >= -1024 &&
		   st->rbp_off <= 1016) {
		rbp = UNWIND_RBP_OFFSET;
		r.rbp_off = (int8_t)(st->rbp_off / 8);
	}
	if (cfa == UNWIND_CFA_END || cfa == UNWIND_CFA_UNSUPPORTED || cfa == UNWIND_CFA_SIGNAL) {
		/* The walker stops or reads the registers elsewhere: no offsets matter, and
		 * clearing them lets equal rows merge. */
		r.cfa_off = 0;
		rbp = UNWIND_RBP_SAME;
		r.rbp_off = 0;
	}
	r.kind = (uint8_t)(cfa | rbp << 4);
	return r;
}

/* Rows of one FDE as they are emitted. */
struct fde_rows {
	struct unwind_build *b;
	uint64_t begin, end;  /* the FDE's range */
	size_t first;         /* its first row in b->tmp */
	bool signal;
};

static int emit(struct fde_rows *f, uint64_t pc, const struct cfa_state *st)
{
	struct unwind_row r = state_row(st, f->signal);
	struct unwind_build *b = f->b;

	if (pc >= f->end)
		return 0;
	if (b->ntmp > f->first) {
		struct tmp_row *last = &b->tmp[b->ntmp - 1];

		if (last->pc == pc) {
			last->row = r;
			return 0;
		}
		if (last->row.cfa_off == r.cfa_off && last->row.kind == r.kind &&
		    last->row.rbp_off == r.rbp_off)
			return 0;
	}
	return unwind_build__push(b, pc, r);
}

static void set_rule(struct cfa_state *st, uint64_t reg, uint8_t rule, int64_t off)
{
	if (reg == DW_REG_RBP) {
		st->rbp = rule;
		st->rbp_off = off;
	} else if (reg == DW_REG_RA) {
		st->ra = rule;
		st->ra_off = off;
	}
}

static void restore_rule(struct cfa_state *st, const struct cfa_state *init, uint64_t reg)
{
	if (reg == DW_REG_RBP) {
		st->rbp = init->rbp;
		st->rbp_off = init->rbp_off;
	} else if (reg == DW_REG_RA) {
		st->ra = init->ra;
		st->ra_off = init->ra_off;
	}
}

/*
 * Runs the CFA program in c. With f NULL (a CIE's initial instructions) no rows are
 * emitted and advances are refused. 0, -EBADMSG, -E2BIG (rows cap), -ENOMEM.
 */
static int run_program(const struct cfi_section *s, const struct cfi_cie *cie,
		       struct byte_cursor c, struct cfa_state *st, const struct cfa_state *init, struct fde_rows *f)
{
	struct cfa_state stack[STATE_STACK];
	unsigned depth = 0;
	uint64_t loc = f ? f->begin : 0;
	int err;

	while (c.p < c.end) {
		uint8_t op = (uint8_t)byte_cursor__uint(&c, 1);
		uint64_t reg = 0, delta = 0, len;
		int64_t off;
		bool advance = false;

		switch (op >> 6) {
		case 1:
			delta = (op & 0x3f) * cie->code_align;
			advance = true;
			break;
		case 2:
			off = scaled(byte_cursor__uleb128(&c), cie->data_align);
			set_rule(st, op & 0x3f, RULE_OFFSET, off);
			break;
		case 3:
			if (!init)
				return -EBADMSG;
			restore_rule(st, init, op & 0x3f);
			break;
		default:
			switch (op) {
			case 0x00: /* nop */
				break;
			case 0x01: { /* set_loc */
				uint64_t to;

				err = cfi__pointer(&c, s, cie->fde_enc, true, &to);
				if (err)
					return -EBADMSG;
				if (to < loc)
					return -EBADMSG;
				delta = to - loc;
				advance = true;
				break;
			}
			case 0x02: delta = byte_cursor__uint(&c, 1) * cie->code_align; advance = true; break;
			case 0x03: delta = byte_cursor__uint(&c, 2) * cie->code_align; advance = true; break;
			case 0x04: delta = byte_cursor__uint(&c, 4) * cie->code_align; advance = true; break;
			case 0x05: /* offset_extended */
				reg = byte_cursor__uleb128(&c);
				off = scaled(byte_cursor__uleb128(&c), cie->data_align);
				set_rule(st, reg, RULE_OFFSET, off);
				break;
			case 0x06: /* restore_extended */
				reg = byte_cursor__uleb128(&c);
				if (!init)
					return -EBADMSG;
				restore_rule(st, init, reg);
				break;
			case 0x07: /* undefined */
				set_rule(st, byte_cursor__uleb128(&c), RULE_UNDEF, 0);
				break;
			case 0x08: /* same_value */
				set_rule(st, byte_cursor__uleb128(&c), RULE_SAME, 0);
				break;
			case 0x09: /* register */
				reg = byte_cursor__uleb128(&c);
				(void)byte_cursor__uleb128(&c);
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x0a: /* remember_state */
				if (depth == STATE_STACK)
					return -EBADMSG;
				stack[depth++] = *st;
				break;
			case 0x0b: /* restore_state: the CFA is restored too (DWARF 5 §6.4.2.4 says
				    otherwise, but every producer and consumer does this) */
				if (depth == 0)
					return -EBADMSG;
				*st = stack[--depth];
				break;
			case 0x0c: /* def_cfa */
				st->cfa = CFA_REG;
				st->cfa_reg = (uint8_t)(reg = byte_cursor__uleb128(&c));
				if (reg > 255)
					st->cfa_reg = 255;
				st->cfa_off = (int64_t)byte_cursor__uleb128(&c);
				break;
			case 0x0d: /* def_cfa_register */
				reg = byte_cursor__uleb128(&c);
				if (st->cfa != CFA_REG)
					st->cfa_off = 0;
				st->cfa = CFA_REG;
				st->cfa_reg = reg > 255 ? 255 : (uint8_t)reg;
				break;
			case 0x0e: /* def_cfa_offset */
				st->cfa_off = (int64_t)byte_cursor__uleb128(&c);
				break;
			case 0x0f: { /* def_cfa_expression */
				int thr;

				len = byte_cursor__uleb128(&c);
				if (c.bad || len > (uint64_t)(c.end - c.p))
					return -EBADMSG;
				thr = plt_threshold(c.p, len);
				st->cfa = thr >= 0 ? CFA_PLT : CFA_EXPR;
				st->cfa_off = thr;
				c.p += len;
				break;
			}
			case 0x10: /* expression */
			case 0x16: /* val_expression */
				reg = byte_cursor__uleb128(&c);
				len = byte_cursor__uleb128(&c);
				if (c.bad || len > (uint64_t)(c.end - c.p))
					return -EBADMSG;
				c.p += len;
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x11: /* offset_extended_sf */
				reg = byte_cursor__uleb128(&c);
				off = scaled((uint64_t)byte_cursor__sleb128(&c), cie->data_align);
				set_rule(st, reg, RULE_OFFSET, off);
				break;
			case 0x12: /* def_cfa_sf */
				st->cfa = CFA_REG;
				reg = byte_cursor__uleb128(&c);
				st->cfa_reg = reg > 255 ? 255 : (uint8_t)reg;
				st->cfa_off = scaled((uint64_t)byte_cursor__sleb128(&c), cie->data_align);
				break;
			case 0x13: /* def_cfa_offset_sf */
				st->cfa_off = scaled((uint64_t)byte_cursor__sleb128(&c), cie->data_align);
				break;
			case 0x14: /* val_offset */
				reg = byte_cursor__uleb128(&c);
				(void)byte_cursor__uleb128(&c);
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x15: /* val_offset_sf */
				reg = byte_cursor__uleb128(&c);
				(void)byte_cursor__sleb128(&c);
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x2e: /* GNU_args_size */
				(void)byte_cursor__uleb128(&c);
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				reg = byte_cursor__uleb128(&c);
				off = scaled(0 - byte_cursor__uleb128(&c), cie->data_align);
				set_rule(st, reg, RULE_OFFSET, off);
				break;
			default:
				return -EBADMSG;
			}
		}
		if (c.bad)
			return -EBADMSG;
		if (advance) {
			if (!f)
				return -EBADMSG;
			if (delta > f->end - loc)
				delta = f->end - loc; /* past the FDE: nothing more to emit */
			err = emit(f, loc, st);
			if (err)
				return err;
			loc += delta;
		}
	}
	if (f) {
		err = emit(f, loc, st);
		if (err)
			return err;
	}
	return 0;
}

/* Reads the FDE whose body (after its CIE pointer) is in c. */
static int read_fde(struct unwind_build *b, const struct cfi_section *s,
		    const struct cfi_cie *cie, struct byte_cursor c)
{
	struct cfa_state init = { .cfa = CFA_EXPR, .rbp = RULE_SAME, .ra = RULE_SAME };
	struct cfa_state st;
	struct fde_rows f = { .b = b, .signal = cie->signal };
	uint64_t begin, range;
	struct byte_cursor ci;
	int err;

	err = cfi__pointer(&c, s, cie->fde_enc, true, &begin);
	if (err == 0)
		err = cfi__pointer(&c, s, cie->fde_enc & 0x0f, false, &range);
	if (err == -ENOTSUP) {
		b->t->nskipped++;
		return 0;
	}
	if (err)
		return -EBADMSG;
	if (cie->aug_z) {
		uint64_t n = byte_cursor__uleb128(&c);

		if (c.bad || n > (uint64_t)(c.end - c.p))
			return -EBADMSG;
		c.p += n;
	}
	/* Empty ranges and FDEs at address 0 are what linkers leave of discarded code
	 * (--gc-sections): nothing runs there. */
	if (range == 0 || begin == 0) {
		b->t->nskipped++;
		return 0;
	}
	if (begin + range < begin)
		return -EBADMSG;
	ci = byte_cursor__new(cie->insns, (size_t)(cie->insns_end - cie->insns));
	err = run_program(s, cie, ci, &init, NULL, NULL);
	if (err)
		return err;
	st = init;
	f.begin = begin;
	f.end = begin + range;
	f.first = b->ntmp;
	err = run_program(s, cie, c, &st, &init, &f);
	if (err)
		return err;
	return unwind_build__push(b, f.end, (struct unwind_row){ .kind = UNWIND_CFA_NONE });
}

int unwind_build__section(struct unwind_build *b, const struct section_bytes *bytes)
{
	const struct cfi_section s = { .data = bytes->data, .len = bytes->len,
				       .vaddr = bytes->vaddr, .debug_frame = bytes->debug_frame,
				       .address_size = 8 };
	struct clock_budget deadline = clock_budget__from_now((uint64_t)b->caps.max_ms * 1000000);
	uint64_t off = 0;
	struct cfi_entry e;
	int more;

	while ((more = cfi__next(&s, &off, &e)) == 1) {
		struct cfi_cie cie;
		int err;

		if (e.is_cie)
			continue;
		if (++b->t->nfdes > b->caps.max_fdes)
			return unwind_build__fail(b, UNWIND_TOO_MANY_FDES, -E2BIG);
		/* Every 64 FDEs: one costs at most its CIE's short program and its own bytes, a
		 * microsecond or more, and reading the thread's CPU clock is a system call. */
		if ((b->t->nfdes & 63) == 0 && clock_budget__over(&deadline))
			return unwind_build__fail(b, UNWIND_TOO_SLOW, -E2BIG);
		err = read_cie(&s, e.cie_off, &cie);
		if (err == -ENOTSUP) {
			b->t->nskipped++;
			continue;
		}
		if (err)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
		err = read_fde(b, &s, &cie, e.body);
		if (err == -E2BIG)
			return unwind_build__fail(b, UNWIND_TOO_MANY_ROWS, -E2BIG);
		if (err == -ENOMEM)
			return unwind_build__fail(b, UNWIND_NO_MEMORY, -ENOMEM);
		if (err)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
	}
	if (more < 0)
		return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
	return 0;
}

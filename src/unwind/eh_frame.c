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
 * References: DWARF 5 §6.4 (call frame information), the LSB's .eh_frame description
 * (pointer encodings, augmentation strings), the x86_64 psABI register numbers.
 */
#include "unwind/unwind_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* A cursor over [p, end). A read past end sets bad and returns 0: callers check bad
 * once per entry instead of after every field. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_n(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	/* Little-endian: the only byte order x86_64 frame data has. */
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t rd_uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0;; shift += 7) {
		uint8_t b;

		if (c->bad || c->p >= c->end || shift > 63) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t rd_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (c->bad || c->p >= c->end || shift > 63) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/* v * factor in two's complement: hostile factors wrap instead of overflowing (UB). The
 * result is then checked against the ranges rows can hold. */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

/* DW_EH_PE_* pointer encodings. */
enum {
	PE_ABSPTR = 0x00, PE_ULEB = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03, PE_UDATA8 = 0x04,
	PE_SLEB = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10, PE_INDIRECT = 0x80, PE_OMIT = 0xff,
};

struct section {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;
	bool debug_frame;
};

/*
 * A pointer in encoding enc. The application part is honoured for pcrel (relative to
 * where the pointer is) and absolute; textrel/datarel/funcrel/aligned need addresses
 * this layer does not have, and are refused (-ENOTSUP: the FDE is skipped).
 */
static int rd_ptr(struct cur *c, const struct section *s, uint8_t enc, bool apply,
		  uint64_t *out)
{
	uint64_t at = s->vaddr + (uint64_t)(c->p - s->data);
	uint64_t v;

	switch (enc & 0x0f) {
	case PE_ABSPTR: v = rd_n(c, 8); break;
	case PE_ULEB: v = rd_uleb(c); break;
	case PE_UDATA2: v = rd_n(c, 2); break;
	case PE_UDATA4: v = rd_n(c, 4); break;
	case PE_UDATA8: v = rd_n(c, 8); break;
	case PE_SLEB: v = (uint64_t)rd_sleb(c); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)rd_n(c, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)rd_n(c, 4); break;
	case PE_SDATA8: v = rd_n(c, 8); break;
	default: return -ENOTSUP;
	}
	if (c->bad)
		return -EBADMSG;
	if (!apply)
		return *out = v, 0;
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += at; break;
	default: return -ENOTSUP;
	}
	*out = v;
	return 0;
}

struct cie {
	uint8_t fde_enc;
	bool aug_z, signal;
	uint64_t code_align;
	int64_t data_align;
	const uint8_t *insns, *insns_end;
};

/*
 * The entry at off: its length header. On success c covers the entry's body (after the
 * length) and *next is the offset of the next entry. 1 at the terminator (length 0).
 */
static int entry_at(const struct section *s, uint64_t off, struct cur *c, uint64_t *next,
		    bool *is64)
{
	uint64_t len;

	if (off >= s->len)
		return -EBADMSG;
	c->p = s->data + off;
	c->end = s->data + s->len;
	c->bad = false;
	len = rd_n(c, 4);
	*is64 = len == 0xffffffffu;
	if (*is64)
		len = rd_n(c, 8);
	if (c->bad)
		return -EBADMSG;
	if (len == 0)
		return 1;
	if (len > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	c->end = c->p + len;
	*next = (uint64_t)(c->end - s->data);
	return 0;
}

static bool is_cie_id(const struct section *s, uint64_t id, bool is64)
{
	if (!s->debug_frame)
		return id == 0;
	return is64 ? id == ~0ULL : id == 0xffffffffu;
}

/* The CIE at off. -EBADMSG when it is not one; -ENOTSUP when its FDEs cannot be read. */
static int read_cie(const struct section *s, uint64_t off, struct cie *cie)
{
	struct cur c;
	uint64_t next, id;
	const char *aug;
	size_t aug_len;
	uint8_t version;
	bool is64;

	if (entry_at(s, off, &c, &next, &is64) != 0)
		return -EBADMSG;
	id = rd_n(&c, s->debug_frame && is64 ? 8 : 4);
	if (c.bad || !is_cie_id(s, id, is64))
		return -EBADMSG;
	version = (uint8_t)rd_n(&c, 1);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return -EBADMSG;
	aug = (const char *)c.p;
	aug_len = strnlen(aug, (size_t)(c.end - c.p));
	if (aug_len == (size_t)(c.end - c.p))
		return -EBADMSG;
	c.p += aug_len + 1;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = PE_ABSPTR;
	if (version == 4) {
		uint8_t addr_size = (uint8_t)rd_n(&c, 1), seg_size = (uint8_t)rd_n(&c, 1);

		if (!c.bad && (addr_size != 8 || seg_size != 0))
			return -ENOTSUP;
	}
	cie->code_align = rd_uleb(&c);
	cie->data_align = rd_sleb(&c);
	if (version == 1)
		(void)rd_n(&c, 1);
	else
		(void)rd_uleb(&c);
	if (c.bad)
		return -EBADMSG;
	if (aug[0] == 'z') {
		uint64_t n = rd_uleb(&c);
		struct cur a;

		if (c.bad || n > (uint64_t)(c.end - c.p))
			return -EBADMSG;
		a = (struct cur){ c.p, c.p + n, false };
		c.p += n;
		cie->aug_z = true;
		for (size_t i = 1; i < aug_len; i++) {
			uint64_t ignored;

			switch (aug[i]) {
			case 'L':
				(void)rd_n(&a, 1);
				break;
			case 'P': {
				uint8_t enc = (uint8_t)rd_n(&a, 1);

				if (!a.bad && rd_ptr(&a, s, enc & 0x7f, false, &ignored) != 0)
					return -EBADMSG;
				break;
			}
			case 'R':
				cie->fde_enc = (uint8_t)rd_n(&a, 1);
				break;
			case 'S':
				cie->signal = true;
				break;
			case 'B':
				break;
			default:
				/* Unknown letters: 'z' told us the data's length, so the
				 * FDEs can still be read; only what follows is unknown. */
				i = aug_len;
				break;
			}
			if (a.bad)
				return -EBADMSG;
		}
	} else if (aug[0] != '\0') {
		/* "eh" (pre-GCC-3) and others without 'z': FDE layout unknown. */
		return -ENOTSUP;
	}
	if (cie->fde_enc == PE_OMIT || (cie->fde_enc & PE_INDIRECT))
		return -ENOTSUP;
	if (cie->code_align == 0 || cie->code_align > 0xffff)
		return -EBADMSG;
	/* Each FDE runs its CIE's program again: real ones are a few bytes, and a long one
	 * shared by many FDEs would make the work quadratic in the section's size. */
	if (c.end - c.p > CIE_MAX_PROGRAM)
		return -EBADMSG;
	cie->insns = c.p;
	cie->insns_end = c.end;
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
static int run_program(const struct section *s, const struct cie *cie, struct cur c,
		       struct cfa_state *st, const struct cfa_state *init, struct fde_rows *f)
{
	struct cfa_state stack[STATE_STACK];
	unsigned depth = 0;
	uint64_t loc = f ? f->begin : 0;
	int err;

	while (c.p < c.end) {
		uint8_t op = (uint8_t)rd_n(&c, 1);
		uint64_t reg = 0, delta = 0, len;
		int64_t off;
		bool advance = false;

		switch (op >> 6) {
		case 1:
			delta = (op & 0x3f) * cie->code_align;
			advance = true;
			break;
		case 2:
			off = scaled(rd_uleb(&c), cie->data_align);
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

				err = rd_ptr(&c, s, cie->fde_enc, true, &to);
				if (err)
					return -EBADMSG;
				if (to < loc)
					return -EBADMSG;
				delta = to - loc;
				advance = true;
				break;
			}
			case 0x02: delta = rd_n(&c, 1) * cie->code_align; advance = true; break;
			case 0x03: delta = rd_n(&c, 2) * cie->code_align; advance = true; break;
			case 0x04: delta = rd_n(&c, 4) * cie->code_align; advance = true; break;
			case 0x05: /* offset_extended */
				reg = rd_uleb(&c);
				off = scaled(rd_uleb(&c), cie->data_align);
				set_rule(st, reg, RULE_OFFSET, off);
				break;
			case 0x06: /* restore_extended */
				reg = rd_uleb(&c);
				if (!init)
					return -EBADMSG;
				restore_rule(st, init, reg);
				break;
			case 0x07: /* undefined */
				set_rule(st, rd_uleb(&c), RULE_UNDEF, 0);
				break;
			case 0x08: /* same_value */
				set_rule(st, rd_uleb(&c), RULE_SAME, 0);
				break;
			case 0x09: /* register */
				reg = rd_uleb(&c);
				(void)rd_uleb(&c);
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
				st->cfa_reg = (uint8_t)(reg = rd_uleb(&c));
				if (reg > 255)
					st->cfa_reg = 255;
				st->cfa_off = (int64_t)rd_uleb(&c);
				break;
			case 0x0d: /* def_cfa_register */
				reg = rd_uleb(&c);
				if (st->cfa != CFA_REG)
					st->cfa_off = 0;
				st->cfa = CFA_REG;
				st->cfa_reg = reg > 255 ? 255 : (uint8_t)reg;
				break;
			case 0x0e: /* def_cfa_offset */
				st->cfa_off = (int64_t)rd_uleb(&c);
				break;
			case 0x0f: { /* def_cfa_expression */
				int thr;

				len = rd_uleb(&c);
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
				reg = rd_uleb(&c);
				len = rd_uleb(&c);
				if (c.bad || len > (uint64_t)(c.end - c.p))
					return -EBADMSG;
				c.p += len;
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x11: /* offset_extended_sf */
				reg = rd_uleb(&c);
				off = scaled((uint64_t)rd_sleb(&c), cie->data_align);
				set_rule(st, reg, RULE_OFFSET, off);
				break;
			case 0x12: /* def_cfa_sf */
				st->cfa = CFA_REG;
				reg = rd_uleb(&c);
				st->cfa_reg = reg > 255 ? 255 : (uint8_t)reg;
				st->cfa_off = scaled((uint64_t)rd_sleb(&c), cie->data_align);
				break;
			case 0x13: /* def_cfa_offset_sf */
				st->cfa_off = scaled((uint64_t)rd_sleb(&c), cie->data_align);
				break;
			case 0x14: /* val_offset */
				reg = rd_uleb(&c);
				(void)rd_uleb(&c);
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x15: /* val_offset_sf */
				reg = rd_uleb(&c);
				(void)rd_sleb(&c);
				set_rule(st, reg, RULE_OTHER, 0);
				break;
			case 0x2e: /* GNU_args_size */
				(void)rd_uleb(&c);
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				reg = rd_uleb(&c);
				off = scaled(0 - rd_uleb(&c), cie->data_align);
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
static int read_fde(struct unwind_build *b, const struct section *s, const struct cie *cie,
		    struct cur c)
{
	struct cfa_state init = { .cfa = CFA_EXPR, .rbp = RULE_SAME, .ra = RULE_SAME };
	struct cfa_state st;
	struct fde_rows f = { .b = b, .signal = cie->signal };
	uint64_t begin, range;
	struct cur ci;
	int err;

	err = rd_ptr(&c, s, cie->fde_enc, true, &begin);
	if (err == 0)
		err = rd_ptr(&c, s, cie->fde_enc & 0x0f, false, &range);
	if (err == -ENOTSUP) {
		b->t->nskipped++;
		return 0;
	}
	if (err)
		return -EBADMSG;
	if (cie->aug_z) {
		uint64_t n = rd_uleb(&c);

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
	ci = (struct cur){ cie->insns, cie->insns_end, false };
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
	const struct section s = { bytes->data, bytes->len, bytes->vaddr, bytes->debug_frame };
	struct clock_budget deadline = clock_budget__from_now((uint64_t)b->caps.max_ms * 1000000);
	uint64_t off = 0;

	while (off < s.len) {
		uint64_t next = 0, id, id_at, cie_off;
		struct cur c;
		struct cie cie;
		bool is64;
		int err;

		err = entry_at(&s, off, &c, &next, &is64);
		if (err == 1)
			break;
		if (err)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
		id_at = (uint64_t)(c.p - s.data);
		id = rd_n(&c, s.debug_frame && is64 ? 8 : 4);
		if (c.bad)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
		off = next;
		if (is_cie_id(&s, id, is64))
			continue;
		if (++b->t->nfdes > b->caps.max_fdes)
			return unwind_build__fail(b, UNWIND_TOO_MANY_FDES, -E2BIG);
		/* Every 64 FDEs: one costs at most its CIE's short program and its own bytes, a
		 * microsecond or more, and reading the thread's CPU clock is a system call. */
		if ((b->t->nfdes & 63) == 0 && clock_budget__over(&deadline))
			return unwind_build__fail(b, UNWIND_TOO_SLOW, -E2BIG);
		if (s.debug_frame) {
			cie_off = id;
		} else {
			if (id > id_at)
				return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
			cie_off = id_at - id;
		}
		err = read_cie(&s, cie_off, &cie);
		if (err == -ENOTSUP) {
			b->t->nskipped++;
			continue;
		}
		if (err)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
		err = read_fde(b, &s, &cie, c);
		if (err == -E2BIG)
			return unwind_build__fail(b, UNWIND_TOO_MANY_ROWS, -E2BIG);
		if (err == -ENOMEM)
			return unwind_build__fail(b, UNWIND_NO_MEMORY, -ENOMEM);
		if (err)
			return unwind_build__fail(b, UNWIND_MALFORMED, -ENOEXEC);
	}
	return 0;
}

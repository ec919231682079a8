// SPDX-License-Identifier: MIT
/*
 * Names for PLT stubs ("memcpy@plt"), which no symbol table names: without them, time
 * spent in a stub is charged to whatever symbol comes before it (usually _init).
 *
 * Each x86-64 stub is an indirect jump through one GOT slot, and the dynamic
 * relocation of that slot names the function (JUMP_SLOT for .plt and .plt.sec, GLOB_DAT
 * for .plt.got). So the stub is decoded, not counted: the same code names lazy and
 * -z now binaries, IBT stubs (.plt.sec) and .plt.got, whatever order the linker chose.
 * Stubs that jump elsewhere (PLT0, the lazy half of an IBT .plt) stay unnamed. Other
 * machines are left alone: their stubs are named by nothing, as before.
 *
 * Bounded: the relocations kept, the relocation bytes scanned, the PLT bytes read and
 * the name length all have caps; a binary past them gets the stubs named so far.
 */
#include "elf/elf_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"

#define PLT_MAX_RELOCS (1u << 16)      /* JUMP_SLOT + GLOB_DAT kept; libc has ~1,500 */
#define PLT_MAX_RELOC_BYTES (32u << 20) /* .rela.dyn of huge C++ libraries is mostly RELATIVE */
#define PLT_MAX_SECTION (1u << 20)     /* 65,536 stubs of 16 bytes */
#define PLT_NAME_MAX 255
#define RELOC_CHUNK 2730               /* Elf64_Rela per 64 KB read */
#define PLT_MAX_HELD (4u << 20)        /* .dynsym or .dynstr read whole up to this (libc: 80 KB) */

struct got_slot {
	uint64_t addr;
	uint32_t sym;
};

struct plt_reader {
	const struct elf_reader *r;
	const struct elf_shdr *dynsym, *dynstr;
	struct got_slot *slots;
	size_t nslots, cap_slots;
	/* .dynsym and .dynstr when read whole (up to PLT_MAX_HELD each), else NULL: a stub's
	 * name is then two reads of the file, not two copies from memory. */
	unsigned char *syms, *strs;
};

static int slot__cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* Keeps the GOT slots that name a function: JUMP_SLOT and GLOB_DAT with a symbol. */
static int read_relocs(struct plt_reader *pr, const struct elf_shdr *sh, uint64_t *budget)
{
	Elf64_Rela *buf;
	uint64_t n = sh->size / sizeof(Elf64_Rela), done = 0;
	int err = 0;

	if (sh->entsize != sizeof(Elf64_Rela) || (sh->flags & SHF_COMPRESSED))
		return 0;
	if (sh->size > *budget)
		n = *budget / sizeof(Elf64_Rela);
	*budget -= n * sizeof(Elf64_Rela);
	buf = malloc(RELOC_CHUNK * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	while (done < n && !err && pr->nslots < pr->cap_slots) {
		size_t k = n - done < RELOC_CHUNK ? (size_t)(n - done) : RELOC_CHUNK;

		err = elf_reader__pread(pr->r, buf, k * sizeof(*buf),
					sh->offset + done * sizeof(*buf));
		for (size_t i = 0; i < k && !err && pr->nslots < pr->cap_slots; i++) {
			uint64_t info = elf_reader__u64(pr->r, buf[i].r_info);
			uint32_t type = ELF64_R_TYPE(info), sym = ELF64_R_SYM(info);

			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || sym == 0)
				continue;
			pr->slots[pr->nslots].addr = elf_reader__u64(pr->r, buf[i].r_offset);
			pr->slots[pr->nslots].sym = sym;
			pr->nslots++;
		}
		done += k;
	}
	free(buf);
	return err;
}

static const struct got_slot *find_slot(const struct plt_reader *pr, uint64_t addr)
{
	struct got_slot key = { .addr = addr };

	return bsearch(&key, pr->slots, pr->nslots, sizeof(key), slot__cmp);
}

/* len bytes at off of sh: from memory when held whole, else read from the file. */
static int plt_copy(const struct plt_reader *pr, const struct elf_shdr *sh,
		    const unsigned char *held, void *out, size_t len, uint64_t off)
{
	if (held) {
		memcpy(out, held + off, len);
		return 0;
	}
	return elf_reader__pread(pr->r, out, len, sh->offset + off);
}

/* "name@plt" of dynamic symbol i into out (PLT_NAME_MAX + 5 bytes): its length, 0 when
 * the symbol has no readable name, or -errno. */
static int plt_name(const struct plt_reader *pr, uint32_t i, char *out)
{
	Elf64_Sym sym;
	uint64_t name, avail;
	size_t len;
	char *nul;
	int err;

	if (i >= pr->dynsym->size / sizeof(sym))
		return 0;
	err = plt_copy(pr, pr->dynsym, pr->syms, &sym, sizeof(sym), (uint64_t)i * sizeof(sym));
	if (err)
		return err;
	name = elf_reader__u32(pr->r, sym.st_name);
	if (name == 0 || name >= pr->dynstr->size)
		return 0;
	avail = pr->dynstr->size - name;
	len = avail < PLT_NAME_MAX ? (size_t)avail : PLT_NAME_MAX;
	err = plt_copy(pr, pr->dynstr, pr->strs, out, len, name);
	if (err)
		return err;
	nul = memchr(out, '\0', len);
	if (nul)
		len = (size_t)(nul - out);
	if (len == 0)
		return 0;
	memcpy(out + len, "@plt", 5);
	return (int)len + 4;
}

/* sh whole when within PLT_MAX_HELD and readable, else NULL (read a name at a time). */
static unsigned char *plt_hold(const struct plt_reader *pr, const struct elf_shdr *sh)
{
	unsigned char *buf;

	if (sh->size == 0 || sh->size > PLT_MAX_HELD || (sh->flags & SHF_COMPRESSED))
		return NULL;
	buf = malloc(sh->size);
	if (buf && elf_reader__pread(pr->r, buf, sh->size, sh->offset) != 0) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/*
 * The GOT slot a stub jumps through: "jmp *disp32(%rip)" (ff 25), after an endbr64
 * (f3 0f 1e fa) and a bnd prefix (f2) when there are. false for anything else.
 */
static bool stub_target(const unsigned char *code, size_t len, uint64_t addr, uint64_t *slot)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t p = 0;
	int32_t disp;

	if (len >= sizeof(endbr64) && memcmp(code, endbr64, sizeof(endbr64)) == 0)
		p = sizeof(endbr64);
	if (p < len && code[p] == 0xf2)
		p++;
	if (len < p + 6 || code[p] != 0xff || code[p + 1] != 0x25)
		return false;
	memcpy(&disp, code + p + 2, sizeof(disp));
	*slot = addr + p + 6 + (uint64_t)(int64_t)disp;
	return true;
}

static int name_stubs(const struct plt_reader *pr, const struct elf_shdr *sh, elf_symbol_fn fn,
		      void *ctx)
{
	uint64_t entsize = sh->entsize == 8 || sh->entsize == 16 ? sh->entsize : 16;
	unsigned char *code;
	char name[PLT_NAME_MAX + 5];
	int err;

	if (sh->size == 0 || sh->size > PLT_MAX_SECTION || (sh->flags & SHF_COMPRESSED))
		return 0;
	code = malloc(sh->size);
	if (!code)
		return -ENOMEM;
	err = elf_reader__pread(pr->r, code, sh->size, sh->offset);
	for (uint64_t off = 0; !err && sh->size - off >= entsize; off += entsize) {
		const struct got_slot *slot;
		uint64_t got;
		int len;

		if (!stub_target(code + off, entsize, sh->addr + off, &got))
			continue;
		slot = find_slot(pr, got);
		if (!slot)
			continue;
		len = plt_name(pr, slot->sym, name);
		if (len < 0)
			err = len;
		else if (len > 0)
			err = fn(ctx, sh->addr + off, entsize, true, name, (size_t)len);
	}
	free(code);
	return err;
}

static bool is_plt_section(const struct elf_reader *r, uint32_t i)
{
	const struct elf_shdr *sh = &r->shdrs[i];
	const char *name = elf_reader__section_name(r, i);

	return sh->type == SHT_PROGBITS && (sh->flags & SHF_EXECINSTR) &&
	       (strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
		strcmp(name, ".plt.got") == 0);
}

int elf__each_plt_stub(int fd, elf_symbol_fn fn, void *ctx)
{
	return elf__each_plt_stub_limited(fd, NULL, fn, ctx);
}

int elf__each_plt_stub_limited(int fd, struct elf_limits *limits, elf_symbol_fn fn, void *ctx)
{
	struct plt_reader pr = { 0 };
	struct elf_reader r;
	uint64_t budget = PLT_MAX_RELOC_BYTES;
	int index, err;

	err = elf_reader__open_limited(&r, fd, limits);
	if (err)
		return err;
	pr.r = &r;
	index = elf_reader__find_section(&r, SHT_DYNSYM);
	/* Only x86-64 stubs are decoded; only executables and libraries have a PLT. */
	if (!r.is64 || r.machine != EM_X86_64 || index < 0 ||
	    (r.type != ET_EXEC && r.type != ET_DYN))
		goto out_close;
	pr.dynsym = &r.shdrs[index];
	err = -ENOEXEC;
	if (pr.dynsym->link == 0 || pr.dynsym->link >= r.shnum ||
	    r.shdrs[pr.dynsym->link].type != SHT_STRTAB)
		goto out_close;
	pr.dynstr = &r.shdrs[pr.dynsym->link];
	err = 0;
	if (pr.dynsym->type == SHT_NOBITS || pr.dynstr->type == SHT_NOBITS)
		goto out_close;

	/* As many slots as the relocations could fill, up to the cap. */
	for (uint32_t i = 0; i < r.shnum && pr.cap_slots < PLT_MAX_RELOCS; i++)
		if (r.shdrs[i].type == SHT_RELA && r.shdrs[i].link == (uint32_t)index &&
		    r.shdrs[i].entsize == sizeof(Elf64_Rela))
			pr.cap_slots += r.shdrs[i].size / sizeof(Elf64_Rela) < PLT_MAX_RELOCS ?
						r.shdrs[i].size / sizeof(Elf64_Rela) :
						PLT_MAX_RELOCS;
	if (pr.cap_slots > PLT_MAX_RELOCS)
		pr.cap_slots = PLT_MAX_RELOCS;
	if (pr.cap_slots == 0)
		goto out_close;
	pr.slots = malloc(pr.cap_slots * sizeof(*pr.slots));
	err = -ENOMEM;
	if (!pr.slots)
		goto out_close;
	err = 0;
	for (uint32_t i = 0; i < r.shnum && !err; i++) {
		if (r.shdrs[i].type == SHT_RELA && r.shdrs[i].link == (uint32_t)index)
			err = read_relocs(&pr, &r.shdrs[i], &budget);
	}
	if (err || pr.nslots == 0)
		goto out_free;
	qsort(pr.slots, pr.nslots, sizeof(*pr.slots), slot__cmp);
	pr.syms = plt_hold(&pr, pr.dynsym);
	pr.strs = plt_hold(&pr, pr.dynstr);
	for (uint32_t i = 0; i < r.shnum && !err; i++) {
		if (is_plt_section(&r, i))
			err = name_stubs(&pr, &r.shdrs[i], fn, ctx);
	}
out_free:
	free(pr.syms);
	free(pr.strs);
	free(pr.slots);
out_close:
	elf_reader__close(&r);
	return err;
}

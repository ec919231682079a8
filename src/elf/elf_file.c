// SPDX-License-Identifier: MIT
/*
 * What a profile needs to know of a binary, read once per binary at capture and once
 * per upload: its GNU build id, whether it still has its function names (.symtab) or
 * only its exports (.dynsym), whether it is a debug file, whether Go built it, and its
 * loadable segments (to turn a file offset from /proc/PID/maps into an ELF address).
 */
#include "elf/elf_file.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_reader.h"

/* Note sections worth reading are tiny; a larger one is read only this far. */
#define NOTES_MAX (64u << 10)

#ifndef NT_GO_BUILD_ID
#define NT_GO_BUILD_ID 4 /* Go's own note: name "Go", type 4 (cmd/link/internal/ld/elf.go) */
#endif

static void hex(const unsigned char *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * Walks the notes in buf (len bytes, entries aligned to align) for the GNU build id and
 * Go's build id note. Stops at the first malformed entry: what came before still counts.
 */
static void scan_notes(const struct elf_reader *r, const unsigned char *buf, size_t len,
		       size_t align, struct elf_info *info)
{
	size_t pos = 0;

	while (len - pos >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at, desc_at, next;

		memcpy(&namesz, buf + pos, 4);
		memcpy(&descsz, buf + pos + 4, 4);
		memcpy(&type, buf + pos + 8, 4);
		namesz = elf_reader__u32(r, namesz);
		descsz = elf_reader__u32(r, descsz);
		type = elf_reader__u32(r, type);

		name_at = pos + 12;
		if (namesz > len - name_at)
			return;
		desc_at = name_at + ((namesz + align - 1) & ~(align - 1));
		if (desc_at > len || descsz > len - desc_at)
			return;
		next = desc_at + ((descsz + align - 1) & ~(align - 1));

		if (namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 &&
		    type == NT_GNU_BUILD_ID && descsz > 0 && descsz * 2 <= BUILD_ID_HEX_MAX &&
		    !info->build_id[0])
			hex(buf + desc_at, descsz, info->build_id);
		if (namesz == 3 && memcmp(buf + name_at, "Go", 3) == 0 && type == NT_GO_BUILD_ID)
			info->is_go = true;
		if (next <= pos || next > len)
			return;
		pos = next;
	}
}

static int read_notes(const struct elf_reader *r, uint64_t offset, uint64_t size,
		      uint64_t alignment, struct elf_info *info)
{
	size_t len = size < NOTES_MAX ? (size_t)size : NOTES_MAX;
	unsigned char *buf;
	int err;

	if (len == 0)
		return 0;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = elf_reader__pread(r, buf, len, offset);
	if (!err)
		scan_notes(r, buf, len, alignment == 8 ? 8 : 4, info);
	free(buf);
	return err;
}

/* Stops the walk at the first function symbol. */
static int found_function(const struct elf_func *f, void *ctx)
{
	(void)f;
	*(bool *)ctx = true;
	return 1;
}

static int has_function(const struct elf_reader *r, uint32_t index, bool *has)
{
	int err;

	*has = false;
	if (r->shdrs[index].flags & SHF_COMPRESSED)
		return 0;
	err = elf_reader__each_function(r, index, found_function, has);
	return err < 0 ? err : 0;
}

static int read_sections(const struct elf_reader *r, struct elf_info *info, bool scan_tables)
{
	bool has_text = false, exec_nobits = false, exec_progbits = false;
	int err;

	for (uint32_t i = 0; i < r->shnum; i++) {
		const struct elf_shdr *sh = &r->shdrs[i];
		const char *name = elf_reader__section_name(r, i);
		bool has;

		if (strcmp(name, ".go.buildinfo") == 0 || strcmp(name, ".note.go.buildid") == 0)
			info->is_go = true;
		if (strcmp(name, ".text") == 0) {
			has_text = true;
			info->debug_only = sh->type == SHT_NOBITS;
		}
		if ((sh->flags & SHF_EXECINSTR) && (sh->flags & SHF_ALLOC)) {
			exec_nobits |= sh->type == SHT_NOBITS;
			exec_progbits |= sh->type != SHT_NOBITS;
		}

		switch (sh->type) {
		case SHT_NOTE:
			err = read_notes(r, sh->offset, sh->size, sh->addralign, info);
			if (err)
				return err;
			break;
		/* One function is enough to know: the rest of a table (or another table of
		 * the kind) is for reading names, within that step's caps. */
		case SHT_SYMTAB:
			if (info->has_symtab || !scan_tables)
				break;
			err = has_function(r, i, &has);
			if (err)
				return err;
			info->has_symtab = has;
			break;
		case SHT_DYNSYM:
			if (info->has_dynsym || !scan_tables)
				break;
			err = has_function(r, i, &has);
			if (err)
				return err;
			info->has_dynsym = has;
			break;
		}
	}
	/* A debug file without a section called .text still has its code sections empty. */
	if (!has_text)
		info->debug_only = exec_nobits && !exec_progbits;
	return 0;
}

static int read_segments(const struct elf_reader *r, struct elf_info *info)
{
	bool notes_from_sections = elf_reader__find_section(r, SHT_NOTE) >= 0;

	for (uint32_t i = 0; i < r->phnum; i++) {
		struct elf_phdr ph;
		int err = elf_reader__phdr(r, i, &ph);

		if (err)
			return err;
		if (ph.type == PT_LOAD && info->nsegments < ELF_MAX_SEGMENTS) {
			struct elf_segment *seg = &info->segments[info->nsegments++];

			seg->offset = ph.offset;
			seg->vaddr = ph.vaddr;
			seg->filesz = ph.filesz;
			seg->memsz = ph.memsz;
			seg->flags = ph.flags;
		}
		/* Without section headers (sstrip), the notes are found by segment. A note
		 * segment pointing outside the file is not trusted, but is no reason to refuse
		 * the file: debug files keep program headers whose data they dropped. */
		if (ph.type == PT_NOTE && !notes_from_sections &&
		    elf_reader__in_file(r, ph.offset, ph.filesz)) {
			err = read_notes(r, ph.offset, ph.filesz, ph.align, info);
			if (err)
				return err;
		}
	}
	return 0;
}

int elf_info__read(int fd, struct elf_info *info)
{
	return elf_info__read_limited(fd, NULL, info);
}

static int elf_info__read_some(int fd, struct elf_limits *limits, struct elf_info *info,
			       bool scan_tables)
{
	struct elf_reader r;
	int err;

	memset(info, 0, sizeof(*info));
	err = elf_reader__open_limited(&r, fd, limits);
	if (err)
		return err;
	info->type = r.type;
	err = read_sections(&r, info, scan_tables);
	if (err)
		goto out_close;
	err = read_segments(&r, info);
	if (err)
		goto out_close;
	info->language = info->is_go ? LANGUAGE_GO : LANGUAGE_C;

out_close:
	elf_reader__close(&r);
	if (err)
		memset(info, 0, sizeof(*info));
	return err;
}

int elf_info__read_limited(int fd, struct elf_limits *limits, struct elf_info *info)
{
	return elf_info__read_some(fd, limits, info, true);
}

int elf_info__read_identity(int fd, struct elf_limits *limits, struct elf_info *info)
{
	return elf_info__read_some(fd, limits, info, false);
}

bool elf_info__offset_to_vaddr(const struct elf_info *info, uint64_t offset, uint64_t *vaddr)
{
	/* Exact first: offset inside a segment's bytes. */
	for (unsigned i = 0; i < info->nsegments && i < ELF_MAX_SEGMENTS; i++) {
		const struct elf_segment *seg = &info->segments[i];

		if (offset >= seg->offset && offset - seg->offset < seg->filesz) {
			*vaddr = seg->vaddr + (offset - seg->offset);
			return true;
		}
	}
	/* Then the page a segment starts in: the mapping starts at a page boundary, and
	 * the bytes before the segment in that page are mapped at the same distance. */
	for (unsigned i = 0; i < info->nsegments && i < ELF_MAX_SEGMENTS; i++) {
		const struct elf_segment *seg = &info->segments[i];
		uint64_t page = seg->offset & ~(uint64_t)4095;

		if (offset >= page && offset < seg->offset && seg->vaddr >= seg->offset - offset) {
			*vaddr = seg->vaddr - (seg->offset - offset);
			return true;
		}
	}
	return false;
}

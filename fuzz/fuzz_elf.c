// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over the ELF reader: whatever the bytes, elf_info__read and
 * symtab__read_elf (symbols, PLT stubs, .eh_frame function ranges) must return without
 * crashing, leaking or reading outside what they allocated, and a table they return
 * must keep the symbol table's invariants (sorted, no empty symbol; an empty name only
 * for an unnamed function) and survive the stored form unchanged. Every .eh_frame range
 * reported must be non-empty and not wrap. The same bytes are
 * also given to symtab__deserialize, which must refuse anything that is not a table.
 *
 * The reader works on a file descriptor, so the input is written to a memfd.
 *
 *   make build/fuzz/fuzz_elf       (also makes the seeds: fuzz/make-seeds.sh)
 *   build/fuzz/fuzz_elf -max_total_time=60 build/fuzz/corpus build/fuzz/seeds/elf
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "symbols/symtab.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void check_table(const struct symtab *tab)
{
	struct symtab *back;
	void *blob;
	size_t len;

	for (size_t i = 0; i < tab->nsyms; i++) {
		const struct symbol *sym = &tab->syms[i];
		uint64_t off = ~0ull;

		check(sym->size > 0);
		check(sym->name < tab->names_len);
		if (i > 0)
			check(tab->syms[i - 1].addr < sym->addr);
		check(symtab__lookup(tab, sym->addr, &off) != NULL && off == 0);
	}
	if (symtab__serialize(tab, &blob, &len) != 0)
		return;
	back = symtab__deserialize(blob, len);
	check(back != NULL);
	check(back->nsyms == tab->nsyms);
	for (size_t i = 0; i < tab->nsyms; i++) {
		check(back->syms[i].addr == tab->syms[i].addr);
		check(back->syms[i].size == tab->syms[i].size);
		check(strcmp(back->names + back->syms[i].name, tab->names + tab->syms[i].name) == 0);
	}
	symtab__free(back);
	free(blob);
}

static int check_range(void *ctx, uint64_t start, uint64_t size)
{
	(*(unsigned *)ctx)++;
	check(size > 0 && start <= UINT64_MAX - size);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct elf_info info;
	struct symtab *tab;
	uint64_t vaddr;

	if (fd < 0) {
		fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();

	if (elf_info__read(fd, &info) == 0) {
		check(info.nsegments <= ELF_MAX_SEGMENTS);
		check(strlen(info.build_id) <= BUILD_ID_HEX_MAX);
		for (unsigned i = 0; i < info.nsegments; i++)
			elf_info__offset_to_vaddr(&info, info.segments[i].offset + 1, &vaddr);
		binary__language("/usr/local/bin/app", &info);
	}
	for (int from = ELF_SYMBOLS_SYMTAB; from <= ELF_SYMBOLS_DYNSYM; from++) {
		if (symtab__read_elf(fd, from, &tab) == 0) {
			check_table(tab);
			symtab__free(tab);
		}
	}

	{
		unsigned nranges = 0;

		elf__each_function_range(fd, check_range, &nranges);
		check(nranges <= (1u << 21));
	}

	tab = symtab__deserialize(data, size);
	if (tab)
		check_table(tab);
	symtab__free(tab);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over the unwind table builder: whatever the bytes, as a whole ELF file
 * (unwind_table__build) and as the raw bytes of an .eh_frame and a .debug_frame section
 * (unwind_table__from_section), it must return within its caps without crashing, leaking
 * or reading outside what it allocated, and a table it returns must keep the invariants
 * the BPF walker relies on (unwind_table__valid) and survive the on-disk form unchanged.
 * The bytes are also given to unwind_table__deserialize, which must refuse anything that
 * is not a table.
 *
 *   make build/fuzz/fuzz_unwind       (seeds: build/fuzz/seeds/unwind, fuzz/make-seeds.sh
 *                                      plus libc.so.6 and python3.11's frame sections)
 *   build/fuzz/fuzz_unwind -max_total_time=60 build/fuzz/corpus-unwind build/fuzz/seeds/unwind
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/unwind.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void check_table(struct unwind_table *t)
{
	struct unwind_table *back;
	void *blob;
	size_t len;

	check(unwind_table__valid(t));
	for (uint32_t i = 0; i + 1 < t->nrows; i++)
		check(unwind_table__lookup(t, t->base + t->rows[i].pc) == &t->rows[i]);
	if (unwind_table__serialize(t, "0123abcd", &blob, &len) != 0)
		return;
	back = unwind_table__deserialize(blob, len, "0123abcd");
	check(back != NULL);
	check(back->nrows == t->nrows && back->base == t->base);
	check(memcmp(back->rows, t->rows, t->nrows * sizeof(*t->rows)) == 0);
	check(unwind_table__deserialize(blob, len, "0123abce") == NULL);
	unwind_table__free(back);
	free(blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Small caps, so a hostile table meets them quickly; the defaults are tested on
	 * real binaries by tests/unit/unwind/test_unwind_table.c. */
	const struct unwind_caps caps = { .max_bytes = 1 << 20, .max_fdes = 4096,
					  .max_rows = 1 << 16, .max_ms = 1000 };
	static int fd = -1;
	struct unwind_table *t;
	enum unwind_not_read why;

	if (fd < 0) {
		fd = memfd_create("fuzz_unwind", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (unwind_table__build(fd, &caps, &t, &why) == 0) {
		check(why == UNWIND_READ);
		check_table(t);
		unwind_table__free(t);
	} else {
		check(why != UNWIND_READ && why < UNWIND_NOT_READ_COUNT);
	}
	for (int debug = 0; debug <= 1; debug++) {
		if (unwind_table__from_section(data, size, 0x401000, debug, &caps, &t, &why) == 0) {
			check_table(t);
			unwind_table__free(t);
		}
	}
	t = unwind_table__deserialize(data, size, "0123abcd");
	if (t)
		check_table(t);
	unwind_table__free(t);
	return 0;
}

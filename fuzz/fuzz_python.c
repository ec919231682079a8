// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over python_binary__read (src/unwind/python_binary.c): whatever the bytes,
 * it returns without crashing, leaking or reading outside what it allocated, and what it
 * accepts is a version and offsets the BPF walker can use (windows within bounds), which
 * python_proc__init places without overflowing. The bytes are also given to the code
 * cache as a record from BPF, whose strings must come out as bounded UTF-8 and whose
 * line table, whatever it holds, is decoded within its bounds.
 *
 *   make build/fuzz/fuzz_python    (also makes the seeds: fuzz/make-python-seeds.sh)
 *   build/fuzz/fuzz_python -max_total_time=60 build/fuzz/corpus build/fuzz/seeds/python
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/python.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct python_binary bin;
	struct python_proc proc;
	struct python_code rec;
	struct python_code_cache *cache;
	const struct python_code_entry *e;

	if (fd < 0) {
		fd = memfd_create("fuzz_python", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();

	if (python_binary__read(fd, "/usr/lib/libpython3.11.so.1.0", &bin) == 0) {
		check(bin.major == 3 && bin.minor >= PYTHON_MIN_MINOR &&
		      bin.minor <= PYTHON_MAX_MINOR);
		check(bin.off.tstate_words <= PYTHON_WINDOW_WORDS);
		check(bin.off.frame_words <= PYTHON_WINDOW_WORDS);
		check(bin.nsegments <= PYTHON_MAX_SEGMENTS);
		for (unsigned i = 0; i < bin.nsegments; i++)
			python_proc__init(&bin, 0x7f0000000000ull,
					  bin.segments[i].offset & ~0xfffull, &proc);
	}

	memset(&rec, 0, sizeof(rec));
	memcpy(&rec, data, size < sizeof(rec) ? size : sizeof(rec));
	cache = python_code_cache__new();
	if (!cache)
		return 0;
	if (python_code_cache__add(cache, 1, &rec) == 0) {
		e = python_code_cache__find(cache, 1, rec.code);
		check(e != NULL);
		check(strlen(e->name) <= 4 * PYTHON_NAME_LEN + 3);
		check(strlen(e->file) <= 4 * PYTHON_FILE_LEN + 3);
		for (uint32_t instr = 0; instr < 2 * PYTHON_TABLE_LEN; instr += 3)
			python_code__line(e, instr);
	}
	python_code_cache__free(cache);
	return 0;
}

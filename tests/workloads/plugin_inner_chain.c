// SPDX-License-Identifier: MIT
/* A shared library without frame pointers, which stack_chains dlopens: plugin_work ->
 * plugin_inner: tests/integration/stacks.sh. */
/* build: -O2 -fomit-frame-pointer -fPIC -shared */
#include <stdint.h>
#define KEEP __attribute__((noipa))
KEEP uint64_t plugin_inner(uint64_t x)
{
	volatile char pad[24];

	for (int i = 0; i < 100000; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	pad[0] = (char)x;
	return x + pad[0];
}
KEEP uint64_t plugin_work(uint64_t x) { volatile long pad[3]; pad[0] = (long)x; return plugin_inner(x + pad[0]) ^ 5; }

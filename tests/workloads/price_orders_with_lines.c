// SPDX-License-Identifier: MIT
/* Busy in price_orders (built with -g and a build id): tests/integration/store_pg.sh. */
/* build: -O1 -g -fno-omit-frame-pointer -Wl,--build-id */
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) uint64_t price_orders(uint64_t n)
{
	uint64_t a = 0;
	for (uint64_t i = 0; i < n; i++) {
		a += i * i ^ (a >> 3);
		sink = a;
	}
	return a;
}
int main(void) { for (;;) sink = price_orders(20000000); }

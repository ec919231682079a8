// SPDX-License-Identifier: MIT
/* Busy in price_orders and ship_orders, without frame pointers: tests/integration/stripped_functions.sh. */
/* build: -O2 -fomit-frame-pointer -Wl,--build-id */
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
__attribute__((noinline)) uint64_t ship_orders(uint64_t n)
{
	uint64_t a = 1;
	for (uint64_t i = 0; i < n; i++) {
		a = a * 31 + (i ^ (a >> 7));
		sink = a;
	}
	return a;
}
int main(void)
{
	for (;;) {
		sink = price_orders(20000000);
		sink = ship_orders(20000000);
	}
}

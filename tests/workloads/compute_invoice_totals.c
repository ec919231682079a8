// SPDX-License-Identifier: MIT
/* Busy in compute_invoice_totals (built with -g and a build id): tests/integration/stripped_card.sh. */
/* build: -O1 -g -fno-omit-frame-pointer -Wl,--build-id */
#include <stdint.h>
volatile uint64_t sink;
/* Writes a volatile on every turn, so the compiler cannot hoist the call out of main. */
__attribute__((noinline)) uint64_t compute_invoice_totals(uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		acc += i * i ^ (acc >> 3);
		sink = acc;
	}
	return acc;
}
int main(void)
{
	for (;;)
		sink = compute_invoice_totals(50000000);
}

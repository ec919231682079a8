// SPDX-License-Identifier: MIT
/* Busy in leaf, called from main: tests/integration/serve_clients.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) void leaf(void) { for (int i = 0; i < 100000; i++) sink += i; }
int main(void) { for (;;) leaf(); }

// SPDX-License-Identifier: MIT
/* Busy in leaf, called from middle: tests/integration/serve_api.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) void leaf(void) { for (int i = 0; i < 100000; i++) sink += i; }
__attribute__((noinline)) void middle(void) { leaf(); }
int main(void) { for (;;) middle(); }

// SPDX-License-Identifier: MIT
/* Spins in spin_without_id, built without a build id: tests/integration/stripped_card.sh. */
/* build: -O1 -fno-omit-frame-pointer -Wl,--build-id=none */
volatile unsigned long sink;
__attribute__((noinline)) void spin_without_id(void) { for (unsigned long i = 0; i < 100000000UL; i++) sink += i; }
int main(void) { for (;;) spin_without_id(); }

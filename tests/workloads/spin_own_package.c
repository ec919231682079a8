// SPDX-License-Identifier: MIT
/* Spins in spin_own_package: tests/integration/package_card.sh. */
/* build: -O1 -Wl,--build-id */
volatile unsigned long sink;
__attribute__((noinline)) void spin_own_package(void) { for (unsigned long i = 0; i < 100000000UL; i++) sink += i; }
int main(void) { for (;;) spin_own_package(); }

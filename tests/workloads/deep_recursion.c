// SPDX-License-Identifier: MIT
/* 300 frames of recursion down to deep_leaf, for ever: tests/integration/serve_browser.sh. */
/* build: -O1 -fno-omit-frame-pointer */
volatile unsigned long sink;
__attribute__((noinline)) void deep_leaf(void)
{
	for (unsigned long i = 0; i < (1ul << 22); i++)
		sink += i;
}
__attribute__((noinline)) void deep_descend(int n)
{
	if (n == 0)
		deep_leaf();
	else
		deep_descend(n - 1);
	sink++;
}
int main(void) { for (;;) deep_descend(300); }

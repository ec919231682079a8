// SPDX-License-Identifier: MIT
/* Busy in ledger_settle_hot under post_invoices (built with -g, a build id): tests/integration/serve_browser.sh. */
/* build: -O1 -g -fno-omit-frame-pointer -Wl,--build-id */
__attribute__((noinline)) unsigned long ledger_settle_hot(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * 2654435761u;
	return s;
}
__attribute__((noinline)) unsigned long post_invoices(void) { return ledger_settle_hot(1 << 22); }
int main(void) { for (;;) post_invoices(); }

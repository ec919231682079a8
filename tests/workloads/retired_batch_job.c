// SPDX-License-Identifier: MIT
/* Busy in retired_batch_job (built with -g): tests/integration/serve_browser.sh. */
/* build: -O1 -g -fno-omit-frame-pointer */
volatile unsigned long sink;
__attribute__((noinline)) void retired_batch_job(void)
{
	for (unsigned long i = 0; i < (1ul << 24); i++)
		sink += i;
}
int main(void) { for (;;) retired_batch_job(); }

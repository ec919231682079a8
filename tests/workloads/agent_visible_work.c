// SPDX-License-Identifier: MIT
/* Busy in agent_visible_work (built with -g): tests/integration/serve_browser_agents.sh. */
/* build: -O1 -g -fno-omit-frame-pointer */
__attribute__((noinline)) unsigned long agent_visible_work(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * 2654435761u;
	return s;
}
int main(void) { for (;;) agent_visible_work(1 << 22); }

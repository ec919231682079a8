// SPDX-License-Identifier: MIT
/* Spins in main for ever: tests/integration/capture_workspace.sh and serve_capture.sh. */
/* build: -O1 */
int main(void) { volatile unsigned long x = 0; for (;;) x++; }

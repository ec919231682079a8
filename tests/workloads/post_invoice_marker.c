// SPDX-License-Identifier: MIT
/* Prints a marker string (no upload may store a file's bytes) and post_invoice's result,
 * settle_ledger under it; built with -g as PIE. Its other builds are post_invoice_marker_*.c:
 * tests/integration/symbols_upload.sh. */
/* build: -O1 -g -pie -fPIE -Wl,--build-id */
#include <stdio.h>
const char marker[] = "SLIDEOPS-FILE-CONTENT-MARKER-7f3a";
__attribute__((noinline)) int settle_ledger(int n) { int s = 0; for (int i = 0; i < n; i++) s ^= i * 31; return s; }
__attribute__((noinline)) int post_invoice(int n) { return settle_ledger(n) + 1; }
int main(int argc, char **argv) { (void)argv; printf("%s %d\n", marker, post_invoice(argc)); return 0; }

// SPDX-License-Identifier: MIT
/* Runs settle_ledger once and exits (built with -g and a build id, so its debug file can
 * be uploaded): tests/integration/serve_upload.sh. */
/* build: -O1 -g -Wl,--build-id */
__attribute__((noinline)) int settle_ledger(int n) { int s = 0; for (int i = 0; i < n; i++) s ^= i * 31; return s; }
int main(int argc, char **argv) { (void)argv; return settle_ledger(argc); }

// SPDX-License-Identifier: MIT
/* post_invoice_marker.c not PIE: tests/integration/symbols_upload.sh. */
/* build: -O1 -g -no-pie -Wl,--build-id */
#include "post_invoice_marker.c"

// SPDX-License-Identifier: MIT
/* post_invoice_marker.c with a build id whose first 12 hex post_invoice_marker_twin2 shares: tests/integration/symbols_upload.sh. */
/* build: -O1 -Wl,--build-id=0xaabbccddeeff00112233445566778899aabbccdd */
#include "post_invoice_marker.c"

// SPDX-License-Identifier: MIT
/* post_invoice_marker.c with a build id whose first 12 hex post_invoice_marker_twin1 shares: tests/integration/symbols_upload.sh. */
/* build: -O1 -Wl,--build-id=0xaabbccddeeff99887766554433221100ffeeddcc */
#include "post_invoice_marker.c"

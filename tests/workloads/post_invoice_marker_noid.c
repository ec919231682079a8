// SPDX-License-Identifier: MIT
/* post_invoice_marker.c without a build id: tests/integration/symbols_upload.sh. */
/* build: -O1 -Wl,--build-id=none */
#include "post_invoice_marker.c"

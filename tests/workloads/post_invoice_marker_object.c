// SPDX-License-Identifier: MIT
/* post_invoice_marker.c as an object file, no binary: tests/integration/symbols_upload.sh. */
/* build: -O1 -c */
#include "post_invoice_marker.c"

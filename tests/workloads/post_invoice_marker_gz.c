// SPDX-License-Identifier: MIT
/* post_invoice_marker.c its debug sections compressed: tests/integration/symbols_upload.sh. */
/* build: -O1 -g -gz=zlib */
#include "post_invoice_marker.c"

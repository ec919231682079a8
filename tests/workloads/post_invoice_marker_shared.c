// SPDX-License-Identifier: MIT
/* post_invoice_marker.c as a shared library: tests/integration/symbols_upload.sh. */
/* build: -O1 -g -shared -fPIC */
#include "post_invoice_marker.c"

// SPDX-License-Identifier: MIT
/* settle_ledger_once.c built without a build id: tests/integration/serve_upload.sh. */
/* build: -O1 -Wl,--build-id=none */
#include "settle_ledger_once.c"

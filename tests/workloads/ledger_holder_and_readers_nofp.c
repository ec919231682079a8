// SPDX-License-Identifier: MIT
/* ledger_holder_and_readers.c without frame pointers (the unwind tables' walk):
 * tests/integration/capture_lock_holders.sh. */
/* build: -O1 -pthread -fomit-frame-pointer */
#include "ledger_holder_and_readers.c"

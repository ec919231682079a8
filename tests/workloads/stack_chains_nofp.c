// SPDX-License-Identifier: MIT
/* stack_chains.c without frame pointers (PIE): tests/integration/stacks.sh. */
/* build: -O2 -fomit-frame-pointer -ldl */
#include "stack_chains.c"

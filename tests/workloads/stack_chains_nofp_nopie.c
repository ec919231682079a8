// SPDX-License-Identifier: MIT
/* stack_chains.c without frame pointers, not PIE: tests/integration/stacks.sh. */
/* build: -O2 -fomit-frame-pointer -no-pie -fno-pie -ldl */
#include "stack_chains.c"

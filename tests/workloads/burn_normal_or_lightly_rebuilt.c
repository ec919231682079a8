// SPDX-License-Identifier: MIT
/* burn_normal_or_lightly.c built again as a build of its own (another build id):
 * tests/integration/capture_engine.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#define VARIANT 1
#include "burn_normal_or_lightly.c"

// SPDX-License-Identifier: MIT
/* Frees and allocates blocks of every size for ever: tests/integration/installed_debug.sh. */
/* build: -O1 -fno-omit-frame-pointer */
#include <stdlib.h>
void *volatile keep[4096];
int main(void)
{
	for (unsigned long i = 0;; i++) {
		unsigned k = (unsigned)(i * 2654435761u) % 4096;
		free(keep[k]);
		keep[k] = malloc(16 + (i * 40503u) % 4000);
	}
}

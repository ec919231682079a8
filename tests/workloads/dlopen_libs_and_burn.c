// SPDX-License-Identifier: MIT
/* dlopen_libs_and_burn DIR N: loads DIR/lib1.so .. DIR/libN.so, says "ready", then burns
 * a CPU in burn: tests/integration/many_mappings.sh. */
/* build: -O1 -fno-omit-frame-pointer -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noipa)) void burn(void)
{
	for (;;)
		for (int i = 0; i < 1000000; i++)
			sink = sink * 6364136223846793005UL + 1;
}

int main(int argc, char **argv)
{
	char path[4096];
	int libs = argc > 2 ? atoi(argv[2]) : 0;

	for (int i = 1; i <= libs; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		if (!dlopen(path, RTLD_NOW)) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	burn();
}

// SPDX-License-Identifier: MIT
#include "util/time_factor.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned factor = 1;

static void time_factor__init(void)
{
	const char *v = getenv("SLIDEOPS_READ_TIME_FACTOR");
	char *end;
	unsigned long f;

	if (!v || !*v)
		return;
	f = strtoul(v, &end, 10);
	if (*end || f < 1 || f > 100)
		return;
	factor = (unsigned)f;
}

unsigned time_factor__read(void)
{
	pthread_once(&once, time_factor__init);
	return factor;
}

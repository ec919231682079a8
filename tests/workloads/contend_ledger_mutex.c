// SPDX-License-Identifier: MIT
/* Four threads take the ledger mutex for 2 ms, then let go for 1 ms: tests/integration/installed_debug.sh. */
/* build: -O1 -fno-omit-frame-pointer -pthread */
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t ledger = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&ledger);
		usleep(2000);
		pthread_mutex_unlock(&ledger);
		usleep(1000);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_join(t[0], NULL);
	return 0;
}

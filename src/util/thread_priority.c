// SPDX-License-Identifier: MIT
#include "util/thread_priority.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

int thread_priority__raise(int nice, struct thread_priority *saved)
{
	id_t self = (id_t)gettid();
	int now;

	saved->changed = 0;
	errno = 0;
	now = getpriority(PRIO_PROCESS, self);
	if (errno)
		return -errno;
	if (now <= nice)
		return 0;
	if (setpriority(PRIO_PROCESS, self, nice))
		return -errno;
	saved->was = now;
	saved->changed = 1;
	return 0;
}

void thread_priority__restore(const struct thread_priority *saved)
{
	/* Lowering a thread's own priority is always permitted. */
	if (saved->changed)
		setpriority(PRIO_PROCESS, (id_t)gettid(), saved->was);
}

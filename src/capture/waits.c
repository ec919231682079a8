// SPDX-License-Identifier: MIT
/*
 * What a waiting thread waits in (the wait label of wall and threads): its system call
 * when its kernel stack shows one (recvfrom, futex, epoll_wait...), else the first
 * kernel function under the scheduler's own (the wchan /proc shows). Told from the
 * kernel frames' names, so only once they are named.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "capture/capture_internal.h"

/* The scheduler's own frames: every blocked stack has them, and they say nothing. */
static bool frame__is_scheduler(const char *name)
{
	static const char *const prefixes[] = {
		"__schedule", "schedule", "preempt_schedule", "io_schedule", "__cond_resched",
		"__switch_to", "context_switch", "__traceiter", "bpf_", "__bpf",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* "__x64_sys_recvfrom", "__do_sys_recvfrom", "__se_sys_recvfrom" -> "recvfrom". */
static const char *frame__syscall(const char *name)
{
	static const char *const prefixes[] = { "__x64_sys_", "__do_sys_", "__se_sys_",
						"__ia32_sys_", "ksys_" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return name + strlen(prefixes[i]);
	return NULL;
}

int capture__label_waits(struct capture_session *s)
{
	struct profile *p = capture_session__profile(s);
	uint32_t waiting = profile__intern(p, "waiting");

	if (waiting == UINT32_MAX)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		struct prof_sample *sm = &p->samples[i];
		const char *wchan = NULL, *syscall = NULL;
		uint32_t depth;
		const uint32_t *locs;

		if (sm->labels.state != waiting || sm->labels.wait)
			continue;
		locs = profile__stack(p, sm->stack, &depth);
		for (uint32_t d = 0; d < depth && !syscall; d++) {
			const struct prof_location *l = &p->locations[locs[d]];
			const char *name = profile__str(p, l->function);

			if (p->mappings[l->mapping].kind != MAPPING_KERNEL)
				break;
			if (!*name)
				continue;
			syscall = frame__syscall(name);
			if (!wchan && !frame__is_scheduler(name))
				wchan = name;
		}
		if (syscall || wchan) {
			sm->labels.wait = profile__intern(p, syscall ? syscall : wchan);
			if (sm->labels.wait == UINT32_MAX) {
				sm->labels.wait = 0;
				return -ENOMEM;
			}
		}
	}
	return 0;
}

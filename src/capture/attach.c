// SPDX-License-Identifier: MIT
/*
 * Attaching a loaded program: to a perf event, to its tracing hook; and whether the
 * kernel attaches a loaded object's tracing programs at all (check).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "capture/capture_internal.h"
#include "util/messages.h"

int capture__attach_perf_event(int prog_fd, int perf_fd)
{
	int fd = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, NULL);

	return fd < 0 ? -errno : fd;
}

int capture__attach_tracing(int prog_fd)
{
	int fd = bpf_raw_tracepoint_open(NULL, prog_fd);

	return fd < 0 ? -errno : fd;
}

int bpf_loaded__probe_tracing(const struct bpf_loaded *l, const char *const *names, int n,
			      char *detail, size_t size)
{
	for (int i = 0; i < n; i++) {
		int link = capture__attach_tracing(bpf_loaded__prog(l, names[i]));

		if (link < 0) {
			msg_format(detail, size, MSG_CHECK_Q_ATTACH_FAILED, names[i],
				   strerror(-link));
			return link;
		}
		close(link);
	}
	return 0;
}

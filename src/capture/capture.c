// SPDX-License-Identifier: MIT
/*
 * A capture, whatever the question: privileges, CPUs, the profile's header, kernel
 * frames and their names. session.c runs a capture; each question's row (its
 * struct capture_question, in src/questions/) says what its program is and how it
 * attaches.
 */
#include "capture/capture.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture/capture_internal.h"
#include "symbols/kallsyms.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/messages.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define KERNEL_MAPPING_PATH "[kernel.kallsyms]"

/* Each question's row of the engine is part of its plug-in (src/questions/). */
const struct capture_question *capture_question__get(enum question q)
{
	const struct question_plugin *question = question__get(q);

	return question ? question->capture : NULL;
}

bool capture__debug(void)
{
	const char *v = getenv("SLIDEOPS_DEBUG");

	return v && *v && strcmp(v, "0") != 0;
}

/* SLIDEOPS_DEBUG=1: libbpf's warnings (a refused program's verifier log); 2: all. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	const char *v = getenv("SLIDEOPS_DEBUG");

	if (!capture__debug() || (level == LIBBPF_DEBUG && strcmp(v, "2") != 0))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void capture__quiet_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

static bool has_cap(const struct __user_cap_data_struct *d, unsigned cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool capture__privileged(char *detail, size_t size)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	unsigned uid = geteuid();
	bool bpf, perfmon, admin;

	if (syscall(SYS_capget, &h, d)) {
		msg_format(detail, size, MSG_CHECK_PRIV_MISSING, uid);
		return false;
	}
	bpf = has_cap(d, CAP_BPF);
	perfmon = has_cap(d, CAP_PERFMON);
	admin = has_cap(d, CAP_SYS_ADMIN);
	if (uid == 0 && admin) {
		msg_format(detail, size, MSG_CHECK_PRIV_ROOT);
		return true;
	}
	if (bpf && perfmon) {
		msg_format(detail, size, MSG_CHECK_PRIV_CAPS, uid);
		return true;
	}
	if (admin) {
		msg_format(detail, size, MSG_CHECK_PRIV_SYS_ADMIN, uid);
		return true;
	}
	msg_format(detail, size, MSG_CHECK_PRIV_MISSING, uid);
	return false;
}

int capture__preflight(enum question q, const struct report *r)
{
	char detail[256];

	if (!capture_question__get(q)) {
		report__error(r, MSG_CAPTURE_NOT_AVAILABLE, question__id(q), question__title(q));
		return -EOPNOTSUPP;
	}
	if (!capture__privileged(detail, sizeof(detail))) {
		report__error(r, MSG_CAPTURE_NOT_PRIVILEGED, (unsigned)geteuid(), question__id(q));
		return -EPERM;
	}
	return 0;
}

/* "0-3,5,7-8" */
int capture__online_cpus(int **cpus, int *n)
{
	char buf[4096], *s = buf;
	int *out = NULL, count = 0, cap = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s || lo < 0)
			goto out_invalid;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				goto out_invalid;
			s = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (count == cap) {
				int *grown;

				cap = cap ? cap * 2 : 64;
				grown = realloc(out, cap * sizeof(*out));
				if (!grown) {
					free(out);
					return -ENOMEM;
				}
				out = grown;
			}
			out[count++] = (int)c;
		}
		if (*s == ',')
			s++;
	}
	if (!count)
		goto out_invalid;
	*cpus = out;
	*n = count;
	return 0;

out_invalid:
	free(out);
	return -EINVAL;
}

int capture__open_cpu_clock(int cpu, unsigned hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = hz,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int capture__fill_header(struct profile *p, unsigned ncpus, unsigned hz)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	p->header.hostname = profile__intern(p, u.nodename);
	p->header.kernel_release = profile__intern(p, u.release);
	p->header.tool_version = profile__intern(p, SLIDEOPS_VERSION);
	if (p->header.hostname == UINT32_MAX || p->header.kernel_release == UINT32_MAX ||
	    p->header.tool_version == UINT32_MAX)
		return -ENOMEM;
	p->header.format_version = PROFILE_FORMAT_VERSION;
	p->header.ncpus = ncpus;
	p->header.sample_hz = hz;
	p->header.started_at_ns = clock__realtime_ns(); /* again when sampling starts */
	return 0;
}

uint32_t capture__kernel_mapping(struct profile *p)
{
	char build_id[BUILD_ID_HEX_MAX + 1] = "";
	struct prof_mapping m = { 0 };

	if (kernel__build_id("/sys/kernel/notes", build_id, sizeof(build_id)))
		build_id[0] = '\0';
	m.path = profile__intern(p, KERNEL_MAPPING_PATH);
	m.build_id = profile__intern(p, build_id);
	if (m.path == UINT32_MAX || m.build_id == UINT32_MAX)
		return UINT32_MAX;
	p->header.kernel_build_id = m.build_id;
	m.kind = MAPPING_KERNEL;
	m.language = LANGUAGE_KERNEL;
	m.has_symtab = true;
	m.build_id_recorded = true;
	return profile__add_mapping(p, &m);
}

int capture__name_kernel_frames(struct profile *p, uint32_t kernel_mapping)
{
	struct symtab *tab = NULL;
	int err;

	err = capture__name_kernel_frames_bpf(p, kernel_mapping);
	if (err == 0 || err == -ENOMEM)
		return err;
	/* A kernel that cannot run the program: /proc/kallsyms names them. */
	err = 0;

	for (uint32_t i = 0; i < p->nlocations && !err; i++) {
		struct prof_location *l = &p->locations[i];
		const char *name;
		uint64_t off;

		if (l->mapping != kernel_mapping || l->function)
			continue;
		if (!tab) {
			tab = kallsyms__load("/proc/kallsyms");
			if (!tab)
				return errno == ENOMEM ? -ENOMEM : 0;
		}
		/*
		 * The location was interned without a name; naming it now, after the last
		 * location was added, keeps one location per address.
		 */
		name = symtab__lookup(tab, l->address, &off);
		if (!name)
			continue;
		l->function = profile__intern(p, name);
		if (l->function == UINT32_MAX) {
			l->function = 0;
			err = -ENOMEM;
		}
	}
	symtab__free(tab);
	return err;
}

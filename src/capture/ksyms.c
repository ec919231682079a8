// SPDX-License-Identifier: MIT
/*
 * Kernel frames named by the kernel: ksym.bpf.c formats each address as a backtrace
 * entry, a batch at a time. A capture has a few hundred distinct kernel addresses; this
 * costs a millisecond where reading /proc/kallsyms whole costs a tenth of a second.
 */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/ksym.h"
#include "capture/capture_internal.h"
#include "ksym.skel.h"

/* "do_syscall_64+0x51/0x290 [module]" -> "do_syscall_64"; "0x..." (no symbol) -> "". */
static void ksym__function(const char *formatted, char *out, size_t size)
{
	size_t len = strcspn(formatted, "+ ");

	if (strncmp(formatted, "0x", 2) == 0 || len >= size)
		len = 0;
	memcpy(out, formatted, len);
	out[len] = '\0';
}

struct ksym_bpf *capture__ksyms_load(void)
{
	return ksym_bpf__open_and_load();
}

void capture__ksyms_free(struct ksym_bpf *skel)
{
	ksym_bpf__destroy(skel);
}

int capture__name_kernel_frames_bpf(struct profile *p, uint32_t kernel_mapping)
{
	struct ksym_bpf *skel = ksym_bpf__open_and_load();
	int err;

	if (!skel)
		return -errno ? -errno : -EINVAL;
	err = capture__name_kernel_frames_with(skel, p, kernel_mapping);
	ksym_bpf__destroy(skel);
	return err;
}

int capture__name_kernel_frames_with(struct ksym_bpf *skel, struct profile *p,
				     uint32_t kernel_mapping)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	uint32_t batch[KSYM_BATCH], n = 0, i = 0;
	int err = 0;

	while (!err && i <= p->nlocations) {
		/* Gather a batch of unnamed kernel frames, then have them named. */
		if (i < p->nlocations) {
			const struct prof_location *l = &p->locations[i++];

			if (l->mapping != kernel_mapping || l->function)
				continue;
			skel->bss->slots[n].addr = l->address;
			batch[n++] = i - 1;
			if (n < KSYM_BATCH)
				continue;
		} else {
			i++;
			if (!n)
				break;
		}
		skel->bss->count = n;
		if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.name_addresses), &run)) {
			err = -errno;
			break;
		}
		for (uint32_t k = 0; k < n && !err; k++) {
			char name[KSYM_NAME_LEN];

			ksym__function(skel->bss->slots[k].name, name, sizeof(name));
			if (!name[0])
				continue;
			p->locations[batch[k]].function = profile__intern(p, name);
			if (p->locations[batch[k]].function == UINT32_MAX) {
				p->locations[batch[k]].function = 0;
				err = -ENOMEM;
			}
		}
		n = 0;
	}
	return err;
}

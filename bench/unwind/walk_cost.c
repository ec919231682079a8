// SPDX-License-Identifier: MIT
/*
 * BPF time per stack walk, tables vs frame pointers, on the same stacks in the same run:
 * PROGRAM (built with frame pointers by run.sh) runs "PROGRAM spin": a call chain whose
 * innermost function makes syscalls in a loop. bpf/unwind_check.bpf.c's walk_sys_enter
 * walks its user stack at every syscall entry, as a sampling program would (its pt_regs,
 * bpf_probe_read_user), timing each walk with the BPF clock. ROUNDS rounds of 100 ms
 * with the process's tables loaded, then 100 ms without (frame-pointer fallback
 * everywhere), interleaved.
 * Prints: "tables_ns=N fp_ns=N ratio=R frames_tables=F frames_fp=F walks=N".
 *
 *   walk_cost PROGRAM [ROUNDS]      (root)
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "unwind/unwind.h"
#include "unwind_check.skel.h"

#define MAX_MAPS 64

/* Tables of pid's executable file mappings, as the engine would pass them. */
static int load_tables(struct unwind_maps *m, pid_t pid, struct unwind_table **tables)
{
	struct unwind_mapping in[MAX_MAPS];
	char path[64], line[512], ids[MAX_MAPS][BUILD_ID_HEX_MAX + 1];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < MAX_MAPS) {
		unsigned long long start, end, pgoff;
		char perms[8], file[256] = "";
		struct elf_info info;
		enum unwind_not_read why;
		uint64_t vaddr;
		int fd;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &start, &end, perms, &pgoff,
			   file) < 5 || perms[2] != 'x' || file[0] != '/')
			continue;
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (elf_info__read(fd, &info) == 0 && elf_info__offset_to_vaddr(&info, pgoff, &vaddr) &&
		    unwind_table__build(fd, NULL, &tables[n], &why) == 0) {
			snprintf(ids[n], sizeof(ids[n]), "%s", info.build_id);
			in[n] = (struct unwind_mapping){ start, end, vaddr, ids[n], tables[n] };
			n++;
		}
		close(fd);
	}
	fclose(f);
	return unwind_maps__add_process(m, (uint32_t)pid, in, n);
}

static void snapshot(const struct unwind_check_bpf *skel, __u64 v[3])
{
	v[0] = __atomic_load_n(&skel->bss->walk_ns, __ATOMIC_RELAXED);
	v[1] = __atomic_load_n(&skel->bss->walks, __ATOMIC_RELAXED);
	v[2] = __atomic_load_n(&skel->bss->walk_frames, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	struct unwind_table *tables[MAX_MAPS] = { 0 };
	struct unwind_check_bpf *skel;
	struct unwind_maps_plan plan;
	struct unwind_maps *m;
	struct bpf_link *link;
	__u64 with[3] = { 0 }, without[3] = { 0 }, a[3], b[3];
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: walk_cost PROGRAM [ROUNDS]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execl(argv[1], argv[1], "spin", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return 1;
	usleep(100000);
	skel = unwind_check_bpf__open();
	if (!skel || unwind_maps__plan(64 << 20, &plan) != 0)
		return 1;
	bpf_map__set_max_entries(skel->maps.unwind_rows, plan.rows);
	bpf_map__set_max_entries(skel->maps.unwind_procs, plan.procs);
	skel->rodata->target_tid = (__u32)pid;
	bpf_program__set_autoload(skel->progs.walk_task, false);
	if (unwind_check_bpf__load(skel) != 0)
		return 1;
	m = unwind_maps__new(&plan, bpf_map__fd(skel->maps.unwind_rows),
			     bpf_map__fd(skel->maps.unwind_tables),
			     bpf_map__fd(skel->maps.unwind_procs));
	link = bpf_program__attach(skel->progs.walk_sys_enter);
	if (!m || !link || load_tables(m, pid, tables) != 0)
		return 1;
	for (int r = 0; r < rounds; r++) {
		if (load_tables(m, pid, tables + MAX_MAPS / 2) != 0)
			return 1;
		snapshot(skel, a);
		usleep(100000);
		snapshot(skel, b);
		for (int i = 0; i < 3; i++)
			with[i] += b[i] - a[i];
		unwind_maps__remove_process(m, (uint32_t)pid);
		snapshot(skel, a);
		usleep(100000);
		snapshot(skel, b);
		for (int i = 0; i < 3; i++)
			without[i] += b[i] - a[i];
		for (int i = MAX_MAPS / 2; i < MAX_MAPS; i++) {
			unwind_table__free(tables[i]);
			tables[i] = NULL;
		}
	}
	bpf_link__destroy(link);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (!with[1] || !without[1]) {
		fprintf(stderr, "walk_cost: no walks (did PROGRAM spin?)\n");
		return 1;
	}
	printf("tables_ns=%.0f fp_ns=%.0f ratio=%.2f frames_tables=%.1f frames_fp=%.1f "
	       "walks=%llu\n", (double)with[0] / with[1], (double)without[0] / without[1],
	       ((double)with[0] / with[1]) / ((double)without[0] / without[1]),
	       (double)with[2] / with[1], (double)without[2] / without[1],
	       (unsigned long long)(with[1] + without[1]));
	unwind_maps__free(m);
	unwind_check_bpf__destroy(skel);
	for (int i = 0; i < MAX_MAPS; i++)
		unwind_table__free(tables[i]);
	return 0;
}

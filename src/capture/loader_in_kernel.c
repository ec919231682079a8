// SPDX-License-Identifier: MIT
/*
 * BPF objects loaded by the kernel itself. libbpf's usual load parses the whole of
 * /sys/kernel/btf/vmlinux in user space to relocate programs (CO-RE) and find attach
 * points: ~11 MB of memory at its peak and tens of milliseconds, more than everything
 * else a capture does. Light skeletons avoid it with a loader program that performs the
 * same relocations in the kernel (bpf_object__gen_loader records it); we run that loader
 * here, from the ordinary skeleton's object, and keep libbpf's load as the fallback for
 * kernels that cannot run it. One loader for every object: the questions' (loader.c) and
 * the features' probes (kernel_features.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/skel_internal.h>

#include "capture/capture_internal.h"

int load_in_kernel(struct bpf_object *obj, int *map_fds, int nmaps, int *prog_fds,
		   int nprogs)
{
	struct gen_loader_opts gen = { .sz = sizeof(gen) };
	struct bpf_load_and_run_opts run = { 0 };
	struct bpf_loader_ctx *ctx;
	struct bpf_map_desc *maps;
	struct bpf_prog_desc *progs;
	struct bpf_program *prog;
	struct bpf_map *map;
	int n_maps = 0, n_progs = 0, n_loaded = 0, err;
	size_t size;

	bpf_object__for_each_map(map, obj)
		n_maps++;
	bpf_object__for_each_program(prog, obj) {
		n_progs++;
		n_loaded += bpf_program__autoload(prog);
	}
	if (n_maps != nmaps || n_progs != nprogs)
		return -EINVAL;
	err = bpf_object__gen_loader(obj, &gen);
	if (!err)
		err = bpf_object__load(obj); /* records the loader; creates nothing */
	if (err)
		return err < 0 ? err : -EINVAL;

	/* The loader's context: a header, then one descriptor per map and per loaded
	 * program, in the object's order (as bpftool lays out a light skeleton's). */
	size = sizeof(*ctx) + nmaps * sizeof(*maps) + n_loaded * sizeof(*progs);
	ctx = calloc(1, size);
	if (!ctx)
		return -ENOMEM;
	ctx->sz = size;
	maps = (struct bpf_map_desc *)(ctx + 1);
	progs = (struct bpf_prog_desc *)(maps + nmaps);
	run.ctx = ctx;
	run.data = gen.data;
	run.insns = gen.insns;
	run.data_sz = gen.data_sz;
	run.insns_sz = gen.insns_sz;
	err = bpf_load_and_run(&run);
	if (!err) {
		for (int i = 0; i < nmaps; i++)
			map_fds[i] = maps[i].map_fd > 0 ? maps[i].map_fd : -1;
		int i = 0, k = 0;

		/* Programs left out of the load have no descriptor of their own. */
		bpf_object__for_each_program(prog, obj) {
			prog_fds[i++] = bpf_program__autoload(prog) && progs[k].prog_fd > 0 ?
						progs[k].prog_fd : -1;
			k += bpf_program__autoload(prog);
		}
	} else {
		/* What it made before failing is ours to close. */
		for (int i = 0; i < nmaps; i++)
			if (maps[i].map_fd > 0)
				close(maps[i].map_fd);
		for (int i = 0; i < n_loaded; i++)
			if (progs[i].prog_fd > 0)
				close(progs[i].prog_fd);
	}
	free(ctx);
	return err;
}

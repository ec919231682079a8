/* SPDX-License-Identifier: MIT */
/*
 * A process's executable mappings, as /proc/PID/maps lists them (or as the kernel sent
 * them when the process exited): where each binary sits in its address space, so a
 * sampled address becomes (binary, file offset). Only executable mappings are kept:
 * a stack can only hold addresses of code.
 */
#ifndef SLIDEOPS_CAPTURE_MAPS_H
#define SLIDEOPS_CAPTURE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct binary;

enum vma_kind {
	VMA_FILE,  /* a file: an executable or a library */
	VMA_VDSO,  /* the kernel's [vdso] */
	VMA_ANON,  /* anonymous executable memory: JIT compilers, trampolines */
};

struct vma {
	uint64_t start, end;
	uint64_t offset;      /* file offset of start, in bytes */
	dev_t dev;
	uint64_t ino;
	enum vma_kind kind;
	bool is_exe;          /* the process's own executable */
	char *path;           /* as the process sees it, " (deleted)" removed; NULL: none */
	struct binary *binary; /* set by whoever resolves the file; not owned */
};

struct vma_list {
	struct vma *vmas;     /* sorted by start */
	size_t n, cap;
};

/*
 * One line of /proc/PID/maps. 1: an executable mapping, written to out (out->path is a
 * new string the list owns once added); 0: not executable or not code ([vsyscall]);
 * -EINVAL: not a maps line; -ENOMEM.
 */
int vma__parse_line(const char *line, struct vma *out);

/* Reads ROOT/PID/maps into an empty list. 0, -ENOENT (gone), -errno. */
int vma_list__read(struct vma_list *l, const char *proc_root, int pid);
/* Adds v (taking its path) keeping the list sorted. 0 or -ENOMEM. */
int vma_list__add(struct vma_list *l, const struct vma *v);
/* Frees the paths and the array; the list is empty and reusable after. */
void vma_list__clear(struct vma_list *l);
/* The mapping holding addr, or NULL. */
struct vma *vma_list__find(const struct vma_list *l, uint64_t addr);

#endif

// SPDX-License-Identifier: MIT
/*
 * Executable mappings of a process. A process maps tens of files and a few of them
 * executable; each sampled user address is looked up here, so the list is a sorted
 * array and the lookup a binary search.
 */
#include "capture/maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#define DELETED_SUFFIX " (deleted)"

/* "start-end perms offset major:minor inode   path" */
int vma__parse_line(const char *line, struct vma *out)
{
	unsigned long long start, end, offset, ino;
	unsigned major, minor;
	char perms[5];
	int used = 0;
	const char *path;
	size_t len;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major,
		   &minor, &ino, &used) < 7 || used == 0 || end <= start)
		return -EINVAL;
	if (strlen(perms) != 4 || perms[2] != 'x')
		return 0;

	path = line + used;
	len = strcspn(path, "\n");
	memset(out, 0, sizeof(*out));
	out->start = start;
	out->end = end;
	out->offset = offset;
	out->dev = makedev(major, minor);
	out->ino = ino;

	if (len == 0 || (path[0] == '[' && strncmp(path, "[anon", 5) == 0)) {
		out->kind = VMA_ANON;
		return 1;
	}
	if (path[0] == '[') {
		if (strncmp(path, "[vdso]", 6) == 0) {
			out->kind = VMA_VDSO;
			return 1;
		}
		if (strncmp(path, "[vsyscall]", 10) == 0)
			return 0; /* the kernel's, at a fixed address; nothing in it to name */
		out->kind = VMA_ANON; /* [heap], [stack] made executable */
		return 1;
	}
	if (ino == 0) {
		out->kind = VMA_ANON; /* a pseudo file without an inode */
		return 1;
	}
	out->kind = VMA_FILE;
	if (len >= sizeof(DELETED_SUFFIX) - 1 &&
	    memcmp(path + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX,
		   sizeof(DELETED_SUFFIX) - 1) == 0)
		len -= sizeof(DELETED_SUFFIX) - 1;
	out->path = strndup(path, len);
	if (!out->path)
		return -ENOMEM;
	return 1;
}

static int vma__cmp(const void *a, const void *b)
{
	const struct vma *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int vma_list__add(struct vma_list *l, const struct vma *v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct vma *vmas = realloc(l->vmas, cap * sizeof(*vmas));

		if (!vmas)
			return -ENOMEM;
		l->vmas = vmas;
		l->cap = cap;
	}
	l->vmas[l->n++] = *v;
	/* Maps come sorted; a list built from the kernel's records may not. */
	if (l->n > 1 && l->vmas[l->n - 2].start > v->start)
		qsort(l->vmas, l->n, sizeof(*l->vmas), vma__cmp);
	return 0;
}

void vma_list__clear(struct vma_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->vmas[i].path);
	free(l->vmas);
	l->vmas = NULL;
	l->n = l->cap = 0;
}

int vma_list__read(struct vma_list *l, const char *proc_root, int pid)
{
	char path[64], *line = NULL;
	size_t size = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ESRCH ? -ENOENT : -errno;
	while (getline(&line, &size, f) > 0) {
		const char *perms = strchr(line, ' ');
		struct vma v;
		int r;

		/* Most mappings are not executable: skipped before they are parsed, as
		 * vma__parse_line would (0, or -EINVAL for a line that is not one). */
		if (!perms || strlen(perms) < 5 || perms[3] != 'x')
			continue;
		r = vma__parse_line(line, &v);

		if (r == -ENOMEM) {
			err = r;
			break;
		}
		if (r <= 0)
			continue;
		err = vma_list__add(l, &v);
		if (err) {
			free(v.path);
			break;
		}
	}
	if (!err && ferror(f))
		err = errno == ESRCH ? -ENOENT : -EIO;
	free(line);
	fclose(f);
	if (err)
		vma_list__clear(l);
	return err;
}

struct vma *vma_list__find(const struct vma_list *l, uint64_t addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct vma *v = &l->vmas[mid];

		if (addr < v->start)
			hi = mid;
		else if (addr >= v->end)
			lo = mid + 1;
		else
			return v;
	}
	return NULL;
}

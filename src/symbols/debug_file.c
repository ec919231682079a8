// SPDX-License-Identifier: MIT
/*
 * Debug files already installed on the server (Debian's libc6-dbg and *-dbgsym
 * packages): ROOT/.build-id/xx/rest.debug, ROOT normally /usr/lib/debug. They hold the
 * .symtab the binary was stripped of, so libc's internal functions (_int_malloc, ...)
 * get their names with nothing uploaded.
 *
 * Read by root during a capture, so the path is not trusted further than the root:
 * every component is resolved beneath it with no symlink leaving it (openat2
 * RESOLVE_BENEATH, else one O_NOFOLLOW step at a time), and the file must be a regular
 * file owned by root (or by us), writable by nobody else, of at most 1 GB, and carry the
 * build id it is filed under. Anything else is not read.
 *
 * symtab__read_binary is the capture's entry point for a sampled binary: the installed
 * debug file first, then the binary's own tables, always with the binary's PLT stubs
 * and unnamed functions.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEBUG_FILE_MAX_BYTES (1ull << 30)

/* Lowercase hex, an even number of digits, at least two bytes. */
static bool build_id__valid(const char *id)
{
	size_t n = strlen(id);

	if (n < 4 || n > BUILD_ID_HEX_MAX || n % 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	}
	return true;
}

/* Without openat2 (kernels before 5.6): one component at a time, never following. */
static int open_step_by_step(int dir, const char *sub, const char *file)
{
	int d1, d2, fd;

	d1 = openat(dir, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d1 < 0)
		return -errno;
	d2 = openat(d1, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(d1);
	if (d2 < 0)
		return -errno;
	fd = openat(d2, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(d2);
	return fd < 0 ? -errno : fd;
}

/* ROOT/.build-id/xx/rest.debug, opened beneath root; an fd or -errno. */
static int open_beneath(const char *root, const char *build_id)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	char rel[BUILD_ID_HEX_MAX + 32], sub[3] = { build_id[0], build_id[1], '\0' };
	int dir, fd;

	dir = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	snprintf(rel, sizeof(rel), ".build-id/%s/%s.debug", sub, build_id + 2);
	fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == E2BIG)) {
		char file[BUILD_ID_HEX_MAX + 8];

		snprintf(file, sizeof(file), "%s.debug", build_id + 2);
		fd = open_step_by_step(dir, sub, file);
	} else if (fd < 0) {
		fd = -errno;
	}
	close(dir);
	/* A symlink out of the tree reads as "none installed". */
	if (fd == -EXDEV || fd == -ELOOP)
		fd = -ENOENT;
	return fd;
}

/* A file only root (or we) could have put there, of a size worth reading. */
static int check_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOENT;
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	if ((uint64_t)st.st_size > DEBUG_FILE_MAX_BYTES)
		return -EFBIG;
	return 0;
}

int symtab__open_installed_debug(const char *root, const char *build_id)
{
	int fd, err;

	if (!root || !build_id || !build_id__valid(build_id))
		return -ENOENT;
	fd = open_beneath(root, build_id);
	if (fd < 0)
		return fd;
	err = check_file(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int symtab__read_installed_debug(const char *root, const char *build_id,
				 struct elf_limits *limits, struct symtab **out)
{
	struct elf_info info;
	int fd, err;

	*out = NULL;
	fd = symtab__open_installed_debug(root, build_id);
	if (fd < 0)
		return fd;
	err = elf_info__read_limited(fd, limits, &info);
	if (err)
		goto out_close;
	/* Filed under the wrong build id (a stale or swapped file): it names another build. */
	err = -ENOENT;
	if (strcmp(info.build_id, build_id) != 0 || !info.has_symtab)
		goto out_close;
	err = symtab__read_elf_limited(fd, ELF_SYMBOLS_SYMTAB, limits, out);
out_close:
	close(fd);
	return err;
}

int symtab__read_binary(int fd, const char *build_id, const char *debug_root,
			struct elf_limits *limits, struct symtab **out,
			enum elf_symbols_from *from)
{
	struct symtab *tab = NULL;
	int err;

	*out = NULL;
	*from = ELF_SYMBOLS_SYMTAB;
	err = symtab__read_installed_debug(debug_root, build_id, limits, &tab);
	if (err == -ENOMEM || err == -ETIMEDOUT)
		return err;
	if (!err) {
		err = symtab__add_binary(fd, limits, tab);
		if (err) {
			symtab__free(tab);
			return err;
		}
		*out = tab;
		return 0;
	}
	err = symtab__read_elf_limited(fd, ELF_SYMBOLS_SYMTAB, limits, out);
	if (err != -ENOENT)
		return err;
	*from = ELF_SYMBOLS_DYNSYM;
	return symtab__read_elf_limited(fd, ELF_SYMBOLS_DYNSYM, limits, out);
}

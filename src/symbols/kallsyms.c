// SPDX-License-Identifier: MIT
/*
 * /proc/kallsyms into a symbol table. A kernel has ~100k text symbols; the file is read
 * once per capture, after sampling ends, so its ~40 ms of system time never lands in the
 * profile's own window.
 */
#include "symbols/kallsyms.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symtab.h"

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[module]". */
static int parse_line(char *line, uint64_t *addr, const char **name, size_t *len)
{
	char *end, type;

	*addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return -EINVAL;
	type = end[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	*name = end + 3;
	*len = strcspn(*name, " \t\n");
	return *len ? 1 : 0;
}

struct symtab *kallsyms__load(const char *path)
{
	struct symtab *tab = symtab__new();
	bool any_address = false;
	char *line = NULL;
	size_t size = 0;
	int err = 0;
	FILE *f;

	if (!tab)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		err = errno;
		symtab__free(tab);
		errno = err;
		return NULL;
	}
	while (getline(&line, &size, f) > 0) {
		const char *name;
		uint64_t addr;
		size_t len;

		if (parse_line(line, &addr, &name, &len) <= 0)
			continue;
		if (addr)
			any_address = true;
		if (symtab__add(tab, addr, 0, name, len)) {
			err = ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	if (!err && !any_address)
		err = EPERM;
	if (!err && symtab__finish(tab))
		err = ENOMEM;
	if (err) {
		symtab__free(tab);
		errno = err;
		return NULL;
	}
	return tab;
}

int kernel__build_id(const char *notes_path, char *out, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[4096];
	size_t pos = 0;
	ssize_t len;
	int fd;

	fd = open(notes_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len < 0)
		return -errno;
	/* Elf64_Nhdr and Elf32_Nhdr are the same three words; entries are 4-aligned. */
	while ((size_t)len - pos >= sizeof(Elf32_Nhdr)) {
		Elf32_Nhdr nh;
		size_t name_at, desc_at;

		memcpy(&nh, buf + pos, sizeof(nh));
		name_at = pos + sizeof(nh);
		desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
		if (nh.n_namesz > (size_t)len || desc_at > (size_t)len ||
		    nh.n_descsz > (size_t)len - desc_at)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(buf + name_at, "GNU", 4) == 0) {
			if (nh.n_descsz == 0 || 2 * nh.n_descsz + 1 > size)
				return -ENOENT;
			for (size_t i = 0; i < nh.n_descsz; i++) {
				out[2 * i] = digits[buf[desc_at + i] >> 4];
				out[2 * i + 1] = digits[buf[desc_at + i] & 15];
			}
			out[2 * nh.n_descsz] = '\0';
			return 0;
		}
		pos = desc_at + ((nh.n_descsz + 3) & ~3u);
	}
	return -ENOENT;
}

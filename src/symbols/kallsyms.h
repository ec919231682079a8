/* SPDX-License-Identifier: MIT */
/*
 * The running kernel's symbols and build id. /proc/kallsyms is true only on the boot it
 * is read on (KASLR moves the kernel every boot), so kernel frames are named at capture
 * time and the names travel with the profile; the build id (from /sys/kernel/notes)
 * says which kernel it was.
 */
#ifndef SLIDEOPS_SYMBOLS_KALLSYMS_H
#define SLIDEOPS_SYMBOLS_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct symtab;

/*
 * The text symbols of path ("/proc/kallsyms"), modules' too. NULL with errno: EPERM when
 * the addresses read as zero (kernel.kptr_restrict, or not root), ENOMEM, or open's.
 */
struct symtab *kallsyms__load(const char *path);

/* The GNU build id in a notes file ("/sys/kernel/notes") as lowercase hex into out
 * (BUILD_ID_HEX_MAX + 1 bytes). 0, -ENOENT when there is none, -errno. */
int kernel__build_id(const char *notes_path, char *out, size_t size);

#endif

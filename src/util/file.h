/* SPDX-License-Identifier: MIT */
/*
 * Writing files so that a crash, a full disk or a reader at the wrong moment never sees
 * half of one: write a temporary file beside the target, fsync it, rename it into
 * place, fsync the directory. Temporary names end in ".tmp-" and 16 hex digits, which
 * is what `slideops remove` and the store's sweep look for.
 */
#ifndef SLIDEOPS_UTIL_FILE_H
#define SLIDEOPS_UTIL_FILE_H

#include <stddef.h>
#include <sys/types.h>

#define FILE_TMP_MARK ".tmp-"

/* Writes all of data, retrying short writes and EINTR. 0 or -errno. */
int file__write_all(int fd, const void *data, size_t len);

/* fsyncs a directory, so a rename into it survives a crash. 0 or -errno. */
int file__fsync_dir(const char *dir);

/* Creates a new file named PREFIX.tmp-<16 hex> (O_EXCL) and writes its name into tmp.
 * Returns the fd, or -errno. */
int file__create_tmp(const char *prefix, mode_t mode, char *tmp, size_t size);

/* Puts data at path as described above; path is untouched on any error. 0 or -errno. */
int file__write_atomic(const char *path, const void *data, size_t len, mode_t mode);

#endif

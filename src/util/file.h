/* SPDX-License-Identifier: MIT */
/*
 * Writing files so that a crash, a full disk or a reader at the wrong moment never sees
 * half of one: write a temporary file beside the target, fsync it, rename it into
 * place, fsync the directory. Temporary names end in ".tmp-" and 16 hex digits, which
 * is what `slideops remove` and the store's sweep look for.
 */
#ifndef SLIDEOPS_UTIL_FILE_H
#define SLIDEOPS_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/*
 * Output a person asked for, at path: "-" (and /dev/stdout, /dev/fd/N, /proc/self/fd/N)
 * is our own descriptor; a special file (/dev/null, a FIFO, a terminal) is written in
 * place, never replaced; a regular file (or a link of ours to one: the link stays) is
 * replaced atomically as above, keeping its mode and owner; a new file gets mode. A link
 * another user made is never followed: it is replaced. 0 or -errno.
 */
int file__write_output(const char *path, const void *data, size_t len, mode_t mode);

/* True when file__write_output(path) would write to standard output. */
bool file__is_stdout(const char *path);

/* Whether file__write_output(path) can succeed, without creating anything: -EISDIR,
 * -ENOENT (no such directory), -EACCES, -EROFS, -ENOTDIR, or 0. For a capture, before
 * it samples. */
int file__check_output(const char *path);

/* The bytes that can still be written on the filesystem of fd. 0 or -errno. */
int file__free_bytes(int fd, uint64_t *bytes);

#endif

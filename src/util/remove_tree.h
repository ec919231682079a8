/* SPDX-License-Identifier: MIT */
/*
 * Removing trees of our own files and saying what went: the profiler's directory and
 * the capture files left behind ("Remove the profiler"). A tree is removed through
 * directory descriptors without following symbolic links, so a link planted in it can
 * never make us delete what it points at.
 */
#ifndef SLIDEOPS_UTIL_REMOVE_TREE_H
#define SLIDEOPS_UTIL_REMOVE_TREE_H

#include <jansson.h>
#include <stdint.h>

struct remove_report {
	json_t *removed;          /* [{"path", "files", "bytes"}] */
	json_t *failed;           /* [{"path", "error"}] */
};

/* Empty lists (an already started report is kept). 0 or -ENOMEM. */
int remove_report__init(struct remove_report *rep);
void remove_report__release(struct remove_report *rep);

/*
 * Removes name (in dirfd: a file, or a directory and everything under it), noted in rep
 * as path: removed with its files and bytes, or failed with the error. Nothing there:
 * nothing noted. 0 or -errno.
 */
int remove_report__tree(struct remove_report *rep, int dirfd, const char *name,
			const char *path);
/* The same for a path (AT_FDCWD). */
int remove_report__path(struct remove_report *rep, const char *path);
/* Notes a file removed elsewhere (bytes long), or one that could not be. 0 or -ENOMEM;
 * failed returns err. */
int remove_report__removed(struct remove_report *rep, const char *path, uint64_t bytes);
int remove_report__failed(struct remove_report *rep, const char *path, int err);

#endif

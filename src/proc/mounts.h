/* SPDX-License-Identifier: MIT */
/*
 * The mounts a mountinfo file lists (/proc/self/mountinfo, /proc/PID/mountinfo), by
 * device: which file system holds a file of device dev, and whether that file system can
 * leave a read waiting without end. A network file system whose server stopped answering
 * (an NFS hard mount, CIFS, 9p, Ceph) or a FUSE daemon that stopped reading its requests
 * holds every open, stat and read of its files in the kernel, where no signal ends it:
 * such files are read only in a process of their own (capture/guarded_read.h). Read from
 * the kernel's mount table alone: nothing of a mount is touched to classify it.
 */
#ifndef SLIDEOPS_PROC_MOUNTS_H
#define SLIDEOPS_PROC_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mount_entry {
	dev_t dev;
	char *fstype;  /* "nfs4", "fuse.sshfs" */
	char *point;   /* where it is mounted, in the namespace of the file read */
	bool may_hang; /* mounts__may_hang(fstype) */
};

struct mounts {
	struct mount_entry *items;
	size_t n, cap;
};

/* Whether a file system of this type can leave an open or a read waiting without end:
 * network and cluster file systems, FUSE (any daemon's), 9p, virtiofs; none that
 * SLIDEOPS_TRUSTED_MOUNTS lists (the operator trusts them to answer). */
bool mounts__may_hang(const char *fstype);

/* Adds the mounts of a mountinfo file to m (a device at a point already listed is not
 * listed again; mounts__find gives a device's first entry). 0, -ENOMEM, or -errno of
 * opening it. */
int mounts__read(struct mounts *m, const char *mountinfo_path);
/* The same from the text of a mountinfo file. 0 or -ENOMEM. */
int mounts__parse(struct mounts *m, const char *text);

/* The entry of device dev, NULL when none is listed. */
const struct mount_entry *mounts__find(const struct mounts *m, dev_t dev);

/* The mount an absolute path is under, by its words alone (the longest mount point that
 * is a whole-component prefix; nothing is looked up, so a symbolic link on the way is
 * not followed). NULL when none is (m empty, a relative path). */
const struct mount_entry *mounts__of_path(const struct mounts *m, const char *path);

/* Whether looking up an absolute path can wait without end: the mount that may hang at
 * the path or at a directory on the way to it (by words, as mounts__of_path; a mount
 * another covers is counted too), NULL when none is (or the path is relative). */
const struct mount_entry *mounts__hang_on_path(const struct mounts *m, const char *path);

/* mounts__hang_on_path in our own mount table (/proc/self/mountinfo, read again at most
 * once a second; process-wide, thread-safe): the type of that mount into fstype, ""
 * when none is. For checks made often, of paths about to be looked up in-process. */
void mounts__own_hang_on_path(const char *path, char *fstype, size_t len);

void mounts__clear(struct mounts *m);

#endif

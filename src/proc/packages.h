/* SPDX-License-Identifier: MIT */
/*
 * Which files on this server the distribution installed (architecture.md): a file owned by a
 * package that an apt source provides is a system file, like one under /usr/lib, so
 * /usr/bin/dash is never "yours" on the stripped-binary card, while a .deb you built and
 * installed with dpkg -i stays yours.
 *
 * Read at capture time only (analysis never reads dpkg): the capture asks once per
 * binary it sampled and records the answer on the profile's mapping. Asked for a few
 * dozen files per capture; dpkg's file lists are read once, on the first question.
 */
#ifndef SLIDEOPS_PROC_PACKAGES_H
#define SLIDEOPS_PROC_PACKAGES_H

#include <stdint.h>
#include <sys/types.h>

struct packages;

/* Nothing is read yet. root is "/" on a server; tests give a directory laid out like one
 * (ROOT/var/lib/dpkg/info/\*.list, ROOT/var/lib/apt/lists/\*_Packages[.lz4|.gz]). NULL
 * with errno on ENOMEM. */
struct packages *packages__new(const char *root);
void packages__free(struct packages *pk);

/*
 * 1 when path (as this mount namespace sees it) is the file (dev, ino) and belongs to
 * an installed package that an apt source lists by name (see packages.c for why the name
 * and not the version); 0 when it is another file, belongs to no package, or to one no
 * source lists (a .deb installed by hand); -ENOMEM. Paths that decide by themselves
 * (under /usr/lib*, /lib*, /usr/share, /etc: system; /usr/local, /home, /srv, /tmp:
 * never a package's) are answered 0 without reading anything. Nothing is looked up where
 * a mount that may hang is on the way (mounts__own_hang_on_path): a path there is 0, and
 * dpkg's or apt's lists there are taken as absent.
 */
int packages__from_archive(struct packages *pk, const char *path, dev_t dev, uint64_t ino);

#endif

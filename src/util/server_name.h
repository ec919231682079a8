/* SPDX-License-Identifier: MIT */
/*
 * A server's name in the workspace, as an agent gives it: the identity its profiles are
 * listed by, so two servers must never read the same (docs/security.md).
 *   - server_name__normalize: what is kept of a given name: valid UTF-8 (an invalid byte
 *     becomes U+FFFD), no control, format or other default-ignorable characters (zero-
 *     width spaces and joiners, bidi controls, variation selectors), every kind of space
 *     one ASCII space, trimmed, in Unicode Normalization Form C; at most 255 bytes.
 *   - server_name__skeleton: what it looks like (UTS #39's confusable skeleton, ICU's
 *     uspoof): "db-1" written with a Cyrillic "ԁ", or "rn" for "m", has the skeleton of
 *     the name it imitates;
 *   - server_name__pick: the name a new server gets: the given one unless its skeleton is
 *     another server's (removed servers included: their history stays theirs), else
 *     NAME-2, NAME-3 ... the first whose skeleton no server has.
 * ICU (libicu, Debian's libicu-dev) does the Unicode; these are pure functions.
 */
#ifndef SLIDEOPS_UTIL_SERVER_NAME_H
#define SLIDEOPS_UTIL_SERVER_NAME_H

#include <stddef.h>

#define SERVER_NAME_MAX 255
/* Names tried for a server whose name is taken: NAME-2 ... NAME-SERVER_NAME_TRIES. */
#define SERVER_NAME_TRIES 1000

/* The normalized name (malloc'd), NULL with errno: EINVAL when nothing is left of it. */
char *server_name__normalize(const char *given);
/* Its confusable skeleton (malloc'd), NULL with errno set. */
char *server_name__skeleton(const char *name);
/* The name for a new server given `given` (already normalized), among the names of the
 * servers there are (taken[0 .. n)): malloc'd, or NULL with errno (EEXIST when every try
 * is taken). */
char *server_name__pick(const char *given, char *const *taken, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Interned strings: each distinct string once, named by a dense id; id 0 is "".
 * Pointers returned by strtab__get stay valid until strtab__free (strings live in
 * fixed blocks that never move).
 */
#ifndef SLIDEOPS_UTIL_STRTAB_H
#define SLIDEOPS_UTIL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define STRTAB_NONE UINT32_MAX

struct strtab;

struct strtab *strtab__new(void);
void strtab__free(struct strtab *tab);

/* The id of s, adding it when new; STRTAB_NONE on ENOMEM. NULL is "". */
uint32_t strtab__intern(struct strtab *tab, const char *s);
uint32_t strtab__intern_len(struct strtab *tab, const char *s, size_t len);

/* The string of id; "" for an id out of range. */
const char *strtab__get(const struct strtab *tab, uint32_t id);
uint32_t strtab__count(const struct strtab *tab);

#endif

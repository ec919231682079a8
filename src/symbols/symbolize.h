/* SPDX-License-Identifier: MIT */
/*
 * Names for a profile's locations, looked up when the profile is read: an upload for
 * the mapping's build id, else the binary's own .symtab, else its .dynsym (all kept in
 * the store by build id), else the name recorded at capture. An unnamed address reads
 * "app+0x4a1f20" (file name + ELF address).
 */
#ifndef SLIDEOPS_SYMBOLS_SYMBOLIZE_H
#define SLIDEOPS_SYMBOLS_SYMBOLIZE_H

struct profile;
struct store;

/* Fills name, named and language of every location. s may be NULL: then only names
 * known at capture are used. 0 or -ENOMEM. */
int profile__symbolize(struct profile *p, struct store *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Names for a profile's locations, looked up when the profile is read: an upload for
 * the mapping's build id, else the binary's own .symtab, else its .dynsym (kept by build
 * id where the caller keeps them: see struct symbol_lookup), else the name recorded at capture. An unnamed address reads
 * "app+0x4a1f20" (file name + ELF address).
 */
#ifndef SLIDEOPS_SYMBOLS_SYMBOLIZE_H
#define SLIDEOPS_SYMBOLS_SYMBOLIZE_H

struct profile;
struct symtab;

/* Where tables are kept by build id (the workspace, or what a capture just read). */
struct symbol_lookup {
	/* The best table for build_id (an upload, then .symtab, then .dynsym): 0 and *out;
	 * -ENOENT when there is none; -errno. */
	int (*get)(void *ctx, const char *build_id, struct symtab **out);
	/* Gives back a table get handed out; NULL: the caller frees it (symtab__free). */
	void (*release)(void *ctx, struct symtab *tab);
	void *ctx;
};

/* Fills name, named and language of every location. src may be NULL: then only names
 * known at capture are used. 0 or -ENOMEM. */
int profile__symbolize(struct profile *p, const struct symbol_lookup *src);

#endif

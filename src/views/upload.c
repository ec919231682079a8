// SPDX-License-Identifier: MIT
/*
 * Debug symbols for stripped binaries (architecture.md). An upload reads only the function
 * names, addresses and sizes of an unstripped build or a debug file, keeps them in the
 * workspace under the file's build id, and forgets the file. Refusals are checked in
 * the order a person can act on them: size first (before reading anything), then
 * whether it is ELF at all, then its build id, then whether it has names to give.
 */
#include "views/views.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/json_text.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"

#define BUILD_ID_PREFIX_MIN 12

int views__read_upload(int fd, const char *path, struct elf_info *info, struct symtab **tab,
		       struct view_error *e)
{
	struct stat st;
	int err;

	*tab = NULL;
	if (fstat(fd, &st) < 0) {
		view_error__set(e, 500, MSG_SYMBOLS_CANNOT_READ, path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		view_error__set(e, 400, MSG_SYMBOLS_IS_DIRECTORY, path);
		return -1;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > VIEWS_UPLOAD_MAX_BYTES) {
		view_error__set(e, 413, MSG_UPLOAD_TOO_LARGE);
		return -1;
	}

	err = elf_info__read(fd, info);
	if (err == -ENOEXEC || (!err && info->type != ET_EXEC && info->type != ET_DYN)) {
		/* Object files and core dumps are ELF, but not a build of a binary. */
		view_error__set(e, 400, MSG_UPLOAD_NOT_ELF);
		return -1;
	}
	if (err == -ENOMEM) {
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		return -1;
	}
	if (err) {
		view_error__set(e, 500, MSG_SYMBOLS_CANNOT_READ, path, strerror(-err));
		return -1;
	}
	if (!info->build_id[0]) {
		view_error__set(e, 400, MSG_UPLOAD_NO_BUILD_ID);
		return -1;
	}
	/* .dynsym alone does not count: it names exports, not the functions of a build. */
	err = info->has_symtab ? symtab__read_elf(fd, ELF_SYMBOLS_SYMTAB, tab) : -ENOENT;
	if (!err && symtab__named(*tab) == 0)
		err = -ENOENT;
	switch (err) {
	case 0:
		return 0;
	case -ENOENT:
		view_error__set(e, 400, MSG_UPLOAD_STRIPPED);
		break;
	case -ENOEXEC:
		view_error__set(e, 400, MSG_UPLOAD_NOT_ELF);
		break;
	case -ENOMEM:
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
		break;
	default:
		view_error__set(e, 500, MSG_SYMBOLS_CANNOT_READ, path, strerror(-err));
		break;
	}
	symtab__free(*tab);
	*tab = NULL;
	return -1;
}

/* The source lines of the upload (its DWARF line program), kept by build id for pprof
 * exports. A file without DWARF simply has none: the upload is about names. */
static size_t keep_lines(struct store *s, int fd, const char *build_id)
{
	struct line_table *t = NULL;
	size_t n = 0;

	if (lines__read(fd, NULL, 0, NULL, &t) == 0 && store__put_lines(s, build_id, t) == 0)
		n = t->n;
	line_table__free(t);
	return n;
}

json_t *views__keep_upload(struct store *s, const struct elf_info *info, const char *file_name,
			   const struct symtab *tab, int fd, struct view_error *e)
{
	size_t lines = 0;
	json_t *doc;
	int err;

	err = store__put_symbols(s, info->build_id, SYMBOLS_UPLOAD, file_name, tab);
	if (err) {
		view_error__set(e, 500, MSG_SYMBOLS_UPLOAD_FAILED, file_name, strerror(-err));
		return NULL;
	}
	if (fd >= 0)
		lines = keep_lines(s, fd, info->build_id);
	doc = json_pack("{s:o, s:I, s:o, s:I}", "build_id", json_text(info->build_id), "functions",
			(json_int_t)symtab__named(tab), "file_name", json_text(file_name), "lines",
			(json_int_t)lines);
	if (!doc)
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
	return doc;
}

bool views__parse_build_id(const char *arg, char out[BUILD_ID_HEX_MAX + 1])
{
	size_t len = strlen(arg);

	if (len < BUILD_ID_PREFIX_MIN || len > BUILD_ID_HEX_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !isxdigit((unsigned char)arg[i]))
			return false;
		out[i] = (char)tolower((unsigned char)arg[i]);
	}
	return true;
}

json_t *views__delete_upload(struct store *s, const char *arg, struct view_error *e)
{
	char id[BUILD_ID_HEX_MAX + 1], deleted[BUILD_ID_HEX_MAX + 1];
	json_t *doc;
	int err;

	if (!views__parse_build_id(arg, id)) {
		view_error__set(e, 400, MSG_SYMBOLS_BAD_BUILD_ID, arg);
		return NULL;
	}
	err = store__delete_upload(s, id, deleted);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		view_error__set(e, 404, MSG_SYMBOLS_NO_SUCH_UPLOAD, id);
		return NULL;
	case -EEXIST:
		view_error__set(e, 400, MSG_SYMBOLS_AMBIGUOUS, id);
		return NULL;
	default:
		view_error__set(e, 500, MSG_SYMBOLS_DELETE_FAILED, id, strerror(-err));
		return NULL;
	}
	doc = json_pack("{s:o}", "deleted", json_text(deleted));
	if (!doc)
		view_error__set(e, 500, MSG_OUT_OF_MEMORY);
	return doc;
}

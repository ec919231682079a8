/* SPDX-License-Identifier: MIT */
/*
 * The documents the command line prints with --json and the workspace server returns
 * under /api/: one builder per document, so both say the same thing in the same words.
 * Failures come back as a view_error (a message of the one table, formatted, with the
 * HTTP status it maps to); the caller decides whether it goes to stderr or into JSON.
 * Nothing here prints.
 */
#ifndef SLIDEOPS_VIEWS_H
#define SLIDEOPS_VIEWS_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_file.h"
#include "util/messages.h"
#include "util/remove_tree.h"

struct analysis;
struct check_result;
struct profile;
struct profile_entry;
struct service;
struct store;
struct symtab;
struct upload_entry;

#define VIEW_ERROR_MAX 1024

/* Statuses follow HTTP: 400 refused input, 404 no such thing, 409 busy, 413 too large,
 * 500 failure. The command line maps 400/413 to exit 2, the rest to exit 1. */
struct view_error {
	enum msg_id id;
	int status;
	char text[VIEW_ERROR_MAX];
};

void view_error__set(struct view_error *e, int status, enum msg_id id, ...);
void view_error__vset(struct view_error *e, int status, enum msg_id id, va_list ap);
/* {"error": TEXT} */
json_t *view_error__json(const struct view_error *e);

/* "2026-12-02T15:04:05Z" (UTC), the form of every time in the documents. */
void views__format_time(int64_t ns, char buf[32]);

/* check: {"can_profile", "requirements", "questions", ...}. NULL on ENOMEM. */
json_t *views__check(const struct check_result *r);

/* ---- top: the busiest processes now, ps-style %CPU, with their owner group ---- */

struct top_row {
	int pid;
	char comm[64];
	double cpu_percent;       /* since the process started, as ps reports it */
	char group[300];          /* the owner label */
};

/* Reads /proc and classifies the first limit rows (busiest first). 0 or -errno. */
int views__top_read(const struct service *svc, size_t nsvc, size_t limit,
		    struct top_row **rows, size_t *n);
json_t *views__top(const struct top_row *rows, size_t n);

/* Where a page of profiles sits in the whole list. */
struct views_page {
	uint64_t total;   /* how many match in all */
	uint64_t offset;  /* of the first given */
	uint64_t limit;   /* asked for; 0: every one */
	bool by_cursor;   /* the page was asked after a cursor: offsets do not apply */
};

/* profiles: {"profiles": [...], "total", "offset", "next_offset", "next"}, newest first as
 * given; next_offset is where the next page starts, null after the last (and for a page
 * after a cursor); next is the cursor of the page after this one (store__cursor), null
 * when this page is the last. page NULL: e is the whole list. */
json_t *views__profiles(const struct profile_entry *e, size_t n, const struct views_page *page);
/* symbols list: {"uploads": [...]} */
json_t *views__uploads(const struct upload_entry *e, size_t n);

/*
 * A stored profile as it reads today: loaded, named with the tables kept now, analysed,
 * and its stored answer refreshed. 0, or -1 with e set.
 */
int views__load_profile(struct store *s, const char *id, struct profile **p,
			struct analysis **a, struct view_error *e);

/* compare: two stored profiles of the same question. NULL with e set. */
json_t *views__compare(struct store *s, const char *id_a, const char *id_b, size_t top,
		       struct view_error *e);

/* ---- debug symbol uploads ---- */

#define VIEWS_UPLOAD_MAX_BYTES (1ull << 30) /* "Files up to 1 GB are accepted." */

/*
 * Reads the names of an upload open at fd (what is named path in messages): 0 with *tab
 * and info filled, or -1 with e set to the spec's refusal (400/413) or a failure (500).
 */
int views__read_upload(int fd, const char *path, struct elf_info *info, struct symtab **tab,
		       struct view_error *e);
/* Keeps tab under info's build id as an upload named file_name, and the source lines of
 * the file open at fd (-1: none); the document says what was named: {"build_id",
 * "functions", "file_name", "lines"}. NULL with e set. */
json_t *views__keep_upload(struct store *s, const struct elf_info *info, const char *file_name,
			   const struct symtab *tab, int fd, struct view_error *e);
/* A build id, whole or its first 12 hex digits or more, lowercased into out. */
bool views__parse_build_id(const char *arg, char out[BUILD_ID_HEX_MAX + 1]);
/* {"deleted": BUILD_ID}. NULL with e set. */
json_t *views__delete_upload(struct store *s, const char *arg, struct view_error *e);

/* ---- remove the profiler ---- */

/* struct remove_report: util/remove_tree.h. */

/*
 * Removes the profiler (DATA/profiler), capture files (DATA/captures) and the files of
 * unfinished saves from the workspace s, keeping the workspace itself. 0 when all went,
 * else the first -errno (what failed is in report->failed). The document:
 * {"removed": [...], "kept": DATA}.
 */
int views__remove_profiler(struct store *s, struct remove_report *report);
json_t *views__remove_document(const char *data, struct remove_report *report);

#endif

// SPDX-License-Identifier: MIT
/*
 * Remove the profiler: removes the installed profiler (DATA/profiler/), the capture files
 * left behind (DATA/captures/) and the files of saves that never finished, as the index
 * lists them. Keeps the workspace: its index, profiles, Services and debug symbols.
 * Trees are removed as util/remove_tree.h does: never following a symbolic link.
 */
#include "views/views.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "util/json_text.h"
#include "util/remove_tree.h"
#include "store/store.h"

static int leftover(void *ctx, const char *path, uint64_t bytes)
{
	return remove_report__removed(ctx, path, bytes);
}

int views__remove_profiler(struct store *s, struct remove_report *rep)
{
	static const char *const trees[] = { "profiler", "captures" };
	char path[PATH_MAX];
	int err = 0, e;

	if (remove_report__init(rep))
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", store__dir(s), trees[i]);
		e = remove_report__tree(rep, store__dirfd(s), trees[i], path);
		err = err ? err : e;
	}
	/* Files of saves that never finished, as the index lists them; nothing else. */
	e = store__leftovers(s, INT64_MAX, leftover, rep);
	if (e)
		remove_report__failed(rep, store__dir(s), e);
	return err ? err : e;
}

json_t *views__remove_document(const char *data, struct remove_report *rep)
{
	return json_pack("{s:O, s:o}", "removed", rep->removed, "kept", json_text(data));
}

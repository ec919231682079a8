// SPDX-License-Identifier: MIT
/*
 * A capture kept in a workspace: what the command line's capture and the server's
 * capture job both run (pipeline.h), so that neither can leave out the workspace's
 * Services, names, unwind-table cache or the checks before sampling.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util/format.h"
#include "capture/profiler.h"
#include "pipeline/pipeline.h"
#include "proc/owner.h"
#include "store/store.h"
#include "util/thread_priority.h"

/* The caller's error callback as where a message is reported. */
static struct report reporter(const struct pipeline_callbacks *cb)
{
	return (struct report){ cb ? cb->error : NULL, cb ? cb->ctx : NULL };
}

int pipeline__check_workspace(struct store *s, const struct pipeline_callbacks *cb)
{
	struct report r = reporter(cb);
	char free_text[32], need_text[32];
	uint64_t available = 0;
	int err;

	err = store__check_writable(s);
	if (err) {
		report__error(&r, MSG_CAPTURE_READ_ONLY_BEFORE, store__where(s), strerror(-err));
		return err;
	}
	err = store__free_space(s, STORE_SAVE_BYTES_MIN, &available);
	if (err == -ENOSPC) {
		format_bytes((int64_t)available, free_text, sizeof(free_text));
		format_bytes(STORE_SAVE_BYTES_MIN, need_text, sizeof(need_text));
		report__error(&r, MSG_CAPTURE_NO_SPACE_BEFORE, store__dir(s), free_text, need_text);
		return err;
	}
	return 0;
}

int pipeline__capture_workspace(struct store *s, const struct workspace_capture *wc,
				const struct pipeline_callbacks *cb, volatile sig_atomic_t *stop,
				struct pipeline_result *out, char id[40])
{
	struct symbol_lookup kept = { .get = store__symbols_get, .ctx = s };
	struct pipeline_options opts = {
		.question = wc->question,
		.seconds = wc->seconds,
		.hz = wc->hz,
		.kept = &kept,
		.has_symbols = store__keeps_full_names,
		.has_symbols_ctx = s,
	};
	struct pipeline_progress failed = { .phase = PIPELINE_FAILED };
	struct thread_priority before;
	struct service *svc = NULL;
	char cache_dir[PATH_MAX];
	size_t nsvc = 0;
	int err;

	memset(out, 0, sizeof(*out));
	id[0] = '\0';
	err = pipeline__check_workspace(s, cb);
	if (err) {
		if (cb && cb->progress)
			cb->progress(cb->ctx, &failed);
		return err;
	}
	/* Without the Services the groups are still right, only less named. */
	err = store__list_services(s, &svc, &nsvc);
	if (err) {
		struct report r = reporter(cb);

		report__error(&r, MSG_CAPTURE_SERVICES_FAILED, strerror(-err));
		svc = NULL;
		nsvc = 0;
	}
	opts.services = svc;
	opts.nservices = nsvc;
	snprintf(cache_dir, sizeof(cache_dir), "%s/profiler/unwind", store__dir(s));
	opts.cache_dir = cache_dir;
	opts.profiler = wc->profiler;

	/* Raised through the save too: a first capture into a workspace keeps every
	 * binary's names, seconds of work a starved thread would stretch. */
	thread_priority__raise(PIPELINE_NICE, &before);
	err = pipeline__run(&opts, cb, stop, out);
	if (!err) {
		err = pipeline_result__save(out, s, cb, id);
		if (err)
			pipeline_result__release(out);
	}
	thread_priority__restore(&before);
	/* Kept: a resident profiler need not read these names again (profiler.h). */
	for (size_t i = 0; !err && wc->profiler && i < out->nsymbols; i++)
		if (!out->symbols[i].from_symtab)
			profiler__note_symbols_kept(wc->profiler, out->symbols[i].build_id);
	services__free(svc, nsvc);
	return err;
}

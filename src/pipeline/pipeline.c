// SPDX-License-Identifier: MIT
/*
 * The pipeline: a capture session (src/capture), then the binaries it met read within
 * their caps, names looked up (what the caller keeps first, then what was just read),
 * and the analysis. See pipeline.h for the lifecycle.
 */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/format.h"
#include "capture/binaries.h"
#include "capture/capture.h"
#include "capture/profiler.h"
#include "proc/owner.h"
#include "store/store.h"
#include "symbols/lines.h"
#include "symbols/symtab.h"
#include "util/clock.h"
#include "util/thread_priority.h"

#define NSEC_PER_SEC 1000000000ULL

static const char *const phase_names[PIPELINE_PHASE__COUNT] = {
	[PIPELINE_SAMPLING] = "sampling",
	[PIPELINE_READING] = "reading",
	[PIPELINE_SAVING] = "saving",
	[PIPELINE_DONE] = "done",
	[PIPELINE_FAILED] = "failed",
};

const char *pipeline_phase__name(enum pipeline_phase phase)
{
	return (unsigned)phase < PIPELINE_PHASE__COUNT ? phase_names[phase] : "";
}

struct pipeline {
	struct pipeline_options opts;
	struct pipeline_callbacks cb;
	struct report report;
	struct owner_resolver *owners;
	struct capture_session *session;
	uint64_t next_progress_ns;
	bool installing;
	bool finished;
};

static void progress_installing(const struct pipeline_callbacks *cb,
				enum pipeline_phase phase, uint64_t done, uint64_t total,
				bool installing)
{
	struct pipeline_progress pr = {
		.phase = phase, .done = done, .total = total, .installing = installing,
	};

	if (cb && cb->progress)
		cb->progress(cb->ctx, &pr);
}

static void progress(const struct pipeline_callbacks *cb, enum pipeline_phase phase,
		     uint64_t done, uint64_t total)
{
	struct pipeline_progress pr = { .phase = phase, .done = done, .total = total };

	if (cb && cb->progress)
		cb->progress(cb->ctx, &pr);
}

static void on_error(void *ctx, enum msg_id id, const char *text)
{
	const struct pipeline_callbacks *cb = ctx;

	if (cb->error)
		cb->error(cb->ctx, id, text);
}

static void sampling_progress(struct pipeline *pl)
{
	uint64_t done, total;

	capture_session__elapsed(pl->session, &done, &total);
	progress_installing(&pl->cb, PIPELINE_SAMPLING, done, total, pl->installing);
	pl->next_progress_ns = (uint64_t)clock__monotonic_ns() + NSEC_PER_SEC;
}

/* A snapshot's preparation (its tables) is the sampling phase of a capture with no
 * duration: its time so far, of its budget. */
static void snapshot_progress(void *ctx, uint64_t done_ms, uint64_t total_ms)
{
	progress(ctx, PIPELINE_SAMPLING, done_ms, total_ms);
}

struct pipeline *pipeline__start(const struct pipeline_options *opts,
				 const struct pipeline_callbacks *cb)
{
	static const struct pipeline_callbacks none;
	struct capture_config config = { 0 };
	struct pipeline *pl = calloc(1, sizeof(*pl));
	int err;

	if (!pl) {
		if (cb && cb->error)
			cb->error(cb->ctx, MSG_OUT_OF_MEMORY, msg_text(MSG_OUT_OF_MEMORY));
		return NULL;
	}
	pl->opts = *opts;
	pl->cb = cb ? *cb : none;
	pl->report.error = on_error;
	pl->report.ctx = &pl->cb;

	err = capture__preflight(opts->question, &pl->report);
	if (err)
		goto out_free;
	pl->owners = owner_resolver__new("/proc", "/", opts->services, opts->nservices);
	if (!pl->owners) {
		err = -ENOMEM;
		report__error(&pl->report, MSG_OUT_OF_MEMORY);
		goto out_free;
	}
	config.question = opts->question;
	config.seconds = opts->seconds;
	config.hz = opts->hz;
	config.owners = pl->owners;
	config.report = &pl->report;
	config.cache_dir = opts->cache_dir;
	config.unwind_budget = opts->unwind_budget;
	config.progress = snapshot_progress;
	config.progress_ctx = &pl->cb;
	config.stop = opts->stop;
	config.profiler = opts->profiler;
	/* Loading takes about a second: say so before it starts. */
	pl->installing = !opts->profiler || profiler__will_install(opts->profiler, opts->question);
	progress_installing(&pl->cb, PIPELINE_SAMPLING, 0,
			    question__is_snapshot(opts->question) ? 0 :
			    (uint64_t)opts->seconds * 1000, pl->installing);
	pl->session = capture_session__open(&config);
	if (!pl->session) {
		err = -errno;
		goto out_free;
	}
	pl->installing = capture_session__installed(pl->session);
	sampling_progress(pl);
	return pl;

out_free:
	pipeline__free(pl);
	errno = -err;
	return NULL;
}

int pipeline__fd(const struct pipeline *pl)
{
	return capture_session__fd(pl->session);
}

int pipeline__timeout_ms(const struct pipeline *pl)
{
	return capture_session__timeout_ms(pl->session);
}

int pipeline__step(struct pipeline *pl)
{
	int r = capture_session__step(pl->session);

	if (r == 0 && (uint64_t)clock__monotonic_ns() >= pl->next_progress_ns)
		sampling_progress(pl);
	return r;
}

void pipeline__stop(struct pipeline *pl)
{
	capture_session__stop(pl->session);
}

/*
 * Names: the tables this capture just read, which are the caller's to keep afterwards,
 * then the caller's. A build is read only when the caller keeps no upload and no
 * .symtab for it, so what was read is at least as good as anything kept: a stripped
 * build's kept .dynsym must not hide the .symtab of the same build unstripped.
 */
struct names {
	const struct symbol_lookup *kept;
	const struct binary_symbols *fresh;
	size_t nfresh;
};

static int names_get(void *ctx, const char *build_id, struct symtab **out)
{
	const struct names *n = ctx;
	const struct binary_symbols *best = NULL;

	/* Two files of one build (stripped and not) were both read: the .symtab names. */
	for (size_t i = 0; i < n->nfresh; i++)
		if (strcmp(n->fresh[i].build_id, build_id) == 0 &&
		    (!best || (n->fresh[i].from_symtab && !best->from_symtab)))
			best = &n->fresh[i];
	if (best) {
		*out = best->tab;
		return 0;
	}
	if (n->kept)
		return n->kept->get(n->kept->ctx, build_id, out);
	return -ENOENT;
}

static void names_release(void *ctx, struct symtab *tab)
{
	const struct names *n = ctx;

	for (size_t i = 0; i < n->nfresh; i++)
		if (n->fresh[i].tab == tab)
			return; /* ours: the result keeps it */
	if (n->kept && n->kept->release)
		n->kept->release(n->kept->ctx, tab);
	else
		symtab__free(tab);
}

static void reading_progress(void *ctx, uint64_t done, uint64_t total)
{
	progress(ctx, PIPELINE_READING, done, total);
}

/* The tables binaries__read read become the result's. */
static int take_tables(struct pipeline_result *out, struct binaries_read_result *read)
{
	out->symbols = calloc(read->nsymbols ? read->nsymbols : 1, sizeof(*out->symbols));
	out->lines = calloc(read->nlines ? read->nlines : 1, sizeof(*out->lines));
	if (!out->symbols || !out->lines)
		return -ENOMEM;
	for (size_t i = 0; i < read->nsymbols; i++) {
		memcpy(out->symbols[i].build_id, read->symbols[i].build_id,
		       sizeof(out->symbols[i].build_id));
		out->symbols[i].from_symtab = read->symbols[i].from_symtab;
		out->symbols[i].tab = read->symbols[i].tab;
		read->symbols[i].tab = NULL;
	}
	out->nsymbols = read->nsymbols;
	for (size_t i = 0; i < read->nlines; i++) {
		memcpy(out->lines[i].build_id, read->lines[i].build_id,
		       sizeof(out->lines[i].build_id));
		out->lines[i].table = read->lines[i].table;
		read->lines[i].table = NULL;
	}
	out->nlines = read->nlines;
	return 0;
}

int pipeline__finish(struct pipeline *pl, struct pipeline_result *out)
{
	struct binaries_read_options ro = {
		.has_symbols = pl->opts.has_symbols,
		.ctx = pl->opts.has_symbols_ctx,
		.progress = reading_progress,
		.progress_ctx = &pl->cb,
	};
	struct binaries_read_result read = { 0 };
	struct symbol_lookup lookup;
	struct profiler *resident = pl->opts.profiler;
	struct names names = { 0 };
	struct profile *p;
	int err;

	memset(out, 0, sizeof(*out));
	if (pl->finished)
		return -EINVAL;
	pl->finished = true;
	err = capture_session__end(pl->session);
	if (err)
		goto out_failed;
	p = capture_session__profile(pl->session);
	progress(&pl->cb, PIPELINE_READING, 0, 0);
	/* A resident profiler remembers what its earlier captures read and the caller
	 * kept: those builds' names and lines are not read again. */
	if (resident) {
		ro.dynsym_kept = profiler__symbols_kept;
		ro.dynsym_ctx = resident;
		ro.lines_known = profiler__lines_known;
		ro.lines_looked_up = profiler__note_lines_looked_up;
		ro.read_lines = profiler__read_lines;
		ro.lines_ctx = resident;
		ro.packages = profiler__packages(resident);
		ro.facts = profiler__facts(resident);
	}
	err = binaries__read(capture_session__binaries(pl->session), p, &ro, &read);
	if (err)
		goto out_nomem;

	names.kept = pl->opts.kept;
	names.fresh = read.symbols;
	names.nfresh = read.nsymbols;
	lookup.get = names_get;
	lookup.release = names_release;
	lookup.ctx = &names;
	err = profile__symbolize(p, &lookup);
	if (err)
		goto out_nomem;
	out->profile = capture_session__take_profile(pl->session);
	out->analysis = analysis__new(out->profile);
	if (!out->analysis) {
		err = -ENOMEM;
		goto out_nomem;
	}
	err = take_tables(out, &read);
	if (err)
		goto out_nomem;
	binaries_read_result__release(&read);
	return 0;

out_nomem:
	report__error(&pl->report, MSG_OUT_OF_MEMORY);
out_failed:
	binaries_read_result__release(&read);
	pipeline_result__release(out);
	progress(&pl->cb, PIPELINE_FAILED, 0, 0);
	return err;
}

void pipeline__free(struct pipeline *pl)
{
	if (!pl)
		return;
	capture_session__free(pl->session);
	owner_resolver__free(pl->owners);
	free(pl);
}

int pipeline__run(const struct pipeline_options *opts, const struct pipeline_callbacks *cb,
		  volatile sig_atomic_t *stop, struct pipeline_result *out)
{
	struct pipeline_options with_stop = *opts;
	struct thread_priority before;
	struct pipeline *pl;
	int r = 0, err;

	/* Before the session's threads start: they inherit it. Not permitted: as it was. */
	thread_priority__raise(PIPELINE_NICE, &before);
	/* A snapshot's preparation ends early on the same request. */
	if (!with_stop.stop)
		with_stop.stop = stop;
	pl = pipeline__start(&with_stop, cb);
	memset(out, 0, sizeof(*out));
	if (!pl) {
		err = -errno;
		progress(cb, PIPELINE_FAILED, 0, 0);
		thread_priority__restore(&before);
		return err;
	}
	while (r == 0) {
		struct pollfd pfd = { .fd = pipeline__fd(pl), .events = POLLIN };

		if (stop && *stop)
			pipeline__stop(pl);
		/* A signal cuts the wait short (EINTR): the next step sees the stop. */
		poll(&pfd, 1, pipeline__timeout_ms(pl));
		if (stop && *stop)
			pipeline__stop(pl);
		r = pipeline__step(pl);
	}
	if (r < 0) {
		pipeline__free(pl);
		progress(cb, PIPELINE_FAILED, 0, 0);
		thread_priority__restore(&before);
		return r;
	}
	err = pipeline__finish(pl, out);
	pipeline__free(pl);
	thread_priority__restore(&before);
	return err;
}

void pipeline_result__release(struct pipeline_result *r)
{
	if (!r)
		return;
	analysis__free(r->analysis);
	profile__free(r->profile);
	for (size_t i = 0; r->symbols && i < r->nsymbols; i++)
		symtab__free(r->symbols[i].tab);
	free(r->symbols);
	for (size_t i = 0; r->lines && i < r->nlines; i++)
		line_table__free(r->lines[i].table);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

/* Why a save failed, in words: a full disk says how much the profile needed. */
static void save_failed(const struct pipeline_result *r, struct store *s,
			const struct pipeline_callbacks *cb, int err)
{
	struct report report = { .error = on_error, .ctx = (void *)cb };
	uint64_t available = 0, needed = 0;
	char free_text[32], need_text[32];

	if (!cb)
		return;
	if (err != -ENOSPC || store__profile_bytes(r->profile, &needed)) {
		report__error(&report, MSG_CAPTURE_SAVE_FAILED, store__where(s), strerror(-err));
		return;
	}
	store__free_space(s, 0, &available);
	format_bytes((int64_t)available, free_text, sizeof(free_text));
	format_bytes((int64_t)needed, need_text, sizeof(need_text));
	report__error(&report, MSG_CAPTURE_NO_SPACE, store__where(s), free_text, need_text);
}

int pipeline_result__save(const struct pipeline_result *r, struct store *s,
			  const struct pipeline_callbacks *cb, char id[40])
{
	size_t total = r->nsymbols + r->nlines + 1, done = 0;
	int err = 0;

	progress(cb, PIPELINE_SAVING, 0, total);
	for (size_t i = 0; i < r->nsymbols && !err; i++, done++) {
		const struct pipeline_symbols *ps = &r->symbols[i];

		err = store__put_symbols(s, ps->build_id,
					 ps->from_symtab ? SYMBOLS_SYMTAB : SYMBOLS_DYNSYM, NULL,
					 ps->tab);
		progress(cb, PIPELINE_SAVING, done + 1, total);
	}
	/* A line table that cannot be kept costs the export its lines, not the profile. */
	for (size_t i = 0; i < r->nlines && !err; i++, done++) {
		int e = store__put_lines(s, r->lines[i].build_id, r->lines[i].table);

		if (e == -ENOSPC)
			err = e;
		progress(cb, PIPELINE_SAVING, done + 1, total);
	}
	if (!err)
		err = store__save_profile(s, r->profile, r->analysis->answer, id);
	if (err) {
		save_failed(r, s, cb, err);
		progress(cb, PIPELINE_FAILED, done, total);
		return err;
	}
	progress(cb, PIPELINE_DONE, total, total);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target over the readers of what the workspace keeps: the pprof reader and
 * the line-table reader. Whatever the bytes (gzip'd or plain protobuf), pprof__decode
 * must return 0, -EBADMSG or -ENOMEM without crashing, leaking, reading outside what it
 * allocated, or making any one allocation past -malloc_limit_mb=256 (a gzip bomb is
 * among the seeds). A profile it returns must hold only
 * indices in range, and must survive being written and read again unchanged in size
 * and totals: what the reader accepts, the writer can store.
 *
 * Seeds: given an empty corpus directory (as tests/run.sh does), the target first
 * writes a few profiles of its own into it, gzip'd and plain, so the fuzzer starts
 * from whole messages rather than from nothing.
 *
 *   make build/fuzz/fuzz_pprof
 *   mkdir -p build/fuzz/corpus-pprof
 *   build/fuzz/fuzz_pprof -max_total_time=60 build/fuzz/corpus-pprof
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "profile/pprof.h"
#include "profile/profile.h"
#include "symbols/lines.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void check_indices(const struct profile *p)
{
	uint32_t nstrings = strtab__count(p->strings);

	check(p->nvalues >= 1 && p->nvalues <= PROFILE_MAX_VALUES);
	check((unsigned)p->header.question < QUESTION__COUNT);
	for (uint32_t i = 0; i < p->nmappings; i++) {
		check(p->mappings[i].path < nstrings && p->mappings[i].build_id < nstrings);
		check((unsigned)p->mappings[i].kind < MAPPING_KIND__COUNT);
		check((unsigned)p->mappings[i].language < LANGUAGE__COUNT);
	}
	for (uint32_t i = 0; i < p->nlocations; i++) {
		check(p->locations[i].mapping < p->nmappings);
		check(p->locations[i].function < nstrings && p->locations[i].file < nstrings);
	}
	for (uint32_t i = 0; i < p->nstacks; i++) {
		uint32_t depth;
		const uint32_t *locs = profile__stack(p, i, &depth);

		for (uint32_t j = 0; j < depth; j++)
			check(locs[j] < p->nlocations);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		check(s->stack < p->nstacks);
		check(s->labels.comm < nstrings && s->labels.group < nstrings &&
		      s->labels.exe < nstrings && s->labels.thread < nstrings);
		check((unsigned)s->labels.group_kind < GROUP_KIND__COUNT);
		for (uint32_t v = 0; v < p->nvalues; v++)
			check(s->values[v] >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = (struct profile *)1, *q = NULL;
	void *blob;
	size_t len;
	int err;

	/* The line tables the store keeps come from the same place as the blobs. */
	{
		struct line_table *t = line_table__deserialize(data, size);

		if (t) {
			for (size_t i = 1; i < t->n; i++)
				check(t->rows[i - 1].address < t->rows[i].address);
			for (size_t i = 0; i < t->n; i++)
				check(line_table__file(t, &t->rows[i]) != NULL);
		}
		line_table__free(t);
	}
	err = pprof__decode(data, size, &p);
	check(err == 0 || err == -EBADMSG || err == -ENOMEM);
	if (err) {
		check(p == NULL);
		return 0;
	}
	check_indices(p);

	if (pprof__encode(p, false, &blob, &len) == 0) {
		err = pprof__decode(blob, len, &q);
		check(err == 0 || err == -ENOMEM);
		if (!err) {
			check(q->nmappings == p->nmappings);
			check(q->nlocations == p->nlocations);
			check(q->nstacks == p->nstacks);
			check(q->nsamples == p->nsamples);
			check(q->header.question == p->header.question);
			for (uint32_t v = 0; v < p->nvalues; v++)
				check(profile__total(q, v) == profile__total(p, v));
		}
		profile__free(q);
		free(blob);
	}
	/* The export form too: names for every location (here, those known at capture). */
	if (pprof__encode(p, true, &blob, &len) == 0)
		free(blob);
	profile__free(p);
	return 0;
}

/* ---- seeds ---- */

static void add_seed(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

/* The same message without gzip, so the fuzzer also mutates protobuf directly. */
static void add_plain_seed(const char *dir, const char *name, const void *gz, size_t len)
{
	unsigned char out[1 << 16];
	z_stream zs = { 0 };

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return;
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	if (inflate(&zs, Z_FINISH) == Z_STREAM_END)
		add_seed(dir, name, out, zs.total_out);
	inflateEnd(&zs);
}

static struct profile *seed_profile(enum question q)
{
	struct profile *p = profile__new(q);
	struct prof_mapping exe = { .kind = MAPPING_EXE, .language = LANGUAGE_C,
				    .build_id_recorded = true, .has_symtab = true };
	struct prof_mapping kern = { .kind = MAPPING_KERNEL, .language = LANGUAGE_KERNEL,
				     .build_id_recorded = true };
	uint32_t m0, m1, l[3], st;
	int64_t v[PROFILE_MAX_VALUES] = { 2, 20202020 };

	if (!p)
		return NULL;
	p->header.hostname = profile__intern(p, "host");
	p->header.ncpus = 2;
	p->header.started_at_ns = 1796223845000000000LL;
	p->header.duration_ns = 30000000000ULL;
	p->header.sample_hz = 99;
	exe.path = profile__intern(p, "/usr/local/bin/app");
	exe.build_id = profile__intern(p, "b65a313cbf47aa00bb11cc22dd33ee44ff556677");
	kern.path = profile__intern(p, "[kernel.kallsyms]");
	m0 = profile__add_mapping(p, &exe);
	m1 = profile__add_mapping(p, &kern);
	l[0] = profile__add_location(p, &(struct prof_location){ .mapping = m1,
		.address = 0xffffffff81000000ULL,
		.function = profile__intern(p, "do_syscall_64") });
	l[1] = profile__add_location(p, &(struct prof_location){ .mapping = m0,
		.address = 0x1139 });
	l[2] = profile__add_location(p, &(struct prof_location){ .mapping = m0,
		.address = 0x1200, .function = profile__intern(p, "main"),
		.file = profile__intern(p, "app.py"), .line = 7 });
	st = profile__add_stack(p, l, 3);
	profile__add_sample(p, st, v, &(struct prof_labels){
		.pid = 42, .tid = 43, .comm = profile__intern(p, "app"),
		.group = profile__intern(p, "Service billing"), .group_kind = GROUP_SERVICE,
		.state = profile__intern(p, "running"), .lock = 0x1234,
		.lock_kind = profile__intern(p, "futex") });
	return p;
}

/*
 * A gzip bomb: a whole, valid gzip stream of 1 GiB of zeros, about 1 MB on disk. The
 * reader must refuse it within its budget (64 times the file), so the target runs
 * under -malloc_limit_mb=256; before the budget, 1 GiB went through.
 */
static void add_bomb_seed(const char *dir)
{
	static unsigned char zeros[1 << 16];
	size_t cap = 2 << 20;
	unsigned char *out = malloc(cap);
	z_stream zs = { 0 };

	if (!out || deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return;
	}
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	for (int i = 0; i < (1 << 14) && zs.avail_out; i++) {
		zs.next_in = zeros;
		zs.avail_in = sizeof(zeros);
		deflate(&zs, i == (1 << 14) - 1 ? Z_FINISH : Z_NO_FLUSH);
	}
	if (zs.avail_out)
		add_seed(dir, "bomb-1GiB.pb.gz", out, zs.total_out);
	deflateEnd(&zs);
	free(out);
}

static void write_seeds(const char *dir)
{
	add_bomb_seed(dir);
	for (int q = 0; q < QUESTION__COUNT; q++) {
		struct profile *p = seed_profile((enum question)q);
		char name[64];
		void *blob;
		size_t len;

		if (!p)
			continue;
		if (pprof__encode(p, false, &blob, &len) == 0) {
			snprintf(name, sizeof(name), "%s.pb.gz", question__id((enum question)q));
			add_seed(dir, name, blob, len);
			snprintf(name, sizeof(name), "%s.pb", question__id((enum question)q));
			add_plain_seed(dir, name, blob, len);
			free(blob);
		}
		profile__free(p);
	}
}

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* The first corpus directory, if empty, gets the seeds. */
	for (int i = 1; i < *argc; i++) {
		const char *arg = (*argv)[i];
		struct stat st;

		if (arg[0] == '-')
			continue;
		if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode) && dir_is_empty(arg))
			write_seeds(arg);
		break;
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * pprof: a profile survives encode and decode whole; a blob cut short or with bad bytes
 * is refused, never half read; and `go tool pprof` reads our exports with their names.
 * Messages built by hand field by field (bad indices, another tool's pprof):
 * test_pprof_raw.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile.pb-c.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "questions/memory/memory_owners.h"

#define S(p, s) profile__intern((p), (s))

struct built {
	struct profile *p;
	uint32_t locs[8];
};

static uint32_t mapping(struct profile *p, const char *path, const char *build_id,
			enum mapping_kind kind, enum language lang, bool symtab, bool recorded)
{
	struct prof_mapping m = {
		.path = S(p, path),
		.build_id = S(p, build_id),
		.kind = kind,
		.language = lang,
		.has_symtab = symtab,
		.build_id_recorded = recorded,
	};
	uint32_t id = profile__add_mapping(p, &m);

	assert_int_not_equal(id, UINT32_MAX);
	return id;
}

static uint32_t location(struct profile *p, uint32_t m, uint64_t addr, const char *fn,
			 const char *file, int64_t line)
{
	struct prof_location l = {
		.mapping = m,
		.address = addr,
		.function = fn ? S(p, fn) : 0,
		.file = file ? S(p, file) : 0,
		.line = line,
	};
	uint32_t id = profile__add_location(p, &l);

	assert_int_not_equal(id, UINT32_MAX);
	return id;
}

static void sample(struct profile *p, const uint32_t *locs, uint32_t depth, int64_t v0,
		   int64_t v1, const struct prof_labels *lb)
{
	int64_t v[PROFILE_MAX_VALUES] = { v0, v1 };
	uint32_t stack = profile__add_stack(p, locs, depth);

	assert_int_not_equal(stack, UINT32_MAX);
	assert_int_equal(profile__add_sample(p, stack, v, lb), 0);
}

/* A cpu profile like a capture makes: a stripped exe, a library, the kernel, a Python
 * interpreter frame named at capture, an anonymous JIT region; several processes. */
static struct profile *build_cpu(struct built *b)
{
	struct profile *p = profile__new(QUESTION_CPU);
	uint32_t exe, lib, kernel, py, jit, *L = b->locs;

	assert_non_null(p);
	p->header.hostname = S(p, "web-1");
	p->header.kernel_release = S(p, "6.18.0-test");
	p->header.kernel_build_id = S(p, "4a1f20b65a313cbf47aa00112233445566778899");
	p->header.ncpus = 2;
	p->header.started_at_ns = 1796223845123456789LL;
	p->header.duration_ns = 30000000000ULL;
	p->header.sample_hz = 99;
	p->header.lost = 3;
	p->header.stacks_truncated = 7;
	p->header.mappings_past_limit = 40;
	p->header.processes_past_limit = 2;
	p->header.mappings_limit = 64;
	p->header.tool_version = S(p, "0.1.0");

	exe = mapping(p, "/usr/local/bin/billing-worker",
		      "b65a313cbf47aa00bb11cc22dd33ee44ff556677", MAPPING_EXE, LANGUAGE_C, false, true);
	lib = mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", "0123456789abcdef0123",
		      MAPPING_LIB, LANGUAGE_C, true, true);
	kernel = mapping(p, "[kernel.kallsyms]", "4a1f20b65a313cbf47aa00112233445566778899",
			 MAPPING_KERNEL, LANGUAGE_KERNEL, true, true);
	py = mapping(p, "/usr/bin/python3.11", "", MAPPING_EXE, LANGUAGE_PYTHON, true, false);
	p->mappings[py].from_package = true; /* python3.11 from Debian's archive */
	jit = mapping(p, "", "", MAPPING_JIT, LANGUAGE_JAVASCRIPT, false, true);

	L[0] = location(p, exe, 0x4a1f20, NULL, NULL, 0);
	L[1] = location(p, exe, 0x401000, NULL, NULL, 0);
	L[2] = location(p, lib, 0x29d90, NULL, NULL, 0);
	L[3] = location(p, kernel, 0xffffffff81234567ULL, "do_syscall_64", NULL, 0);
	L[4] = location(p, py, 0x1000, "build_report", "/srv/billing/report.py", 42);
	L[5] = location(p, py, 0x1000, "build_report", "/srv/billing/report.py", 57);
	L[6] = location(p, jit, 0x7f0000001234ULL, NULL, NULL, 0);
	L[7] = location(p, py, 0x2000, "main", "/srv/billing/app.py", 3);
	/* Python functions keep their first line (pprof's Function.start_line). */
	p->locations[L[4]].start_line = 40;
	p->locations[L[5]].start_line = 40;
	p->locations[L[7]].start_line = 1;

	{
		uint32_t s1[] = { L[0], L[1], L[2] };
		uint32_t s2[] = { L[3], L[0], L[1], L[2] };
		uint32_t s3[] = { L[4], L[7] };
		uint32_t s4[] = { L[5], L[7] };
		uint32_t s5[] = { L[6] };
		struct prof_labels a = {
			.pid = 4242, .tid = 4243, .comm = S(p, "billing-worker"),
			.thread = S(p, "worker-1"), .group = S(p, "Service billing"),
			.group_kind = GROUP_SERVICE, .exe = S(p, "/usr/local/bin/billing-worker"),
		};
		struct prof_labels c = {
			.pid = 77, .tid = 77, .comm = S(p, "gunicorn"),
			.group = S(p, "Unit nginx.service"), .group_kind = GROUP_UNIT,
			.exe = S(p, "/usr/bin/python3.11"), .state = S(p, "running"),
		};
		struct prof_labels d = { .pid = 1, .tid = 1, .group = S(p, "System"),
					 .group_kind = GROUP_SYSTEM };
		struct prof_labels e = { .group_kind = GROUP_OTHER }; /* nothing known */
		struct prof_labels f = { .pid = 5, .group_kind = GROUP_CONTAINER,
					 .lock = 0xffff888012345678ULL, .lock_kind = S(p, "mutex"),
					 .wait = S(p, "futex_wait") };

		sample(p, s1, 3, 10, 101010100, &a);
		sample(p, s2, 4, 3, 30303030, &a);
		sample(p, s1, 3, 1, 10101010, &c);
		sample(p, s3, 2, 5, 50505050, &c);
		sample(p, s4, 2, 2, 20202020, &c);
		sample(p, s5, 1, 1, 10101010, &d);
		sample(p, s1, 3, 4, 40404040, &e);
		sample(p, s2, 4, 6, 60606060, &f);
		sample(p, s3, 0, 1, 10101010, &e); /* an empty stack: all frames lost */
	}
	return p;
}

static void assert_str_id_equal(const struct profile *a, uint32_t x, const struct profile *b,
				uint32_t y)
{
	assert_string_equal(profile__str(a, x), profile__str(b, y));
}

static void assert_profiles_equal(const struct profile *a, const struct profile *b)
{
	const struct prof_header *ha = &a->header, *hb = &b->header;
	const struct memory_owners *oa = memory_owners__of(a), *ob = memory_owners__of(b);

	assert_int_equal(ha->format_version, hb->format_version);
	assert_int_equal(ha->question, hb->question);
	assert_str_id_equal(a, ha->hostname, b, hb->hostname);
	assert_str_id_equal(a, ha->kernel_release, b, hb->kernel_release);
	assert_str_id_equal(a, ha->kernel_build_id, b, hb->kernel_build_id);
	assert_str_id_equal(a, ha->tool_version, b, hb->tool_version);
	assert_int_equal(ha->ncpus, hb->ncpus);
	assert_int_equal(ha->started_at_ns, hb->started_at_ns);
	assert_int_equal(ha->duration_ns, hb->duration_ns);
	assert_int_equal(ha->sample_hz, hb->sample_hz);
	assert_int_equal(ha->lost, hb->lost);
	assert_int_equal(ha->stacks_truncated, hb->stacks_truncated);
	assert_int_equal(ha->mappings_past_limit, hb->mappings_past_limit);
	assert_int_equal(ha->processes_past_limit, hb->processes_past_limit);
	assert_int_equal(ha->mappings_limit, hb->mappings_limit);
	assert_int_equal(oa ? oa->n : 0, ob ? ob->n : 0);
	for (uint32_t i = 0; oa && i < oa->n; i++) {
		const struct memory_owner *x = &oa->owners[i], *y = &ob->owners[i];

		assert_str_id_equal(a, x->group, b, y->group);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->rss_start, y->rss_start);
		assert_int_equal(x->rss_end, y->rss_end);
		assert_int_equal(x->file_start, y->file_start);
		assert_int_equal(x->file_end, y->file_end);
		assert_int_equal(x->started, y->started);
		assert_int_equal(x->exited, y->exited);
	}

	assert_int_equal(a->nvalues, b->nvalues);
	for (uint32_t i = 0; i < a->nvalues; i++) {
		assert_str_id_equal(a, a->value_types[i].type, b, b->value_types[i].type);
		assert_str_id_equal(a, a->value_types[i].unit, b, b->value_types[i].unit);
	}

	assert_int_equal(a->nmappings, b->nmappings);
	for (uint32_t i = 0; i < a->nmappings; i++) {
		const struct prof_mapping *x = &a->mappings[i], *y = &b->mappings[i];

		assert_str_id_equal(a, x->path, b, y->path);
		assert_str_id_equal(a, x->build_id, b, y->build_id);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->language, y->language);
		assert_int_equal(x->has_symtab, y->has_symtab);
		assert_int_equal(x->build_id_recorded, y->build_id_recorded);
		assert_int_equal(x->from_package, y->from_package);
	}

	assert_int_equal(a->nlocations, b->nlocations);
	for (uint32_t i = 0; i < a->nlocations; i++) {
		const struct prof_location *x = &a->locations[i], *y = &b->locations[i];

		assert_int_equal(x->mapping, y->mapping);
		assert_int_equal(x->address, y->address);
		assert_str_id_equal(a, x->function, b, y->function);
		assert_str_id_equal(a, x->file, b, y->file);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->start_line, y->start_line);
	}

	assert_int_equal(a->nsamples, b->nsamples);
	for (uint32_t i = 0; i < a->nsamples; i++) {
		const struct prof_sample *x = &a->samples[i], *y = &b->samples[i];
		const struct prof_labels *lx = &x->labels, *ly = &y->labels;
		const uint32_t *sx, *sy;
		uint32_t dx, dy;

		sx = profile__stack(a, x->stack, &dx);
		sy = profile__stack(b, y->stack, &dy);
		assert_int_equal(dx, dy);
		assert_memory_equal(sx, sy, sizeof(uint32_t) * dx);
		for (uint32_t v = 0; v < a->nvalues; v++)
			assert_int_equal(x->values[v], y->values[v]);
		assert_int_equal(lx->pid, ly->pid);
		assert_int_equal(lx->tid, ly->tid);
		assert_str_id_equal(a, lx->comm, b, ly->comm);
		assert_str_id_equal(a, lx->thread, b, ly->thread);
		assert_str_id_equal(a, lx->group, b, ly->group);
		assert_int_equal(lx->group_kind, ly->group_kind);
		assert_str_id_equal(a, lx->exe, b, ly->exe);
		assert_str_id_equal(a, lx->state, b, ly->state);
		assert_str_id_equal(a, lx->wait, b, ly->wait);
		assert_int_equal(lx->lock, ly->lock);
		assert_str_id_equal(a, lx->lock_kind, b, ly->lock_kind);
	}
	assert_int_equal(a->nstacks, b->nstacks);
	assert_int_equal(a->header.nnot_read, b->header.nnot_read);
	for (uint32_t i = 0; i < a->header.nnot_read; i++) {
		const struct prof_not_read *x = &a->header.not_read[i], *y = &b->header.not_read[i];

		assert_str_id_equal(a, x->path, b, y->path);
		assert_str_id_equal(a, x->build_id, b, y->build_id);
		assert_str_id_equal(a, x->reason, b, y->reason);
	}
}

static void test_round_trip_keeps_everything(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q = NULL;
	void *data;
	size_t len;

	(void)state;
	/* What the capture did not read is part of the profile too. */
	assert_int_equal(profile__add_not_read(p, "/opt/app/huge", "", "too many sections"), 0);
	assert_int_equal(profile__add_not_read(p, "/usr/bin/slow", "ab12", "took too long"), 0);
	assert_int_equal(pprof__encode(p, false, &data, &len), 0);
	assert_true(len > 20);
	assert_int_equal(((unsigned char *)data)[0], 0x1f); /* gzip */
	assert_int_equal(pprof__decode(data, len, &q), 0);
	assert_non_null(q);
	assert_profiles_equal(p, q);
	/* Interning holds after a read: the same location added again is the same index. */
	assert_int_equal(profile__add_location(q, &q->locations[4]), 4);
	free(data);
	profile__free(q);
	profile__free(p);
}

/* A stranger's profile read within limits (an agent's batch): past a count, refused
 * before the model is built and saying which; past the bytes unpacking may take, too;
 * within them, read as pprof__decode reads it. */
static void test_decode_within_limits(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q = NULL;
	struct pprof_limits l = { .locations = 1000, .samples = 1000, .strings = 1000 };
	const char *which = NULL;
	void *data;
	size_t len;

	(void)state;
	assert_int_equal(pprof__encode(p, false, &data, &len), 0);
	assert_int_equal(pprof__decode_within(data, len, &l, &q, &which), 0);
	assert_profiles_equal(p, q);
	profile__free(q);
	l.locations = p->nlocations - 1;
	assert_int_equal(pprof__decode_within(data, len, &l, &q, &which), -E2BIG);
	assert_string_equal(which, "locations");
	assert_null(q);
	l.locations = 1000;
	l.samples = p->nsamples - 1;
	assert_int_equal(pprof__decode_within(data, len, &l, &q, &which), -E2BIG);
	assert_string_equal(which, "samples");
	l.samples = 1000;
	l.string_bytes = 4;
	assert_int_equal(pprof__decode_within(data, len, &l, &q, &which), -E2BIG);
	assert_string_equal(which, "string_bytes");
	l.string_bytes = 0;
	l.unpack_bytes = 256;
	assert_int_equal(pprof__decode_within(data, len, &l, &q, &which), -E2BIG);
	assert_string_equal(which, "bytes");
	free(data);
	profile__free(p);
}

/* Each question's values and labels survive, not only cpu's. */
static void test_round_trip_every_question(void **state)
{
	(void)state;
	for (int qi = 0; qi < QUESTION__COUNT; qi++) {
		struct profile *p = profile__new((enum question)qi), *q = NULL;
		struct prof_labels lb = { .pid = 9, .tid = 10, .state = S(p, "waiting"),
					  .wait = S(p, "pipe_read"), .lock = 0x1234,
					  .lock_kind = S(p, "futex"), .group = S(p, "System"),
					  .group_kind = GROUP_SYSTEM };
		int64_t v[PROFILE_MAX_VALUES] = { 123456789, 987654321, 5 };
		uint32_t m, l, st;
		void *data;
		size_t len;

		p->header.hostname = S(p, "db-2");
		p->header.started_at_ns = 1;
		m = mapping(p, "/bin/app", "aa", MAPPING_EXE, LANGUAGE_GO, true, true);
		l = location(p, m, 0x10, NULL, NULL, 0);
		st = profile__add_stack(p, &l, 1);
		assert_int_equal(profile__add_sample(p, st, v, &lb), 0);
		if (qi == QUESTION_MEMORY) {
			/* Each owner's resident memory at the start and the end. */
			struct memory_owner *om =
				memory_owners__add(p, "Service billing", GROUP_SERVICE);

			assert_non_null(om);
			om->rss_start = 100 << 20;
			om->rss_end = 312ull << 20;
			om->file_start = 1 << 20;
			om->file_end = 4 << 20;
			om->started = 2;
			om->exited = 1;
			assert_non_null(memory_owners__add(p, "System", GROUP_SYSTEM));
		}
		assert_int_equal(pprof__encode(p, false, &data, &len), 0);
		assert_int_equal(pprof__decode(data, len, &q), 0);
		assert_int_equal(q->header.question, qi);
		assert_profiles_equal(p, q);
		assert_int_equal(profile__total(q, profile__main_value(q)),
				 v[profile__main_value(p)]);
		free(data);
		profile__free(q);
		profile__free(p);
	}
}

static void test_file_write_and_read(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q = NULL;
	char dir[] = "/tmp/slideops-pprof.XXXXXX", path[256], cmd[512];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cpu.pb.gz", dir);
	assert_int_equal(pprof__write_file(p, false, path), 0);
	assert_int_equal(pprof__read_file(path, &q), 0);
	assert_profiles_equal(p, q);
	profile__free(q);
	/* Only the file itself is left: the temporary one was renamed onto it. */
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s)\" = cpu.pb.gz", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pprof__read_file("/nonexistent/x.pb.gz", &q), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	profile__free(p);
}

/* A stored blob cut anywhere is refused whole, never read as a smaller profile. */
static void test_truncated_blobs_are_refused(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q;
	void *data;
	size_t len, step;

	(void)state;
	assert_int_equal(pprof__encode(p, false, &data, &len), 0);
	step = len > 4000 ? len / 2000 : 1;
	for (size_t cut = 0; cut < len; cut += step) {
		/* A copy of exactly cut bytes, so ASan sees any read past the end. */
		void *part = malloc(cut ? cut : 1);

		memcpy(part, data, cut);
		q = (struct profile *)1;
		assert_int_equal(pprof__decode(part, cut, &q), -EBADMSG);
		assert_null(q);
		free(part);
	}
	/* Trailing bytes after the gzip stream are not ours either. */
	{
		unsigned char *more = malloc(len + 1);

		memcpy(more, data, len);
		more[len] = 0;
		assert_int_equal(pprof__decode(more, len + 1, &q), -EBADMSG);
		free(more);
	}
	free(data);
	profile__free(p);
}

/*
 * A flipped byte breaks the stream or its CRC: refused, never misread. (A few bits of
 * a deflate stream carry nothing, such as the padding of its last byte; flipping those
 * reads the very same profile, which is just as right.)
 */
static void test_corrupt_bytes_are_refused(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q;
	unsigned char *data;
	size_t len, refused = 0, tried = 0;
	int err;

	(void)state;
	assert_int_equal(pprof__encode(p, false, (void **)&data, &len), 0);
	/* From 10: the gzip header's time and flags bytes are not checked by design. */
	for (size_t i = 10; i < len; i++) {
		for (unsigned x = 1; x < 256; x += 17) {
			data[i] ^= (unsigned char)x;
			q = NULL;
			err = pprof__decode(data, len, &q);
			if (err) {
				assert_int_equal(err, -EBADMSG);
				assert_null(q);
				refused++;
			} else {
				assert_profiles_equal(p, q);
				profile__free(q);
			}
			tried++;
			data[i] ^= (unsigned char)x;
		}
	}
	assert_true(refused > tried * 99 / 100);
	assert_int_equal(pprof__decode(data, len, &q), 0);
	profile__free(q);
	free(data);
	profile__free(p);
}


static int run_capture(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	return pclose(f);
}

/* Names as the symbolizer would set them: an export names every location. */
static void name_all(struct profile *p)
{
	static const char *const names[] = {
		"build_report_native", "main",	       "__libc_start_call_main",
		"do_syscall_64",       "build_report", "build_report",
		"billing-worker+0x7f0000001234",       "main_py",
	};

	assert_int_equal(p->nlocations, 8);
	for (uint32_t i = 0; i < p->nlocations; i++) {
		p->locations[i].name = S(p, names[i]);
		p->locations[i].named = true;
	}
	p->symbolized = true;
}

static void test_go_tool_pprof_reads_export_with_names(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b), *q = NULL;
	char dir[] = "/tmp/slideops-gopprof.XXXXXX", path[256], cmd[1024], out[16384];

	(void)state;
	if (system("command -v go >/dev/null 2>&1") != 0)
		fail_msg("go is not installed: 'make deps' installs golang-go");
	assert_non_null(mkdtemp(dir));
	name_all(p);
	snprintf(path, sizeof(path), "%s/export.pb.gz", dir);
	assert_int_equal(pprof__write_file(p, true, path), 0);

	snprintf(cmd, sizeof(cmd),
		 "HOME=%s GOCACHE=%s/cache PPROF_TMPDIR=%s go tool pprof -top -nodecount=100 "
		 "%s 2>&1",
		 dir, dir, dir, path);
	if (run_capture(cmd, out, sizeof(out)) != 0)
		fail_msg("go tool pprof failed:\n%s", out);
	/* Function names, not addresses: the export needs no binaries. */
	assert_non_null(strstr(out, "build_report_native"));
	assert_non_null(strstr(out, "__libc_start_call_main"));
	assert_non_null(strstr(out, "do_syscall_64"));
	assert_non_null(strstr(out, " build_report\n"));
	assert_non_null(strstr(out, "main_py"));
	/* It read the cpu value (nanoseconds), the default sample type: 333 ms in all. */
	assert_non_null(strstr(out, "Type: cpu"));
	assert_non_null(strstr(out, "333.33ms"));

	/* Tags come through as labels. */
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s PPROF_TMPDIR=%s go tool pprof -tags %s 2>&1", dir, dir, path);
	if (run_capture(cmd, out, sizeof(out)) != 0)
		fail_msg("go tool pprof -tags failed:\n%s", out);
	assert_non_null(strstr(out, "Service billing"));
	assert_non_null(strstr(out, "billing-worker"));

	/* What go tool pprof writes back (dropping our header) still reads, as cpu. */
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s PPROF_TMPDIR=%s go tool pprof -proto %s > %s/again.pb.gz 2>/dev/null",
		 dir, dir, path, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/again.pb.gz", dir);
	assert_int_equal(pprof__read_file(path, &q), 0);
	assert_int_equal(q->header.question, QUESTION_CPU);
	/* pprof drops the one sample without frames; every other nanosecond is there. */
	assert_int_equal(profile__total(q, 1), profile__total(p, 1) - 10101010);
	{
		bool found = false;

		for (uint32_t i = 0; i < q->nlocations; i++) {
			const char *fn = profile__str(q, q->locations[i].function);

			if (strcmp(fn, "build_report_native") == 0)
				found = true;
		}
		assert_true(found);
	}
	profile__free(q);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	profile__free(p);
}

/* Stored form: Functions only for names known at capture; a mapping says whether all
 * of its locations are named, so pprof knows which it must look up itself. */
static void test_storage_names_only_capture_frames(void **state)
{
	struct built b;
	struct profile *p = build_cpu(&b);
	Perftools__Profiles__Profile *pb;
	void *data;
	size_t len;
	char dir[] = "/tmp/slideops-pprof.XXXXXX", path[256], cmd[512];
	FILE *f;
	unsigned char raw[1 << 16];
	size_t n;

	(void)state;
	name_all(p); /* ignored by the stored form */
	assert_int_equal(pprof__encode(p, false, &data, &len), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.gz", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gzip -dc %s", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(raw, 1, sizeof(raw), f);
	assert_int_equal(pclose(f), 0);
	pb = perftools__profiles__profile__unpack(NULL, n, raw);
	assert_non_null(pb);
	/* do_syscall_64, build_report (file report.py), main (app.py). */
	assert_int_equal(pb->n_function, 3);
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const char *file = pb->string_table[pb->mapping[i]->filename];
		bool all = strcmp(file, "[kernel.kallsyms]") == 0 ||
			   strcmp(file, "/usr/bin/python3.11") == 0;

		assert_int_equal(pb->mapping[i]->has_functions, all);
	}
	assert_string_equal(pb->string_table[0], "");
	assert_int_equal(pb->period, 1000000000LL / 99);
	assert_non_null(pb->slideops);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(data);
	profile__free(p);
}

struct decode_job {
	const void *data;
	size_t len;
	int failures;
};

static void *decode_again_and_again(void *arg)
{
	struct decode_job *j = arg;

	for (int i = 0; i < 40; i++) {
		struct profile *q = NULL;

		if (pprof__decode(j->data, j->len, &q))
			j->failures++;
		profile__free(q);
	}
	return NULL;
}

/*
 * The server reads profiles on several threads at once (the Compare page asks for two
 * flame graphs together): a profile read on one thread must not damage another's read.
 * Large enough that its gzip stream refers back across most of 64 KB of output.
 */
static void test_profiles_read_on_threads_at_once(void **state)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct decode_job jobs[4];
	pthread_t threads[4];
	void *data = NULL;
	size_t len = 0;
	uint32_t exe;

	(void)state;
	assert_non_null(p);
	exe = mapping(p, "/usr/local/bin/billing-worker", "b65a313cbf47aa00bb11cc22dd33ee44ff556677",
		      MAPPING_EXE, LANGUAGE_C, false, true);
	for (uint32_t i = 0; i < 4000; i++) {
		char name[64];
		struct prof_labels lb = { .pid = 4242, .tid = 4243, .group_kind = GROUP_OTHER };
		uint32_t loc;

		snprintf(name, sizeof(name), "billing_worker_function_%u", i * 7919 % 4000);
		loc = location(p, exe, 0x400000 + i * 16, name, "/srv/billing/worker.c", i);
		sample(p, &loc, 1, 1, 10101010, &lb);
	}
	assert_int_equal(pprof__encode(p, false, &data, &len), 0);
	assert_true(len > 16384);
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct decode_job){ data, len, 0 };
		assert_int_equal(pthread_create(&threads[i], NULL, decode_again_and_again, &jobs[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
	free(data);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_keeps_everything),
		cmocka_unit_test(test_round_trip_every_question),
		cmocka_unit_test(test_file_write_and_read),
		cmocka_unit_test(test_truncated_blobs_are_refused),
		cmocka_unit_test(test_corrupt_bytes_are_refused),
		cmocka_unit_test(test_storage_names_only_capture_frames),
		cmocka_unit_test(test_go_tool_pprof_reads_export_with_names),
		cmocka_unit_test(test_profiles_read_on_threads_at_once),
		cmocka_unit_test(test_decode_within_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

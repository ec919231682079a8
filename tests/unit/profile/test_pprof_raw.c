// SPDX-License-Identifier: MIT
/*
 * pprof messages built by hand, field by field: a valid one reads; each index broken
 * in turn is refused, never half read; a pprof from another tool (no SlideOps header)
 * reads with defaults. Profiles we build and encode: test_pprof.c.
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

#define S(p, s) profile__intern((p), (s))

/* ---- raw pprof messages, built by hand, then broken one field at a time ---- */

struct raw {
	Perftools__Profiles__Profile pb;
	Perftools__Profiles__SlideopsHeader hdr;
	Perftools__Profiles__ValueType vt[2], *vtp[2];
	Perftools__Profiles__Mapping map, *mapp[1];
	Perftools__Profiles__Function fn, *fnp[1];
	Perftools__Profiles__Line line, *linep[1];
	Perftools__Profiles__Location loc[2], *locp[2];
	Perftools__Profiles__Label lab[2], *labp[2];
	Perftools__Profiles__Sample smp, *smpp[1];
	uint64_t loc_ids[2];
	int64_t values[2];
	char *strings[16];
};

enum {
	STR_EMPTY, STR_SAMPLES, STR_COUNT, STR_CPU, STR_NS, STR_APP, STR_MAIN, STR_PID,
	STR_COMM, STR_HOST, STR_QCPU, STR_EXE, STR_C, STR__N
};

static void raw__init(struct raw *r, bool ours)
{
	static char *strings[STR__N] = { "", "samples", "count", "cpu", "nanoseconds",
					 "/usr/bin/app", "main.work", "pid", "comm", "host-1",
					 "cpu", "exe", "C/C++" };

	memset(r, 0, sizeof(*r));
	perftools__profiles__profile__init(&r->pb);
	memcpy(r->strings, strings, sizeof(strings));
	r->pb.string_table = r->strings;
	r->pb.n_string_table = STR__N;

	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&r->vt[i]);
		r->vtp[i] = &r->vt[i];
	}
	r->vt[0].type = STR_SAMPLES;
	r->vt[0].unit = STR_COUNT;
	r->vt[1].type = STR_CPU;
	r->vt[1].unit = STR_NS;
	r->pb.sample_type = r->vtp;
	r->pb.n_sample_type = 2;

	perftools__profiles__mapping__init(&r->map);
	r->map.id = 1;
	r->map.filename = STR_APP;
	r->map.memory_start = ours ? 0 : 0x400000;
	r->map.memory_limit = ours ? 0 : 0x500000;
	if (ours) {
		r->map.slideops_kind = STR_EXE;
		r->map.slideops_language = STR_C;
		r->map.slideops_build_id_recorded = 1;
	}
	r->mapp[0] = &r->map;
	r->pb.mapping = r->mapp;
	r->pb.n_mapping = 1;

	perftools__profiles__function__init(&r->fn);
	r->fn.id = 7;
	r->fn.name = STR_MAIN;
	r->fnp[0] = &r->fn;
	r->pb.function = r->fnp;
	r->pb.n_function = 1;

	perftools__profiles__line__init(&r->line);
	r->line.function_id = 7;
	r->line.line = 12;
	r->linep[0] = &r->line;
	for (int i = 0; i < 2; i++) {
		perftools__profiles__location__init(&r->loc[i]);
		r->loc[i].id = 100 + (uint64_t)i; /* not 1..n: the sparse id path */
		r->loc[i].mapping_id = 1;
		r->loc[i].address = 0x401234 + (uint64_t)i * 0x10;
		r->locp[i] = &r->loc[i];
	}
	r->loc[0].line = r->linep;
	r->loc[0].n_line = 1;
	r->pb.location = r->locp;
	r->pb.n_location = 2;

	perftools__profiles__label__init(&r->lab[0]);
	r->lab[0].key = STR_PID;
	r->lab[0].num = 4242;
	perftools__profiles__label__init(&r->lab[1]);
	r->lab[1].key = STR_COMM;
	r->lab[1].str = STR_APP;
	r->labp[0] = &r->lab[0];
	r->labp[1] = &r->lab[1];
	perftools__profiles__sample__init(&r->smp);
	r->loc_ids[0] = 100;
	r->loc_ids[1] = 101;
	r->smp.location_id = r->loc_ids;
	r->smp.n_location_id = 2;
	r->values[0] = 3;
	r->values[1] = 30000000;
	r->smp.value = r->values;
	r->smp.n_value = 2;
	r->smp.label = r->labp;
	r->smp.n_label = 2;
	r->smpp[0] = &r->smp;
	r->pb.sample = r->smpp;
	r->pb.n_sample = 1;

	r->pb.period_type = &r->vt[1];
	r->pb.period = 10000000; /* 100 Hz */
	r->pb.time_nanos = 1700000000000000000LL;
	r->pb.duration_nanos = 5000000000LL;

	if (ours) {
		perftools__profiles__slideops_header__init(&r->hdr);
		r->hdr.format_version = PROFILE_FORMAT_VERSION;
		r->hdr.question = STR_QCPU;
		r->hdr.hostname = STR_HOST;
		r->hdr.ncpus = 4;
		r->pb.slideops = &r->hdr;
	}
}

static int raw__decode(struct raw *r, struct profile **out)
{
	size_t len = perftools__profiles__profile__get_packed_size(&r->pb);
	uint8_t *buf = malloc(len ? len : 1);
	int err;

	assert_non_null(buf);
	perftools__profiles__profile__pack(&r->pb, buf);
	*out = NULL;
	err = pprof__decode(buf, len, out);
	free(buf);
	return err;
}

/* Decodes r, which must be refused, and checks nothing came out. */
static void assert_refused(struct raw *r, const char *what)
{
	struct profile *p;
	int err = raw__decode(r, &p);

	if (err != -EBADMSG)
		fail_msg("%s: decode returned %d, not -EBADMSG", what, err);
	assert_null(p);
}

static void test_valid_raw_message_reads(void **state)
{
	struct raw r;
	struct profile *p;

	(void)state;
	raw__init(&r, true);
	assert_int_equal(raw__decode(&r, &p), 0); /* the base of the next test is sound */
	assert_int_equal(p->header.question, QUESTION_CPU);
	assert_string_equal(profile__str(p, p->header.hostname), "host-1");
	assert_int_equal(p->nsamples, 1);
	assert_int_equal(p->samples[0].labels.pid, 4242);
	assert_string_equal(profile__str(p, p->samples[0].labels.comm), "/usr/bin/app");
	assert_string_equal(profile__str(p, p->locations[0].function), "main.work");
	assert_int_equal(p->locations[0].line, 12);
	profile__free(p);
}

static void test_corrupt_indices_are_refused(void **state)
{
	struct raw r;

	(void)state;
#define BREAK(stmt)                       \
	do {                              \
		raw__init(&r, true);      \
		stmt;                     \
		assert_refused(&r, #stmt); \
	} while (0)
	BREAK(r.pb.n_string_table = 0);
	BREAK(r.strings[0] = "x");
	BREAK(r.vt[0].type = STR__N);
	BREAK(r.vt[1].unit = -1);
	BREAK(r.pb.n_sample_type = 0);
	BREAK(r.pb.n_sample_type = 1);          /* ours, cpu: two values */
	BREAK(r.pb.default_sample_type = 999);
	BREAK(r.hdr.question = STR_APP);        /* not a question */
	BREAK(r.hdr.hostname = 1000);
	BREAK(r.hdr.tool_version = -5);
	BREAK(r.hdr.kernel_build_id = STR__N);
	BREAK(r.map.filename = STR__N);
	BREAK(r.map.build_id = 12345);
	BREAK(r.map.slideops_kind = -1);
	BREAK(r.map.slideops_language = 99);
	BREAK(r.map.id = 0);
	BREAK(r.fn.name = STR__N);
	BREAK(r.fn.filename = -2);
	BREAK(r.fn.system_name = 77);
	BREAK(r.fn.id = 0);
	BREAK(r.line.function_id = 8);          /* no such function */
	BREAK(r.loc[1].mapping_id = 2);         /* no such mapping */
	BREAK(r.loc[1].id = 100);               /* two locations with one id */
	BREAK(r.loc[0].id = 0);
	BREAK(r.loc_ids[1] = 102);              /* sample names a location that is not there */
	BREAK(r.loc_ids[0] = 0);
	BREAK(r.smp.n_value = 1);               /* values do not match the sample types */
	BREAK(r.lab[0].key = STR__N);
	BREAK(r.lab[1].str = -1);
	BREAK(r.lab[1].num_unit = 4000);
	BREAK(r.lab[0].num = (int64_t)1 << 40); /* no such pid */
#undef BREAK
}

/* Another tool's pprof (no SlideOps header) reads with defaults: Go's cpu profile
 * records run-time addresses and only names its own labels. */
static void test_foreign_pprof_reads_with_defaults(void **state)
{
	struct raw r;
	struct profile *p;
	static char *extra[] = { "", "samples", "count", "cpu", "nanoseconds", "/usr/bin/app",
				 "main.work", "pid", "comm", "host-1", "cpu", "exe", "C/C++",
				 "endpoint", "/api" };

	(void)state;
	raw__init(&r, false);
	r.pb.string_table = extra;
	r.pb.n_string_table = 15;
	r.lab[1].key = 13; /* a label we do not know: skipped */
	r.lab[1].str = 14;
	assert_int_equal(raw__decode(&r, &p), 0);
	assert_int_equal(p->header.question, QUESTION_CPU);
	assert_int_equal(p->header.sample_hz, 100);
	assert_int_equal(p->header.started_at_ns, 1700000000000000000LL);
	assert_int_equal(p->header.duration_ns, 5000000000ULL);
	assert_int_equal(p->nmappings, 1);
	assert_int_equal(p->mappings[0].kind, MAPPING_EXE);
	assert_true(p->mappings[0].build_id_recorded);
	assert_int_equal(p->locations[0].address, 0x1234); /* file-relative */
	assert_string_equal(profile__str(p, p->locations[0].function), "main.work");
	assert_int_equal(p->samples[0].labels.pid, 4242);
	assert_int_equal(p->samples[0].labels.comm, 0);
	assert_int_equal(p->samples[0].labels.group_kind, GROUP_OTHER);
	assert_int_equal(profile__total(p, 1), 30000000);
	profile__free(p);

	/* One bytes-valued type among several: a memory profile (Go's heap). */
	raw__init(&r, false);
	r.strings[STR_COUNT] = "bytes";
	assert_int_equal(raw__decode(&r, &p), 0);
	assert_int_equal(p->header.question, QUESTION_MEMORY);
	assert_int_equal(p->nvalues, 3); /* grown, file, freed: only grown is Go's */
	assert_int_equal(profile__total(p, 0), 3);
	assert_int_equal(profile__total(p, 1), 0);
	assert_int_equal(profile__total(p, 2), 0);
	profile__free(p);

	/* Indices are checked in another tool's pprof as much as in ours. */
	raw__init(&r, false);
	r.loc[0].mapping_id = 9;
	assert_refused(&r, "foreign: no such mapping");
}

/* ---- exports read by go tool pprof ---- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_raw_message_reads),
		cmocka_unit_test(test_corrupt_indices_are_refused),
		cmocka_unit_test(test_foreign_pprof_reads_with_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

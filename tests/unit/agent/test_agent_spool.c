// SPDX-License-Identifier: MIT
/*
 * The agent's spool (src/agent/spool.c): batches kept whole, oldest delivered first,
 * the caps in bytes and age dropping the oldest and counting it, a leftover temporary
 * of a crash mid-write never delivered, sequence numbers never reused across restarts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers/fixture.h"
#include "agent.pb-c.h"
#include "agent/batch.h"
#include "agent/spool.h"

#define BOOT "0b5e7a3c-1111-4222-8333-944455556666"
#define OTHER_BOOT "aaaaaaaa-1111-4222-8333-944455556666"

struct drops {
	int bytes, age, refused;
};

static void count_drop(void *ctx, const char *name, const char *why)
{
	struct drops *d = ctx;

	(void)name;
	if (strcmp(why, "bytes") == 0)
		d->bytes++;
	else if (strcmp(why, "age") == 0)
		d->age++;
	else
		d->refused++;
}

/* Puts a batch of len bytes filled with fill, as the runner does; returns its sequence. */
static uint64_t put(struct spool *sp, size_t len, char fill)
{
	uint64_t seq, dropped;
	char *data = malloc(len);

	assert_non_null(data);
	memset(data, fill, len);
	assert_int_equal(spool__reserve(sp, &seq, &dropped), 0);
	assert_int_equal(spool__put(sp, seq, data, len, dropped), 0);
	free(data);
	return seq;
}

/* Sets the modification time of every batch of sequence seq to `ago` seconds ago. */
static void age_batch(const char *dir, uint64_t seq, time_t ago)
{
	char path[512];
	struct timespec times[2];

	snprintf(path, sizeof(path), "%s/batch-%s-%020llu.pb", dir, BOOT,
		 (unsigned long long)seq);
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec -= ago;
	times[1] = times[0];
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* The oldest batch's first byte, or 0 when none waits. */
static char oldest_fill(struct spool *sp, char name[SPOOL_NAME_MAX])
{
	size_t len;
	void *data;
	char c;
	int err = spool__oldest(sp, name, &data, &len);

	if (err == -ENOENT)
		return 0;
	assert_int_equal(err, 0);
	assert_true(len > 0);
	c = *(char *)data;
	free(data);
	return c;
}

static void test_oldest_first_and_delivered_once(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char spool_dir[512], name[SPOOL_NAME_MAX];
	struct spool *sp;

	(void)state;
	snprintf(spool_dir, sizeof(spool_dir), "%s/spool", dir);
	sp = spool__open(spool_dir, NULL, BOOT);
	assert_non_null(sp);
	assert_int_equal(put(sp, 10, 'a'), 1);
	assert_int_equal(put(sp, 10, 'b'), 2);
	age_batch(spool_dir, 1, 20);
	age_batch(spool_dir, 2, 10);
	assert_int_equal(oldest_fill(sp, name), 'a');
	/* Not replied to: still the one to send. */
	assert_int_equal(oldest_fill(sp, name), 'a');
	assert_int_equal(spool__remove(sp, name), 0);
	assert_int_equal(oldest_fill(sp, name), 'b');
	assert_int_equal(spool__remove(sp, name), 0);
	assert_int_equal(oldest_fill(sp, name), 0);
	spool__close(sp);
	fixture__free(fx);
}

static void test_byte_cap_drops_oldest_and_counts(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char name[SPOOL_NAME_MAX];
	struct drops drops = { 0 };
	struct spool_limits lim = { .max_bytes = 1000, .dropped = count_drop, .ctx = &drops };
	uint64_t seq, dropped, bytes;
	struct spool *sp;
	size_t n;

	(void)state;
	sp = spool__open(dir, &lim, BOOT);
	assert_non_null(sp);
	put(sp, 400, 'a');
	age_batch(dir, 1, 30);
	put(sp, 400, 'b');
	age_batch(dir, 2, 20);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 2);
	assert_int_equal(dropped, 0);
	/* The third is over the cap: the oldest goes, counted. */
	put(sp, 400, 'c');
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 2);
	assert_int_equal(bytes, 800);
	assert_int_equal(dropped, 1);
	assert_int_equal(drops.bytes, 1);
	assert_int_equal(oldest_fill(sp, name), 'b');

	/* The next batch reports the drop; once it is kept the count starts again. */
	assert_int_equal(spool__reserve(sp, &seq, &dropped), 0);
	assert_int_equal(dropped, 1);
	assert_int_equal(spool__put(sp, seq, "d", 1, dropped), 0);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(dropped, 0);

	/* A batch alone over the cap is the newest: kept, the others dropped. */
	put(sp, 2000, 'e');
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 1);
	assert_int_equal(dropped, 3);
	assert_int_equal(oldest_fill(sp, name), 'e');
	spool__close(sp);
	fixture__free(fx);
}

static void test_age_cap_drops_and_counts(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char name[SPOOL_NAME_MAX];
	struct drops drops = { 0 };
	struct spool_limits lim = { .max_age_s = 3600, .dropped = count_drop, .ctx = &drops };
	uint64_t dropped, bytes;
	struct spool *sp;
	size_t n;

	(void)state;
	sp = spool__open(dir, &lim, BOOT);
	assert_non_null(sp);
	put(sp, 10, 'a');
	put(sp, 10, 'b');
	age_batch(dir, 1, 7200);
	age_batch(dir, 2, 60);
	assert_int_equal(oldest_fill(sp, name), 'b');
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 1);
	assert_int_equal(dropped, 1);
	assert_int_equal(drops.age, 1);
	spool__close(sp);
	fixture__free(fx);
}

/* What a crash mid-write leaves (the temporary, cut short) is never a batch, and the
 * next open removes it; the batches written whole before it are all there. */
static void test_leftover_temporary_is_ignored(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char path[512], name[SPOOL_NAME_MAX];
	uint64_t dropped, bytes;
	struct spool *sp;
	size_t n;
	int fd;

	(void)state;
	sp = spool__open(dir, NULL, BOOT);
	assert_non_null(sp);
	put(sp, 10, 'a');
	snprintf(path, sizeof(path), "%s/batch-%s-%020llu.pb.tmp", dir, BOOT, 2ULL);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half", 4), 4);
	close(fd);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 1);
	assert_int_equal(oldest_fill(sp, name), 'a');
	assert_int_equal(spool__remove(sp, name), 0);
	assert_int_equal(oldest_fill(sp, name), 0);
	spool__close(sp);

	sp = spool__open(dir, NULL, BOOT);
	assert_non_null(sp);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	spool__close(sp);
	fixture__free(fx);
}

static void test_sequence_persists_across_restarts(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	uint64_t seq, dropped;
	struct spool *sp;

	(void)state;
	sp = spool__open(dir, NULL, BOOT);
	assert_non_null(sp);
	assert_int_equal(put(sp, 5, 'a'), 1);
	/* Reserved and never kept (a capture that failed): its number is still used. */
	assert_int_equal(spool__reserve(sp, &seq, &dropped), 0);
	assert_int_equal(seq, 2);
	spool__close(sp);

	sp = spool__open(dir, NULL, BOOT);
	assert_non_null(sp);
	assert_int_equal(put(sp, 5, 'b'), 3);
	spool__close(sp);

	/* Another boot numbers its own from 1; the names never meet. */
	sp = spool__open(dir, NULL, OTHER_BOOT);
	assert_non_null(sp);
	assert_int_equal(spool__reserve(sp, &seq, &dropped), 0);
	assert_int_equal(seq, 1);
	spool__close(sp);
	fixture__free(fx);
}

static void test_refused_batch_is_dropped_and_counted(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char name[SPOOL_NAME_MAX];
	struct drops drops = { 0 };
	struct spool_limits lim = { .dropped = count_drop, .ctx = &drops };
	uint64_t dropped, bytes;
	struct spool *sp;
	size_t n;

	(void)state;
	sp = spool__open(dir, &lim, BOOT);
	assert_non_null(sp);
	put(sp, 5, 'a');
	assert_int_equal(oldest_fill(sp, name), 'a');
	assert_int_equal(spool__drop(sp, name), 0);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 0);
	assert_int_equal(dropped, 1);
	assert_int_equal(drops.refused, 1);
	/* Names from elsewhere are not the spool's to delete. */
	assert_int_equal(spool__remove(sp, "../credential"), -EINVAL);
	assert_int_equal(spool__drop(sp, "state"), -EINVAL);
	spool__close(sp);
	fixture__free(fx);
}

/* Puts a real encoded Batch, reporting the drops the spool hands out with its sequence. */
static uint64_t put_batch(struct spool *sp)
{
	Slideops__Agent__Batch b = SLIDEOPS__AGENT__BATCH__INIT;
	uint64_t seq, dropped;
	uint8_t *data;
	size_t len;

	assert_int_equal(spool__reserve(sp, &seq, &dropped), 0);
	b.boot_id = BOOT;
	b.sequence = seq;
	b.spool_dropped = dropped;
	len = slideops__agent__batch__get_packed_size(&b);
	data = malloc(len ? len : 1);
	assert_non_null(data);
	slideops__agent__batch__pack(&b, data);
	assert_int_equal(spool__put(sp, seq, data, len, dropped), 0);
	free(data);
	return dropped;
}

/* A batch that reported drops and is dropped in its turn gives them back to the count:
 * the next batch reports them with its own. */
static void test_dropped_batch_keeps_the_drops_it_reported(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);
	char name[SPOOL_NAME_MAX];
	struct drops drops = { 0 };
	struct spool_limits lim = { .dropped = count_drop, .carried = batch__spool_dropped,
				    .ctx = &drops };
	uint64_t dropped, bytes;
	struct spool *sp;
	size_t n;

	(void)state;
	sp = spool__open(dir, &lim, BOOT);
	assert_non_null(sp);
	assert_int_equal(put_batch(sp), 0);
	oldest_fill(sp, name);
	assert_int_equal(spool__drop(sp, name), 0);
	/* The next batch carries that one drop; refused too, it is two now. */
	assert_int_equal(put_batch(sp), 1);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(dropped, 0);
	oldest_fill(sp, name);
	assert_int_equal(spool__drop(sp, name), 0);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(n, 0);
	assert_int_equal(dropped, 2);
	assert_int_equal(put_batch(sp), 2);
	/* What is no Batch carries nothing: only itself is counted. */
	put(sp, 5, 'a');
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(dropped, 0);
	while (oldest_fill(sp, name))
		assert_int_equal(spool__drop(sp, name), 0);
	spool__stats(sp, &n, &bytes, &dropped);
	assert_int_equal(dropped, 2 + 1 + 1);
	assert_int_equal(drops.refused, 4);
	spool__close(sp);
	fixture__free(fx);
}

static void test_bad_boot_id_refused(void **state)
{
	struct fixture *fx = fixture__new();
	const char *dir = fixture__dir(fx);

	(void)state;
	assert_null(spool__open(dir, NULL, "../../etc"));
	assert_int_equal(errno, EINVAL);
	assert_null(spool__open(dir, NULL, ""));
	fixture__free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oldest_first_and_delivered_once),
		cmocka_unit_test(test_byte_cap_drops_oldest_and_counts),
		cmocka_unit_test(test_age_cap_drops_and_counts),
		cmocka_unit_test(test_leftover_temporary_is_ignored),
		cmocka_unit_test(test_sequence_persists_across_restarts),
		cmocka_unit_test(test_refused_batch_is_dropped_and_counted),
		cmocka_unit_test(test_dropped_batch_keeps_the_drops_it_reported),
		cmocka_unit_test(test_bad_boot_id_refused),
	};

	return cmocka_run_group_tests_name("agent spool", tests, NULL, NULL);
}

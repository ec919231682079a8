// SPDX-License-Identifier: MIT
/*
 * The bounded byte cursor over hostile bytes: integers in both byte orders, LEB128 at
 * the 64-bit limits, and every way a record can end too soon or run too long.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/byte_cursor.h"

#define CURSOR(...) byte_cursor__new((const uint8_t[]){ __VA_ARGS__ }, \
				     sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void test_integers_in_both_byte_orders(void **state)
{
	struct byte_cursor c = CURSOR(0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08);
	struct byte_cursor b = c;

	(void)state;
	assert_int_equal(byte_cursor__uint(&c, 2), 0x0201);
	assert_int_equal(byte_cursor__uint(&c, 4), 0x06050403);
	assert_int_equal(byte_cursor__left(&c), 2);
	b.big_endian = true;
	assert_true(byte_cursor__uint(&b, 8) == 0x0102030405060708ULL);
	assert_false(b.bad);
	assert_int_equal(byte_cursor__left(&b), 0);
}

static void test_truncated_integer_marks_bad_and_stays_bad(void **state)
{
	struct byte_cursor c = CURSOR(0xaa, 0xbb, 0xcc);

	(void)state;
	assert_int_equal(byte_cursor__uint(&c, 4), 0);
	assert_true(c.bad);
	/* Nothing is read after a failure, even what would fit. */
	assert_int_equal(byte_cursor__uint(&c, 1), 0);
	assert_int_equal(byte_cursor__left(&c), 0);
}

static void test_uleb128(void **state)
{
	struct byte_cursor c = CURSOR(0x00, 0x7f, 0x80, 0x01, 0xe5, 0x8e, 0x26);

	(void)state;
	assert_int_equal(byte_cursor__uleb128(&c), 0);
	assert_int_equal(byte_cursor__uleb128(&c), 127);
	assert_int_equal(byte_cursor__uleb128(&c), 128);
	assert_int_equal(byte_cursor__uleb128(&c), 624485);
	assert_false(c.bad);
	assert_int_equal(byte_cursor__left(&c), 0);
}

static void test_sleb128(void **state)
{
	struct byte_cursor c = CURSOR(0x02, 0x7e, 0xff, 0x00, 0x81, 0x7f, 0xc0, 0xbb, 0x78);

	(void)state;
	assert_int_equal(byte_cursor__sleb128(&c), 2);
	assert_int_equal(byte_cursor__sleb128(&c), -2);
	assert_int_equal(byte_cursor__sleb128(&c), 127);
	assert_int_equal(byte_cursor__sleb128(&c), -127);
	assert_int_equal(byte_cursor__sleb128(&c), -123456);
	assert_false(c.bad);
}

static void test_leb128_at_the_64_bit_limits(void **state)
{
	struct byte_cursor u = CURSOR(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	struct byte_cursor smax = CURSOR(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0x00);
	struct byte_cursor smin = CURSOR(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x7f);
	struct byte_cursor minus1 = CURSOR(0x7f);

	(void)state;
	assert_true(byte_cursor__uleb128(&u) == UINT64_MAX);
	assert_false(u.bad);
	assert_true(byte_cursor__sleb128(&smax) == INT64_MAX);
	assert_false(smax.bad);
	assert_true(byte_cursor__sleb128(&smin) == INT64_MIN);
	assert_false(smin.bad);
	assert_true(byte_cursor__sleb128(&minus1) == -1);
}

static void test_leb128_past_64_bits_is_refused(void **state)
{
	/* A tenth byte with bits beyond bit 63. */
	struct byte_cursor u = CURSOR(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
	struct byte_cursor s = CURSOR(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x3f);
	/* Eleven bytes, even though the value (zero, padded) would fit. */
	struct byte_cursor pad = CURSOR(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					0x80, 0x00);

	(void)state;
	assert_int_equal(byte_cursor__uleb128(&u), 0);
	assert_true(u.bad);
	assert_int_equal(byte_cursor__sleb128(&s), 0);
	assert_true(s.bad);
	assert_int_equal(byte_cursor__uleb128(&pad), 0);
	assert_true(pad.bad);
}

static void test_truncated_leb128_is_refused(void **state)
{
	struct byte_cursor u = CURSOR(0x80, 0x80);
	struct byte_cursor s = CURSOR(0xff);
	struct byte_cursor empty = byte_cursor__new("", 0);

	(void)state;
	assert_int_equal(byte_cursor__uleb128(&u), 0);
	assert_true(u.bad);
	assert_int_equal(byte_cursor__sleb128(&s), 0);
	assert_true(s.bad);
	assert_int_equal(byte_cursor__uleb128(&empty), 0);
	assert_true(empty.bad);
}

static void test_skip_and_strings(void **state)
{
	struct byte_cursor c = CURSOR('z', 'R', 0, 1, 2, 'a', 'b');
	struct byte_cursor far = c;

	(void)state;
	assert_string_equal(byte_cursor__cstr(&c), "zR");
	byte_cursor__skip(&c, 2);
	assert_false(c.bad);
	/* No NUL before the end. */
	assert_null(byte_cursor__cstr(&c));
	assert_true(c.bad);
	byte_cursor__skip(&far, UINT64_MAX);
	assert_true(far.bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_in_both_byte_orders),
		cmocka_unit_test(test_truncated_integer_marks_bad_and_stays_bad),
		cmocka_unit_test(test_uleb128),
		cmocka_unit_test(test_sleb128),
		cmocka_unit_test(test_leb128_at_the_64_bit_limits),
		cmocka_unit_test(test_leb128_past_64_bits_is_refused),
		cmocka_unit_test(test_truncated_leb128_is_refused),
		cmocka_unit_test(test_skip_and_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

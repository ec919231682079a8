// SPDX-License-Identifier: MIT
/*
 * Protocol buffers from strangers (src/util/pb_limits.c): the budget allocator refuses a
 * body of empty repeated elements (the 2-byte "0x32 0x00" of issue 28, each an empty
 * SymbolTable to protobuf-c) whole, holding nothing after, while an honest batch unpacks
 * within it and gives every byte back; one field is read where it lies, and bytes that
 * are not fields are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.pb-c.h"
#include "util/pb_limits.h"

static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
	uint8_t *buf;

	*len = protobuf_c_message_get_packed_size(m);
	buf = malloc(*len + 1);
	assert_non_null(buf);
	protobuf_c_message_pack(m, buf);
	return buf;
}

static void amplification_refused(void **state)
{
	enum { MB = 1 << 20 };
	uint8_t *body = malloc(4 * MB);
	struct pb_budget b;
	ProtobufCMessage *m;

	(void)state;
	assert_non_null(body);
	/* Field 6 (symbols), length-delimited, empty: 2M empty tables in 4 MB. */
	for (size_t i = 0; i < 4 * MB; i += 2) {
		body[i] = 0x32;
		body[i + 1] = 0x00;
	}
	pb_budget__init(&b, 16 * MB, NULL);
	m = protobuf_c_message_unpack(&slideops__agent__batch__descriptor, &b.allocator, 4 * MB,
				      body);
	assert_null(m);
	assert_true(b.refused);
	assert_true(b.peak <= 16 * MB);
	assert_int_equal(b.used, 0);
	/* Unbounded, the same 4 MB takes over 100 MB: what the cap stands between. */
	pb_budget__init(&b, (size_t)1 << 40, NULL);
	m = protobuf_c_message_unpack(&slideops__agent__batch__descriptor, &b.allocator, 4 * MB,
				      body);
	assert_non_null(m);
	assert_true(b.peak > 100 * MB);
	protobuf_c_message_free_unpacked(m, &b.allocator);
	assert_int_equal(b.used, 0);
	free(body);
}

static void honest_batch_fits(void **state)
{
	enum { MB = 1 << 20 };
	Slideops__Agent__Batch batch = SLIDEOPS__AGENT__BATCH__INIT, *got;
	Slideops__Agent__SymbolTable t = SLIDEOPS__AGENT__SYMBOL_TABLE__INIT, *tp = &t;
	Slideops__Agent__Symbol syms[1000], *sp[1000];
	char names[1000][32];
	struct pb_budget b;
	uint8_t *wire;
	size_t len;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		syms[i] = (Slideops__Agent__Symbol)SLIDEOPS__AGENT__SYMBOL__INIT;
		snprintf(names[i], sizeof(names[i]), "function_number_%d", i);
		syms[i].name = names[i];
		syms[i].address = 0x1000 + 16 * (uint64_t)i;
		syms[i].size = 16;
		sp[i] = &syms[i];
	}
	t.build_id = "b00c";
	t.n_symbols = 1000;
	t.symbols = sp;
	batch.protocol_version = 2;
	batch.boot_id = "boot";
	batch.n_symbols = 1;
	batch.symbols = &tp;
	wire = pack(&batch.base, &len);
	/* Within eight times its size and 1 MB: what serve gives a batch. */
	pb_budget__init(&b, 8 * len + MB, NULL);
	got = (void *)protobuf_c_message_unpack(&slideops__agent__batch__descriptor, &b.allocator,
						len, wire);
	assert_non_null(got);
	assert_false(b.refused);
	assert_int_equal(got->symbols[0]->n_symbols, 1000);
	assert_string_equal(got->symbols[0]->symbols[999]->name, "function_number_999");
	protobuf_c_message_free_unpacked(&got->base, &b.allocator);
	assert_int_equal(b.used, 0);
	free(wire);
}

/* Two budgets of one pool: the second is refused when the first holds the pool, and
 * says it was the pool; once the first gives its bytes back, it fits. */
static void pool_shared(void **state)
{
	struct pb_pool pool = { .cap = 1 << 20 };
	struct pb_budget a, b;
	void *big, *small;

	(void)state;
	pb_budget__init(&a, 1 << 30, &pool);
	pb_budget__init(&b, 1 << 30, &pool);
	big = a.allocator.alloc(a.allocator.allocator_data, 900 << 10);
	assert_non_null(big);
	assert_null(b.allocator.alloc(b.allocator.allocator_data, 200 << 10));
	assert_true(b.refused && b.pool_refused);
	a.allocator.free(a.allocator.allocator_data, big);
	assert_int_equal(pool.used, 0);
	small = b.allocator.alloc(b.allocator.allocator_data, 200 << 10);
	assert_non_null(small);
	b.allocator.free(b.allocator.allocator_data, small);
	assert_int_equal(pool.used, 0);
}

static void peek(void **state)
{
	Slideops__Agent__EnrolRequest e = SLIDEOPS__AGENT__ENROL_REQUEST__INIT;
	const uint8_t *p;
	uint8_t *wire;
	uint64_t v;
	size_t len, n;

	(void)state;
	e.protocol_version = 2;
	e.enrolment_token = "0123abcd";
	e.name = "db";
	wire = pack(&e.base, &len);
	assert_int_equal(pb_peek_varint(wire, len, 1, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(pb_peek_bytes(wire, len, 2, &p, &n), 0);
	assert_int_equal(n, 8);
	assert_memory_equal(p, "0123abcd", 8);
	assert_int_equal(pb_peek_bytes(wire, len, 3, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pb_peek_varint(wire, len, 7, &v), -ENOENT);
	assert_int_equal(pb_peek_bytes(wire, len, 9, &p, &n), -ENOENT);
	/* Cut inside a field: not a message. */
	assert_int_equal(pb_peek_bytes(wire, len - 1, 3, &p, &n), -EBADMSG);
	/* A length past the end, a group, a field number 0. */
	assert_int_equal(pb_peek_bytes((const uint8_t[]){ 0x12, 0x7f, 'a' }, 3, 2, &p, &n),
			 -EBADMSG);
	assert_int_equal(pb_peek_varint((const uint8_t[]){ 0x0b, 0x08, 0x01 }, 3, 1, &v),
			 -EBADMSG);
	assert_int_equal(pb_peek_varint((const uint8_t[]){ 0x00, 0x01 }, 2, 1, &v), -EBADMSG);
	/* A varint of 11 bytes. */
	assert_int_equal(pb_peek_varint((const uint8_t[]){ 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
							  0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
					12, 1, &v),
			 -EBADMSG);
	assert_int_equal(pb_peek_varint(NULL, 0, 1, &v), -ENOENT);
	free(wire);
}

/* What a repeated field holds, counted on the wire: nothing unpacked. */
static void count_fields(void **state)
{
	uint8_t body[4 + 2 * 1000];
	uint64_t n[6];

	(void)state;
	body[0] = 0x08; /* field 1, varint 2 */
	body[1] = 0x02;
	body[2] = 0x12; /* field 2, "" */
	body[3] = 0x00;
	for (int i = 0; i < 1000; i++) {
		body[4 + 2 * i] = 0x32; /* field 6, "" */
		body[5 + 2 * i] = 0x00;
	}
	assert_int_equal(pb_count_fields(body, sizeof(body), n, 6), 0);
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 1);
	assert_int_equal(n[5], 1000);
	assert_int_equal(n[3], 0);
	/* Fields past n are stepped over; bytes that are not fields are refused. */
	assert_int_equal(pb_count_fields(body, sizeof(body), n, 2), 0);
	assert_int_equal(pb_count_fields(body, sizeof(body) - 1, n, 6), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amplification_refused),
		cmocka_unit_test(honest_batch_fits),
		cmocka_unit_test(pool_shared),
		cmocka_unit_test(peek),
		cmocka_unit_test(count_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

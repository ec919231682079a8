// SPDX-License-Identifier: MIT
/*
 * The symbol table: lookups against a naive model over random tables (as SQLite tests
 * its B-trees), the choice among aliases, sizes of symbols that have none, and the
 * stored form: it round-trips, and anything that is not a whole table is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symbols/symtab.h"

static void add(struct symtab *tab, uint64_t addr, uint64_t size, const char *name)
{
	assert_int_equal(symtab__add(tab, addr, size, name, strlen(name)), 0);
}

static void assert_lookup(const struct symtab *tab, uint64_t addr, const char *want,
			  uint64_t want_off)
{
	uint64_t off = ~0ull;
	const char *got = symtab__lookup(tab, addr, &off);

	if (!want) {
		if (got)
			fail_msg("0x%llx: want nothing, got %s", (unsigned long long)addr, got);
		return;
	}
	if (!got || strcmp(got, want) != 0 || off != want_off)
		fail_msg("0x%llx: want %s+%llu, got %s+%llu", (unsigned long long)addr, want,
			 (unsigned long long)want_off, got ? got : "(nothing)",
			 (unsigned long long)off);
}

static void test_lookup_basics(void **state)
{
	struct symtab *tab = symtab__new();

	(void)state;
	assert_non_null(tab);
	assert_null(symtab__lookup(tab, 0x1000, NULL)); /* empty */
	add(tab, 0x2000, 0x100, "second");
	add(tab, 0x1000, 0x80, "first");
	add(tab, 0x3000, 0, "no_size");    /* runs to the next symbol */
	add(tab, 0x3800, 0x10, "after");
	add(tab, 0x5000, 0, "last_no_size"); /* the last: a bounded run */
	assert_int_equal(symtab__finish(tab), 0);
	assert_int_equal(tab->nsyms, 5);

	assert_lookup(tab, 0xfff, NULL, 0);
	assert_lookup(tab, 0x1000, "first", 0);
	assert_lookup(tab, 0x107f, "first", 0x7f);
	assert_lookup(tab, 0x1080, NULL, 0); /* the gap between functions */
	assert_lookup(tab, 0x20ff, "second", 0xff);
	assert_lookup(tab, 0x2100, NULL, 0);
	assert_lookup(tab, 0x3000, "no_size", 0);
	assert_lookup(tab, 0x37ff, "no_size", 0x7ff);
	assert_lookup(tab, 0x3800, "after", 0);
	assert_lookup(tab, 0x5fff, "last_no_size", 0xfff);
	assert_lookup(tab, 0x6000, NULL, 0);
	assert_lookup(tab, ~0ull, NULL, 0);
	assert_null(symtab__lookup(NULL, 0x1000, NULL));
	symtab__free(tab);
	symtab__free(NULL);
}

/* Aliases at one address become one symbol; the name kept does not depend on order. */
static void test_aliases(void **state)
{
	static const char *const names[] = { "__memcpy_avx_unaligned", "memcpy", "__memcpy",
					     "memcpy_alias_longer" };
	(void)state;
	for (int order = 0; order < 4; order++) {
		struct symtab *tab = symtab__new();

		assert_non_null(tab);
		for (int i = 0; i < 4; i++)
			add(tab, 0x1000, 0x40, names[(i + order) % 4]);
		add(tab, 0x1000, 0, "zero_sized_alias");
		add(tab, 0x1000, 0x20, "smaller");
		assert_int_equal(symtab__finish(tab), 0);
		assert_int_equal(tab->nsyms, 1);
		/* Known size, the larger, fewest underscores, then the shorter name. */
		assert_lookup(tab, 0x1010, "memcpy", 0x10);
		assert_int_equal(tab->syms[0].size, 0x40);
		symtab__free(tab);
	}
}

/* A symbol nested in a larger function (an assembler label marked as a function)
 * does not hide the function after its own end. */
static void test_nested_symbols(void **state)
{
	struct symtab *tab = symtab__new();

	(void)state;
	add(tab, 0x1000, 0x200, "outer");
	add(tab, 0x1040, 0x10, "inner");
	add(tab, 0x1100, 0x8, "inner2");
	add(tab, 0x2000, 0x10, "next");
	assert_int_equal(symtab__finish(tab), 0);
	assert_lookup(tab, 0x1020, "outer", 0x20);
	assert_lookup(tab, 0x1048, "inner", 0x8);
	assert_lookup(tab, 0x1060, "outer", 0x60);
	assert_lookup(tab, 0x1104, "inner2", 0x4);
	assert_lookup(tab, 0x11ff, "outer", 0x1ff);
	assert_lookup(tab, 0x1200, NULL, 0);
	symtab__free(tab);
}

/* ---- reference model ---- */

struct model_sym {
	uint64_t addr, size;
	char name[32];
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: fixed seed, so a failure repeats */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

/*
 * Random functions laid out as a linker does: increasing addresses, gaps between some,
 * a few without a size, aliases with a worse name at the same address. The model knows
 * the answer for every address by a linear scan.
 */
static void test_reference_model(void **state)
{
	(void)state;
	for (int round = 0; round < 40; round++) {
		size_t n = 1 + rnd() % (round < 20 ? 50 : 3000);
		struct model_sym *m = calloc(n, sizeof(*m));
		struct symtab *tab = symtab__new();
		size_t *order = calloc(n, sizeof(*order));
		uint64_t addr = rnd() % 0x100000, span;

		assert_non_null(m);
		assert_non_null(tab);
		assert_non_null(order);
		for (size_t i = 0; i < n; i++) {
			uint64_t size = 1 + rnd() % 512, gap = rnd() % 4 ? 0 : rnd() % 256;

			m[i].addr = addr;
			m[i].size = size;
			snprintf(m[i].name, sizeof(m[i].name), "fn_%zu", i);
			addr += size + gap;
			order[i] = i;
		}
		/* Shuffle the insertion order. */
		for (size_t i = n; i > 1; i--) {
			size_t j = rnd() % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t k = 0; k < n; k++) {
			struct model_sym *s = &m[order[k]];
			bool no_size = rnd() % 10 == 0 && order[k] + 1 < n;
			char alias[48];

			/* Without a size, a symbol runs to the next one: so does the model. */
			if (no_size)
				s->size = m[order[k] + 1].addr - s->addr;
			add(tab, s->addr, no_size ? 0 : s->size, s->name);
			if (rnd() % 8 == 0) {
				snprintf(alias, sizeof(alias), "__%s_alias", s->name);
				add(tab, s->addr, no_size ? 0 : s->size, alias);
			}
		}
		assert_int_equal(symtab__finish(tab), 0);
		assert_int_equal(tab->nsyms, n);

		span = addr - m[0].addr + 1024;
		for (int q = 0; q < 5000; q++) {
			uint64_t a = m[0].addr - 512 + rnd() % span, off = 0;
			const struct model_sym *want = NULL;

			for (size_t i = 0; i < n; i++) {
				if (a >= m[i].addr && a - m[i].addr < m[i].size)
					want = &m[i];
			}
			if (want)
				off = a - want->addr;
			assert_lookup(tab, a, want ? want->name : NULL, off);
		}
		/* Every start names its own function. */
		for (size_t i = 0; i < n; i++)
			assert_lookup(tab, m[i].addr, m[i].name, 0);
		symtab__free(tab);
		free(order);
		free(m);
	}
}

/* ---- stored form ---- */

static void assert_same(const struct symtab *a, const struct symtab *b)
{
	assert_int_equal(a->nsyms, b->nsyms);
	for (size_t i = 0; i < a->nsyms; i++) {
		assert_int_equal(a->syms[i].addr, b->syms[i].addr);
		assert_int_equal(a->syms[i].size, b->syms[i].size);
		assert_string_equal(a->names + a->syms[i].name, b->names + b->syms[i].name);
	}
}

static struct symtab *random_table(size_t n)
{
	struct symtab *tab = symtab__new();
	uint64_t addr = 0x400000 + rnd() % 0x1000;
	char name[64];

	assert_non_null(tab);
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(name, sizeof(name), "_ZN6module%zu8function%lluEv", i,
				   (unsigned long long)(rnd() % 1000));

		assert_int_equal(symtab__add(tab, addr, 1 + rnd() % 4096, name, (size_t)len), 0);
		addr += 4096 + rnd() % 100;
	}
	assert_int_equal(symtab__finish(tab), 0);
	return tab;
}

static void test_round_trip(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 100, 5000, 200000 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct symtab *tab = random_table(sizes[k]), *back;
		void *blob;
		size_t len;

		assert_int_equal(symtab__serialize(tab, &blob, &len), 0);
		back = symtab__deserialize(blob, len);
		assert_non_null(back);
		assert_same(tab, back);
		/* The loaded table works as the original does. */
		for (size_t i = 0; i < tab->nsyms; i += 1 + tab->nsyms / 100)
			assert_lookup(back, tab->syms[i].addr + 1,
				      tab->names + tab->syms[i].name, 1);
		/* Compact: a few bytes a symbol besides the names it compresses. */
		if (sizes[k] >= 5000)
			assert_true(len < sizes[k] * 16);
		symtab__free(back);
		symtab__free(tab);
		free(blob);
	}
	/* Extreme addresses and sizes survive too. */
	{
		struct symtab *tab = symtab__new(), *back;
		void *blob;
		size_t len;

		add(tab, 0, 1, "at_zero");
		add(tab, 0xffffffff00000000ull, 0xfffffffe, "high");
		add(tab, ~0ull - 1, 1, "top");
		assert_int_equal(symtab__finish(tab), 0);
		assert_int_equal(symtab__serialize(tab, &blob, &len), 0);
		back = symtab__deserialize(blob, len);
		assert_non_null(back);
		assert_same(tab, back);
		symtab__free(back);
		symtab__free(tab);
		free(blob);
	}
}

static void assert_refused(const void *blob, size_t len, const char *what)
{
	struct symtab *tab;

	errno = 0;
	tab = symtab__deserialize(blob, len);
	if (tab) {
		symtab__free(tab);
		fail_msg("accepted: %s", what);
	}
	if (errno != EBADMSG)
		fail_msg("%s: errno %d, want EBADMSG", what, errno);
}

/* Every cut and every changed bit of a real blob is refused: the header's counts, the
 * stream's checksum and the exact lengths leave nothing to chance. (A flip in the few
 * padding bits that end a deflate stream changes no content: such a blob must then give
 * back exactly the table stored.) */
static void test_damaged_blobs_refused(void **state)
{
	struct symtab *tab = random_table(300);
	unsigned char *blob, *copy;
	size_t len;
	char what[64];

	(void)state;
	assert_int_equal(symtab__serialize(tab, (void **)&blob, &len), 0);
	copy = malloc(len + 16);
	assert_non_null(copy);
	for (size_t cut = 0; cut < len; cut++) {
		snprintf(what, sizeof(what), "cut at %zu", cut);
		assert_refused(blob, cut, what);
	}
	for (size_t at = 0; at < len; at++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			struct symtab *same;

			memcpy(copy, blob, len);
			copy[at] ^= (unsigned char)(1u << bit);
			snprintf(what, sizeof(what), "bit %u of byte %zu", bit, at);
			same = symtab__deserialize(copy, len);
			if (same) {
				assert_same(tab, same);
				symtab__free(same);
				continue;
			}
			assert_refused(copy, len, what);
		}
	}
	/* Trailing bytes after a whole stream. */
	memcpy(copy, blob, len);
	memset(copy + len, 0, 16);
	assert_refused(copy, len + 16, "trailing bytes");
	assert_refused("", 0, "empty");
	assert_refused("SOSYMTB1", 8, "magic only");
	free(copy);
	free(blob);
	symtab__free(tab);
}

/* ---- blobs with a valid stream but contents that lie ---- */

static size_t varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A blob of nsyms (delta, size) pairs and names, with the header's counts as given. */
static unsigned char *craft(const uint64_t *pairs, size_t nsyms, const char *names,
			    size_t names_len, uint64_t hdr_nsyms, int64_t names_adj,
			    int64_t payload_adj, size_t *len)
{
	unsigned char payload[4096], *blob;
	size_t plen = 0;
	uLongf zlen = compressBound(sizeof(payload));

	for (size_t i = 0; i < nsyms; i++) {
		plen += varint(payload + plen, pairs[2 * i]);
		plen += varint(payload + plen, pairs[2 * i + 1]);
	}
	memcpy(payload + plen, names, names_len);
	plen += names_len;
	blob = malloc(32 + zlen);
	assert_non_null(blob);
	memcpy(blob, "SOSYMTB1", 8);
	put64(blob + 8, hdr_nsyms);
	put64(blob + 16, (uint64_t)((int64_t)names_len + names_adj));
	put64(blob + 24, (uint64_t)((int64_t)plen + payload_adj));
	assert_int_equal(compress(blob + 32, &zlen, payload, plen), Z_OK);
	*len = 32 + zlen;
	return blob;
}

static void test_lying_blobs_refused(void **state)
{
	static const uint64_t good[] = { 0x1000, 0x10, 0x20, 0x10 };
	static const uint64_t unsorted[] = { 0x1000, 0x10, 0, 0x10 };
	static const uint64_t empty_sym[] = { 0x1000, 0x10, 0x20, 0 };
	static const uint64_t wraps[] = { ~0ull - 4, 0x10, 1, 1 };
	static const char names[] = "alpha\0beta";
	static const char empty_name[] = "alpha\0\0";
	static const char no_nul[] = "alpha\0beta!";
	struct {
		const char *what;
		const uint64_t *pairs;
		const char *names;
		size_t names_len;
		uint64_t nsyms;
		int64_t names_adj, payload_adj;
		bool ok;
	} cases[] = {
		{ "a good blob", good, names, sizeof(names), 2, 0, 0, true },
		{ "one symbol more than stored", good, names, sizeof(names), 3, 0, 0, false },
		{ "one symbol fewer", good, names, sizeof(names), 1, 0, 0, false },
		{ "names length short", good, names, sizeof(names), 2, -1, 0, false },
		{ "payload length long", good, names, sizeof(names), 2, 0, 1, false },
		{ "payload length short", good, names, sizeof(names), 2, 0, -1, false },
		{ "two symbols at one address", unsorted, names, sizeof(names), 2, 0, 0, false },
		{ "an empty symbol", empty_sym, names, sizeof(names), 2, 0, 0, false },
		{ "a symbol past 2^64", wraps, names, sizeof(names), 2, 0, 0, false },
		{ "an empty name", good, empty_name, sizeof(empty_name), 2, 0, 0, false },
		{ "a name without its end", good, no_nul, sizeof(no_nul) - 1, 2, 0, 0, false },
		{ "a huge count", good, names, sizeof(names), 1ull << 40, 0, 0, false },
		{ "a huge payload", good, names, sizeof(names), 2, 0, 1ll << 34, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		unsigned char *blob = craft(cases[i].pairs, 2, cases[i].names, cases[i].names_len,
					    cases[i].nsyms, cases[i].names_adj,
					    cases[i].payload_adj, &len);

		if (cases[i].ok) {
			struct symtab *tab = symtab__deserialize(blob, len);

			assert_non_null(tab);
			assert_lookup(tab, 0x1005, "alpha", 5);
			assert_lookup(tab, 0x1025, "beta", 5);
			symtab__free(tab);
		} else {
			assert_refused(blob, len, cases[i].what);
		}
		free(blob);
	}
}

/* A blob claiming a gigabyte of contents from a few bytes is refused before anything
 * that large is allocated. */
static void test_decompression_bomb_refused(void **state)
{
	unsigned char blob[64] = "SOSYMTB1";

	(void)state;
	put64(blob + 8, 1u << 20);
	put64(blob + 16, 1u << 29);
	put64(blob + 24, (1u << 29) + (4u << 20));
	assert_refused(blob, sizeof(blob), "a bomb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_basics),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_nested_symbols),
		cmocka_unit_test(test_reference_model),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged_blobs_refused),
		cmocka_unit_test(test_lying_blobs_refused),
		cmocka_unit_test(test_decompression_bomb_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

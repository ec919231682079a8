// SPDX-License-Identifier: MIT
/*
 * CPython code objects as the walker sent them (python.h): their strings as UTF-8 and the
 * cache of them by (pid, code). Called once per code object a process runs.
 */
#include "unwind/python.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/hashmap.h"

/* UTF-8 of one code point into out (room for 4). */
static size_t put_utf8(uint32_t c, char *out)
{
	if (c >= 0xd800 && c <= 0xdfff)
		c = '?';
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff) {
		out[0] = '?';
		return 1;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

size_t python__utf8(unsigned kind, const void *data, size_t len, char *out, size_t size)
{
	const unsigned char *p = data;
	size_t n = 0;

	if (kind != 1 && kind != 2 && kind != 4)
		kind = 1;
	for (size_t i = 0; i + kind <= len; i += kind) {
		uint32_t c;
		char buf[4];
		size_t k;

		if (kind == 1) {
			c = p[i];
		} else if (kind == 2) {
			uint16_t v;

			memcpy(&v, p + i, 2);
			c = v;
		} else {
			memcpy(&c, p + i, 4);
		}
		k = put_utf8(c, buf);
		if (n + k + 1 > size)
			break;
		memcpy(out + n, buf, k);
		n += k;
	}
	out[n] = '\0';
	return n;
}

/* The code cache: entries in one array, indexed by (pid, code). Forgotten entries keep
 * their slot with pid 0 (no process has it), so they never match again. */
struct python_code_cache {
	struct python_code_entry *entries;
	uint32_t n, cap;
	struct hashmap *index;
};

struct code_key {
	uint32_t pid;
	uint64_t code;
};

static uint64_t code_hash(uint32_t pid, uint64_t code)
{
	return hash_u64(hash_u64(0, pid), code);
}

static bool code_equal(const void *key, uint32_t id, void *ctx)
{
	const struct code_key *k = key;
	const struct python_code_cache *c = ctx;

	return c->entries[id].pid == k->pid && c->entries[id].code == k->code;
}

struct python_code_cache *python_code_cache__new(void)
{
	struct python_code_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->index = hashmap__new();
	if (!c->index) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void python_code_cache__free(struct python_code_cache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->entries[i].name);
		free(c->entries[i].file);
		free(c->entries[i].table);
	}
	free(c->entries);
	hashmap__free(c->index);
	free(c);
}

static uint32_t find_id(const struct python_code_cache *c, uint32_t pid, uint64_t code)
{
	struct code_key k = { pid, code };

	return hashmap__find(c->index, code_hash(pid, code), &k, code_equal, (void *)c);
}

/* A record's string as UTF-8, or fallback when it could not be read. */
static char *record_string(unsigned kind, const char *data, unsigned bytes, size_t max,
			   bool missing, bool cut, const char *fallback)
{
	/* Each input byte makes at most 3 output bytes (kind 1 -> 2, kind 2 -> 3, 4 -> 4). */
	size_t size = 3 * max + 4;
	char *s;
	size_t n;

	if (missing)
		return strdup(fallback);
	s = malloc(size);
	if (!s)
		return NULL;
	n = python__utf8(kind, data, bytes < max ? bytes : max, s, size - 4);
	if (cut)
		memcpy(s + n, "...", 4);
	return s;
}

int python_code_cache__add(struct python_code_cache *c, uint32_t pid,
			   const struct python_code *rec)
{
	struct python_code_entry e = { .pid = pid, .code = rec->code,
				       .firstlineno = rec->firstlineno };
	uint32_t id;

	e.name = record_string(rec->name_kind, rec->name, rec->name_bytes, PYTHON_NAME_LEN,
			       rec->flags & PYTHON_CODE_NO_NAME, rec->flags & PYTHON_CODE_NAME_CUT,
			       "[unknown Python function]");
	e.file = record_string(rec->file_kind, rec->file, rec->file_bytes, PYTHON_FILE_LEN,
			       rec->flags & PYTHON_CODE_NO_FILE, rec->flags & PYTHON_CODE_FILE_CUT,
			       "");
	if (!e.name || !e.file)
		goto out_free;
	if (rec->table_bytes) {
		e.table_len = rec->table_bytes < PYTHON_TABLE_LEN ? rec->table_bytes
								  : PYTHON_TABLE_LEN;
		e.table = malloc(e.table_len);
		if (!e.table)
			goto out_free;
		memcpy(e.table, rec->table, e.table_len);
		e.line_kind = rec->line_kind;
	}

	id = find_id(c, pid, rec->code);
	if (id != HASHMAP_NONE) {
		free(c->entries[id].name);
		free(c->entries[id].file);
		free(c->entries[id].table);
		c->entries[id] = e;
		return 0;
	}
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 64;
		struct python_code_entry *more = reallocarray(c->entries, cap, sizeof(*more));

		if (!more)
			goto out_free;
		c->entries = more;
		c->cap = cap;
	}
	if (hashmap__insert(c->index, code_hash(pid, rec->code), c->n))
		goto out_free;
	c->entries[c->n++] = e;
	return 0;
out_free:
	free(e.name);
	free(e.file);
	free(e.table);
	return -ENOMEM;
}

const struct python_code_entry *python_code_cache__find(const struct python_code_cache *c,
							uint32_t pid, uint64_t code)
{
	uint32_t id = find_id(c, pid, code);

	return id == HASHMAP_NONE ? NULL : &c->entries[id];
}

void python_code_cache__forget(struct python_code_cache *c, uint32_t pid)
{
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->entries[i].pid == pid)
			c->entries[i].pid = 0;
	}
}

// SPDX-License-Identifier: MIT
/*
 * A HotSpot Method* to "com.acme.Invoices.computeTotals" (jvm.h): four pointers and two
 * Symbols read through the reader the capture gives, each checked before it is
 * followed; and to where it comes from, "com/acme/Invoices.java" from its first line.
 * Called once per Method a capture meets, off the sampling path, then cached by its
 * caller: JIT-compiled code is freed and its Method* reused by another method only when
 * a class is unloaded, which a capture of seconds rarely sees.
 */
#include "unwind/jvm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A Symbol's bytes, at most JVM_MAX_SYMBOL of them, into out (NUL-terminated); dots
 * for slashes when dots. The bytes are modified UTF-8: no NUL inside. */
static int read_symbol(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t sym,
		       char *out, bool dots)
{
	uint16_t len;

	if (!sym || (sym & 7))
		return -EINVAL;
	if (read(ctx, sym + l->symbol_length, &len, sizeof(len)))
		return -EFAULT;
	if (len > JVM_MAX_SYMBOL)
		len = JVM_MAX_SYMBOL;
	if (len && read(ctx, sym + l->symbol_body, out, len))
		return -EFAULT;
	out[len] = '\0';
	if (!len || memchr(out, '\0', len))
		return -EINVAL;
	if (dots)
		for (char *p = out; *p; p++)
			if (*p == '/')
				*p = '.';
	return 0;
}

static int read_ptr(jvm_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	if (read(ctx, addr, v, sizeof(*v)))
		return -EFAULT;
	return *v && !(*v & 7) ? 0 : -EINVAL;
}

/* The Method's ConstMethod, its ConstantPool and its class's name Symbol, each checked. */
static int method_parts(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
			uint64_t *cm, uint64_t *pool, uint64_t *klass_sym)
{
	uint64_t holder;
	int err;

	if (!method || (method & 7))
		return -EINVAL;
	if ((err = read_ptr(read, ctx, method + l->method_const, cm)) ||
	    (err = read_ptr(read, ctx, *cm + l->const_method_constants, pool)) ||
	    (err = read_ptr(read, ctx, *pool + l->pool_holder, &holder)) ||
	    (err = read_ptr(read, ctx, holder + l->klass_name, klass_sym)))
		return err;
	return 0;
}

/* The Symbol in the pool's slot index (a u2 read at field of owner), checked against the
 * pool's length. */
static int pool_symbol(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t pool,
		       uint64_t owner, uint32_t field, uint64_t *sym)
{
	uint16_t index;
	int32_t pool_len;

	if (read(ctx, owner + field, &index, sizeof(index)) ||
	    read(ctx, pool + l->pool_length, &pool_len, sizeof(pool_len)))
		return -EFAULT;
	if (!index || pool_len <= 0 || index >= pool_len)
		return -EINVAL;
	return read_ptr(read, ctx, pool + l->pool_size + 8ull * index, sym);
}

int jvm_method__name(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		     char *buf)
{
	uint64_t cm, pool, klass_sym, name_sym;
	size_t n;
	int err;

	buf[0] = '\0';
	if ((err = method_parts(l, read, ctx, method, &cm, &pool, &klass_sym)) ||
	    (err = pool_symbol(l, read, ctx, pool, cm, l->const_method_name, &name_sym)))
		return err;
	err = read_symbol(l, read, ctx, klass_sym, buf, true);
	if (!err) {
		n = strlen(buf);
		buf[n] = '.';
		err = read_symbol(l, read, ctx, name_sym, buf + n + 1, false);
	}
	/* a class name read before a bad method name is no name */
	if (err)
		buf[0] = '\0';
	return err;
}

/* ---- where it comes from: its source file and first line ---- */

/* An int of HotSpot's UNSIGNED5 coding (CompressedReadStream::read_int: 1 to 5 bytes,
 * each of 192 and above saying another follows, 6 more bits a byte). -1 when the bytes
 * end first. */
int jvm_read_unsigned5(const uint8_t *b, size_t n, size_t *at, uint32_t *v)
{
	uint32_t sum, shift = 6;

	if (*at >= n)
		return -1;
	sum = b[(*at)++];
	if (sum >= 192) {
		for (int i = 1; i <= 4; i++) {
			uint32_t bi;

			if (*at >= n)
				return -1;
			bi = b[(*at)++];
			sum += bi << shift;
			if (bi < 192)
				break;
			shift += 6;
		}
	}
	*v = sum;
	return 0;
}

/* The same made signed (read_signed_int: zigzag). */
static int read_signed(const uint8_t *b, size_t n, size_t *at, int32_t *v)
{
	uint32_t sum;

	if (jvm_read_unsigned5(b, n, at, &sum))
		return -1;
	*v = (int32_t)((sum >> 1) ^ (0u - (sum & 1)));
	return 0;
}

int jvm_line_table__at(const uint8_t *b, size_t n, int32_t want, int32_t *out)
{
	int64_t bci = 0, line = 0, low = INT64_MAX, best_bci = 0, best = -1;
	bool exact = false;
	size_t at = 0;

	*out = 0;
	while (at < n) {
		uint8_t next = b[at++];
		int32_t dbci, dline;

		if (next == 0) {
			if (want < 0 && low != INT64_MAX)
				*out = (int32_t)low;
			else if (want >= 0 && best > 0)
				*out = (int32_t)best;
			return *out ? 0 : -ENOENT;
		}
		if (next == 0xff) {
			if (read_signed(b, n, &at, &dbci) || read_signed(b, n, &at, &dline))
				return -ENOENT;
			bci += dbci;
			line += dline;
		} else {
			bci += next >> 3;
			line += next & 7;
		}
		/* each pair a class file's: a bci of at most 64 KB of code, a u2 line */
		if (bci < 0 || bci > 0xffff || line < 0 || line > 0xffff)
			return -EINVAL;
		if (line && line < low)
			low = line;
		/* Method::line_number_from_bci: the pair at bci, else the latest before it */
		if (want >= 0 && !exact && bci <= want && bci >= best_bci) {
			best_bci = bci;
			best = line;
			exact = bci == want;
		}
	}
	return -ENOENT;
}

int jvm_line_table__first(const uint8_t *b, size_t n, int32_t *first)
{
	return jvm_line_table__at(b, n, -1, first);
}

/* The line of bci in the method's compressed line number table (its first line when bci
 * < 0) into *line, and its first into *first when asked: 0 each when it has none or it
 * cannot be read. */
static void method_line(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t cm,
			int32_t bci, int32_t *line, int32_t *first)
{
	uint8_t table[256];
	uint8_t *big = NULL, *t;
	uint16_t flags, code_size;
	int32_t words;
	uint64_t start, len;

	*line = 0;
	if (first)
		*first = 0;
	if (!l->has_line_table ||
	    read(ctx, cm + l->const_method_flags, &flags, sizeof(flags)) ||
	    !(flags & l->has_line_table) ||
	    read(ctx, cm + l->const_method_code_size, &code_size, sizeof(code_size)) ||
	    read(ctx, cm + l->const_method_words, &words, sizeof(words)))
		return;
	/* the table follows the bytecodes, inside the ConstMethod's words */
	start = (uint64_t)l->const_method_size + code_size;
	if (words <= 0 || (uint64_t)words * 8 <= start)
		return;
	len = (uint64_t)words * 8 - start;
	if (len > JVM_MAX_LINE_TABLE)
		len = JVM_MAX_LINE_TABLE;
	if (len > sizeof(table) && !(big = malloc(len)))
		return;
	t = big ? big : table;
	if (!read(ctx, cm + start, t, len)) {
		if (jvm_line_table__at(t, len, bci >= code_size ? -1 : bci, line))
			*line = 0;
		if (first && jvm_line_table__first(t, len, first))
			*first = 0;
	}
	free(big);
}

int jvm_method__source(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		       int32_t bci, char *file, int32_t *line, int32_t *first)
{
	uint64_t cm, pool, klass_sym, file_sym;
	char *slash;
	size_t n;
	int err;

	file[0] = '\0';
	*line = 0;
	if (first)
		*first = 0;
	if ((err = method_parts(l, read, ctx, method, &cm, &pool, &klass_sym)))
		return err;
	method_line(l, read, ctx, cm, bci, line, first);
	/* the package's path ("com/acme/"), then the source file's name */
	if (!l->pool_source_file ||
	    pool_symbol(l, read, ctx, pool, pool, l->pool_source_file, &file_sym) ||
	    read_symbol(l, read, ctx, klass_sym, file, false))
		goto no_file;
	slash = strrchr(file, '/');
	n = slash ? (size_t)(slash - file) + 1 : 0;
	if (read_symbol(l, read, ctx, file_sym, file + n, false) || strchr(file + n, '/'))
		goto no_file;
	return 0;
no_file:
	file[0] = '\0';
	return 0;
}

int jvm_method__bci(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		    uint32_t bcp_low, int32_t *bci)
{
	uint64_t cm, pool, klass_sym, codes;
	uint16_t code_size;
	uint32_t at;
	int err;

	*bci = -1;
	if (!l->const_method_size || !l->const_method_code_size)
		return -ERANGE;
	if ((err = method_parts(l, read, ctx, method, &cm, &pool, &klass_sym)))
		return err;
	if (read(ctx, cm + l->const_method_code_size, &code_size, sizeof(code_size)))
		return -EFAULT;
	if (code_size > 4096)
		return -ERANGE;
	codes = cm + l->const_method_size;
	at = (bcp_low - (uint32_t)(codes & 0xfff)) & 0xfff;
	if (at >= code_size)
		return -EINVAL;
	*bci = (int32_t)at;
	return 0;
}

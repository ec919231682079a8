// SPDX-License-Identifier: MIT
/*
 * A HotSpot Method* to "com.acme.Invoices.computeTotals" (jvm.h): four pointers and two
 * Symbols read through the reader the capture gives, each checked before it is
 * followed. Called once per Method a capture meets, off the sampling path, then
 * cached by its caller: JIT-compiled code is freed and its Method* reused by another
 * method only when a class is unloaded, which a capture of seconds rarely sees.
 */
#include "unwind/jvm.h"

#include <errno.h>
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

int jvm_method__name(const struct jvm_layout *l, jvm_read_fn read, void *ctx, uint64_t method,
		     char *buf)
{
	uint64_t cm, pool, holder, klass_sym, name_sym;
	uint16_t name_index;
	int32_t pool_len;
	size_t n;
	int err;

	buf[0] = '\0';
	if (!method || (method & 7))
		return -EINVAL;
	if ((err = read_ptr(read, ctx, method + l->method_const, &cm)) ||
	    (err = read_ptr(read, ctx, cm + l->const_method_constants, &pool)) ||
	    (err = read_ptr(read, ctx, pool + l->pool_holder, &holder)) ||
	    (err = read_ptr(read, ctx, holder + l->klass_name, &klass_sym)))
		return err;
	if (read(ctx, cm + l->const_method_name, &name_index, sizeof(name_index)) ||
	    read(ctx, pool + l->pool_length, &pool_len, sizeof(pool_len)))
		return -EFAULT;
	if (!name_index || pool_len <= 0 || name_index >= pool_len)
		return -EINVAL;
	if ((err = read_ptr(read, ctx, pool + l->pool_size + 8ull * name_index, &name_sym)))
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

// SPDX-License-Identifier: MIT
/*
 * Opening the workspace store: the backend chosen (store_backend.h), SQLite in the data
 * directory (store_lite_dir.c) or the PostgreSQL database of the URL store__set_url set
 * (store_pg_open.c). Above the backends and above store.c (what they all share): the one
 * file that names each backend's open.
 */
#include "store/store_backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The PostgreSQL workspace of this process (NULL: SQLite in the data directory). */
static char *store_url;

int store__set_url(const char *url)
{
	char *copy = NULL;

	if (url && *url) {
		int err = store__check_url(url);

		if (err)
			return err;
		copy = strdup(url);
		if (!copy)
			return -ENOMEM;
	}
	free(store_url);
	store_url = copy;
	return 0;
}

const char *store__url(void)
{
	return store_url;
}

/* ---- opening ---- */

static struct store *open_mode(const char *url, const char *dir, enum store_mode mode)
{
	struct store *s;
	int err = -ENOMEM;

	store__clear_problem();
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_err;
	s->dir_fd = s->profiles_fd = -1;
	s->writable = mode != STORE_READ;
	s->dir = strdup(dir ? dir : "");
	if (!s->dir)
		goto out_free;
	if (url) {
		s->ops = &store_pg_ops;
		err = store_pg__open(s, url, mode);
	} else {
		s->ops = &store_lite_ops;
		s->where = strdup(s->dir);
		err = s->where ? store_lite__open(s, mode) : -ENOMEM;
	}
	if (err)
		goto out_free;
	return s;

out_free:
	store__close(s);
out_err:
	errno = -err;
	return NULL;
}

struct store *store__open(const char *dir)
{
	return open_mode(store_url, dir, STORE_WRITE);
}

struct store *store__open_read(const char *dir)
{
	return open_mode(store_url, dir, STORE_READ);
}

struct store *store__open_existing(const char *dir)
{
	return open_mode(store_url, dir, STORE_EXISTING);
}

struct store *store__open_again(const char *dir)
{
	return open_mode(store_url, dir, STORE_AGAIN);
}

struct store *store__open_url(const char *url, const char *dir)
{
	int err = url ? store__check_url(url) : -EINVAL;

	if (err) {
		errno = -err;
		return NULL;
	}
	return open_mode(url, dir, STORE_WRITE);
}

bool store__is_shared(const struct store *s)
{
	return s->ops == &store_pg_ops;
}

// SPDX-License-Identifier: MIT
#include "store/store_backend.h"
#include <errno.h>
#include <string.h>
int store__check_url(const char *url) { return strncmp(url, "postgresql://", 13) ? -EINVAL : 0; }
int store_pg__open(struct store *s, const char *url, enum store_mode mode) { (void)s; (void)url; (void)mode; return -ENOTSUP; }
const struct store_ops store_pg_ops;

/* SPDX-License-Identifier: MIT */
/*
 * pprof (profile.proto via protobuf-c), gzip'd: the profile's stored form and its
 * export. Reading checks every index; a truncated or corrupt file is refused whole.
 */
#ifndef SLIDEOPS_PROFILE_PPROF_H
#define SLIDEOPS_PROFILE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

/*
 * with_names false (storage): Functions only for names known at capture (kernel,
 * interpreter frames). true (export): p must be symbolized; every location gets its
 * Function, so `go tool pprof` shows names without the binaries.
 * 0 or -errno; *out is malloc'd.
 */
int pprof__encode(const struct profile *p, bool with_names, void **out, size_t *len);
/* To path as file__write_output writes: "-" is standard output, a special file is
 * written in place, a regular file replaced atomically. */
int pprof__write_file(const struct profile *p, bool with_names, const char *path);

/* 0, -EBADMSG (not a whole profile of ours or pprof's), -ENOMEM. */
int pprof__decode(const void *data, size_t len, struct profile **out);

/*
 * What a profile from a stranger (an agent's batch) may hold, checked before the model is
 * built: the bytes protobuf-c may hold while unpacking it (util/pb_limits.h), and the
 * counts of what it holds. 0 in a field: no limit.
 */
struct pb_pool;

struct pprof_limits {
	size_t unpack_bytes;
	struct pb_pool *pool;       /* what unpacking draws from too (util/pb_limits.h) */
	uint64_t mappings, locations, functions, samples;
	uint64_t stack_locations;   /* locations of every sample's stack, summed */
	uint64_t strings, string_bytes;
};

/* pprof__decode within l: -E2BIG past one of them, *which naming it ("locations", ...;
 * "bytes" for unpack_bytes); -EBUSY when the pool is spent (to be tried again). */
int pprof__decode_within(const void *data, size_t len, const struct pprof_limits *l,
			 struct profile **out, const char **which);
int pprof__read_file(const char *path, struct profile **out);
/* The same from an open regular file (-EINVAL for anything else; -EFBIG when too large
 * to be read). Inflating is bounded by size and by ratio: a gzip bomb is -EBADMSG after
 * at most 64 times the file's size (256 MB at most) in memory. */
int pprof__read_fd(int fd, struct profile **out);

#endif

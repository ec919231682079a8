// SPDX-License-Identifier: MIT
/*
 * gzip for pprof blobs (zlib): compressing what is written, and inflating what is read
 * within a budget, so a small hostile file cannot ask for a gigabyte.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/pprof_internal.h"

int gzip__compress(const void *in, size_t len, void **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap;
	void *buf;
	int ret;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&zs, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	/* zlib counts in uInt; feed inputs over 4 GB in pieces. */
	zs.next_in = (Bytef *)in;
	zs.next_out = buf;
	do {
		size_t in_left = len - (size_t)((const char *)zs.next_in - (const char *)in);
		size_t out_left = cap - (size_t)((char *)zs.next_out - (char *)buf);

		zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
		ret = deflate(&zs, zs.avail_in == in_left ? Z_FINISH : Z_NO_FLUSH);
	} while (ret == Z_OK);
	if (ret != Z_STREAM_END) {
		deflateEnd(&zs);
		free(buf);
		return -ENOMEM;
	}
	*out_len = (size_t)((char *)zs.next_out - (char *)buf);
	deflateEnd(&zs);
	*out = buf;
	return 0;
}

/*
 * Inflates one whole gzip member into out (out_cap bytes), or, with out NULL, only
 * counts its bytes (into a small scratch buffer) and checks it whole. A stream that
 * ends early, fails its CRC or length check, or has bytes after its end is not a whole
 * profile: -EBADMSG; one longer than budget: -EBADMSG as soon as it passes it.
 */
static int gzip__inflate(const void *in, size_t len, unsigned char *out, uint64_t budget,
			 size_t *out_len)
{
	/*
	 * The counting pass's output, this call's own: zlib reads its back-references from
	 * the output it wrote in the same call, so a buffer another thread writes at the
	 * same time (the server reads profiles concurrently) fails the CRC at random.
	 */
	enum { SCRATCH = 1 << 16 };
	unsigned char *scratch = NULL;
	z_stream zs = { 0 };
	uint64_t total = 0;
	int ret, err = -EBADMSG;

	if (!out && !(scratch = malloc(SCRATCH)))
		return -ENOMEM;
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(scratch);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	for (;;) {
		size_t in_left = len - (size_t)((const char *)zs.next_in - (const char *)in);
		uint64_t room = out ? budget - total : SCRATCH;
		uInt before;

		zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		zs.next_out = out ? out + total : scratch;
		zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
		before = zs.avail_out;
		ret = inflate(&zs, Z_NO_FLUSH);
		total += before - zs.avail_out;
		if (total > budget)
			goto out_end; /* over budget: a bomb, or not ours */
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_MEM_ERROR) {
			err = -ENOMEM;
			goto out_end;
		}
		if (ret == Z_OK && (zs.avail_out == 0 || before != zs.avail_out))
			continue;
		/* No progress: the input ended before the stream, or out is full. */
		if (ret != Z_BUF_ERROR && ret != Z_OK)
			goto out_end;
		if (zs.avail_out != 0 || (out && total == budget))
			goto out_end;
	}
	if ((const char *)zs.next_in != (const char *)in + len)
		goto out_end; /* bytes after the stream */
	*out_len = (size_t)total;
	err = 0;
out_end:
	inflateEnd(&zs);
	free(scratch);
	return err;
}

/*
 * Twice: once to count and check (nothing kept), once into a buffer of exactly that
 * size. A gzip bomb is refused after the first pass has streamed through its budget,
 * with nothing allocated for it.
 */
int gzip__decompress(const void *in, size_t len, void **out, size_t *out_len)
{
	uint64_t budget = (uint64_t)len * PPROF_MAX_RATIO;
	unsigned char *buf;
	size_t n, got;
	int err;

	if (budget < PPROF_MIN_RAW)
		budget = PPROF_MIN_RAW;
	if (budget > PPROF_MAX_RAW)
		budget = PPROF_MAX_RAW;
	err = gzip__inflate(in, len, NULL, budget, &n);
	if (err)
		return err;
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	err = gzip__inflate(in, len, buf, n, &got);
	if (!err && got != n)
		err = -EBADMSG;
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

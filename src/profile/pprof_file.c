// SPDX-License-Identifier: MIT
/* pprof files: writing one as file__write_output does, reading one within size limits. */
#include "profile/pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/pprof_internal.h"
#include "util/file.h"

int pprof__write_file(const struct profile *p, bool with_names, const char *path)
{
	void *data = NULL;
	size_t len;
	int err;

	err = pprof__encode(p, with_names, &data, &len);
	if (err)
		return err;
	fflush(stdout);
	err = file__write_output(path, data, len, 0644);
	free(data);
	return err;
}

int pprof__read_fd(int fd, struct profile **out)
{
	struct stat st;
	char *data;
	size_t got = 0;
	int err = 0;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > PPROF_MAX_FILE)
		return -EFBIG;
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break; /* shrank under us: decoding will refuse what is left */
		got += (size_t)n;
	}
	if (!err)
		err = pprof__decode(data, got, out);
	free(data);
	return err;
}

int pprof__read_file(const char *path, struct profile **out)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = pprof__read_fd(fd, out);
	close(fd);
	return err;
}

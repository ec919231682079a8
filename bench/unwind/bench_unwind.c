// SPDX-License-Identifier: MIT
/*
 * Builds the unwind table of each file named (best of --runs, default 3) and prints one
 * line per file: "path rows=N fdes=N skipped=N bytes=N ms=F", or "path not-read=REASON".
 * Used by bench/unwind/run.sh; also handy to look at one binary's table (--dump).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/unwind.h"
#include "util/clock.h"

static void dump(const struct unwind_table *t)
{
	static const char *cfa[] = { "none", "rsp", "rbp", "plt", "end", "signal", "unsupported" };
	static const char *rbp[] = { "same", "cfa", "lost" };

	for (uint32_t i = 0; i < t->nrows; i++) {
		const struct unwind_row *r = &t->rows[i];

		printf("%016llx cfa=%s+%u rbp=%s%+d\n", (unsigned long long)(t->base + r->pc),
		       cfa[unwind_row__cfa_kind(r)], r->cfa_off, rbp[unwind_row__rbp_kind(r)],
		       r->rbp_off * 8);
	}
}

int main(int argc, char **argv)
{
	int runs = 3, dump_rows = 0;

	for (int i = 1; i < argc; i++) {
		struct unwind_table *t = NULL;
		enum unwind_not_read why = UNWIND_READ;
		int64_t best = -1;
		int fd, err = 0;

		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
			runs = atoi(argv[++i]);
			continue;
		}
		if (strcmp(argv[i], "--dump") == 0) {
			dump_rows = 1;
			continue;
		}
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(argv[i]);
			return 1;
		}
		for (int r = 0; r < runs; r++) {
			int64_t t0 = clock__monotonic_ns(), dt;

			unwind_table__free(t);
			err = unwind_table__build(fd, NULL, &t, &why);
			dt = clock__monotonic_ns() - t0;
			if (best < 0 || dt < best)
				best = dt;
		}
		close(fd);
		if (err) {
			printf("%s not-read=\"%s\"\n", argv[i], unwind_not_read__str(why));
			continue;
		}
		if (dump_rows)
			dump(t);
		printf("%s rows=%u fdes=%u skipped=%u bytes=%zu ms=%.2f\n", argv[i], t->nrows,
		       t->nfdes, t->nskipped, (size_t)t->nrows * sizeof(struct unwind_row) + 48,
		       (double)best / 1e6);
		unwind_table__free(t);
	}
	return 0;
}

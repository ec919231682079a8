// SPDX-License-Identifier: MIT
/*
 * Folded stacks for FlameGraph, speedscope, inferno and friends. Samples that differ only
 * in labels the format has no room for (pid, tid, state) are merged into one line.
 */
#include "analysis/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/outfile.h"
#include "profile/profile.h"

struct line {
	uint32_t group, comm, stack;
	int64_t value;
};

static int line__cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

/* A name as one frame: ';' separates frames and a newline ends the line, so neither may
 * appear in one. An empty name would read as a missing frame. */
static void put_frame(FILE *out, const char *name)
{
	if (!*name)
		name = "[unknown]";
	for (; *name; name++) {
		char c = *name;

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
		putc(c, out);
	}
}

int folded__write(const struct profile *p, FILE *out)
{
	/* cpu counts samples (FlameGraph's own unit); the others weigh in their unit. */
	uint32_t value = question__folded_value(p->header.question);

	if (value >= p->nvalues)
		value = profile__main_value(p);
	struct line *lines = malloc(sizeof(*lines) * (p->nsamples ? p->nsamples : 1));
	size_t n = 0;

	if (!lines)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		lines[n++] = (struct line){ s->labels.group, s->labels.comm, s->stack,
					    s->values[value] };
	}
	if (n) {
		size_t out_n = 0;

		qsort(lines, n, sizeof(*lines), line__cmp);
		for (size_t i = 1; i < n; i++) {
			if (line__cmp(&lines[out_n], &lines[i]) == 0)
				lines[out_n].value += lines[i].value;
			else
				lines[++out_n] = lines[i];
		}
		n = out_n + 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t depth;
		const uint32_t *locs;

		if (lines[i].value <= 0)
			continue;
		locs = profile__stack(p, lines[i].stack, &depth);
		put_frame(out, profile__str(p, lines[i].group));
		putc(';', out);
		put_frame(out, profile__str(p, lines[i].comm));
		/* Stacks are kept leaf first; folded lines read root first. */
		for (uint32_t d = depth; d-- > 0;) {
			const struct prof_location *l = &p->locations[locs[d]];

			putc(';', out);
			put_frame(out, profile__str(p, l->name ? l->name : l->function));
		}
		fprintf(out, " %lld\n", (long long)lines[i].value);
	}
	free(lines);
	return ferror(out) ? -EIO : 0;
}

static int folded__write_cb(const void *ctx, FILE *out)
{
	return folded__write(ctx, out);
}

int folded__write_file(const struct profile *p, const char *path)
{
	return outfile__write(path, folded__write_cb, p);
}

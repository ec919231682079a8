// SPDX-License-Identifier: MIT
/*
 * Folded stacks for FlameGraph, speedscope, inferno and friends: one line per distinct
 * stack as the format spells it.
 */
#include "analysis/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/outfile.h"
#include "analysis/waits.h"
#include "profile/profile.h"

struct line {
	char *text;   /* GROUP;COMM;FRAME;...;LEAF */
	int64_t value;
};

static int line__cmp(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
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

/* The text of one sample's line, root first (stacks are kept leaf first). */
static char *line__text(const struct profile *p, const struct prof_sample *s)
{
	const uint32_t *locs;
	uint32_t depth;
	size_t len = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	locs = profile__stack(p, s->stack, &depth);
	put_frame(out, profile__str(p, s->labels.group));
	putc(';', out);
	put_frame(out, profile__str(p, s->labels.comm));
	for (uint32_t d = depth; d-- > 0;) {
		const struct prof_location *l = &p->locations[locs[d]];

		putc(';', out);
		put_frame(out, profile__str(p, l->name ? l->name : l->function));
	}
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * One line per distinct stack as the format shows it: samples that differ in what it
 * has no room for (pid, tid, state, addresses within one function) add up into one.
 */
int folded__write(const struct profile *p, FILE *out)
{
	/* cpu counts samples (FlameGraph's own unit); the others weigh in their unit. */
	uint32_t value = question__folded_value(p->header.question);
	struct line *lines;
	size_t n = 0;
	int err = 0;

	if (value >= p->nvalues)
		value = profile__main_value(p);
	lines = calloc(p->nsamples ? p->nsamples : 1, sizeof(*lines));

	if (!lines)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];

		if (s->values[value] <= 0 || !sample__counts(p, s))
			continue;
		lines[n].text = line__text(p, s);
		lines[n].value = s->values[value];
		if (!lines[n++].text) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	if (n) {
		size_t out_n = 0;

		qsort(lines, n, sizeof(*lines), line__cmp);
		for (size_t i = 1; i < n; i++) {
			if (line__cmp(&lines[out_n], &lines[i]) == 0) {
				lines[out_n].value += lines[i].value;
				free(lines[i].text);
				lines[i].text = NULL;
			} else {
				lines[++out_n] = lines[i];
				if (out_n != i)
					lines[i].text = NULL;
			}
		}
		n = out_n + 1;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %lld\n", lines[i].text, (long long)lines[i].value);
	err = ferror(out) ? -EIO : 0;
out_free:
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return err;
}

static int folded__write_cb(const void *ctx, FILE *out)
{
	return folded__write(ctx, out);
}

int folded__write_file(const struct profile *p, const char *path)
{
	return outfile__write(path, folded__write_cb, p);
}

// SPDX-License-Identifier: MIT
/*
 * The one table of the questions (question.h), made of questions.def's rows in their
 * order (`check`, the API and the UI list them so), and the lookups every layer makes
 * through it.
 */
#include "questions/question.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define QUESTION(name, NAME) extern const struct question_plugin question_##name;
#include "questions/questions.def"
#undef QUESTION

static const struct question_plugin *const questions[QUESTION__COUNT] = {
#define QUESTION(name, NAME) [QUESTION_##NAME] = &question_##name,
#include "questions/questions.def"
#undef QUESTION
};

const struct question_plugin *question__get(enum question q)
{
	return (unsigned)q < QUESTION__COUNT ? questions[q] : NULL;
}

int question__parse(const char *id)
{
	for (int q = 0; id && q < QUESTION__COUNT; q++)
		if (strcmp(questions[q]->id, id) == 0)
			return q;
	return -1;
}

enum question question__primary(void)
{
	for (int q = 0; q < QUESTION__COUNT; q++)
		if (questions[q]->primary)
			return (enum question)q;
	return (enum question)0;
}

enum question question__match_pprof(const struct question_pprof_types *t,
				    int cols[QUESTION_MAX_VALUES])
{
	int best = -1, best_score = -1;

	for (int q = 0; q < QUESTION__COUNT; q++) {
		int mine[QUESTION_MAX_VALUES], score;

		for (int i = 0; i < QUESTION_MAX_VALUES; i++)
			mine[i] = -1;
		score = questions[q]->pprof_match(t, mine);
		if (score > best_score) {
			best = q;
			best_score = score;
			memcpy(cols, mine, sizeof(mine));
		}
	}
	return best < 0 ? QUESTION__COUNT : (enum question)best;
}

void question__list_ids(char *out, size_t size)
{
	size_t used = 0;

	if (size)
		out[0] = '\0';
	for (int q = 0; q < QUESTION__COUNT && used < size; q++) {
		const char *sep = q == 0 ? "" : q == QUESTION__COUNT - 1 ? " or " : ", ";
		int n = snprintf(out + used, size - used, "%s%s", sep, questions[q]->id);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

const char *question__id(enum question q)
{
	return question__get(q) ? questions[q]->id : "";
}

const char *question__title(enum question q)
{
	return question__get(q) ? questions[q]->title : "";
}

const char *const *question__views(enum question q)
{
	static const char *const none[] = { NULL };

	return question__get(q) ? questions[q]->views : none;
}

bool question__share_of_server(enum question q)
{
	return question__get(q) && questions[q]->share_of_server;
}

bool question__clock_sampled(enum question q)
{
	return question__get(q) && questions[q]->clock_sampled;
}

bool question__is_snapshot(enum question q)
{
	return question__get(q) && questions[q]->snapshot;
}

uint32_t question__folded_value(enum question q)
{
	return question__get(q) ? questions[q]->folded_value : 0;
}

enum question_value_bound question__value_bound(enum question q, uint32_t col)
{
	return question__get(q) && col < QUESTION_MAX_VALUES ? questions[q]->value_bounds[col]
							     : VALUE_BOUND_NONE;
}

int question_pprof__column(const struct question_pprof_types *t, const char *unit,
			   bool prefer_default)
{
	int col = -1;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->unit[i], unit) == 0 &&
		    (col < 0 || (prefer_default && t->is_default[i])))
			col = (int)i;
	return col;
}

void question__json_set(struct json_t *o, const char *key, struct json_t *value, int *err)
{
	if (!value || json_object_set_new(o, key, value))
		*err = -1;
}

void question__json_append(struct json_t *list, struct json_t *value, int *err)
{
	if (!value || json_array_append_new(list, value))
		*err = -1;
}

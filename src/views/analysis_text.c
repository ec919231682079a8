// SPDX-License-Identifier: MIT
/*
 * The text views of an analysis, as `capture` and `show` print them: groups with their
 * processes beneath (the first row of a server profile is what owns each process), the
 * top functions, and the stripped-binary card worded as the spec words it.
 */
#include "analysis/analysis.h"
#include "views/analysis_view.h"

#include <stdarg.h>

#include "util/format.h"
#include "util/messages.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Processes listed under each group; the rest are counted. */
#define PROCESSES_SHOWN 5

void analysis_view__print_groups(const struct analysis *a, FILE *out)
{
	const struct question_plugin *question = question__get(a->profile->header.question);
	char pct[FORMAT_MAX], value[FORMAT_MAX], where[256], name[256];

	if (!a->ngroups)
		return;
	msg_fprint(out, question__share_of_server(a->profile->header.question) ? MSG_SHOW_GROUPS_CPU :
								  MSG_SHOW_GROUPS);
	for (size_t g = 0; g < a->ngroups; g++) {
		const struct analysis_group *gr = &a->groups[g];
		size_t shown = gr->nprocesses < PROCESSES_SHOWN ? gr->nprocesses : PROCESSES_SHOWN;

		format_percent(gr->share, pct, sizeof(pct));
		format_value(gr->value, a->unit, value, sizeof(value));
		where[0] = '\0';
		if (gr->top_function)
			msg_format(where, sizeof(where), MSG_SHOW_GROUP_WHERE, gr->top_function);
		msg_fprint(out, MSG_SHOW_GROUP_ROW, gr->label, pct, value, where);
		/* The question's own figures of the group, beneath its row. */
		if (question && question->group_text)
			question->group_text(gr, out);
		for (size_t i = 0; i < shown; i++) {
			const struct analysis_process *pr = &gr->processes[i];

			format_percent(pr->share, pct, sizeof(pct));
			format_value(pr->value, a->unit, value, sizeof(value));
			msg_format(name, sizeof(name), MSG_SHOW_PROCESS_NAME, pr->comm, pr->pid);
			msg_fprint(out, MSG_SHOW_PROCESS_ROW, name, pct, value);
		}
		if (gr->nprocesses > shown)
			msg_fprint(out, MSG_SHOW_PROCESSES_MORE, gr->nprocesses - shown);
	}
}

void analysis_view__print_functions(const struct analysis *a, FILE *out, size_t max)
{
	char self[FORMAT_MAX], total[FORMAT_MAX];

	if (!a->nfunctions || !max)
		return;
	msg_fprint(out, MSG_SHOW_FUNCTIONS_HEADER);
	msg_fprint(out, MSG_SHOW_FUNCTIONS_COLUMNS);
	for (size_t i = 0; i < a->nfunctions && i < max; i++) {
		const struct analysis_function *f = &a->functions[i];

		format_percent(f->self, self, sizeof(self));
		format_percent(f->total, total, sizeof(total));
		msg_fprint(out, MSG_SHOW_FUNCTION_ROW, self, total, language__name(f->language),
		      f->name);
	}
}

void analysis_view__print_card(const struct analysis *a, FILE *out)
{
	char pct[FORMAT_MAX];
	bool uploadable = false;

	if (!a->nstripped)
		return;
	msg_fprint(out, MSG_CARD_TITLE);
	for (size_t i = 0; i < a->nstripped; i++) {
		const struct analysis_stripped *s = &a->stripped[i];

		format_percent(s->share, pct, sizeof(pct));
		if (s->has_build_id) {
			msg_fprint(out, MSG_CARD_BUILD, s->path, pct, s->build_id);
			uploadable = true;
		} else if (s->build_id_recorded) {
			msg_fprint(out, MSG_CARD_NO_BUILD_ID, s->path, pct);
			uploadable = true;
		} else {
			msg_fprint(out, MSG_CARD_NOT_RECORDED, s->path, pct);
		}
	}
	if (uploadable)
		msg_fprint(out, MSG_CARD_UPLOAD);
	if (a->build_ids_missing)
		msg_fprint(out, MSG_CARD_BUILD_IDS_MISSING);
}

static const enum msg_id stack_exit_words[STACK_EXIT__COUNT] = {
	[STACK_EXIT_NO_TABLE] = MSG_STACK_EXIT_NO_TABLE,
	[STACK_EXIT_TABLE_MISS] = MSG_STACK_EXIT_TABLE_MISS,
	[STACK_EXIT_READ_FAULT] = MSG_STACK_EXIT_READ_FAULT,
	[STACK_EXIT_DEPTH] = MSG_STACK_EXIT_DEPTH,
	[STACK_EXIT_UNSUPPORTED] = MSG_STACK_EXIT_UNSUPPORTED,
	[STACK_EXIT_BP_UNKNOWN] = MSG_STACK_EXIT_BP_UNKNOWN,
	[STACK_EXIT_NOT_GROWING] = MSG_STACK_EXIT_NOT_GROWING,
};

/*
 * How many stacks are whole, and the commonest reason the others stop: its key in
 * stack_quality.exits and its words. Samples of processes without tables are not an
 * exit (frame pointers may take them all the way), but when there are any they are the
 * likeliest reason for short stacks, so they get their own line.
 */
static void analysis_view__print_stack_quality(const struct analysis *a, FILE *out)
{
	const struct prof_header *h = &a->profile->header;
	int worst = -1;
	char pct[16];

	for (size_t i = 0; i < a->nunnamed_starts; i++) {
		char sentence[512];

		analysis__unnamed_start_sentence(&a->unnamed_starts[i], sentence, sizeof(sentence));
		msg_fprint(out, MSG_REPORT_STACKS_UNNAMED_START, sentence);
	}
	if (a->stacks_complete < 0)
		return;
	format_percent(a->stacks_complete, pct, sizeof(pct));
	for (int i = 0; h->stack_exits_recorded && i < STACK_EXIT__COUNT; i++)
		if (i != STACK_EXIT_NO_PROCESS_TABLES && h->stack_exits[i] &&
		    (worst < 0 || h->stack_exits[i] > h->stack_exits[worst]))
			worst = i;
	if (worst < 0)
		msg_fprint(out, MSG_REPORT_STACK_QUALITY, pct);
	else
		msg_fprint(out, MSG_REPORT_STACK_QUALITY_EXIT, pct, stack_exit__name(worst),
			   msg_text(stack_exit_words[worst]),
			   (unsigned long long)h->stack_exits[worst]);
	if (h->stack_exits_recorded && h->stack_exits[STACK_EXIT_NO_PROCESS_TABLES])
		msg_fprint(out, MSG_REPORT_STACK_QUALITY_NO_TABLES,
			   (unsigned long long)h->stack_exits[STACK_EXIT_NO_PROCESS_TABLES]);
}

void analysis_view__print_report(const struct analysis *a, FILE *out, size_t top)
{
	const struct question_plugin *question = question__get(a->profile->header.question);

	msg_fputs(a->answer, out);
	fputc('\n', out);
	if (a->profile->header.lost)
		msg_fprint(out, MSG_REPORT_LOST, (unsigned long long)a->profile->header.lost);
	analysis_view__print_stack_quality(a, out);
	if (a->profile->header.mappings_past_limit)
		msg_fprint(out, MSG_REPORT_MAPPINGS_PAST_LIMIT,
			   (unsigned long long)a->profile->header.mappings_past_limit,
			   a->profile->header.processes_past_limit, a->profile->header.mappings_limit);
	/* The card sits at the top of the profile, as the spec has it. */
	if (a->nstripped) {
		fputc('\n', out);
		analysis_view__print_card(a, out);
	}
	if (question && question->report_before_groups)
		question->report_before_groups(a, out);
	if (a->ngroups) {
		fputc('\n', out);
		analysis_view__print_groups(a, out);
	}
	if (question && question->report_after_groups)
		question->report_after_groups(a, out);
	if (a->profile->header.nnot_read) {
		const struct profile *p = a->profile;

		fputc('\n', out);
		msg_fprint(out, MSG_CAPTURE_NOT_READ_HEADER);
		for (uint32_t i = 0; i < p->header.nnot_read; i++)
			msg_fprint(out, MSG_CAPTURE_NOT_READ_LINE,
				   profile__str(p, p->header.not_read[i].path),
				   profile__str(p, p->header.not_read[i].reason));
	}
	if (a->nfunctions && top) {
		fputc('\n', out);
		analysis_view__print_functions(a, out, top);
	}
}

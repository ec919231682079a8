/* SPDX-License-Identifier: MIT */
/*
 * The cpu question's answer sentence ("Over 30 seconds, Service billing used 54% of the
 * CPU time on this server, most of it in build_report. Next was Unit nginx.service, at
 * 14%.", word for word as README.md gives it), as a pure function of what its analysis
 * measured (analysis/answer.h: first NULL, the profile has no samples; next NULL, no
 * "Next was"), so each template is tested word for word. malloc'd, or NULL with errno
 * ENOMEM.
 */
#ifndef SLIDEOPS_QUESTIONS_CPU_ANSWER_H
#define SLIDEOPS_QUESTIONS_CPU_ANSWER_H

#include <stdint.h>

#include "analysis/answer.h"

char *cpu_answer__sentence(uint64_t duration_ns, const struct answer_group *first,
			   const struct answer_group *next);
/* cpu on a nearly idle server (the plug-in decides when): "Over 10 seconds, this server
 * was nearly idle: 0.8% of its CPU time was used. Most of it was System, in F." used: the
 * share of the server's CPU time all samples took; first: the largest group (NULL: the
 * first sentence alone). */
char *cpu_answer__idle(uint64_t duration_ns, double used, const struct answer_group *first);

#endif

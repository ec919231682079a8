/* SPDX-License-Identifier: MIT */
/*
 * The flame graph: one self-contained, interactive HTML file (no network). The first row
 * under the root is the owner groups, then each process by name, then its frames root to
 * leaf. Click to zoom, search with the share matched, hover for name, language, value and
 * share; colour by language (each language keeps its colour) or by group, with a legend.
 */
#ifndef SLIDEOPS_ANALYSIS_FLAMEGRAPH_H
#define SLIDEOPS_ANALYSIS_FLAMEGRAPH_H

#include <stdio.h>

struct profile;

enum flamegraph_colour {
	FLAMEGRAPH_COLOUR_LANGUAGE,
	FLAMEGRAPH_COLOUR_GROUP,
};

/* "language" / "group"; parse returns -1 for anything else. */
const char *flamegraph_colour__name(enum flamegraph_colour c);
int flamegraph_colour__parse(const char *name);

/* p must be symbolized. 0 or -errno. */
int flamegraph__write(const struct profile *p, FILE *out, enum flamegraph_colour colour);
/* Only the tree, as the JSON document the page reads (the web UI's /flamegraph):
 * {"question", "answer", "unit", "total", "languages", "groups", "names", "name",
 * "depth", "value", "lang", "group", "system"}, nodes in pre-order, and where samples
 * say why they waited (wall) "waiting_by_reason": {"runqueue": [v], ...}, each node's
 * waiting by why as value is its total. 0 or -errno. */
int flamegraph__write_data(const struct profile *p, FILE *out, enum flamegraph_colour colour);
/* Written beside path and renamed into place; "-" is standard output. */
int flamegraph__write_file(const struct profile *p, const char *path,
			   enum flamegraph_colour colour);

#endif

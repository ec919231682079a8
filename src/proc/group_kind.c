/* SPDX-License-Identifier: MIT */
/* The names of the kinds of owner groups, as labels and documents spell them. */
#include "proc/group_kind.h"

#include <string.h>

static const char *const group_kinds[GROUP_KIND__COUNT] = {
	[GROUP_SERVICE] = "service", [GROUP_CONTAINER] = "container", [GROUP_UNIT] = "unit",
	[GROUP_SESSION] = "session", [GROUP_SYSTEM] = "system",	      [GROUP_OTHER] = "other",
};

const char *group_kind__name(enum group_kind k)
{
	return (unsigned)k < GROUP_KIND__COUNT ? group_kinds[k] : group_kinds[GROUP_OTHER];
}

int group_kind__parse(const char *name)
{
	for (int i = 0; name && i < GROUP_KIND__COUNT; i++)
		if (strcmp(group_kinds[i], name) == 0)
			return i;
	return -1;
}

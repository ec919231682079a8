// SPDX-License-Identifier: MIT
/* The languages' names and colours (language.h). */
#include "elf/language.h"

#include <string.h>

static const char *const languages[LANGUAGE__COUNT] = {
	[LANGUAGE_KERNEL] = "Kernel", [LANGUAGE_C] = "C/C++",	    [LANGUAGE_RUST] = "Rust",
	[LANGUAGE_GO] = "Go",	      [LANGUAGE_PYTHON] = "Python", [LANGUAGE_JAVA] = "Java",
	[LANGUAGE_JAVASCRIPT] = "JavaScript", [LANGUAGE_RUBY] = "Ruby",
	[LANGUAGE_PHP] = "PHP",	      [LANGUAGE_PERL] = "Perl",	    [LANGUAGE_DOTNET] = ".NET",
	[LANGUAGE_OTHER] = "Other",
};

/* Stable, distinct hues; each language keeps its colour in every profile. */
static const char *const language_colours[LANGUAGE__COUNT] = {
	[LANGUAGE_KERNEL] = "#e8a33d",	   [LANGUAGE_C] = "#7aa6da",	  [LANGUAGE_RUST] = "#d4764e",
	[LANGUAGE_GO] = "#4fc3c9",	   [LANGUAGE_PYTHON] = "#6cc66c", [LANGUAGE_JAVA] = "#c9a94f",
	[LANGUAGE_JAVASCRIPT] = "#e6d85c", [LANGUAGE_RUBY] = "#d9576b",	  [LANGUAGE_PHP] = "#9b8fd9",
	[LANGUAGE_PERL] = "#a7c26a",	   [LANGUAGE_DOTNET] = "#b57ad9", [LANGUAGE_OTHER] = "#b0b0b0",
};

const char *language__name(enum language l)
{
	return (unsigned)l < LANGUAGE__COUNT ? languages[l] : languages[LANGUAGE_OTHER];
}

const char *language__colour(enum language l)
{
	return (unsigned)l < LANGUAGE__COUNT ? language_colours[l] :
					       language_colours[LANGUAGE_OTHER];
}

int language__parse(const char *name)
{
	for (int i = 0; name && i < LANGUAGE__COUNT; i++)
		if (strcmp(languages[i], name) == 0)
			return i;
	return -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * The language a frame's code is written in (docs/architecture.md, "Languages and
 * runtimes"). Below both the ELF reader, which tells a binary's language by its path and
 * contents, and the profile, which keeps one per mapping and location.
 */
#ifndef SLIDEOPS_ELF_LANGUAGE_H
#define SLIDEOPS_ELF_LANGUAGE_H

/* Colours are keyed to these; keep the order stable. */
enum language {
	LANGUAGE_KERNEL,
	LANGUAGE_C,
	LANGUAGE_RUST,
	LANGUAGE_GO,
	LANGUAGE_PYTHON,
	LANGUAGE_JAVA,
	LANGUAGE_JAVASCRIPT,
	LANGUAGE_RUBY,
	LANGUAGE_PHP,
	LANGUAGE_PERL,
	LANGUAGE_DOTNET,
	LANGUAGE_OTHER,
	LANGUAGE__COUNT,
};

const char *language__name(enum language l); /* "Kernel", "C/C++", "Rust", ... */
const char *language__colour(enum language l); /* "#rrggbb", stable */
int language__parse(const char *name); /* -1 for an unknown name */

#endif

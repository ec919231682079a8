/* SPDX-License-Identifier: MIT */
/*
 * Text that came from a machine, made safe to show. Process names, function names, file
 * names and paths are bytes anyone on the server chose: a newline or an escape sequence
 * in one must not reach a terminal as such, and invalid UTF-8 must not cost a JSON
 * document. One spelling for both: each such byte is written as the four characters
 * \xNN, so `printf '\x1b'` in a name reads back as "\x1b" wherever it is shown.
 */
#ifndef SLIDEOPS_UTIL_TEXT_H
#define SLIDEOPS_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (s is NUL-terminated), or 0. */
size_t text__utf8_sequence(const char *s);

/* For a terminal: control characters (C0, DEL, C1) and invalid UTF-8 bytes as \xNN.
 * malloc'd; NULL on ENOMEM. */
char *text__escape(const char *s);

/* For JSON: invalid UTF-8 bytes as \xNN, everything else as it is (JSON escapes
 * control characters itself). malloc'd; NULL on ENOMEM. */
char *text__utf8(const char *s);

/* True when text__escape would change nothing. */
bool text__is_clean(const char *s);

#endif

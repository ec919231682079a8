/* SPDX-License-Identifier: MIT */
/*
 * A JSON string from text that came from a machine: process names and symbols are bytes,
 * not always UTF-8, and jansson refuses invalid UTF-8 outright. Each such byte becomes the text
 * \xNN (util/text.h), as in text output,
 * so one odd process name never costs the whole document.
 */
#ifndef SLIDEOPS_UTIL_JSON_TEXT_H
#define SLIDEOPS_UTIL_JSON_TEXT_H

#include <jansson.h>

/* NULL only on ENOMEM. */
json_t *json_text(const char *s);

#endif

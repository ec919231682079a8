// SPDX-License-Identifier: MIT
/* A server's name: normalized, and compared by how it looks (server_name.h). */
#include "util/server_name.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

/* UTF-16 units a name may take on its way (a 255-byte name is at most 255 units; NFC
 * may grow it a little). */
#define UNITS 1024

/* Dropped from a name: what shows as nothing, or moves what is around it. */
static bool dropped(UChar32 c)
{
	int8_t type = u_charType(c);

	return type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_LINE_SEPARATOR ||
	       type == U_PARAGRAPH_SEPARATOR || type == U_UNASSIGNED ||
	       u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
}

char *server_name__normalize(const char *given)
{
	UChar in[UNITS], kept[UNITS], nfc[UNITS];
	UErrorCode err = U_ZERO_ERROR;
	const UNormalizer2 *norm = unorm2_getNFCInstance(&err);
	int32_t len = 0, n = 0, out_len = 0;
	char *out;

	if (U_FAILURE(err)) {
		errno = ENOMEM;
		return NULL;
	}
	/* Cut at what a name may hold before anything else: the rest never mattered. */
	u_strFromUTF8WithSub(in, UNITS, &len, given, (int32_t)strnlen(given, 4 * SERVER_NAME_MAX),
			     0xfffd, NULL, &err);
	if (U_FAILURE(err) || len > UNITS)
		len = 0;
	err = U_ZERO_ERROR;
	for (int32_t i = 0; i < len;) {
		UChar32 c;

		U16_NEXT(in, i, len, c);
		if (dropped(c))
			continue;
		/* Every kind of space is one space, none leading, none twice. */
		if (u_isUWhiteSpace(c)) {
			if (n && kept[n - 1] != ' ')
				kept[n++] = ' ';
			continue;
		}
		U16_APPEND_UNSAFE(kept, n, c);
	}
	while (n && kept[n - 1] == ' ')
		n--;
	n = unorm2_normalize(norm, kept, n, nfc, UNITS, &err);
	if (U_FAILURE(err) || n == 0) {
		errno = EINVAL;
		return NULL;
	}
	out = malloc(4 * (size_t)n + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	u_strToUTF8(out, 4 * n + 1, &out_len, nfc, n, &err);
	if (U_FAILURE(err)) {
		free(out);
		errno = EINVAL;
		return NULL;
	}
	/* At most SERVER_NAME_MAX bytes, cut before a character, never inside one. */
	if (out_len > SERVER_NAME_MAX) {
		out_len = SERVER_NAME_MAX;
		while (out_len && ((unsigned char)out[out_len] & 0xc0) == 0x80)
			out_len--;
		out[out_len] = '\0';
	}
	return out;
}

static char *skeleton_with(const USpoofChecker *sc, const char *name)
{
	UErrorCode err = U_ZERO_ERROR;
	int32_t len = uspoof_getSkeletonUTF8(sc, 0, name, -1, NULL, 0, &err);
	char *out = NULL;

	if (err == U_BUFFER_OVERFLOW_ERROR) {
		err = U_ZERO_ERROR;
		out = malloc((size_t)len + 1);
		if (out)
			uspoof_getSkeletonUTF8(sc, 0, name, -1, out, len + 1, &err);
	}
	if (!out || U_FAILURE(err)) {
		free(out);
		errno = out ? EINVAL : ENOMEM;
		return NULL;
	}
	return out;
}

char *server_name__skeleton(const char *name)
{
	UErrorCode err = U_ZERO_ERROR;
	USpoofChecker *sc = uspoof_open(&err);
	char *out;

	if (U_FAILURE(err)) {
		errno = ENOMEM;
		return NULL;
	}
	out = skeleton_with(sc, name);
	uspoof_close(sc);
	return out;
}

static bool taken_by(const char *skeleton, char *const *skeletons, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (skeletons[i] && strcmp(skeletons[i], skeleton) == 0)
			return true;
	return false;
}

char *server_name__pick(const char *given, char *const *taken, size_t n)
{
	char **skeletons = calloc(n ? n : 1, sizeof(*skeletons));
	size_t size = strlen(given) + 16;
	char *name = malloc(size), *picked = NULL;
	UErrorCode uerr = U_ZERO_ERROR;
	USpoofChecker *sc = uspoof_open(&uerr);
	int err = EEXIST;

	if (!skeletons || !name || U_FAILURE(uerr)) {
		err = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		skeletons[i] = skeleton_with(sc, taken[i]);
	for (int i = 1; i <= SERVER_NAME_TRIES; i++) {
		char *skeleton;

		if (i == 1)
			snprintf(name, size, "%s", given);
		else
			snprintf(name, size, "%s-%d", given, i);
		skeleton = skeleton_with(sc, name);
		if (!skeleton) {
			err = errno;
			break;
		}
		if (!taken_by(skeleton, skeletons, n)) {
			free(skeleton);
			picked = name;
			name = NULL;
			break;
		}
		free(skeleton);
	}
out:
	if (!U_FAILURE(uerr))
		uspoof_close(sc);
	for (size_t i = 0; skeletons && i < n; i++)
		free(skeletons[i]);
	free(skeletons);
	free(name);
	if (!picked)
		errno = err;
	return picked;
}

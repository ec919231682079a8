// SPDX-License-Identifier: MIT
/*
 * Numbers for people, rounded the way the answers promise (architecture.md). See format.h.
 * web/ui/format.js is the same rule for the web UI, and tests/format_cases.tsv the one
 * table of cases both are checked against (tests/unit/util/test_format.c,
 * tests/web/format.test.mjs): a change here is a change there.
 *
 * Every rounding is half away from zero, done on the number itself (llround, or integer
 * arithmetic on nanoseconds), never by printf's "%.1f", which rounds an exact tie (0.25)
 * to even and so would read differently from JavaScript's toFixed.
 */
#include "util/format.h"

#include <math.h>
#include <string.h>

#include "util/messages.h"

void format_percent(double share, char *buf, size_t size)
{
	double pct = share * 100.0;

	if (!(pct > 0))
		msg_format(buf, size, MSG_FMT_PERCENT, 0LL);
	else if (pct < 1.0)
		msg_format(buf, size, MSG_FMT_PERCENT_SMALL);
	else
		msg_format(buf, size, MSG_FMT_PERCENT, (long long)llround(pct));
}

void format_percent_tenths(double share, char *buf, size_t size)
{
	double pct = share * 100.0;
	long long tenths;

	if (!(pct > 0)) {
		msg_format(buf, size, MSG_FMT_PERCENT, 0LL);
		return;
	}
	if (pct < 0.1) {
		msg_format(buf, size, MSG_FMT_PERCENT_TENTHS_SMALL);
		return;
	}
	tenths = llround(pct * 10.0);
	if (tenths < 100)
		msg_format(buf, size, MSG_FMT_PERCENT_TENTHS, (double)tenths / 10.0);
	else
		msg_format(buf, size, MSG_FMT_PERCENT, (long long)llround(pct));
}

void format_points(double delta, char *buf, size_t size)
{
	long long pts = llround(delta * 100.0);

	msg_format(buf, size, MSG_FMT_POINTS, pts);
}

int64_t format_whole_seconds(uint64_t ns)
{
	return (int64_t)((ns + 500000000ULL) / 1000000000ULL);
}

void format_duration(uint64_t ns, char *buf, size_t size)
{
	int64_t s = format_whole_seconds(ns);

	if (s == 1)
		msg_format(buf, size, MSG_FMT_ONE_SECOND);
	else
		msg_format(buf, size, MSG_FMT_SECONDS, (long long)s);
}

void format_seconds(int64_t ns, char *buf, size_t size)
{
	/* Tenths while they mean something, whole seconds once they do not. */
	if (ns >= 99950000000LL)
		msg_format(buf, size, MSG_FMT_SECONDS_WHOLE,
			   (long long)((ns + 500000000LL) / 1000000000LL));
	else if (ns >= 95000000LL)
		msg_format(buf, size, MSG_FMT_SECONDS_TENTHS,
			   (double)((ns + 50000000LL) / 100000000LL) / 10.0);
	else if (ns >= 500000LL)
		msg_format(buf, size, MSG_FMT_MILLISECONDS, (long long)((ns + 500000LL) / 1000000LL));
	else if (ns > 0)
		msg_format(buf, size, MSG_FMT_MILLISECONDS_SMALL);
	else
		msg_format(buf, size, MSG_FMT_SECONDS_WHOLE, 0LL);
}

void format_bytes(int64_t bytes, char *buf, size_t size)
{
	double b = (double)bytes;

	if (bytes < 1024)
		msg_format(buf, size, MSG_FMT_BYTES, (long long)bytes);
	else if (b < 1024.0 * 1023.5)
		msg_format(buf, size, MSG_FMT_KILOBYTES, (long long)llround(b / 1024.0));
	else if (b < 1024.0 * 1024.0 * 1023.5)
		msg_format(buf, size, MSG_FMT_MEGABYTES, (long long)llround(b / 1048576.0));
	else
		msg_format(buf, size, MSG_FMT_GIGABYTES,
			   (double)llround(b / 1073741824.0 * 10.0) / 10.0);
}

void format_value(int64_t value, const char *unit, char *buf, size_t size)
{
	if (unit && strcmp(unit, "nanoseconds") == 0)
		format_seconds(value, buf, size);
	else if (unit && strcmp(unit, "bytes") == 0)
		format_bytes(value, buf, size);
	else
		msg_format(buf, size, MSG_FMT_COUNT, (long long)value);
}

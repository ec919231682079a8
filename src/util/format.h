/* SPDX-License-Identifier: MIT */
/*
 * How numbers are written for people: integer percents ("54%", "<1%"), durations
 * ("30 seconds", "12.4 s"), sizes ("212 MB"), and a value in its profile unit. Every
 * word comes from the message table; these only pick which message and round. The web
 * UI writes numbers by the same rule (web/ui/format.js), and tests/format_cases.tsv is
 * the one table of cases both are checked against.
 */
#ifndef SLIDEOPS_UTIL_FORMAT_H
#define SLIDEOPS_UTIL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FORMAT_MAX 64

/* share 0.54 -> "54%"; anything above 0 and under 1% -> "<1%"; 0 -> "0%". */
void format_percent(double share, char *buf, size_t size);
/* A share that is often small (an idle server's use, a flame graph's box), to a tenth of
 * a percent under 10%: 0.008 -> "0.8%", above 0 and under 0.1% -> "<0.1%", 0.54 -> "54%". */
void format_percent_tenths(double share, char *buf, size_t size);
/* A change of share in percentage points: "+16", "-3", "+0". */
void format_points(double delta, char *buf, size_t size);
/* A capture's length, rounded to whole seconds: "1 second", "30 seconds". */
void format_duration(uint64_t ns, char *buf, size_t size);
/* An amount of time: "12.4 s", "312 s", "45 ms", "<1 ms". */
void format_seconds(int64_t ns, char *buf, size_t size);
/* An amount of memory, binary multiples: "512 bytes", "3 kB", "212 MB", "1.5 GB". */
void format_bytes(int64_t bytes, char *buf, size_t size);
/* A value of a profile's unit ("nanoseconds", "bytes", "count"). */
void format_value(int64_t value, const char *unit, char *buf, size_t size);
/* Whole seconds of a duration, rounded half up. */
int64_t format_whole_seconds(uint64_t ns);

#endif

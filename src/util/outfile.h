/* SPDX-License-Identifier: MIT */
/*
 * Writing a view to a file the way the store writes profiles: into a temporary file
 * beside it, flushed to disk, then renamed, so nobody opens half a flame graph. "-" is
 * standard output (for pipes: `slideops show ID --export folded - | flamegraph.pl`), and
 * a special file (/dev/null, a FIFO) is written in place (file__write_output).
 */
#ifndef SLIDEOPS_UTIL_OUTFILE_H
#define SLIDEOPS_UTIL_OUTFILE_H

#include <stdio.h>

/* Calls write(ctx, file) and puts the file in place when it returns 0. 0 or -errno. */
int outfile__write(const char *path, int (*write)(const void *ctx, FILE *out), const void *ctx);

#endif

// SPDX-License-Identifier: MIT
/*
 * What a guarded read's caller (guarded_read.c) and its reader (guarded_read_reader.c)
 * say to each other over the reader's socket: one request, then hello, opened and done;
 * and the descriptors the reader is exec'd with.
 */
#ifndef SLIDEOPS_CAPTURE_GUARDED_READ_PROTOCOL_H
#define SLIDEOPS_CAPTURE_GUARDED_READ_PROTOCOL_H

#include <limits.h>
#include <stdint.h>

#define GR_VERSION 1
#define GR_PATHS 2
/* The reader's descriptors: its socket and the copy. */
#define GR_SOCK_FD 3
#define GR_COPY_FD 4

enum gr_kind { GR_HELLO = 1, GR_OPENED, GR_DONE };

struct gr_request {
	uint32_t version, npaths;
	uint64_t dev, ino, max_bytes;
	char paths[GR_PATHS][PATH_MAX];
};

struct gr_message {
	uint32_t kind;
	int32_t err;    /* GR_DONE: 0 or -errno */
	uint64_t size;  /* GR_OPENED, GR_DONE: the file's, as its reader found it */
};

#endif

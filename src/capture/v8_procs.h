/* SPDX-License-Identifier: MIT */
/*
 * The processes of a capture that run V8 (Node.js): found by the unwind worker, as JVMs
 * are (jvm_procs.h), in the executable mappings it is handed (a node binary or a
 * libnode that exports V8's postmortem constants, src/unwind/v8.h); their code ranges
 * read from /proc/PID/maps (each isolate's reservation around its executable anonymous
 * memory); their struct v8_proc written to the BPF map v8_procs, from which the native
 * walker sends each JavaScript frame as its JSFunction (bpf/v8_frames.h). The sampling
 * side names the JSFunctions those frames carry (v8_procs__function_name), reading the
 * process's memory through the kernel (the JVMs' page reader, capture/jvm_memory.h). A
 * node whose layout could not be read keeps its one [JavaScript] frame, and its refusal
 * is kept for the profile.
 *
 * Two threads: the worker adds and removes, the sampling thread names; a mutex between.
 */
#ifndef SLIDEOPS_CAPTURE_V8_PROCS_H
#define SLIDEOPS_CAPTURE_V8_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/jvm_procs.h" /* jvm_memory_reader_fn: the one reader of both */
#include "unwind/v8.h"

struct unwinding_mapping;
struct v8_procs;
struct profile;

/* Node processes a capture keeps; past it, exited ones make room. */
#define V8_PROCS_MAX 1024

/* Over the BPF map v8_procs (descriptor not owned); the reader asked of reader(ctx) when
 * the first node is met, as jvm_procs__new's. NULL with errno. */
struct v8_procs *v8_procs__new(int map_fd, jvm_memory_reader_fn reader, void *ctx);
void v8_procs__free(struct v8_procs *vp);

/* Worker side: looks for a V8 binary in pid's executable mappings and, when found,
 * reads its layout and code ranges and writes its record in the map (or keeps why not). */
void v8_procs__add_process(struct v8_procs *vp, int pid, const struct unwinding_mapping *maps,
			   size_t n);
/* pid exited or exec'd: its record goes from the map (its names stay until the end). */
void v8_procs__remove_process(struct v8_procs *vp, int pid);

/* Sampling side: the name of the JSFunction at fn (a tagged pointer) in pid into buf
 * (V8_MAX_NAME bytes; "(anonymous)" for a function without one), and its script's name
 * into script (V8_MAX_SCRIPT bytes; "" when it has none or it could not be read) and the
 * line it starts at into *line (0 when not found: its script's line ends, read once a
 * script, v8_script__line_ends), unless script is NULL. 0, -ENOENT (pid's layout is not
 * known), -EINVAL (what the frame held is no JSFunction, read twice), or the reader's
 * error (of the name: the script and line are extra). */
int v8_procs__function_name(struct v8_procs *vp, int pid, uint64_t fn, char *buf,
			    char *script, int32_t *line);

/* A JavaScript frame's function as v8_procs__frames names it. */
struct v8_named {
	char name[V8_MAX_NAME];	    /* "(anonymous)" for a function without one */
	char script[V8_MAX_SCRIPT]; /* "" when it has none or it could not be read */
	int32_t line;		    /* the line the frame is at: its first when not known */
	int32_t first;		    /* the line it starts at; 0 when not found */
	bool at_line;		    /* line is where the frame was, not the function's first */
};

/*
 * Sampling side: the functions of pid's frame of the JSFunction fn at pc (leaf: the
 * interrupted instruction, else a return address) into out (at most max), innermost
 * first: each TurboFan inlined at that place, then fn's own, each at the line the place
 * is at (v8_code__positions, the lines from v8_script__line_ends). The count, or 0 where
 * the place is not read (interpreted code, code since replaced, a V8 that does not say):
 * the caller keeps fn as v8_procs__function_name names it, at its first line.
 */
int v8_procs__frames(struct v8_procs *vp, int pid, uint64_t fn, uint64_t pc, bool leaf,
		     struct v8_named *out, unsigned max);

/* Node processes whose walk began so far (each add that wrote its record), to tell
 * when a new one did: its functions are new, and the drain names them sooner. */
uint32_t v8_procs__added(struct v8_procs *vp);

/* Node processes whose JavaScript frames are walked, and those refused. */
uint32_t v8_procs__count(struct v8_procs *vp, uint32_t *refused);

/* Each refused node into p's binaries not read: its binary, "process PID: why".
 * 0 or -ENOMEM. */
int v8_procs__refusals(struct v8_procs *vp, struct profile *p);

#endif

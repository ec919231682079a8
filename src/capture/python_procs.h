/* SPDX-License-Identifier: MIT */
/*
 * The processes of a capture that run CPython: found by the unwind worker (off the
 * sampling path) in the executable mappings it is handed, told to the BPF side
 * (python_procs, a map by tgid: bpf/python_frames.h), and told to the sampling side,
 * which needs to know which native frames are the evaluator's (_PyEval_EvalFrameDefault)
 * to put Python frames in their place.
 *
 * Two threads: the worker adds and removes, the sampling thread looks up; a mutex
 * between them. A process gets its Python frames only once the worker wrote its entry,
 * so every sample that carries Python frames finds its process here.
 */
#ifndef SLIDEOPS_CAPTURE_PYTHON_PROCS_H
#define SLIDEOPS_CAPTURE_PYTHON_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct unwinding_mapping;
struct python_procs;

/* What the sampling side needs of one process running CPython. */
struct python_procs_entry {
	int pid;
	dev_t dev;       /* the CPython binary (executable or libpython) */
	uint64_t ino;
	/* _PyEval_EvalFrameDefault as file offsets of that binary; 0, 0: not known */
	uint64_t eval_start, eval_end;
	unsigned minor;  /* 3.minor */
};

/* Over the BPF map python_procs (descriptor not owned). NULL with errno set. */
struct python_procs *python_procs__new(int map_fd);
void python_procs__free(struct python_procs *pp);

/*
 * Worker side. Looks for CPython in pid's executable mappings (each binary read once per
 * capture, by file identity) and, when found, writes the process's entry in the map.
 * Mappings without a path or a descriptor are skipped.
 */
void python_procs__add_process(struct python_procs *pp, int pid,
			       const struct unwinding_mapping *maps, size_t n);
/* pid exited or exec'd: its entry goes. */
void python_procs__remove_process(struct python_procs *pp, int pid);

/* Sampling side: pid's entry, when it runs CPython. */
bool python_procs__find(struct python_procs *pp, int pid, struct python_procs_entry *out);

/* Processes found running CPython so far. */
uint32_t python_procs__count(struct python_procs *pp);

#endif

// SPDX-License-Identifier: MIT
/*
 * One stack from a sample's native frames and its Python frames (python.h): each native
 * frame of _PyEval_EvalFrameDefault is replaced by the Python frames that evaluation ran,
 * so a C extension called from Python sits under its Python caller and Python called
 * back from C sits under that C. Pure: the engine says which native frames are the
 * evaluator's (by address, from python_binary's eval range).
 */
#include "unwind/python.h"

size_t python__interleave(const bool *is_eval, size_t nnative, const struct python_stack *py,
			  struct python_mixed *out, size_t max)
{
	size_t n = 0, next = 0, npy = py ? py->nframes : 0;

	if (npy > PYTHON_MAX_FRAMES)
		npy = PYTHON_MAX_FRAMES;
	for (size_t i = 0; i < nnative && n < max; i++) {
		if (!is_eval[i] || next >= npy) {
			out[n++] = (struct python_mixed){ .python = false, .index = (uint32_t)i };
			continue;
		}
		/* This evaluation's frames: up to and including its entry frame. */
		while (next < npy && n < max) {
			bool entry = py->frames[next].flags & PYTHON_FRAME_ENTRY;

			out[n++] = (struct python_mixed){ .python = true,
							  .index = (uint32_t)next++ };
			if (entry)
				break;
		}
	}
	/* The native stack ended before the evaluations did (cut short, or unwound no
	 * further): their frames still belong to the sample, at its root end. */
	while (next < npy && n < max)
		out[n++] = (struct python_mixed){ .python = true, .index = (uint32_t)next++ };
	return n;
}

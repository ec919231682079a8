// SPDX-License-Identifier: MIT
/*
 * CPython's layouts by version (python.h): where the walker finds a thread's frames and a
 * frame's code, and how much of each it reads. Constant data, sized once.
 */
#include "unwind/python.h"

#define NONE PYTHON_NONE

/*
 * One row per version, from CPython's own headers at that version (offsetof over the
 * installed Include/internal/pycore_*.h, default build: no Py_DEBUG, GIL). Checked
 * against running interpreters by tests/unit/unwind/test_python.c; 3.11's match
 * docs/kernel.md §CPython; 3.13's match its _Py_DebugOffsets, which are used instead
 * whenever the binary has them.
 */
static const struct python_offsets offsets[] = {
	/* 3.6 has no _PyRuntime: "runtime" is the address of pystate.c's static interp_head
	 * (python_binary.c), the list's head at offset 0. */
	{
		.version = 0x0306,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 112,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 0,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 152,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 120,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 104,
		.code_qualname = NONE,
		.code_filename = 96,
		.code_firstlineno = 36,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x0307,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 112,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 24,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 104,
		.code_qualname = NONE,
		.code_filename = 96,
		.code_firstlineno = 36,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x0308,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x0309,
		.line_kind = PYTHON_LINES_LNOTAB,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_BYTES,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 104,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030a,
		.line_kind = PYTHON_LINES_310,
		.code_linetable = 120,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_OBJECT,
		.instr_kind = PYTHON_INSTR_LASTI_UNITS,
		.owner_cstack = 0xff,
		.runtime_interpreters_head = 32,
		.interp_next = 0,
		.interp_threads_head = 8,
		.tstate_next = 8,
		.tstate_thread_id = 176,
		.tstate_native_thread_id = NONE,
		.tstate_frame = 24,
		.cframe_current_frame = NONE,
		.frame_previous = 24,
		.frame_code = 32,
		.frame_instr = 96,
		.frame_owner = NONE,
		.frame_is_entry = NONE,
		.code_name = 112,
		.code_qualname = NONE,
		.code_filename = 104,
		.code_firstlineno = 40,
		.code_adaptive = NONE,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030b,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_CFRAME,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 0xff, /* 3.11 marks entry frames with is_entry instead */
		.runtime_interpreters_head = 40,
		.interp_next = 0,
		.interp_threads_head = 16,
		.tstate_next = 8,
		.tstate_thread_id = 152,
		.tstate_native_thread_id = 160,
		.tstate_frame = 56,
		.cframe_current_frame = 8,
		.frame_previous = 48,
		.frame_code = 32,
		.frame_instr = 56,
		.frame_owner = 69,
		.frame_is_entry = 68,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 72,
		.code_adaptive = 184,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 48,
		.unicode_compact_data = 72,
	},
	{
		.version = 0x030c,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_CFRAME,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 3,
		.runtime_interpreters_head = 40,
		.interp_next = 0,
		.interp_threads_head = 72,
		.tstate_next = 8,
		.tstate_thread_id = 136,
		.tstate_native_thread_id = 144,
		.tstate_frame = 56,
		.cframe_current_frame = 0,
		.frame_previous = 8,
		.frame_code = 0,
		.frame_instr = 56,
		.frame_owner = 70,
		.frame_is_entry = NONE,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 68,
		.code_adaptive = 192,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 40,
		.unicode_compact_data = 56,
	},
	{
		.version = 0x030d,
		.line_kind = PYTHON_LINES_LOCATIONS,
		.code_linetable = 136,
		.bytes_size = 16,
		.bytes_data = 32,
		.frames_kind = PYTHON_FRAMES_DIRECT,
		.instr_kind = PYTHON_INSTR_POINTER,
		.owner_cstack = 3,
		.runtime_interpreters_head = 632,
		.interp_next = 7264,
		.interp_threads_head = 7344,
		.tstate_next = 8,
		.tstate_thread_id = 152,
		.tstate_native_thread_id = 160,
		.tstate_frame = 72,
		.cframe_current_frame = NONE,
		.frame_previous = 8,
		.frame_code = 0,
		.frame_instr = 56,
		.frame_owner = 70,
		.frame_is_entry = NONE,
		.code_name = 120,
		.code_qualname = 128,
		.code_filename = 112,
		.code_firstlineno = 68,
		.code_adaptive = 200,
		.unicode_state = 32,
		.unicode_length = 16,
		.unicode_ascii_data = 40,
		.unicode_compact_data = 56,
	},
};

/* Rows with their windows sized: the table above says only where fields are. */
static struct python_offsets sized[sizeof(offsets) / sizeof(offsets[0])];
static bool sized_done;

static unsigned words_to_cover(unsigned words, uint16_t off, unsigned size)
{
	unsigned need;

	if (off == NONE)
		return words;
	need = ((unsigned)off + size + 7) / 8;
	return need > words ? need : words;
}

/* The window sizes the walker reads: every field it takes from one, and no more. false
 * when a field lies beyond the largest window (the walker would refuse the row). */
bool python_offsets__size_windows(struct python_offsets *o)
{
	unsigned t = 0, f = 0;

	t = words_to_cover(t, o->tstate_next, 8);
	t = words_to_cover(t, o->tstate_frame, 8);
	t = words_to_cover(t, o->tstate_thread_id, 8);
	t = words_to_cover(t, o->tstate_native_thread_id, 4);
	f = words_to_cover(f, o->frame_previous, 8);
	f = words_to_cover(f, o->frame_code, 8);
	f = words_to_cover(f, o->frame_instr, 8);
	f = words_to_cover(f, o->frame_owner, 1);
	f = words_to_cover(f, o->frame_is_entry, 1);
	o->tstate_words = (uint8_t)t;
	o->frame_words = (uint8_t)f;
	return t <= PYTHON_WINDOW_WORDS && f <= PYTHON_WINDOW_WORDS;
}

const struct python_offsets *python_offsets__for(unsigned minor)
{
	/* Pure function of constant data: racing first calls write the same bytes. */
	if (!sized_done) {
		for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
			sized[i] = offsets[i];
			python_offsets__size_windows(&sized[i]);
		}
		sized_done = true;
	}
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		if (sized[i].version == (0x0300 | minor))
			return &sized[i];
	}
	return NULL;
}

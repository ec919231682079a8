/* SPDX-License-Identifier: MIT */
/*
 * The CPython frame walker, plain C that compiles for BPF (clang -target bpf) and for the
 * host (tests, over /proc/PID/mem). Given a process's struct python_proc (python_records.h)
 * and the sampled thread, it finds that thread's thread state (any thread, not only the
 * GIL holder) and walks its frame chain, newest first.
 *
 * Cost per sample, which is what the BPF side pays: with a good hint (the thread state
 * this thread had last time), one read of the thread state, one more for 3.11-3.12's
 * cframe, then one read per frame: each thread state and frame is read as one window of
 * 8-byte words and its fields taken from the copy, since a helper call costs far more than
 * the bytes it copies. Names are not read per sample: python_walk__code reads a code
 * object's once, for user space to cache.
 *
 * Every loop is bounded by a constant, every index into a window is masked, and a read
 * that fails ends the walk with a reason (enum python_exit): hostile or torn memory (the
 * interpreter runs while we read it) gives a short stack, never a wrong access.
 *
 * Before including: on BPF, vmlinux.h and bpf_helpers.h. On the host, nothing: reads go
 * through struct python_reader.
 */
#ifndef SLIDEOPS_BPF_PYTHON_WALK_H
#define SLIDEOPS_BPF_PYTHON_WALK_H

#include "python_records.h"

#ifdef __bpf__
#define PYTHON_FN static __always_inline
#else
#define PYTHON_FN static inline
#endif

/*
 * Host reads. BPF reads the current task's memory with bpf_probe_read_user and passes
 * NULL; a sleepable program that walks other tasks (the threads question's task
 * iterator, wall's sweep) passes a reader whose ctx is the task (read unused): reads are
 * then bpf_copy_from_user_task, which also pages memory in.
 */
struct python_reader {
	int (*read)(void *ctx, void *dst, __u32 size, __u64 addr); /* 0 or -errno */
	void *ctx;
};

/*
 * Scratch space for one walk (a per-CPU map value on BPF: too big for its stack), and
 * what changes from one step of a loop to the next. Kept here, in memory the verifier
 * reads back as unknown numbers, not in the loop's context on the BPF stack: there a
 * count used as an index made each step's state new to the verifier, which then checked
 * the step's body once per value (docs/kernel.md).
 */
struct python_scratch {
	__u64 win[PYTHON_WINDOW_WORDS];
	/* the thread search */
	__u64 t_interp, t_ts, t_found;
	__u32 t_interps;
	__u16 t_exit;
	__u16 pad;
	/* the frame walk */
	__u64 f_frame;
	__u32 f_n;
	__u32 pad2;
};

PYTHON_FN int python__read(const struct python_reader *rd, void *dst, __u32 size, __u64 addr)
{
	if (!addr)
		return -1;
#ifdef __bpf__
	/* rd is a constant NULL wherever the current task is read: the verifier never
	 * follows the branch that would sleep in a program that may not. */
	if (rd)
		return bpf_copy_from_user_task(dst, size, (const void *)(unsigned long)addr,
					       (struct task_struct *)rd->ctx, 0);
	return bpf_probe_read_user(dst, size, (const void *)(unsigned long)addr);
#else
	return rd->read(rd->ctx, dst, size, addr);
#endif
}

/* v & mask, where the verifier can see it: the compiler may not drop the mask as
 * redundant with a bound it proved, since the verifier does not prove it again. */
PYTHON_FN __u32 python__bound(__u32 v, __u32 mask)
{
#ifdef __bpf__
	asm volatile("" : "+r"(v));
#endif
	return v & mask;
}

/* Reads words 8-byte words at addr into the window. */
PYTHON_FN int python__window(const struct python_reader *rd, struct python_scratch *s,
			     __u64 addr, __u32 words)
{
	__u32 size = words * 8;

	if (size > sizeof(s->win) || size == 0)
		return -1;
	return python__read(rd, s->win, size, addr);
}

/* The field of size bytes (1, 4, 8) at byte offset off of the window (little-endian). */
PYTHON_FN __u64 python__field(const struct python_scratch *s, __u16 off, __u32 size)
{
	__u64 w = s->win[(off >> 3) & (PYTHON_WINDOW_WORDS - 1)] >> ((off & 7) * 8);

	if (size == 1)
		return w & 0xff;
	if (size == 4)
		return w & 0xffffffffull;
	return w;
}

PYTHON_FN int python__u64(const struct python_reader *rd, __u64 addr, __u64 *v)
{
	return python__read(rd, v, sizeof(*v), addr);
}

/*
 * Calls fn(i, ctx) for i = 0 .. n - 1 until it returns non-zero. On BPF this is bpf_loop
 * (5.17+): the verifier checks fn once instead of once per iteration, which is what
 * keeps a walk of 128 thread states and 128 frames far below its instruction limit (as
 * plain bounded loops, the walk and the reading of names went past a million).
 */
#ifdef __bpf__
#define python__loop(n, fn, ctx) bpf_loop((n), (fn), (ctx), 0)
/*
 * Each loop body comes twice on BPF: fn reads the current task (its reader a constant
 * NULL, so the helper that may sleep is not even in it), fn_task reads through the walk's
 * reader. The verifier marks a global function as sleeping when any function it reaches
 * holds such a call, dead or not, and a sampling program may not call one: the walk of
 * the current task must reach none. rd is a constant where this is expanded, so the
 * compiler keeps one of the two.
 */
#define python__loop_rd(n, fn, rd, ctx) \
	((rd) ? python__loop((n), fn##_task, (ctx)) : python__loop((n), fn, (ctx)))
#define PYTHON_STEP(fn, body, type) \
	static long fn(__u32 i, void *ctx) \
	{ \
		(void)i; \
		return body((type *)ctx, NULL); \
	} \
	static long fn##_task(__u32 i, void *ctx) \
	{ \
		(void)i; \
		return body((type *)ctx, ((type *)ctx)->rd); \
	}
#else
PYTHON_FN long python__loop(__u32 n, long (*fn)(__u32 i, void *ctx), void *ctx)
{
	for (__u32 i = 0; i < n; i++) {
		if (fn(i, ctx))
			return i + 1;
	}
	return n;
}
#define python__loop_rd(n, fn, rd, ctx) python__loop((n), fn, (ctx))
#define PYTHON_STEP(fn, body, type) \
	static long fn(__u32 i, void *ctx) \
	{ \
		(void)i; \
		return body((type *)ctx, ((type *)ctx)->rd); \
	}
#endif

struct python__threads {
	const struct python_reader *rd;
	const struct python_proc *p;
	struct python_scratch *s;
	__u64 want;
	__u32 id_off, id_size;
};

/* One step of the thread search: the next thread state, or the next interpreter's
 * first one. Returns 1 to stop. Its state is in w->s (t_*). */
PYTHON_FN long python__thread_body(struct python__threads *w, const struct python_reader *rd)
{
	const struct python_offsets *o = &w->p->off;
	struct python_scratch *s = w->s;
	__u64 ts = s->t_ts;

	if (!ts) {
		__u64 interp = s->t_interp;

		if (!interp || s->t_interps >= PYTHON_MAX_INTERPRETERS) {
			s->t_exit = PYTHON_EXIT_NO_THREAD;
			return 1;
		}
		if (python__u64(rd, interp + o->interp_threads_head, &s->t_ts)) {
			s->t_exit = PYTHON_EXIT_READ;
			return 1;
		}
		if (python__u64(rd, interp + o->interp_next, &s->t_interp))
			s->t_interp = 0;
		s->t_interps++;
		return 0;
	}
	if (python__window(rd, s, ts, o->tstate_words)) {
		s->t_exit = PYTHON_EXIT_READ;
		return 1;
	}
	if (python__field(s, (__u16)w->id_off, w->id_size) == w->want) {
		s->t_found = ts;
		return 1;
	}
	s->t_ts = python__field(s, o->tstate_next, 8);
	return 0;
}

PYTHON_STEP(python__thread_step, python__thread_body, struct python__threads)

/*
 * The thread state of the thread whose kernel tid is tid (3.11+, native_thread_id) or
 * whose pthread_self() is pthread_id (3.8-3.10 keep no kernel tid: on x86-64 glibc and
 * musl it is the thread's fs base, task->thread.fsbase). hint, when not 0, is tried first.
 * Returns the address, or 0 with *exit set.
 */
PYTHON_FN __u64 python_walk__thread(const struct python_reader *rd, const struct python_proc *p,
				    __u32 tid, __u64 pthread_id, __u64 hint,
				    struct python_scratch *s, __u16 *exit)
{
	const struct python_offsets *o = &p->off;
	int native = o->tstate_native_thread_id != PYTHON_NONE;
	struct python__threads w = {
		.rd = rd, .p = p, .s = s,
		.want = native ? tid : pthread_id,
		.id_off = native ? o->tstate_native_thread_id : o->tstate_thread_id,
		.id_size = native ? 4 : 8,
	};

	*exit = PYTHON_EXIT_BAD;
	if (w.id_off + w.id_size > (__u32)o->tstate_words * 8 ||
	    (__u32)o->tstate_next + 8 > (__u32)o->tstate_words * 8)
		return 0;
	if (hint && python__window(rd, s, hint, o->tstate_words) == 0 &&
	    python__field(s, (__u16)w.id_off, w.id_size) == w.want)
		return hint;

	*exit = PYTHON_EXIT_READ;
	s->t_ts = 0;
	s->t_found = 0;
	s->t_interps = 0;
	if (python__u64(rd, p->runtime + o->runtime_interpreters_head, &s->t_interp))
		return 0;
	/* One step per interpreter too: the bound covers both. */
	s->t_exit = PYTHON_EXIT_NO_THREAD;
	python__loop_rd(PYTHON_MAX_THREADS + PYTHON_MAX_INTERPRETERS, python__thread_step, rd, &w);
	if (s->t_found)
		return s->t_found;
	*exit = s->t_exit;
	return 0;
}

/* The instruction a frame runs, in 2-byte code units from the start of the bytecode. */
PYTHON_FN __u32 python__instr(const struct python_offsets *o, const struct python_scratch *s,
			      __u64 code)
{
	__u64 ptr, start;
	__s32 lasti;

	switch (o->instr_kind) {
	case PYTHON_INSTR_LASTI_BYTES:
	case PYTHON_INSTR_LASTI_UNITS:
		lasti = (__s32)python__field(s, o->frame_instr, 4);
		if (lasti < 0)
			return PYTHON_NO_INSTR;
		return o->instr_kind == PYTHON_INSTR_LASTI_BYTES ? (__u32)lasti / 2 : (__u32)lasti;
	case PYTHON_INSTR_POINTER:
		ptr = python__field(s, o->frame_instr, 8);
		start = code + o->code_adaptive;
		/* 3.11-3.12 point at the previous instruction: one before the start at first */
		if (ptr + 2 < start || ptr - start > 0x7fffffffull)
			return PYTHON_NO_INSTR;
		return ptr < start ? 0 : (__u32)((ptr - start) / 2);
	}
	return PYTHON_NO_INSTR;
}

struct python__frames {
	const struct python_reader *rd;
	const struct python_proc *p;
	struct python_scratch *s;
	struct python_stack *out;
};

/* One frame: kept, or (3.12+ C-stack shim) marks the frame above it as an entry frame.
 * Returns 1 to stop, with out->exit set. Its state is in w->s (f_*). */
PYTHON_FN long python__frame_body(struct python__frames *w, const struct python_reader *rd)
{
	const struct python_offsets *o = &w->p->off;
	struct python_scratch *s = w->s;
	__u64 prev, code, frame = s->f_frame;
	__u32 n = s->f_n;
	struct python_frame *f;
	__u16 flags = 0;

	if (!frame) {
		w->out->exit = PYTHON_EXIT_OK;
		return 1;
	}
	if (n >= PYTHON_MAX_FRAMES)
		return 1; /* exit stays PYTHON_EXIT_DEPTH */
	if (python__window(rd, s, frame, o->frame_words)) {
		w->out->exit = PYTHON_EXIT_READ;
		return 1;
	}
	prev = python__field(s, o->frame_previous, 8);
	if (prev == frame) {
		w->out->exit = PYTHON_EXIT_BAD;
		return 1;
	}
	if (o->frames_kind == PYTHON_FRAMES_OBJECT) {
		flags = PYTHON_FRAME_ENTRY; /* one _PyEval_EvalFrameDefault per frame */
	} else {
		/* A shim the C stack owns (3.12+) starts one evaluation: the frame run
		 * above it is that evaluation's entry frame. */
		if (python__field(s, o->frame_owner, 1) == o->owner_cstack) {
			if (n > 0)
				w->out->frames[(n - 1) & (PYTHON_MAX_FRAMES - 1)].flags |=
					PYTHON_FRAME_ENTRY;
			s->f_frame = prev;
			return 0;
		}
		if (o->frame_is_entry != PYTHON_NONE && python__field(s, o->frame_is_entry, 1))
			flags = PYTHON_FRAME_ENTRY;
	}
	code = python__field(s, o->frame_code, 8);
	f = &w->out->frames[n & (PYTHON_MAX_FRAMES - 1)];
	f->code = code;
	f->instr = python__instr(o, s, code);
	f->flags = flags;
	f->pad = 0;
	s->f_n = n + 1;
	s->f_frame = prev;
	return 0;
}

PYTHON_STEP(python__frame_step, python__frame_body, struct python__frames)

/*
 * Walks the frame chain from top, the thread state's frame field (thread state ts), into
 * out, newest first. Returns the number of frames; out->exit says why it ended.
 */
PYTHON_FN __u32 python__frames(const struct python_reader *rd, const struct python_proc *p,
			       __u64 ts, __u64 top, struct python_scratch *s,
			       struct python_stack *out)
{
	const struct python_offsets *o = &p->off;
	__u32 window = (__u32)o->frame_words * 8;
	struct python__frames w = { .rd = rd, .p = p, .s = s, .out = out };

	out->tstate = ts;
	out->nframes = 0;
	out->exit = PYTHON_EXIT_BAD;
	if ((__u32)o->frame_previous + 8 > window || (__u32)o->frame_code + 8 > window ||
	    (__u32)o->frame_instr + 8 > window ||
	    (o->frame_owner != PYTHON_NONE && o->frame_owner >= window) ||
	    (o->frame_is_entry != PYTHON_NONE && o->frame_is_entry >= window))
		return 0;
	s->f_frame = top;
	s->f_n = 0;
	if (o->frames_kind == PYTHON_FRAMES_CFRAME && top &&
	    python__u64(rd, top + o->cframe_current_frame, &s->f_frame)) {
		out->exit = PYTHON_EXIT_READ;
		return 0;
	}
	/* Twice the frames kept: 3.12+ shims are walked but not kept. A chain still going
	 * after that ends as PYTHON_EXIT_DEPTH. */
	out->exit = PYTHON_EXIT_DEPTH;
	python__loop_rd(2 * PYTHON_MAX_FRAMES, python__frame_step, rd, &w);
	out->nframes = (__u16)(s->f_n > PYTHON_MAX_FRAMES ? PYTHON_MAX_FRAMES : s->f_n);
	return out->nframes;
}

/* Walks the frames of thread state ts (found earlier) into out. */
PYTHON_FN __u32 python_walk__frames(const struct python_reader *rd, const struct python_proc *p,
				    __u64 ts, struct python_scratch *s, struct python_stack *out)
{
	__u64 top = 0;

	if (python__u64(rd, ts + p->off.tstate_frame, &top)) {
		out->tstate = ts;
		out->nframes = 0;
		out->exit = PYTHON_EXIT_READ;
		return 0;
	}
	return python__frames(rd, p, ts, top, s, out);
}

/*
 * The whole walk for one sample: the thread state (hint first) and its frames. Returns
 * the number of frames; out->exit says why the walk ended.
 */
PYTHON_FN __u32 python_walk(const struct python_reader *rd, const struct python_proc *p,
			    __u32 tid, __u64 pthread_id, __u64 hint, struct python_scratch *s,
			    struct python_stack *out)
{
	__u16 exit = PYTHON_EXIT_READ;
	__u64 ts;

	out->nframes = 0;
	out->tstate = 0;
	ts = python_walk__thread(rd, p, tid, pthread_id, hint, s, &exit);
	if (!ts) {
		out->exit = exit;
		return 0;
	}
	/* The window still holds the thread state just matched. */
	if ((__u32)p->off.tstate_frame + 8 > (__u32)p->off.tstate_words * 8)
		return python_walk__frames(rd, p, ts, s, out);
	return python__frames(rd, p, ts, python__field(s, p->off.tstate_frame, 8), s, out);
}

/*
 * The data of a str object: its kind (1, 2, 4 bytes per character) and up to max bytes
 * of it into dst. Compact strings only: every identifier and file name CPython makes.
 * Returns the bytes copied, or -1.
 */
PYTHON_FN int python__string(const struct python_reader *rd, const struct python_offsets *o,
			     __u64 str, char *dst, __u32 max, __u8 *kind, int *cut)
{
	__u64 length = 0, data;
	__u32 state = 0, k, bytes;

	if (!str || python__u64(rd, str + o->unicode_length, &length) ||
	    python__read(rd, &state, sizeof(state), str + o->unicode_state))
		return -1;
	/* state: interned:2, kind:3, compact:1, ascii:1 (the same bits in 3.8-3.13) */
	k = (state >> 2) & 7;
	if (!(state & (1u << 5)) || (k != 1 && k != 2 && k != 4))
		return -1;
	data = str + ((state & (1u << 6)) ? o->unicode_ascii_data : o->unicode_compact_data);
	if (length > 0x10000000ull)
		return -1;
	/* At most max - 4 bytes (a whole number of characters), so that a mask with
	 * max - 1 bounds the read without changing it. */
	bytes = (__u32)length * k;
	*cut = bytes > max - 4;
	if (bytes > max - 4)
		bytes = max - 4 - (max - 4) % k;
	*kind = (__u8)k;
	bytes = python__bound(bytes, max - 1);
	if (bytes == 0)
		return 0;
	if (python__read(rd, dst, bytes, data))
		return -1;
	return (int)bytes;
}

/* The first bytes of a code object's line table (a bytes object), for user space to
 * tell lines by. */
PYTHON_FN void python__table(const struct python_reader *rd, const struct python_offsets *o,
			     __u64 code, struct python_code *out)
{
	__u64 table = 0, size = 0;
	__u32 bytes;

	out->line_kind = o->line_kind;
	out->table_bytes = 0;
	if (o->code_linetable == PYTHON_NONE || python__u64(rd, code + o->code_linetable, &table) ||
	    !table || python__u64(rd, table + o->bytes_size, &size))
		return;
	/* At most PYTHON_TABLE_LEN - 4, so the mask bounds the read without changing it. */
	bytes = size > PYTHON_TABLE_LEN - 4 ? PYTHON_TABLE_LEN - 4 : (__u32)size;
	if (size > PYTHON_TABLE_LEN - 4)
		out->flags |= PYTHON_CODE_TABLE_CUT;
	bytes = python__bound(bytes, PYTHON_TABLE_LEN - 1);
	if (bytes && python__read(rd, out->table, bytes, table + o->bytes_data) == 0)
		out->table_bytes = (__u16)bytes;
}

/* Reads a code object's names, first line and line table into out (fields it cannot
 * read say so). */
PYTHON_FN void python_walk__code(const struct python_reader *rd, const struct python_offsets *o,
				 __u64 code, struct python_code *out)
{
	__u64 name = 0, file = 0;
	__s32 first = 0;
	int n, cut = 0;

	out->code = code;
	out->flags = 0;
	out->firstlineno = 0;
	out->name_bytes = out->file_bytes = 0;
	out->name_kind = out->file_kind = 1;
	out->pad = 0;
	if (python__read(rd, &first, sizeof(first), code + o->code_firstlineno) == 0)
		out->firstlineno = first;
	if (o->code_qualname == PYTHON_NONE ||
	    python__u64(rd, code + o->code_qualname, &name) || !name)
		python__u64(rd, code + o->code_name, &name);
	n = python__string(rd, o, name, out->name, PYTHON_NAME_LEN, &out->name_kind, &cut);
	if (n < 0)
		out->flags |= PYTHON_CODE_NO_NAME;
	else
		out->name_bytes = (__u16)n;
	if (cut)
		out->flags |= PYTHON_CODE_NAME_CUT;
	cut = 0;
	python__u64(rd, code + o->code_filename, &file);
	n = python__string(rd, o, file, out->file, PYTHON_FILE_LEN, &out->file_kind, &cut);
	if (n < 0)
		out->flags |= PYTHON_CODE_NO_FILE;
	else
		out->file_bytes = (__u16)n;
	if (cut)
		out->flags |= PYTHON_CODE_FILE_CUT;
	python__table(rd, o, code, out);
}

#endif

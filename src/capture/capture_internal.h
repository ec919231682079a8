/* SPDX-License-Identifier: MIT */
/* What the engine's parts (session, loader, questions, check) share inside src/capture/. */
#ifndef SLIDEOPS_CAPTURE_INTERNAL_H
#define SLIDEOPS_CAPTURE_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "records.h"

struct bpf_object;
struct ring_buffer;
struct processes;
struct cgroups;
struct unwind_maps_plan;

/* libbpf's own messages go to stderr only with SLIDEOPS_DEBUG set: a refused load is
 * explained by our message, and `check` probes features that may well be missing. */
void capture__quiet_libbpf(void);
bool capture__debug(void);

/* Root, or CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in the effective set. detail
 * says who we run as and, when not enough, what is missing. */
bool capture__privileged(char *detail, size_t size);

/* The online CPUs (/sys/devices/system/cpu/online): malloc'd ids into *cpus. */
int capture__online_cpus(int **cpus, int *n);

/* A cpu-clock perf event on one CPU for every task (pid -1), sampling at hz. fd or -errno. */
int capture__open_cpu_clock(int cpu, unsigned hz);

/* ---- loading a question's BPF object ---- */

struct capture_question;

/*
 * What the running kernel offers that the questions' programs have variants for, learnt
 * once by loading bpf/features.bpf.c's programs (docs/kernel.md: which kernels have
 * what). SLIDEOPS_KERNEL_LACKS=NAME,... pretends the named ones are missing (the names
 * below), to run a newer kernel as an older one would be run.
 */
struct kernel_features {
	bool exit_group_dead; /* sched_process_exit(task, group_dead), before exit_mm() */
	bool task_vmas;       /* the task vma iterator (6.7) */
	bool trusted_args;    /* a kernel pointer as a global function's argument (6.8) */
	bool rss_stat_count;  /* rss_stat(mm, member, count): counters not per-CPU (< 6.2) */
	bool loop;            /* bpf_loop (5.17): Python frames, the executable's path */
	/* Which build of a question's programs to load (docs/kernel.md): the loader asks for
	 * the smaller one when the kernel refuses the full one. */
	enum bpf_walker {
		BPF_WALKER_FULL,           /* unwind tables, Python frames */
		BPF_WALKER_FRAME_POINTERS, /* frame pointers only, no Python frames */
	} walker;
};
/*
 * The skeleton of question NAME for k: NAME_fp (frame pointers only) when k asks for the
 * smaller walker, NAME_no_loop where the kernel lacks bpf_loop, NO_TRUSTED (an expression
 * opening NAME_no_trusted_args, or NAME itself where the question has no such build) where
 * it lacks trusted arguments, else NAME. Every
 * build is the same source with other defines (the Makefile's BPF_VARIANTS): the same
 * maps and programs in the same order, so one skeleton type serves them all.
 */
#define QUESTION_SKEL_OPEN(NAME, k, NO_TRUSTED)                                            \
	((k)->walker == BPF_WALKER_FRAME_POINTERS ? (struct NAME##_bpf *)NAME##_fp_bpf__open() : \
	 !(k)->loop ? (struct NAME##_bpf *)NAME##_no_loop_bpf__open() :                     \
	 !(k)->trusted_args ? (struct NAME##_bpf *)NO_TRUSTED : NAME##_bpf__open())
const struct kernel_features *capture__kernel_features(void);
/* Where q's programs do not load: the features it needs that this kernel lacks, with the
 * Linux version that brought each, ", "-joined into out ("" when none is missing). */
void capture__kernel_missing(enum question q, char *out, size_t size);
/* What question q cannot see on this kernel, "; "-joined into out ("" when nothing). */
void capture__kernel_less(enum question q, char *out, size_t size);
/* SLIDEOPS_KERNEL_LACKS names feature name (a comma-separated list of what to pretend
 * is missing); pretend_missing: it names one question q cannot do without, so its load
 * fails as it would on a kernel without it (kernel_features.c). */
bool pretend_lacks(const char *name);
bool pretend_missing(enum question q);
/* Why each question runs the smaller walker here (the kernel refused the full one):
 * set by bpf_loaded__load, said by capture__kernel_less; "" when it does not
 * (kernel_features.c). */
extern char reduced_because[QUESTION__COUNT][256];
/* Loads obj by the in-kernel loader (bpf_object__gen_loader), its maps' and programs'
 * descriptors into map_fds and prog_fds in obj's order (loader_in_kernel.c). */
int load_in_kernel(struct bpf_object *obj, int *map_fds, int nmaps, int *prog_fds,
		   int nprogs);

/*
 * A question's BPF object in the kernel, however it was loaded: by the in-kernel loader
 * (we own every descriptor) or by libbpf (the skeleton owns them). Maps and programs are
 * found by name; every question's object has bpf/stack.h's: records, counters, on_exec,
 * and one of on_exit / on_exit_facts.
 */
struct bpf_loaded {
	const struct capture_question *q;
	void *skel;       /* libbpf's load only */
	int nmaps, nprogs;
	int *map_fds, *prog_fds; /* -1: a program not loaded */
	char **map_names, **prog_names;
	int records, counters;   /* map descriptors */
	int on_exec, on_exit;    /* program descriptors (on_exit: the variant loaded) */
};

/* Loads q's object with its ring buffer sized and its unwind maps sized to plan (NULL:
 * their smallest, for a probe), in-kernel loader first, then libbpf; the object's variant
 * and its exit program as the kernel's features have them. 0 or -errno. */
int bpf_loaded__load(struct bpf_loaded *l, const struct capture_question *q,
		     size_t ringbuf_size, const struct unwind_maps_plan *plan);
/* For bench/kernels and the budget test: each program a capture of q loads (reduced: the
 * smaller walker's), loaded alone by libbpf with the verifier's statistics; fn gets its
 * instructions processed and verification time (-1: not reported), and refusal, NULL when
 * it loaded, else which program the verifier refused and why. 0 or the last -errno. */
int capture__verifier_stats(const struct capture_question *q, bool reduced,
			    void (*fn)(const char *prog, long insns, long usec, const char *refusal,
				       void *arg),
			    void *arg);
/* A map's or program's descriptor by name; -1 when there is none. */
int bpf_loaded__map(const struct bpf_loaded *l, const char *name);
int bpf_loaded__prog(const struct bpf_loaded *l, const char *name);
void bpf_loaded__close(struct bpf_loaded *l);

/* Links owned by the returned descriptor: closing it detaches. fd or -errno. */
int capture__attach_perf_event(int prog_fd, int perf_fd);
int capture__attach_tracing(int prog_fd);

/* For `check`: attaches l's tracing programs of these names for a moment. 0, or -errno
 * with detail. */
int bpf_loaded__probe_tracing(const struct bpf_loaded *l, const char *const *names, int n,
			      char *detail, size_t size);

/* ---- a question: one row of the engine's table ---- */

/* What a question's programs cannot load without (loader.c's table: which kernels). */
enum kernel_need {
	KERNEL_NEEDS_SLEEPABLE_ITER = 1u << 0,  /* a sleepable task iterator */
	KERNEL_NEEDS_LOCK_CONTENTION = 1u << 1, /* the contention_begin/end tracepoints */
};

struct capture_question {
	enum question id;
	unsigned kernel_needs; /* enum kernel_need; every question needs bounded loops */
	/* Reads Python stacks of threads off a CPU from a task, which a BPF function is
	 * passed only from Linux 6.8 (trusted arguments): before, on a CPU only. */
	bool python_off_cpu_needs_trusted_args;
	/* Opens (does not load) the question's skeleton, the variant for the kernel's
	 * features: *skel for destroy, and its object. */
	struct bpf_object *(*open)(void **skel, const struct kernel_features *k);
	void (*destroy)(void *skel);
	/* Events a second on one CPU its ring buffer must hold a second of. */
	uint64_t (*events_per_cpu)(const struct capture_config *c);
	/* Attaches what makes its samples (the engine has attached exec and exit). Each
	 * link goes through capture_session__add_link. 0 or -errno, reported. */
	int (*attach)(struct capture_session *s, const struct bpf_loaded *l, const int *cpus,
		      int ncpus);
	/* For `check`: attaches briefly what attach would. 0, or -errno with detail. */
	int (*probe)(const struct bpf_loaded *l, char *detail, size_t size);
	/* A record of its own (kind >= RECORD_QUESTION). NULL: it sends samples only. */
	int (*fold)(struct capture_session *s, const void *data, size_t size);
	/* What each value stands for when the kernel sent 0 (cpu: one tick's period). */
	void (*default_values)(const struct capture_config *c, int64_t values[RECORD_MAX_VALUES]);
	/* The names of its samples' lock_kind values (the lock_kind label). */
	const char *const *lock_kinds;
	uint32_t nlock_kinds;
	/* After the last record, kernel frames named: labels that need names (what a
	 * thread waits in). NULL: none. 0 or -ENOMEM. */
	int (*finish)(struct capture_session *s);
	/* When sampling ends, its programs detached, before the last records are taken:
	 * what is still under way (threads still waiting). NULL: nothing. 0 or -errno. */
	int (*sweep)(struct capture_session *s, const struct bpf_loaded *l);
	/* Frees what its fold kept in the session's state (capture_session__state). */
	void (*free_state)(void *state);
};

/* The row of q (its plug-in's, src/questions/), or NULL when q is no question. */
const struct capture_question *capture_question__get(enum question q);

/* A question's finish: the wait label of waiting samples, from their kernel frames. */
int capture__label_waits(struct capture_session *s);

/* ---- what a question's attach and fold use of the session ---- */

/* Keeps a link descriptor that makes samples: closed when sampling ends. 0 or -ENOMEM
 * (then fd is closed). */
int capture_session__add_link(struct capture_session *s, int fd);
/* Attaches l's tracing programs (tp_btf) of these names, each link kept as by
 * capture_session__add_link. 0 or -errno, reported. */
int capture_session__attach_tracing(struct capture_session *s, const struct bpf_loaded *l,
				    const char *const *names, int n);
/* Where a question keeps what its fold needs between records (freed by its free_state). */
void **capture_session__state(struct capture_session *s);

/* Runs a task iterator program over every task, drain'ing the ring buffer (s NULL: no
 * drain) between reads of a few tasks (each visit must write one byte). 0 or -errno. */
int capture__run_task_iterator(int prog, struct capture_session *s);

/*
 * A snapshot's stacks are taken in one moment, before the unwind worker would have met
 * any process: so every process on the machine is read first and its tables and Python
 * facts loaded (from the cache, or built within the engine's caps and the memory
 * budget), for at most CAPTURE_SNAPSHOT_TABLES_NS, multiplied by SLIDEOPS_READ_TIME_FACTOR
 * with the reading budgets it waits on (util/time_factor.h). A process whose tables are
 * not in by then has frame-pointer stacks, counted per sample (no_process_tables) and in
 * the debug lines. 0 or -ENOMEM.
 */
#define CAPTURE_SNAPSHOT_TABLES_NS (5ull * 1000000000ull)
int capture_session__load_all_tables(struct capture_session *s);

/*
 * A sweep that takes stacks (wall's) walks them with the tables of the processes the
 * capture met; a process first met in its last second has them still being built. So,
 * sampling detached, the sweep first waits for the worker's queue, at most
 * CAPTURE_SWEEP_TABLES_NS times SLIDEOPS_READ_TIME_FACTOR (a real server's tables load in
 * milliseconds; the bound keeps a capture within its time beside a hung mount, whose
 * reader is abandoned after 2 s). Under emulation (both of a guest's vCPUs on one host
 * CPU), threads met in a 2 s wall capture were swept with frame pointers alone.
 */
#define CAPTURE_SWEEP_TABLES_NS (1ull * 1000000000ull)
void capture_session__tables_before_sweep(struct capture_session *s);

/* A cpu-clock perf event at the session's hz on each of these CPUs, running the perf_event
 * program on_tick. 0 or -errno, reported. */
int capture_session__attach_ticks(struct capture_session *s, int on_tick, const int *cpus,
				  int ncpus);

/* Takes what waits in the ring buffer now (a snapshot's attach, between reads of its
 * iterator). 0 or -errno (-ENOMEM from a record). */
int capture_session__drain(struct capture_session *s);
const struct report *capture_session__report(const struct capture_session *s);
const struct capture_config *capture_session__config(const struct capture_session *s);
struct processes *capture_session__processes(struct capture_session *s);

/* ---- after sampling ---- */

/* The header every profile of this server carries (hostname, kernel, CPUs, version). */
int capture__fill_header(struct profile *p, unsigned ncpus, unsigned hz);

/* The mapping kernel frames belong to: [kernel.kallsyms] with the kernel's build id. */
uint32_t capture__kernel_mapping(struct profile *p);

/* Names every kernel frame from /proc/kallsyms (true only on this boot, so now).
 * 0, -ENOMEM; kernel frames stay unnamed when kallsyms cannot be read. */
int capture__name_kernel_frames(struct profile *p, uint32_t kernel_mapping);

/* The same, asking the kernel (ksym.bpf.c): 0, -ENOMEM, or -errno when the program
 * cannot run here (then /proc/kallsyms is read instead). */
int capture__name_kernel_frames_bpf(struct profile *p, uint32_t kernel_mapping);
/* The same with ksym.bpf.c's program loaded already (capture__ksyms_load: NULL with errno
 * when it cannot be; capture__ksyms_free), as a resident profiler keeps it. */
struct ksym_bpf;
struct ksym_bpf *capture__ksyms_load(void);
void capture__ksyms_free(struct ksym_bpf *skel);
int capture__name_kernel_frames_with(struct ksym_bpf *skel, struct profile *p,
				     uint32_t kernel_mapping);

/* ---- the resident profiler (profiler.h), as a session uses it ---- */

struct profiler;
struct unwind_maps;

/*
 * q's object for one capture, loaded now when it is not (or was loaded with a smaller
 * ring buffer or another unwind plan: *installed says it was), with everything a
 * capture must start without reset (profiler.h). *bpf and *maps (the unwind maps'
 * bookkeeping; NULL when the object has none) stay the profiler's. -EBUSY when a
 * capture holds the profiler, else as bpf_loaded__load. On success the capture holds it
 * until profiler__give_back.
 */
int profiler__take(struct profiler *p, const struct capture_question *q, size_t ringbuf_size,
		   const struct unwind_maps_plan *plan, struct bpf_loaded **bpf,
		   struct unwind_maps **maps, bool *installed);
/* The capture is over (its links all closed). keep false: the object's state is not
 * known (the capture failed on the way), so it is unloaded. */
void profiler__give_back(struct profiler *p, const struct capture_question *q, bool keep);
/* Where unwind tables are kept (DIR/unwind). */
const char *profiler__unwind_dir(const struct profiler *p);
/* capture__name_kernel_frames with the resident kernel-symbol program (loaded on first
 * use). -errno when it cannot run: the caller names them otherwise. */
/* The resident JVM memory reader, its pages forgotten (NULL: it cannot load here). */
struct jvm_memory *profiler__jvm_memory(struct profiler *p);
int profiler__name_kernel_frames(struct profiler *p, struct profile *prof,
				 uint32_t kernel_mapping);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The profile: one capture of one question on one server.
 *
 * This is the in-memory model every layer shares (capture writes it, the store keeps it
 * as gzip'd pprof, analysis and views read it). It keeps raw addresses and build ids;
 * names are looked up when a profile is read (profile__symbolize), which is what lets a
 * debug-symbol upload name profiles captured before it.
 *
 * Everything is interned: strings in one table (id 0 is ""), mappings per binary (not per
 * process), locations per (mapping, address), stacks per sequence of locations. Samples
 * point at a stack and carry their labels as string ids. Capture adds samples in the
 * tens of thousands; reads outnumber writes.
 */
#ifndef SLIDEOPS_PROFILE_H
#define SLIDEOPS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/build_id.h"
#include "elf/language.h"
#include "proc/group_kind.h"
#include "questions/question.h"
#include "util/strtab.h"

#define PROFILE_FORMAT_VERSION 1
#define PROFILE_MAX_VALUES QUESTION_MAX_VALUES

enum mapping_kind {
	MAPPING_EXE,
	MAPPING_LIB,
	MAPPING_KERNEL,
	MAPPING_VDSO,
	MAPPING_JIT,
	MAPPING_ANON,
	MAPPING_KIND__COUNT,
};

const char *mapping_kind__name(enum mapping_kind k); /* "exe", "lib", ... */
int mapping_kind__parse(const char *name);

/* Why a thread waited (wall's wait_reason label): "runqueue" (waiting for a CPU), "io",
 * "lock", "sleep", "other", in the order of bpf/records.h's enum wait_reason from 1. */
#define PROFILE_WAIT_REASONS 5
extern const char *const profile_wait_reasons[PROFILE_WAIT_REASONS];
/* Its index, or -1 for another string. */
int wait_reason__parse(const char *name);

struct prof_mapping {
	uint32_t path;      /* string id */
	uint32_t build_id;  /* string id of lowercase hex; 0 ("") when the binary has none */
	enum mapping_kind kind;
	enum language language;
	bool has_symtab;    /* the file had .symtab when captured */
	bool build_id_recorded; /* false: captured by a version that did not keep build ids */
	bool from_package;  /* owned by a package of the distribution's archive, as the capture
			       found it (proc/packages.h): a system file (docs/architecture.md) */
	/* Where one process had it mapped, as /proc/PID/maps says (pprof's memory_start,
	 * memory_limit, file_offset), and the ELF address at start: a location's run-time
	 * address is start + (address - vaddr). All 0 when not recorded (profiles before
	 * format 2, kernel and anonymous memory): exports then use ELF addresses. */
	uint64_t start, limit, offset, vaddr;
	/* While a capture runs: which file this is (its binaries are read only after
	 * sampling, so two files at one path differ only by this). 0 otherwise; not stored. */
	uint64_t identity;
};

struct prof_location {
	uint32_t mapping;   /* index into mappings */
	uint64_t address;   /* file-relative ELF virtual address; kernel: absolute */
	uint32_t function;  /* string id of a name known at capture (kernel, interpreter
			       frames, binaries without build id); 0 when looked up at read */
	uint32_t file;      /* string id: interpreter frames' file, JavaScript functions'
			       script; 0 elsewhere */
	int64_t line;
	int64_t start_line; /* interpreter frames: the function's first line (pprof's
			       Function.start_line); 0 when not known */
	/* Filled by profile__symbolize; not stored. */
	uint32_t name;      /* string id: the function, or "app+0x4a1f20" when unnamed */
	bool named;
	enum language language;
	/* Filled by profile__add_lines from the line tables kept by build id; not stored. */
	uint32_t src_file;  /* string id of the source file */
	int64_t src_line;
	int64_t src_start_line; /* where its function starts */
};

struct prof_stack {
	uint32_t first;     /* index into profile.stack_locations */
	uint32_t depth;     /* locations, leaf first (as pprof) */
};

struct prof_labels {
	int32_t pid;
	int32_t tid;
	uint32_t comm;       /* the process's name */
	uint32_t thread;     /* the thread's name */
	uint32_t group;      /* "Service billing", "Unit nginx.service", ... */
	enum group_kind group_kind;
	uint32_t exe;        /* executable path */
	uint32_t state;      /* "running" / "waiting" (wall, threads) */
	uint32_t wait;       /* what the thread waits in */
	uint64_t lock;       /* lock address (locks) */
	uint32_t lock_kind;
	uint32_t wait_reason; /* why it waited (wall): one of profile_wait_reasons */
	int64_t thread_ran_ns; /* wall: the thread's time on a CPU over the whole capture,
				  from its switches (exact, where ticks sample); 0: unknown */
};

struct prof_sample {
	uint32_t stack;      /* index into stacks */
	int64_t values[PROFILE_MAX_VALUES];
	struct prof_labels labels;
};

/* A binary whose names or facts a capture did not read, and why (caps, time, errors). */
struct prof_not_read {
	uint32_t path;      /* string ids */
	uint32_t build_id;
	uint32_t reason;
};

/* Why a user stack stopped short of its root (the walker's early exits, docs/architecture.md). */
enum stack_exit {
	STACK_EXIT_NO_TABLE,      /* no table for a PC and no frame pointer to follow */
	STACK_EXIT_TABLE_MISS,    /* a table without a row for the PC, no frame pointer */
	STACK_EXIT_READ_FAULT,    /* the stack could not be read */
	STACK_EXIT_DEPTH,         /* deeper than a sample holds */
	STACK_EXIT_UNSUPPORTED,   /* a rule the walker does not follow */
	STACK_EXIT_BP_UNKNOWN,    /* an rbp-based frame after rbp was lost */
	STACK_EXIT_NOT_GROWING,   /* the caller's frame was not above: garbage */
	STACK_EXIT_NO_PROCESS_TABLES, /* not an exit: stacks by frame pointers alone, the
					 process's tables not (yet) loaded */
	STACK_EXIT__COUNT,
};

/* "no_table", "table_miss", ...: the keys of stack_quality.exits. */
const char *stack_exit__name(enum stack_exit e);
int stack_exit__parse(const char *name);

/* The frame that ends a stack cut short (its mapping's path and its name). */
#define PROFILE_TRUNCATED_FRAME "[truncated]"

struct prof_header {
	uint32_t format_version;
	enum question question;
	uint32_t hostname;
	uint32_t kernel_release;
	uint32_t kernel_build_id;
	uint32_t ncpus;
	int64_t started_at_ns;   /* Unix epoch */
	uint64_t duration_ns;
	uint32_t sample_hz;
	uint64_t lost;           /* events the kernel could not hand over */
	uint64_t stacks_truncated;
	uint32_t tool_version;
	struct prof_not_read *not_read;
	uint32_t nnot_read, cap_not_read;
	uint64_t stack_exits[STACK_EXIT__COUNT];
	bool stack_exits_recorded; /* false: an older capture, which did not count them */
	/* Executable mappings left to frame pointers because their process had more than
	 * mappings_limit with unwind tables (the BPF maps hold that many a process), and the
	 * processes that had them; 0 in older profiles, which did not count them. */
	uint32_t mappings_past_limit, processes_past_limit, mappings_limit;
	/* The process that took the capture (0: unknown): its samples stay in the profile,
	 * under System, and no answer names them. */
	int32_t profiler_pid;
	/* The question's own data (memory: its owner groups' resident memory at the start
	 * and end), made, read and freed by its plug-in alone (question.h's header hooks);
	 * NULL: none (a question that keeps none, or an older capture). */
	void *own;
};

struct prof_value_type {
	uint32_t type;  /* "samples", "cpu", "wall", ... */
	uint32_t unit;  /* "count", "nanoseconds", "bytes" */
};

struct profile {
	struct strtab *strings;
	struct prof_header header;
	struct prof_value_type value_types[PROFILE_MAX_VALUES];
	uint32_t nvalues;

	struct prof_mapping *mappings;
	uint32_t nmappings, cap_mappings;
	struct prof_location *locations;
	uint32_t nlocations, cap_locations;
	uint32_t *stack_locations;
	uint32_t nstack_locations, cap_stack_locations;
	struct prof_stack *stacks;
	uint32_t nstacks, cap_stacks;
	struct prof_sample *samples;
	uint32_t nsamples, cap_samples;

	struct hashmap *mapping_index;  /* interning; private to profile.c */
	struct hashmap *location_index;
	struct hashmap *stack_index;
	struct hashmap *sample_index;
	bool symbolized;
};

/* A new empty profile of a question, with its value types set (docs/architecture.md). */
struct profile *profile__new(enum question q);
void profile__free(struct profile *p);

uint32_t profile__intern(struct profile *p, const char *s); /* UINT32_MAX on ENOMEM */
const char *profile__str(const struct profile *p, uint32_t id);

/* Interning: each returns an index, or UINT32_MAX on ENOMEM. Equal input, equal index. */
uint32_t profile__add_mapping(struct profile *p, const struct prof_mapping *m);
uint32_t profile__add_location(struct profile *p, const struct prof_location *l);
uint32_t profile__add_stack(struct profile *p, const uint32_t *locations, uint32_t depth);

/*
 * Adds values to the sample with this stack and these labels, creating it if new.
 * values has p->nvalues entries. Returns 0 or -ENOMEM.
 */
int profile__add_sample(struct profile *p, uint32_t stack, const int64_t *values,
			const struct prof_labels *labels);

static inline const uint32_t *profile__stack(const struct profile *p, uint32_t stack,
					     uint32_t *depth)
{
	*depth = p->stacks[stack].depth;
	return p->stack_locations + p->stacks[stack].first;
}

/* Records that a binary was not read (path, build id, reason). 0 or -ENOMEM. */
int profile__add_not_read(struct profile *p, const char *path, const char *build_id,
			  const char *reason);

/*
 * Rebuilds the interning indexes after mappings or locations were changed in place
 * (a capture fills in its binaries' facts and ELF addresses after sampling). Entries that
 * became equal stay apart; later adds find the first. 0 or -ENOMEM.
 */
int profile__reindex(struct profile *p);

/* Sum of value i over all samples. */
int64_t profile__total(const struct profile *p, uint32_t value);

/* Index of the value the answer weighs by (cpu: nanoseconds; locks: delay). */
uint32_t profile__main_value(const struct profile *p);

/* "2026-12-02T15:04:05Z" into buf (>= 21 bytes). */
void profile__format_started_at(const struct profile *p, char *buf, size_t size);

#endif

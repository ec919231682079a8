// SPDX-License-Identifier: MIT
/*
 * The user-space half of the cpu capture without the kernel: records shaped as
 * cpu.bpf.c sends them, about real processes built and run here, must become samples
 * whose frames are (the binary's mapping, the ELF address nm gives for the function).
 * A process read from /proc while alive; one gone before it was read, resolved by its
 * exit record alone; its last ticks after the exit record; kernel frames; a frame-
 * pointer walk gone astray.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/binaries.h"
#include "capture/capture_internal.h"
#include "capture/cgroups.h"
#include "capture/maps.h"
#include "capture/processes.h"
#include "helpers/fixture.h"
#include "proc/owner.h"
#include "profile/profile.h"

/* Prints where spin_here is and the address it returns to in main, then waits. */
static const char program[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) void spin_here(void)\n"
	"{ printf(\"%lx %lx\\n\", (unsigned long)spin_here,\n"
	"         (unsigned long)__builtin_return_address(0)); fflush(stdout); }\n"
	"int main(void) { spin_here(); pause(); return 0; }\n";

struct env {
	struct fixture *fx;
	const char *bin;
	uint64_t spin_vaddr, main_vaddr, main_size;
	struct profile *p;
	struct owner_resolver *owners;
	struct binaries *binaries;
	struct cgroups *cgroups;
	struct processes *ps;
	uint32_t kernel_mapping;
};

struct child {
	pid_t pid;
	uint64_t spin, ret; /* runtime addresses */
};

static uint64_t nm_value(struct env *e, const char *sym, const char *field)
{
	char *out = fixture__sh_output(e->fx, "nm -S %s | awk '$4 == \"%s\" { print $%s }'",
				       e->bin, sym, field);
	uint64_t v;

	assert_non_null(out);
	v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->fx = fixture__new();
	assert_non_null(e->fx);
	e->bin = fixture__compile(e->fx, "fixprog", program, "-O1 -fno-omit-frame-pointer");
	assert_non_null(e->bin);
	e->spin_vaddr = nm_value(e, "spin_here", "1");
	e->main_vaddr = nm_value(e, "main", "1");
	e->main_size = nm_value(e, "main", "2");
	assert_true(e->spin_vaddr && e->main_vaddr && e->main_size);

	e->p = profile__new(QUESTION_CPU);
	assert_non_null(e->p);
	e->kernel_mapping = capture__kernel_mapping(e->p);
	assert_int_not_equal(e->kernel_mapping, UINT32_MAX);
	e->owners = owner_resolver__new("/proc", "/", NULL, 0);
	e->binaries = binaries__new();
	e->cgroups = cgroups__new(NULL);
	assert_true(e->owners && e->binaries && e->cgroups);
	e->ps = processes__new(e->p, e->owners, e->binaries, e->cgroups, "/proc",
			       e->kernel_mapping, (int64_t[RECORD_MAX_VALUES]){ 1, 10101010 });
	assert_non_null(e->ps);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	processes__free(e->ps);
	cgroups__free(e->cgroups);
	binaries__free(e->binaries);
	owner_resolver__free(e->owners);
	profile__free(e->p);
	fixture__free(e->fx);
	free(e);
	return 0;
}

static void start(struct env *e, struct child *c)
{
	int fds[2];
	FILE *f;

	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(e->bin, "fixprog", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lx %lx", (unsigned long *)&c->spin,
				(unsigned long *)&c->ret), 2);
	fclose(f);
}

static void stop(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

/* A sample of c: leaf in spin_here (4 bytes in), called from main; kernel frames
 * above it when nkernel. */
static struct stack_sample sample_of(const struct child *c, unsigned nkernel)
{
	struct stack_sample s = { .kind = RECORD_SAMPLE, .pid = c->pid, .tgid = c->pid };
	unsigned n = 0;

	strcpy(s.comm, "fixprog");
	for (unsigned i = 0; i < nkernel; i++)
		s.ips[n++] = 0xffffffff81000100ULL + 0x100 * i;
	s.kstack_len = nkernel;
	s.ips[n++] = c->spin + 4;
	s.ips[n++] = c->ret;
	s.ustack_len = 2;
	s.values[0] = 1;
	s.values[1] = 10101010;
	return s;
}

static size_t size_of(const struct stack_sample *s)
{
	return SAMPLE_HEADER_SIZE + (s->kstack_len + s->ustack_len) * sizeof(__u64);
}

/* The one sample's stack, leaf first, and it's from pid. */
static const uint32_t *only_stack(struct env *e, pid_t pid, uint32_t *depth)
{
	const struct prof_sample *s;

	assert_int_equal(e->p->nsamples, 1);
	s = &e->p->samples[0];
	assert_int_equal(s->labels.pid, pid);
	assert_int_equal(s->labels.tid, pid);
	assert_string_equal(profile__str(e->p, s->labels.comm), "fixprog");
	assert_string_equal(profile__str(e->p, s->labels.thread), "fixprog");
	return profile__stack(e->p, s->stack, depth);
}

/* The two user frames are spin_here+4 and a place inside main, in the fixture's own
 * mapping (its path, an executable, with its build id). */
static void assert_user_frames(struct env *e, const uint32_t *locs)
{
	const struct prof_location *leaf = &e->p->locations[locs[0]];
	const struct prof_location *caller = &e->p->locations[locs[1]];
	const struct prof_mapping *m = &e->p->mappings[leaf->mapping];
	struct binaries_read_result read;

	/* Sampling keeps file offsets; the binaries are read after it. */
	assert_int_equal(binaries__read(e->binaries, e->p, NULL, &read), 0);
	assert_int_equal(e->p->header.nnot_read, 0);
	binaries_read_result__release(&read);

	assert_string_equal(profile__str(e->p, m->path), e->bin);
	assert_int_equal(m->kind, MAPPING_EXE);
	assert_true(strlen(profile__str(e->p, m->build_id)) == 40);
	assert_true(m->has_symtab);
	assert_true(leaf->address == e->spin_vaddr + 4);
	assert_int_equal(caller->mapping, leaf->mapping);
	assert_true(caller->address >= e->main_vaddr &&
		    caller->address < e->main_vaddr + e->main_size);
}

static void test_live_process(void **state)
{
	struct env *e = *state;
	struct child c;
	struct stack_sample s;
	const uint32_t *locs;
	uint32_t depth;

	start(e, &c);
	s = sample_of(&c, 2);
	s.flags = SAMPLE_FIRST;
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	locs = only_stack(e, c.pid, &depth);
	assert_int_equal(depth, 4);
	/* Kernel frames: absolute, the caller's taken back into its call instruction. */
	assert_int_equal(e->p->locations[locs[0]].mapping, e->kernel_mapping);
	assert_true(e->p->locations[locs[0]].address == 0xffffffff81000100ULL);
	assert_true(e->p->locations[locs[1]].address == 0xffffffff810001ffULL);
	assert_user_frames(e, locs + 2);
	assert_int_equal(e->p->samples[0].values[0], 1);
	assert_int_equal(e->p->samples[0].values[1], 10101010);
	stop(&c);
}

/* Its exit record, as on_exit would send it for c: facts, and the executable mappings
 * read while c was alive. */
static struct process_record *exit_of(struct env *e, const struct child *c, size_t *size)
{
	struct process_record *ev = calloc(1, sizeof(*ev));
	struct vma_list l = { 0 };
	char path[PATH_MAX], *part;
	struct stat st;
	unsigned n = 0;

	assert_non_null(ev);
	assert_int_equal(vma_list__read(&l, "/proc", c->pid), 0);
	assert_int_equal(stat(e->bin, &st), 0);
	ev->kind = RECORD_EXIT;
	ev->flags = PROCESS_RECORD_HAS_MM;
	ev->tgid = c->pid;
	ev->ppid = getpid();
	strcpy(ev->comm, "fixprog");
	ev->exe_dev = major(st.st_dev) << 20 | minor(st.st_dev);
	ev->exe_ino = st.st_ino;
	/* Path components, leaf first, as the kernel walks them. */
	snprintf(path, sizeof(path), "%s", e->bin);
	while ((part = strrchr(path, '/')) && part[1]) {
		snprintf(ev->exe_parts[ev->nexe_parts++], RECORD_EXE_PART_LEN, "%s", part + 1);
		*part = '\0';
	}
	for (size_t i = 0; i < l.n; i++) {
		struct record_vma *v = &ev->vmas[n];

		if (l.vmas[i].kind != VMA_FILE)
			continue;
		v->start = l.vmas[i].start;
		v->end = l.vmas[i].end;
		v->pgoff = l.vmas[i].offset / sysconf(_SC_PAGESIZE);
		v->ino = l.vmas[i].ino;
		v->dev = major(l.vmas[i].dev) << 20 | minor(l.vmas[i].dev);
		v->is_exe = v->ino == ev->exe_ino && v->dev == ev->exe_dev;
		n++;
	}
	ev->nvmas = n;
	vma_list__clear(&l);
	*size = offsetof(struct process_record, vmas) + n * sizeof(struct record_vma);
	return ev;
}

static void test_gone_before_read(void **state)
{
	struct env *e = *state;
	struct process_record *ev;
	struct stack_sample s;
	const uint32_t *locs;
	struct child c;
	uint32_t depth;
	size_t size;

	start(e, &c);
	ev = exit_of(e, &c, &size);
	stop(&c);
	/* Its sample comes after it is gone: it waits for the exit record. */
	s = sample_of(&c, 0);
	s.flags = SAMPLE_FIRST;
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	assert_int_equal(e->p->nsamples, 0);
	assert_int_equal(processes__exit(e->ps, ev, size), 0);
	locs = only_stack(e, c.pid, &depth);
	assert_int_equal(depth, 2);
	assert_user_frames(e, locs);
	assert_int_equal(processes__stats(e->ps)->from_exit, 1);
	assert_string_equal(profile__str(e->p, e->p->samples[0].labels.exe), e->bin);

	/* A tick after its exit record (the kernel tearing it down: its mappings are
	 * gone) is still its own. */
	s = sample_of(&c, 1);
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	assert_int_equal(e->p->nsamples, 2);
	assert_int_equal(e->p->samples[1].labels.pid, c.pid);
	assert_int_equal(e->p->samples[1].labels.comm, e->p->samples[0].labels.comm);
	assert_int_equal(e->p->samples[1].labels.group, e->p->samples[0].labels.group);
	assert_int_equal(processes__stats(e->ps)->processes, 1);
	free(ev);
}

/* Gone, and never heard of again: placed by what its first sample says. */
static void test_only_samples(void **state)
{
	struct env *e = *state;
	struct stack_sample s;
	struct child c;

	start(e, &c);
	stop(&c);
	s = sample_of(&c, 1);
	s.flags = SAMPLE_FIRST;
	s.ppid = getpid();
	strcpy(s.comm, "worker-thread");
	strcpy(s.leader_comm, "fixprog");
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	assert_int_equal(e->p->nsamples, 0);
	assert_int_equal(processes__finish(e->ps), 0);
	assert_int_equal(e->p->nsamples, 1);
	assert_string_equal(profile__str(e->p, e->p->samples[0].labels.comm), "fixprog");
	assert_string_equal(profile__str(e->p, e->p->samples[0].labels.thread), "worker-thread");
	assert_int_equal(processes__stats(e->ps)->unresolved, 1);
}

/* Callers outside every mapping are where a frame-pointer walk went astray: they are
 * dropped, and the stack ends in [truncated]. */
static void test_garbage_callers_dropped(void **state)
{
	struct env *e = *state;
	const struct prof_location *last;
	const uint32_t *locs;
	struct stack_sample s;
	struct child c;
	uint32_t depth;

	start(e, &c);
	s = sample_of(&c, 0);
	s.ips[2] = 0x6c25207334252077ULL; /* text read as an address */
	s.ips[3] = c.ret;
	s.ustack_len = 4;
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	locs = only_stack(e, c.pid, &depth);
	assert_int_equal(depth, 3);
	last = &e->p->locations[locs[2]];
	assert_string_equal(profile__str(e->p, e->p->mappings[last->mapping].path), "[truncated]");
	assert_string_equal(profile__str(e->p, last->function), "[truncated]");
	assert_int_equal(processes__stats(e->ps)->unknown_frames, 1);
	stop(&c);
}

/* The kernel's walker stopped short of the root: the stack says so with [truncated]. */
static void test_cut_stack_ends_in_truncated(void **state)
{
	struct env *e = *state;
	const uint32_t *locs;
	struct stack_sample s;
	struct child c;
	uint32_t depth;

	start(e, &c);
	s = sample_of(&c, 0);
	s.flags |= SAMPLE_USTACK_CUT;
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	locs = only_stack(e, c.pid, &depth);
	assert_int_equal(depth, s.kstack_len + s.ustack_len + 1);
	assert_string_equal(profile__str(e->p, e->p->locations[locs[depth - 1]].function),
			    "[truncated]");
	stop(&c);
}

/* A library mapped after the process was first read (dlopen) is found by reading its
 * mappings again. */
static void test_dlopen_after_first_read(void **state)
{
	struct env *e = *state;
	const char *lib = fixture__compile(e->fx, "libplugin.so",
					   "__attribute__((noinline)) int plugin_work(int x)\n"
					   "{ return x * 5 + 3; }\n", "-O1 -shared -fPIC");
	const struct prof_location *l;
	const uint32_t *locs;
	char source[1024];
	const char *bin;
	uint64_t plugin_vaddr, plugin_addr;
	uint32_t depth;
	struct stack_sample s;
	struct child c;
	FILE *f;
	int to_child[2], from_child[2];
	char *out;

	assert_non_null(lib);
	snprintf(source, sizeof(source),
		 "#include <dlfcn.h>\n#include <stdio.h>\n#include <unistd.h>\n"
		 "int main(void)\n{ char b; printf(\"%%lx\\n\", (unsigned long)main); fflush(stdout);\n"
		 "  if (read(0, &b, 1) != 1) return 1;\n"
		 "  void *h = dlopen(\"%s\", RTLD_NOW);\n"
		 "  printf(\"%%lx\\n\", (unsigned long)dlsym(h, \"plugin_work\")); fflush(stdout);\n"
		 "  pause(); return 0; }\n", lib);
	bin = fixture__compile(e->fx, "plugged", source, "-O1 -ldl");
	assert_non_null(bin);
	out = fixture__sh_output(e->fx, "nm %s | awk '$3 == \"plugin_work\" { print $1 }'", lib);
	assert_non_null(out);
	plugin_vaddr = strtoull(out, NULL, 16);
	free(out);

	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		execl(bin, "plugged", (char *)NULL);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	f = fdopen(from_child[0], "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lx", (unsigned long *)&c.spin), 1);

	/* First sight: its mappings are read, without the plugin. */
	s = (struct stack_sample){ .kind = RECORD_SAMPLE, .pid = c.pid, .tgid = c.pid,
				 .ustack_len = 1, .ips = { c.spin } };
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	assert_int_equal(write(to_child[1], "x", 1), 1);
	assert_int_equal(fscanf(f, "%lx", (unsigned long *)&plugin_addr), 1);
	usleep(250000); /* mappings are read again at most every 200 ms */

	s.ips[0] = plugin_addr + 2;
	assert_int_equal(processes__sample(e->ps, &s, size_of(&s)), 0);
	assert_int_equal(e->p->nsamples, 2);
	locs = profile__stack(e->p, e->p->samples[1].stack, &depth);
	assert_int_equal(depth, 1);
	l = &e->p->locations[locs[0]];
	assert_string_equal(profile__str(e->p, e->p->mappings[l->mapping].path), lib);
	assert_int_equal(e->p->mappings[l->mapping].kind, MAPPING_LIB);
	assert_true(l->address == plugin_vaddr + 2);
	fclose(f);
	close(to_child[1]);
	stop(&c);
}

/* Records too short for what they claim are ignored, not read past their end. */
static void test_short_records(void **state)
{
	struct env *e = *state;
	struct stack_sample s = { .kind = RECORD_SAMPLE, .tgid = 1, .ustack_len = 50 };
	struct process_record ev = { .kind = RECORD_EXIT, .tgid = 1, .nvmas = 100 };

	assert_int_equal(processes__sample(e->ps, &s, SAMPLE_HEADER_SIZE + 8), 0);
	assert_int_equal(processes__sample(e->ps, &s, 4), 0);
	s.ustack_len = RECORD_MAX_STACK + 1;
	assert_int_equal(processes__sample(e->ps, &s, sizeof(s)), 0);
	assert_int_equal(processes__exit(e->ps, &ev, 8), 0);
	assert_int_equal(processes__exec(e->ps, &ev, 8), 0);
	assert_int_equal(e->p->nsamples, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_before_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_stack_ends_in_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_callers_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dlopen_after_first_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_records, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

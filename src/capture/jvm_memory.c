// SPDX-License-Identifier: MIT
/*
 * A process's memory read page by page in the kernel (jvm_memory.h). One read of a page
 * not kept: a link and an iterator for the process's threads, one read() of the reply
 * (about 20-50 us); the iterator visits the threads until one with a memory map has
 * been read.
 */
#include "capture/jvm_memory.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/jvm_memory.h"
#include "jvm_memory.skel.h"

struct page {
	int pid;          /* 0: free */
	int err;          /* 0, or why it could not be read */
	uint64_t addr;    /* page aligned */
	uint64_t used;    /* the clock when last used */
	uint8_t *bytes;   /* JVM_MEMORY_PAGE of them */
};

struct jvm_memory {
	struct jvm_memory_bpf *skel;
	pthread_mutex_t lock;
	uint64_t clock, reads;
	struct page pages[JVM_MEMORY_PAGES];
	uint8_t *store; /* the pages' bytes, one allocation */
};

struct jvm_memory *jvm_memory__new(void)
{
	struct jvm_memory *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return NULL;
	m->store = malloc((size_t)JVM_MEMORY_PAGES * JVM_MEMORY_PAGE);
	m->skel = m->store ? jvm_memory_bpf__open_and_load() : NULL;
	if (!m->skel) {
		err = errno ? errno : ENOMEM;
		free(m->store);
		free(m);
		errno = err;
		return NULL;
	}
	for (size_t i = 0; i < JVM_MEMORY_PAGES; i++)
		m->pages[i].bytes = m->store + i * JVM_MEMORY_PAGE;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

void jvm_memory__free(struct jvm_memory *m)
{
	if (!m)
		return;
	jvm_memory_bpf__destroy(m->skel);
	pthread_mutex_destroy(&m->lock);
	free(m->store);
	free(m);
}

/* Reads the page at addr of pid into p, in the kernel: 0 or -errno (kept in p->err). */
static int jvm_memory__fetch(struct jvm_memory *m, int pid, uint64_t addr, struct page *p)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	union bpf_iter_link_info info;
	struct jvm_memory_reply reply;
	uint8_t *dst = p->bytes;
	size_t want = sizeof(reply) + JVM_MEMORY_PAGE, got = 0;
	int link, fd, err = 0;

	memset(&info, 0, sizeof(info));
	info.task.pid = (uint32_t)pid;
	opts.iter_info = &info;
	opts.iter_info_len = sizeof(info);
	m->skel->bss->page_addr = addr;
	m->skel->bss->page_done = 0;
	m->reads++;
	link = bpf_link_create(bpf_program__fd(m->skel->progs.read_page), 0, BPF_TRACE_ITER,
			       &opts);
	if (link < 0)
		return errno == ESRCH || errno == ENOENT ? -EFAULT : -EIO;
	fd = bpf_iter_create(link);
	if (fd < 0) {
		close(link);
		return -EIO;
	}
	/* The reply, then the page: read as they come, into the reply and the page. */
	while (got < want) {
		uint8_t tmp[512];
		size_t k = want - got < sizeof(tmp) ? want - got : sizeof(tmp);
		ssize_t n = read(fd, tmp, k);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++, got++) {
			if (got < sizeof(reply))
				((uint8_t *)&reply)[got] = tmp[i];
			else
				dst[got - sizeof(reply)] = tmp[i];
		}
	}
	close(fd);
	close(link);
	if (got < sizeof(reply))
		err = -EFAULT; /* no thread with a memory map: the process is gone */
	else if (reply.err)
		err = -EFAULT;
	else if (got < want)
		err = -EIO;
	return err;
}

/* The page at addr of pid, kept or read now. NULL with *err set when it cannot be. */
static const uint8_t *jvm_memory__page(struct jvm_memory *m, int pid, uint64_t addr, int *err)
{
	struct page *victim = &m->pages[0];

	m->clock++;
	for (size_t i = 0; i < JVM_MEMORY_PAGES; i++) {
		struct page *p = &m->pages[i];

		if (p->pid == pid && p->addr == addr) {
			p->used = m->clock;
			*err = p->err;
			return p->err ? NULL : p->bytes;
		}
		if (!p->pid || (victim->pid && p->used < victim->used))
			victim = p;
	}
	victim->pid = pid;
	victim->addr = addr;
	victim->used = m->clock;
	victim->err = jvm_memory__fetch(m, pid, addr, victim);
	/* A failed iterator is not the process's answer: not kept. */
	if (victim->err == -EIO)
		victim->pid = 0;
	*err = victim->err;
	return victim->err ? NULL : victim->bytes;
}

int jvm_memory__read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct jvm_memory_process *mp = ctx;
	struct jvm_memory *m = mp->m;
	uint8_t *out = buf;
	int err = 0;

	if (!len)
		return 0;
	if (addr + len < addr || mp->pid <= 0)
		return -EFAULT;
	pthread_mutex_lock(&m->lock);
	while (len && !err) {
		uint64_t base = addr & ~(uint64_t)(JVM_MEMORY_PAGE - 1);
		size_t at = (size_t)(addr - base);
		size_t k = JVM_MEMORY_PAGE - at < len ? JVM_MEMORY_PAGE - at : len;
		const uint8_t *page = jvm_memory__page(m, mp->pid, base, &err);

		if (!page)
			break;
		memcpy(out, page + at, k);
		out += k;
		addr += k;
		len -= k;
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

void jvm_memory__forget(struct jvm_memory *m, int pid)
{
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < JVM_MEMORY_PAGES; i++)
		if (m->pages[i].pid == pid)
			m->pages[i].pid = 0;
	pthread_mutex_unlock(&m->lock);
}

void jvm_memory__forget_all(struct jvm_memory *m)
{
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < JVM_MEMORY_PAGES; i++)
		m->pages[i].pid = 0;
	m->reads = 0;
	pthread_mutex_unlock(&m->lock);
}

uint64_t jvm_memory__reads(struct jvm_memory *m)
{
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->reads;
	pthread_mutex_unlock(&m->lock);
	return n;
}

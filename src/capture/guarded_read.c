// SPDX-License-Identifier: MIT
/*
 * Guarded reads (guarded_read.h). Workload: a few files a capture, only those on network
 * and FUSE mounts (most servers have none; an application run from NFS has its binary
 * and a few libraries there), each started when a process that maps it is first seen and
 * waited for by the unwind worker or by the reading after sampling.
 *
 * The reader writes the copy into a memory file the caller made and holds: how far the
 * copy has come is that file's size, which the caller reads whenever it looks, so a
 * reader says it is alive without messages piling up in a socket nobody drains while
 * the capture samples. The socket carries three messages: hello (the reader runs),
 * opened (the file is open and is the one asked for, with its size) and done.
 *
 * A reader of its own binary (/proc/self/exe, dynamic and large) rather than a fork of
 * the caller: a fork stuck on a dead mount would keep a copy of all the caller's memory
 * (a resident profiler's maps and caches) for as long as the mount does not answer, and
 * every descriptor it held until closed. The exec costs ~35 ms of the reader's CPU, off
 * the caller's threads (posix_spawn returns once the exec has begun).
 */
#include "capture/guarded_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/guarded_read_protocol.h"
#include "util/clock.h"
#include "util/time_factor.h"

#define NSEC_PER_SEC 1000000000LL
/* How often a waiter looks again (a message wakes it sooner). */
#define GR_POLL_MS 50

enum gr_state {
	GR_QUEUED,  /* no reader yet: too many run */
	GR_RUNNING, /* a reader works on it */
	GR_ENDED,   /* the outcome is err */
};

struct guarded_file {
	struct guarded_file *next;
	dev_t dev;
	uint64_t ino;
	struct gr_request *req; /* until a reader is started */
	enum gr_state state;
	int err;
	bool owned;             /* a caller holds it; false: left to end alone */
	bool hello, opened, answered, eof;
	bool hung;              /* its reader said nothing for GUARDED_READ_ANSWER_S */
	pid_t pid;              /* the reader, 0 before it starts or once reaped */
	int sock;               /* -1 when none */
	int copy;               /* the memory file the reader fills; -1 when none */
	uint64_t size;          /* the file's, from the reader */
	uint64_t seen_size;     /* the copy's size when last looked at */
	int64_t started_ns, heard_ns;
	bool counted;           /* its size is in reg.copied */
};

static struct {
	pthread_mutex_t lock;
	struct guarded_file *head, **tail;
	uint64_t copied; /* sizes of the copies held */
	uint32_t started;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .tail = &reg.head };

static const char *reader_path = "/proc/self/exe";

/* ---- the caller's side, under reg.lock ---- */

static bool gr__alive(const struct guarded_file *g)
{
	return g->pid > 0 && !g->eof;
}

/* A reader of dev that has stopped answering and still lives. */
static bool gr__device_hung(dev_t dev)
{
	for (struct guarded_file *g = reg.head; g; g = g->next)
		if (g->dev == dev && g->hung && gr__alive(g))
			return true;
	return false;
}

static void gr__end(struct guarded_file *g, int err)
{
	if (g->state == GR_ENDED)
		return;
	g->state = GR_ENDED;
	g->err = err;
	if (!err && !g->counted) {
		reg.copied += g->size;
		g->counted = true;
	}
}

/* Reads what the reader sent, without waiting. */
static void gr__drain(struct guarded_file *g, int64_t now)
{
	while (g->sock >= 0 && !g->eof) {
		struct gr_message msg;
		ssize_t n = recv(g->sock, &msg, sizeof(msg), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			g->eof = true;
			break;
		}
		if (n != sizeof(msg))
			continue;
		g->heard_ns = now;
		if (msg.kind == GR_HELLO) {
			g->hello = true;
		} else if (msg.kind == GR_OPENED) {
			g->opened = true;
			g->size = msg.size;
		} else if (msg.kind == GR_DONE) {
			g->answered = true;
			if (g->state == GR_RUNNING) {
				g->size = msg.size;
				gr__end(g, msg.err > 0 ? -ECHILD : msg.err);
			}
		}
	}
	if (g->eof && g->state == GR_RUNNING)
		gr__end(g, -ECHILD); /* ended without an answer */
	if (g->eof && g->pid > 0) {
		pid_t r = waitpid(g->pid, NULL, WNOHANG);

		/* ECHILD: reaped already (SIGCHLD ignored, or a waitpid(-1) of the caller's). */
		if (r == g->pid || (r < 0 && errno == ECHILD))
			g->pid = 0;
	}
}

/* The copy growing is the reader answering. */
static void gr__look_at_copy(struct guarded_file *g, int64_t now)
{
	struct stat st;

	if (g->copy < 0 || !gr__alive(g) || fstat(g->copy, &st) != 0)
		return;
	if ((uint64_t)st.st_size != g->seen_size) {
		g->seen_size = (uint64_t)st.st_size;
		g->heard_ns = now;
	}
}

static void gr__check_answer(struct guarded_file *g, int64_t now)
{
	if (!gr__alive(g) || g->hung || g->answered)
		return;
	if (!g->hello) {
		/* It never started: not its file system's doing. */
		if (now - g->started_ns >
		    GUARDED_READ_START_S * NSEC_PER_SEC * (int64_t)time_factor__read()) {
			kill(g->pid, SIGKILL);
			gr__end(g, -ECHILD);
		}
		return;
	}
	if (now - g->heard_ns <= GUARDED_READ_ANSWER_S * NSEC_PER_SEC * (int64_t)time_factor__read())
		return;
	g->hung = true;
	/* Ends a wait on NFS (TASK_KILLABLE); one on a FUSE daemon ends when it answers. */
	kill(g->pid, SIGKILL);
	gr__end(g, GUARDED_READ_HUNG);
}

static int gr__dup_high(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	close(fd);
	return d;
}

/* Starts g's reader. 0 or -errno. */
static int gr__spawn(struct guarded_file *g, int64_t now)
{
	char *argv[] = { "slideops", GUARDED_READ_ARG, NULL }, *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int sv[2] = { -1, -1 }, copy, err;
	pid_t pid;

	copy = memfd_create("slideops-copy", MFD_CLOEXEC);
	if (copy < 0)
		return -errno;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		close(copy);
		return err;
	}
	/* Never 3 or 4 themselves, so that neither dup2 below undoes the other. */
	sv[1] = gr__dup_high(sv[1]);
	copy = gr__dup_high(copy);
	if (sv[1] < 0 || copy < 0) {
		err = -EMFILE;
		goto out_close;
	}
	/* The request waits in the socket for the reader. */
	if (send(sv[0], g->req, sizeof(*g->req), MSG_NOSIGNAL) != (ssize_t)sizeof(*g->req)) {
		err = -errno;
		goto out_close;
	}
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_init(&fa);
	/* Not our standard output either: a reader stuck for hours would keep a pipe open
	 * and whoever reads our output ($(slideops capture ...)) waiting for its end. */
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDWR, 0);
	posix_spawn_file_actions_adddup2(&fa, STDIN_FILENO, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, STDIN_FILENO, STDERR_FILENO);
	posix_spawn_file_actions_adddup2(&fa, sv[1], GR_SOCK_FD);
	posix_spawn_file_actions_adddup2(&fa, copy, GR_COPY_FD);
	/* Nothing else of ours: a reader stuck for hours must not hold a BPF link, a
	 * listening socket or a lock file. */
	posix_spawn_file_actions_addclosefrom_np(&fa, GR_COPY_FD + 1);
	err = -posix_spawn(&pid, reader_path, &fa, &attr, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (err)
		goto out_close;
	close(sv[1]);
	g->sock = sv[0];
	g->copy = copy;
	g->pid = pid;
	g->state = GR_RUNNING;
	g->started_ns = g->heard_ns = now;
	free(g->req);
	g->req = NULL;
	reg.started++;
	return 0;

out_close:
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (copy >= 0)
		close(copy);
	return err;
}

static uint32_t gr__running(void)
{
	uint32_t n = 0;

	for (struct guarded_file *g = reg.head; g; g = g->next)
		n += g->state == GR_RUNNING;
	return n;
}

/* Starts queued reads while there is room, in the order they came. */
static void gr__start_queued(int64_t now)
{
	uint32_t running = gr__running();

	for (struct guarded_file *g = reg.head; g && running < GUARDED_READ_RUNNING_MAX;
	     g = g->next) {
		int err;

		if (g->state != GR_QUEUED)
			continue;
		if (gr__device_hung(g->dev)) {
			gr__end(g, GUARDED_READ_HUNG);
			continue;
		}
		if (reg.copied >= GUARDED_READ_TOTAL_MAX) {
			gr__end(g, -EFBIG);
			continue;
		}
		g->req->max_bytes = GUARDED_READ_TOTAL_MAX - reg.copied;
		if (g->req->max_bytes > GUARDED_READ_FILE_MAX)
			g->req->max_bytes = GUARDED_READ_FILE_MAX;
		err = gr__spawn(g, now);
		if (err)
			gr__end(g, err == -ENOENT || err == -EACCES ? -ECHILD : err);
		else
			running++;
	}
}

static void gr__free(struct guarded_file *g)
{
	if (g->counted)
		reg.copied -= g->size;
	if (g->sock >= 0)
		close(g->sock);
	if (g->copy >= 0)
		close(g->copy);
	free(g->req);
	free(g);
}

/* Everything that can move on, moves on; what nobody holds and has ended is freed. */
static void gr__sweep(int64_t now)
{
	struct guarded_file **at;

	for (struct guarded_file *g = reg.head; g; g = g->next) {
		gr__drain(g, now);
		gr__look_at_copy(g, now);
		gr__check_answer(g, now);
		/* A read abandoned along with its file system's: it ends with the one stuck. */
		if (g->state == GR_RUNNING && !g->hung && gr__device_hung(g->dev)) {
			kill(g->pid, SIGKILL);
			gr__end(g, GUARDED_READ_HUNG);
		}
	}
	gr__start_queued(now);
	for (at = &reg.head; *at;) {
		struct guarded_file *g = *at;

		if (!g->owned && (g->state == GR_QUEUED || (g->pid == 0 && g->eof) ||
				  (g->state == GR_ENDED && g->pid == 0 && g->sock < 0))) {
			*at = g->next;
			gr__free(g);
			continue;
		}
		at = &g->next;
	}
	reg.tail = &reg.head;
	while (*reg.tail)
		reg.tail = &(*reg.tail)->next;
}

void guarded_read__sweep(void)
{
	pthread_mutex_lock(&reg.lock);
	gr__sweep(clock__monotonic_ns());
	pthread_mutex_unlock(&reg.lock);
}

/* An earlier read of the same file, left running by its caller: the new caller takes it
 * over rather than start a second reader of a file that may not answer. */
static struct guarded_file *gr__adoptable(dev_t dev, uint64_t ino)
{
	for (struct guarded_file *g = reg.head; g; g = g->next)
		if (!g->owned && g->dev == dev && g->ino == ino && g->state == GR_RUNNING)
			return g;
	return NULL;
}

struct guarded_file *guarded_file__start(dev_t dev, uint64_t ino, const char *const *paths,
					 size_t npaths)
{
	struct guarded_file *g;
	int64_t now = clock__monotonic_ns();

	pthread_mutex_lock(&reg.lock);
	gr__sweep(now);
	g = gr__adoptable(dev, ino);
	if (g) {
		g->owned = true;
		pthread_mutex_unlock(&reg.lock);
		return g;
	}
	pthread_mutex_unlock(&reg.lock);

	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->req = calloc(1, sizeof(*g->req));
	if (!g->req) {
		free(g);
		return NULL;
	}
	g->dev = dev;
	g->ino = ino;
	g->owned = true;
	g->sock = g->copy = -1;
	g->req->version = GR_VERSION;
	g->req->dev = (uint64_t)dev;
	g->req->ino = ino;
	for (size_t i = 0; i < npaths && i < GR_PATHS; i++) {
		if (!paths[i] || strlen(paths[i]) >= PATH_MAX)
			continue;
		strcpy(g->req->paths[g->req->npaths++], paths[i]);
	}
	g->state = GR_QUEUED;

	pthread_mutex_lock(&reg.lock);
	*reg.tail = g;
	reg.tail = &g->next;
	if (gr__device_hung(dev))
		gr__end(g, GUARDED_READ_HUNG);
	else
		gr__start_queued(now);
	pthread_mutex_unlock(&reg.lock);
	return g;
}

int guarded_file__wait(struct guarded_file *g, const atomic_bool *cancel, int64_t deadline_ns)
{
	for (;;) {
		int64_t now = clock__monotonic_ns(), next;
		struct pollfd pfd = { .fd = -1, .events = POLLIN };
		int err;

		pthread_mutex_lock(&reg.lock);
		gr__sweep(now);
		if (g->state == GR_ENDED) {
			err = g->err;
			pthread_mutex_unlock(&reg.lock);
			return err;
		}
		pfd.fd = g->sock;
		pthread_mutex_unlock(&reg.lock);

		if ((cancel && atomic_load(cancel)) || (deadline_ns && now >= deadline_ns))
			return -ETIMEDOUT;
		next = now + GR_POLL_MS * 1000000LL;
		if (deadline_ns && deadline_ns < next)
			next = deadline_ns;
		/* Another thread may read the socket meanwhile: the loop looks again. */
		poll(&pfd, pfd.fd >= 0 ? 1 : 0, (int)((next - now + 999999) / 1000000));
	}
}

int guarded_file__fd(const struct guarded_file *g)
{
	return g && g->state == GR_ENDED && g->err == 0 ? g->copy : -1;
}

uint64_t guarded_file__size(const struct guarded_file *g)
{
	return g ? g->size : 0;
}

void guarded_file__close(struct guarded_file *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&reg.lock);
	g->owned = false;
	/* Its copy goes now; its reader, if still at work, is left to finish (a later
	 * capture may take it over) or to be found stuck. */
	if (g->state == GR_ENDED && g->copy >= 0) {
		close(g->copy);
		g->copy = -1;
		if (g->counted)
			reg.copied -= g->size;
		g->counted = false;
	}
	if (g->state == GR_ENDED && g->sock >= 0 && g->pid == 0) {
		close(g->sock);
		g->sock = -1;
	}
	gr__sweep(clock__monotonic_ns());
	pthread_mutex_unlock(&reg.lock);
}

void guarded_read__stats(struct guarded_read_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&reg.lock);
	gr__sweep(clock__monotonic_ns());
	out->started = reg.started;
	out->copied = reg.copied;
	for (struct guarded_file *g = reg.head; g; g = g->next) {
		if (!gr__alive(g))
			continue;
		out->running++;
		out->stuck += g->hung;
	}
	pthread_mutex_unlock(&reg.lock);
}

/* The reader's side, a process of its own exec'd for one file: guarded_read_reader.c. */

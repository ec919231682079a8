// SPDX-License-Identifier: MIT
/*
 * The HTTP side of the workspace server: listening, connections, and handing requests
 * to http_request.c's handler, which passes /api/ and /agent/ to the workers (workers.h)
 * that run api.c and api_agent.c. Replies and their headers are http_reply.c's; the
 * token, Host, Origin and what a request must carry are http_auth.c's. See server.h.
 *
 * libmicrohttpd watches the connections with epoll from a small pool of threads, so
 * idle connections cost a descriptor and a few kB each, not a thread; conn_guard.h drops
 * those that do not send a whole request header in time. What a request must carry is
 * checked before anything acts on it: one way of saying its length, an address that is
 * neither cut (%00) nor too long, a Host this server answers to, the token, the Origin.
 */
#include "server/server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/profiler.h"
#include "server/agent_hub.h"
#include "server/conn_guard.h"
#include "server/http.h"
#include "server/workers.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/messages.h"

#define DEFAULT_LISTEN "127.0.0.1:7070"
#define TLS_FILE_MAX (1 << 20)
/* Connections at most, descriptors permitting; those busy with a request keep this many
 * of them out of the idle ones' reach. */
#define CONNECTIONS_MAX 4096
#define CONNECTIONS_BUSY 256
/* Connections no credential vouches for (no whole header yet, an enrolment, a refused
 * request): a quarter of all at most, and half of that from one address; past it, the
 * oldest of them is dropped for the newest (conn_guard.h). So strangers hold at most
 * 1024 of the 4096, and a user's or an agent's connection always gets in. */
#define UNAUTH_MAX 1024
/* A connection sends its whole request header within this, from its accept or from the
 * end of its last request, or is dropped; so does an enrolment its whole body, and any
 * request its credential. */
#define HEADER_DEADLINE_S 10
/* Without a byte moving, a connection busy with a request (a slow upload) ends. */
#define CONNECTION_TIMEOUT_S 60
#define HTTP_THREADS_MAX 4
#define API_WORKERS 4
/* Agents' requests have workers of their own, so that fifty agents' batches queued (each
 * a profile to read, name and store) never stand between the UI and its answer; a poll
 * takes none while it is held open (parked by the hub). At a lower priority (nice 5)
 * they stored half as many captures a second on a loaded machine, and the list's p99
 * was no better (bench/agent/README.md): the queue of their own is what matters. */
#define AGENT_WORKERS 3
/* Strangers' work: an agent's credential checked before its body is read, enrolments.
 * Two, apart from the agents' and the UI's, so that no stranger queues before them. */
#define GATE_WORKERS 2
/* glibc's malloc arenas: one per thread by default, each keeping what its busiest
 * moment took; a profile's page under 32 connections grew serve to ~115 MB and kept it. */
#define MALLOC_ARENAS 2
/* TLS 1.2 and 1.3 only, key exchange with forward secrecy only (ECDHE; no static RSA),
 * AEAD ciphers only, in this server's order. */
#define TLS_PRIORITIES "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-DHE-RSA:-DHE-DSS:" \
		       "-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:" \
		       "-MAC-ALL:+AEAD:%SERVER_PRECEDENCE"

/* ---- listening ---- */

static int parse_listen(const char *text, struct sockaddr_storage *ss, bool *loopback)
{
	char host[256];
	const char *colon = strrchr(text, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *ai;
	size_t hlen;

	if (!colon || !colon[1])
		return -EINVAL;
	hlen = (size_t)(colon - text);
	if (text[0] == '[') {
		if (hlen < 2 || text[hlen - 1] != ']')
			return -EINVAL;
		text++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, hlen);
	host[hlen] = '\0';
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
		return -EINVAL;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET)
		*loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	else
		*loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

/* A PEM file of at most TLS_FILE_MAX bytes, NUL-terminated; NULL with errno set. */
static char *read_small_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return NULL;
	buf = malloc(TLS_FILE_MAX + 1);
	if (buf) {
		len = fread(buf, 1, TLS_FILE_MAX, f);
		buf[len] = '\0';
	}
	err = ferror(f) ? EIO : 0;
	fclose(f);
	if (buf && err) {
		free(buf);
		buf = NULL;
	}
	errno = buf ? 0 : err ? err : ENOMEM;
	return buf;
}

/* The certificate or the key, read and looking like what it should be: 0, or -1 after
 * saying why not. */
static int read_tls_file(const char *path, const char *what, const char *begin, char **out)
{
	char marker[64];

	*out = read_small_file(path);
	if (!*out) {
		msg_error(MSG_SERVE_TLS_UNREADABLE, path, strerror(errno));
		return -1;
	}
	snprintf(marker, sizeof(marker), "-----BEGIN %s", begin);
	if (!strstr(*out, marker)) {
		msg_error(MSG_SERVE_TLS_NOT_PEM, path, what, begin);
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* This machine in the workspace's list of servers. */
static void register_this_server(struct server *srv)
{
	struct server_entry e = { .id = THIS_SERVER_ID, .hostname = srv->hostname,
				  .this_server = true };
	struct store *s = store__open(srv->data_dir);

	if (s) {
		store__put_server(s, &e);
		store__close(s);
	}
}

/* libmicrohttpd's own words: kept while starting (why it did not), dropped after, when
 * they are about clients that went wrong and would only fill the terminal. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct http *h = cls;
	size_t n;

	pthread_mutex_lock(&h->log_lock);
	if (!h->started && !h->start_error[0]) {
		vsnprintf(h->start_error, sizeof(h->start_error), fmt, ap);
		n = strlen(h->start_error);
		while (n && (h->start_error[n - 1] == '\n' || h->start_error[n - 1] == '.'))
			h->start_error[--n] = '\0';
	}
	pthread_mutex_unlock(&h->log_lock);
}

/* As many descriptors as the hard limit allows: each connection takes one. How many
 * connections that leaves room for. */
static unsigned connection_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 64;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	/* The rest: the workspace, profiles being read, uploads, epoll, pipes. */
	if (rl.rlim_cur < 2 * CONNECTIONS_BUSY)
		return (unsigned)rl.rlim_cur / 2;
	return rl.rlim_cur - CONNECTIONS_BUSY > CONNECTIONS_MAX ?
		       CONNECTIONS_MAX : (unsigned)(rl.rlim_cur - CONNECTIONS_BUSY);
}

static unsigned http_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n > HTTP_THREADS_MAX ? HTTP_THREADS_MAX : (unsigned)n;
}

/* A name for --allow-host: a DNS name's letters only. */
static bool host_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < 254 && name[0] != '.' && name[0] != '-' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") == n;
}

int server__run(const struct server_options *o, volatile sig_atomic_t *stop)
{
	const char *listen = o->listen ? o->listen : DEFAULT_LISTEN;
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG;
	unsigned limit = connection_limit();
	unsigned unauth = limit / 4 < UNAUTH_MAX ? limit / 4 : UNAUTH_MAX;
	struct conn_guard_limits guard = {
		.idle_max = unauth ? unauth : 1,
		.idle_per_address_max = unauth / 2 ? unauth / 2 : 1,
		.deadline_ns = (int64_t)HEADER_DEADLINE_S * 1000000000,
	};
	char *cert = NULL, *key = NULL;
	struct MHD_OptionItem opts[16];
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	struct server *srv;
	struct http *h;
	struct store *s;
	sigset_t sigs;
	bool loopback;
	int err, n = 0, ret = -1;

	if (parse_listen(listen, &ss, &loopback)) {
		msg_error(MSG_SERVE_BAD_LISTEN, listen);
		return -1;
	}
	if (!o->tls_cert != !o->tls_key) {
		msg_error(MSG_SERVE_TLS_HALF);
		return -1;
	}
	if (!loopback && !o->tls_cert && !o->insecure_http) {
		msg_error(MSG_SERVE_NEEDS_TLS, listen);
		return -1;
	}
	if (o->nallowed_hosts > SERVER_ALLOWED_HOSTS_MAX) {
		msg_error(MSG_SERVE_TOO_MANY_HOSTS, SERVER_ALLOWED_HOSTS_MAX);
		return -1;
	}
	for (int i = 0; i < o->nallowed_hosts; i++) {
		if (!host_name_ok(o->allowed_hosts[i])) {
			msg_error(MSG_SERVE_BAD_HOST_NAME, o->allowed_hosts[i]);
			return -1;
		}
	}
	if (o->tls_cert) {
		if (read_tls_file(o->tls_cert, "certificate", "CERTIFICATE", &cert) ||
		    read_tls_file(o->tls_key, "private key", "", &key))
			goto out_tls;
		if (!strstr(key, "PRIVATE KEY-----")) {
			msg_error(MSG_SERVE_TLS_NOT_PEM, o->tls_key, "private key", "PRIVATE KEY");
			goto out_tls;
		}
		flags |= MHD_USE_TLS;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	h = calloc(1, sizeof(*h));
	if (!h) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_tls;
	}
	srv = &h->srv;
	pthread_mutex_init(&h->log_lock, NULL);
	pthread_mutex_init(&srv->uploads.lock, NULL);
	pthread_mutex_init(&srv->bodies_lock, NULL);
	srv->decode_pool.cap = AGENT_DECODE_POOL_MAX;
	for (int i = 0; i < o->nallowed_hosts; i++)
		h->allowed_hosts[h->nallowed_hosts++] = o->allowed_hosts[i];
	snprintf(srv->data_dir, sizeof(srv->data_dir), "%s", o->data_dir);
	/* Opening the store makes the data directory and its schema. */
	s = store__open(srv->data_dir);
	if (!s) {
		msg_error(MSG_DATA_DIR_UNUSABLE, srv->data_dir, strerror(errno));
		goto out_srv;
	}
	/* A shared workspace keeps its token, so that each of its servers asks the same. */
	err = store__token(s, srv->token, sizeof(srv->token));
	store__close(s);
	if (err == -ENOTSUP)
		err = http__load_token(srv->data_dir, srv->token);
	if (err) {
		msg_error(MSG_SERVE_TOKEN_FAILED, srv->data_dir, strerror(-err));
		goto out_srv;
	}
	if (gethostname(srv->hostname, sizeof(srv->hostname) - 1))
		snprintf(srv->hostname, sizeof(srv->hostname), "localhost");
	register_this_server(srv);
	{
		char dir[PATH_MAX + 16];

		/* Nothing is loaded until the first capture. */
		snprintf(dir, sizeof(dir), "%s/profiler", srv->data_dir);
		srv->profiler = profiler__new(dir);
	}
	srv->hub = agent_hub__new(srv->data_dir);
	srv->gate = agent_gate__new();
	if (!srv->hub || !srv->profiler || !srv->gate ||
	    capture_job__init(&srv->job, srv->data_dir, srv->hostname, srv->profiler)) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_srv;
	}
	mallopt(M_ARENA_MAX, MALLOC_ARENAS);
	h->guard = conn_guard__new(&guard);
	if (h->guard) {
		h->workers = workers__start(srv, API_WORKERS);
		h->agent_workers = workers__start(srv, AGENT_WORKERS);
		h->gate_workers = workers__start(srv, GATE_WORKERS);
	}
	if (!h->guard || !h->workers || !h->agent_workers || !h->gate_workers) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_job;
	}

	/* SIGINT and SIGTERM come to this thread only, as a wait rather than a handler:
	 * the daemon's threads inherit the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
#define OPT(o, v, p) (opts[n++] = (struct MHD_OptionItem){ (o), (intptr_t)(v), (void *)(p) })
	/* The logger first, so that it hears about the options too. */
	OPT(MHD_OPTION_EXTERNAL_LOGGER, on_log, h);
	OPT(MHD_OPTION_SOCK_ADDR, 0, &ss);
	OPT(MHD_OPTION_URI_LOG_CALLBACK, http__on_uri, h);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, http__on_completed, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, http__on_connection, h);
	OPT(MHD_OPTION_THREAD_POOL_SIZE, http_threads(), NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, limit, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, CONNECTION_TIMEOUT_S, NULL);
	if (cert) {
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, cert);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, key);
		OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, TLS_PRIORITIES);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	d = MHD_start_daemon(flags, 0, NULL, NULL, http__on_request, h, MHD_OPTION_ARRAY, opts,
			     MHD_OPTION_END);
	pthread_mutex_lock(&h->log_lock);
	h->started = true;
	pthread_mutex_unlock(&h->log_lock);
	/* Its words for a certificate or key GnuTLS would not take. */
	if (!d && cert && (strstr(h->start_error, "certificate") || strstr(h->start_error, "TLS"))) {
		msg_error(MSG_SERVE_TLS_UNUSABLE, o->tls_cert, o->tls_key, h->start_error);
		goto out_workers;
	}
	if (!d) {
		msg_error(MSG_SERVE_START_FAILED, listen,
			  h->start_error[0] ? h->start_error : strerror(errno ? errno : EADDRINUSE));
		goto out_workers;
	}
	msg_print(MSG_SERVE_URL, cert ? "https" : "http", listen, srv->token);
	fflush(stdout);
	while (!*stop && sigtimedwait(&sigs, NULL, &(struct timespec){ 1, 0 }) < 0) {
		conn_guard__sweep(h->guard, clock__monotonic_ns());
		agent_hub__sweep(srv->hub, clock__monotonic_ns());
	}
	/* Every suspended request answered and resumed before the daemon stops: polls held
	 * open, calls waiting for an agent, then the workers' queue. */
	agent_hub__stop(srv->hub);
	workers__stop(h->gate_workers);
	workers__stop(h->agent_workers);
	workers__stop(h->workers);
	h->gate_workers = NULL;
	h->agent_workers = NULL;
	h->workers = NULL;
	MHD_stop_daemon(d);
	msg_print(MSG_SERVE_STOPPED);
	ret = 0;
out_workers:
	workers__stop(h->gate_workers);
	workers__stop(h->agent_workers);
	workers__stop(h->workers);
out_job:
	conn_guard__free(h->guard);
	capture_job__fini(&srv->job);
out_srv:
	agent_hub__free(srv->hub);
	agent_gate__free(srv->gate);
	profiler__free(srv->profiler);
	explicit_bzero(srv->token, sizeof(srv->token));
	pthread_mutex_destroy(&srv->uploads.lock);
	pthread_mutex_destroy(&srv->bodies_lock);
	pthread_mutex_destroy(&h->log_lock);
	free(h);
out_tls:
	free(cert);
	free(key);
	return ret;
}

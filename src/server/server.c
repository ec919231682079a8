// SPDX-License-Identifier: MIT
/*
 * The HTTP side of the workspace server: listening, the token, Origin, security headers,
 * the embedded UI, and handing /api/ to api.c. See server.h.
 */
#include "server/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server/server_internal.h"
#include "store/store.h"
#include "util/messages.h"

#define DEFAULT_LISTEN "127.0.0.1:7070"
#define COOKIE_NAME "slideops_token"
#define TOKEN_FILE "serve-token"
#define TLS_FILE_MAX (1 << 20)

/* Scripts, styles and requests only to here; nothing inline, no frames, no plugins. */
static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
			  "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
			  "frame-ancestors 'none'; base-uri 'none'";

/* ---- the token ---- */

/* Reads the workspace token, or makes one (0600) on first start. 0 or -errno. */
static int token__load(const char *dir, char token[SERVER_TOKEN_HEX + 1])
{
	unsigned char raw[SERVER_TOKEN_HEX / 2];
	char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, TOKEN_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		n = read(fd, token, SERVER_TOKEN_HEX);
		close(fd);
		if (n == SERVER_TOKEN_HEX && strspn(token, "0123456789abcdef") >= SERVER_TOKEN_HEX) {
			token[SERVER_TOKEN_HEX] = '\0';
			return 0;
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -EIO;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(token + 2 * i, 3, "%02x", raw[i]);
	/* Written whole, then renamed: two first starts never leave half a token. */
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, token, SERVER_TOKEN_HEX) != SERVER_TOKEN_HEX || fsync(fd) ||
	    rename(tmp, path)) {
		int err = errno ? -errno : -EIO;

		close(fd);
		unlink(tmp);
		return err;
	}
	close(fd);
	return 0;
}

/* Compares in time that does not depend on where they differ. */
static bool token__equal(const char *given, const char *token)
{
	unsigned char diff = 0;
	size_t n = given ? strlen(given) : 0;

	if (n != SERVER_TOKEN_HEX)
		return false;
	for (size_t i = 0; i < SERVER_TOKEN_HEX; i++)
		diff |= (unsigned char)(given[i] ^ token[i]);
	return diff == 0;
}

/* ---- replies ---- */

void reply__error(struct reply *r, const struct view_error *e)
{
	json_decref(r->doc);
	r->status = e->status;
	r->doc = view_error__json(e);
}

void reply__msg(struct reply *r, int status, enum msg_id id, ...)
{
	struct view_error e;
	va_list ap;

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	reply__error(r, &e);
}

static void add_common_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* The token may be in the URL of the first request: never send it on. */
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
}

/* A reply from memory; allow (may be NULL or ""): the Allow header of a 405. A HEAD
 * request gets the same headers, Content-Length included, and libmicrohttpd sends no
 * body. */
static enum MHD_Result send_buffer(struct MHD_Connection *conn, int status, const char *type,
				   void *data, size_t len, enum MHD_ResponseMemoryMode mode,
				   const char *allow)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, data, mode);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	add_common_headers(resp);
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (allow && *allow)
		MHD_add_response_header(resp, "Allow", allow);
	/* A 401 says how to authenticate (RFC 9110): the token, as a Bearer token. */
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"SlideOps\"");
	ret = MHD_queue_response(conn, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *text;

	if (r->fd >= 0) {
		struct stat st;
		char disp[200];

		if (fstat(r->fd, &st)) {
			close(r->fd);
			return MHD_NO;
		}
		resp = MHD_create_response_from_fd((uint64_t)st.st_size, r->fd);
		if (!resp) {
			close(r->fd);
			return MHD_NO;
		}
		add_common_headers(resp);
		MHD_add_response_header(resp, "Content-Type", r->content_type);
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", r->file_name);
		MHD_add_response_header(resp, "Content-Disposition", disp);
		ret = MHD_queue_response(conn, (unsigned)r->status, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (!r->doc) {
		r->status = 500;
		r->doc = json_pack("{s:s}", "error", msg_text(MSG_OUT_OF_MEMORY));
	}
	text = r->doc ? json_dumps(r->doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
						   JSON_REAL_PRECISION(10)) : NULL;
	json_decref(r->doc);
	r->doc = NULL;
	if (!text)
		return MHD_NO;
	return send_buffer(conn, r->status, "application/json; charset=utf-8", text,
			   strlen(text), MHD_RESPMEM_MUST_FREE, r->allow);
}

static enum MHD_Result send_error(struct MHD_Connection *conn, int status, enum msg_id id, ...)
{
	struct reply r = { .fd = -1 };
	struct view_error e;
	va_list ap;

	/* Outside /api/, everything is a page or a file of the UI: only read. */
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		snprintf(r.allow, sizeof(r.allow), "GET, HEAD");

	va_start(ap, id);
	view_error__vset(&e, status, id, ap);
	va_end(ap);
	reply__error(&r, &e);
	return send_reply(conn, &r);
}

/* ---- the page and its assets ---- */

/* "/?token=T": the token becomes a cookie, and the address bar loses it. */
static enum MHD_Result sign_in(struct MHD_Connection *conn, const char *token)
{
	const union MHD_ConnectionInfo *tls =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_PROTOCOL);
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
	char cookie[200];
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	add_common_headers(resp);
	/* Secure over TLS: the cookie never goes back over plain HTTP. */
	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict%s", COOKIE_NAME,
		 token, tls ? "; Secure" : "");
	MHD_add_response_header(resp, "Set-Cookie", cookie);
	MHD_add_response_header(resp, "Location", "/");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	ret = MHD_queue_response(conn, MHD_HTTP_SEE_OTHER, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result send_asset(struct MHD_Connection *conn, const struct asset *a)
{
	return send_buffer(conn, 200, a->content_type, (void *)a->data, a->size,
			   MHD_RESPMEM_PERSISTENT, NULL);
}

/* ---- who is asking ---- */

static bool bearer_ok(struct MHD_Connection *conn, const char *token)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	return h && strncmp(h, "Bearer ", 7) == 0 && token__equal(h + 7, token);
}

static bool cookie_ok(struct MHD_Connection *conn, const char *token)
{
	return token__equal(MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, COOKIE_NAME),
			    token);
}

static bool is_change(const char *method)
{
	return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
}

/*
 * A change must come from this page: its Origin is this server as the browser reached it
 * (the Host it sent). Browsers send Origin with every POST and DELETE; a change made with
 * the cookie and without one is refused, since only a browser sends the cookie.
 */
static bool origin_ok(struct MHD_Connection *conn, bool cookie_auth, const char **origin)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	const union MHD_ConnectionInfo *tls =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_PROTOCOL);
	char expect[512];

	*origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	if (!*origin)
		return !cookie_auth;
	if (!host)
		return false;
	snprintf(expect, sizeof(expect), "%s://%s", tls ? "https" : "http", host);
	return strcmp(*origin, expect) == 0;
}

/* ---- the request handler ---- */

static void request__free(struct request *req)
{
	if (!req)
		return;
	free(req->body);
	upload__free(req->upload);
	free(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	request__free(*con_cls);
	*con_cls = NULL;
}

static bool read_body(struct request *req, const char *data, size_t len)
{
	char *grown;

	if (req->body_too_large || req->body_len + len > SERVER_BODY_MAX) {
		req->body_too_large = true;
		return true;
	}
	grown = realloc(req->body, req->body_len + len + 1);
	if (!grown)
		return false;
	memcpy(grown + req->body_len, data, len);
	req->body = grown;
	req->body_len += len;
	req->body[req->body_len] = '\0';
	return true;
}

/* The first call for a request: who asks, and may they. NULL: go on; else the refusal
 * was queued (or failed) and this is its result. */
static int first_call(struct server *srv, struct MHD_Connection *conn, const char *url,
		      const char *method, struct request *req)
{
	const char *given = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	const char *origin;
	bool api = strncmp(url, "/api/", 5) == 0;

	if (!api && strcmp(method, "GET") == 0 && given && token__equal(given, srv->token))
		return sign_in(conn, given);
	if (bearer_ok(conn, srv->token)) {
		req->cookie_auth = false;
	} else if (cookie_ok(conn, srv->token)) {
		req->cookie_auth = true;
	} else {
		return send_error(conn, MHD_HTTP_UNAUTHORIZED, MSG_API_NO_TOKEN);
	}
	if (is_change(method) && !origin_ok(conn, req->cookie_auth, &origin)) {
		if (origin)
			return send_error(conn, MHD_HTTP_FORBIDDEN, MSG_API_BAD_ORIGIN, origin);
		return send_error(conn, MHD_HTTP_FORBIDDEN, MSG_API_NO_ORIGIN);
	}
	req->checked = true;
	return -1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct server *srv = cls;
	struct request *req = *con_cls;
	struct reply r = { .fd = -1 };
	struct asset a;
	int refused;

	(void)version;
	if (!req) {
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		*con_cls = req;
		refused = first_call(srv, conn, url, method, req);
		if (refused >= 0)
			return (enum MHD_Result)refused;
		if (api__is_upload(method, url)) {
			const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								      "Content-Length");

			/* Said too large up front: refused before a byte is read. */
			if (len && strtoull(len, NULL, 10) > VIEWS_UPLOAD_MAX_BYTES)
				return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE,
						  MSG_UPLOAD_TOO_LARGE);
			req->upload = upload__new(srv->data_dir);
			if (!req->upload)
				return send_error(conn, 500, MSG_API_UPLOAD_WRITE, strerror(errno));
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (req->upload)
			upload__write(req->upload, upload_data, *upload_data_size);
		else if (!read_body(req, upload_data, *upload_data_size))
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}

	if (strncmp(url, "/api/", 5) == 0) {
		api__handle(srv, conn, method, url, req, &r);
		return send_reply(conn, &r);
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, MSG_API_METHOD, method, url);
	/* Every page of the UI is the one page; it reads its place from the path. */
	if (!asset__find(url, &a) && (strchr(url + 1, '.') || !asset__find("/", &a)))
		return send_error(conn, MHD_HTTP_NOT_FOUND, MSG_API_NOT_FOUND, "that path");
	return send_asset(conn, &a);
}

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

static char *read_small_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	buf = malloc(TLS_FILE_MAX + 1);
	if (buf) {
		len = fread(buf, 1, TLS_FILE_MAX, f);
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
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

int server__run(const struct server_options *o, volatile sig_atomic_t *stop)
{
	const char *listen = o->listen ? o->listen : DEFAULT_LISTEN;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_ERROR_LOG;
	char *cert = NULL, *key = NULL;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	sigset_t sigs;
	struct server *srv;
	struct store *s;
	bool loopback;
	int err, ret = -1;

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
	if (o->tls_cert) {
		cert = read_small_file(o->tls_cert);
		if (!cert) {
			msg_error(MSG_SERVE_TLS_UNREADABLE, o->tls_cert, strerror(errno));
			return -1;
		}
		key = read_small_file(o->tls_key);
		if (!key) {
			msg_error(MSG_SERVE_TLS_UNREADABLE, o->tls_key, strerror(errno));
			free(cert);
			return -1;
		}
		flags |= MHD_USE_TLS;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_tls;
	}
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
		err = token__load(srv->data_dir, srv->token);
	if (err) {
		msg_error(MSG_SERVE_TOKEN_FAILED, srv->data_dir, strerror(-err));
		goto out_srv;
	}
	if (gethostname(srv->hostname, sizeof(srv->hostname) - 1))
		snprintf(srv->hostname, sizeof(srv->hostname), "localhost");
	register_this_server(srv);
	if (capture_job__init(&srv->job, srv->data_dir, srv->hostname)) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_srv;
	}

	/* SIGINT and SIGTERM come to this thread only, as a wait rather than a handler:
	 * the daemon's threads inherit the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, srv,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
			     cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert,
			     MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_END);
	if (!d) {
		msg_error(MSG_SERVE_START_FAILED, listen, strerror(errno ? errno : EADDRINUSE));
		goto out_job;
	}
	msg_print(MSG_SERVE_URL, cert ? "https" : "http", listen, srv->token);
	fflush(stdout);
	while (!*stop && sigtimedwait(&sigs, NULL, &(struct timespec){ 1, 0 }) < 0)
		;
	MHD_stop_daemon(d);
	msg_print(MSG_SERVE_STOPPED);
	ret = 0;
out_job:
	capture_job__fini(&srv->job);
out_srv:
	explicit_bzero(srv->token, sizeof(srv->token));
	free(srv);
out_tls:
	free(cert);
	free(key);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * The HTTP side of the workspace server: listening, the token, Origin, Host, security
 * headers, the embedded UI, and handing /api/ to the workers (workers.h), which run
 * api.c. See server.h.
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

#include "server/agent_hub.h"
#include "server/conn_guard.h"
#include "server/server_internal.h"
#include "server/workers.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/messages.h"

#define DEFAULT_LISTEN "127.0.0.1:7070"
#define COOKIE_NAME "slideops_token"
#define TOKEN_FILE "serve-token"
#define TLS_FILE_MAX (1 << 20)
/* Connections at most, descriptors permitting; those busy with a request keep this many
 * of them out of the idle ones' reach. */
#define CONNECTIONS_MAX 4096
#define CONNECTIONS_BUSY 256
#define IDLE_PER_ADDRESS_MAX 1024
/* A connection sends its whole request header within this, from its accept or from the
 * end of its last request, or is dropped. */
#define HEADER_DEADLINE_S 10
/* Without a byte moving, a connection busy with a request (a slow upload) ends. */
#define CONNECTION_TIMEOUT_S 60
#define HTTP_THREADS_MAX 4
#define API_WORKERS 4
/* glibc's malloc arenas: one per thread by default, each keeping what its busiest
 * moment took; a profile's page under 32 connections grew serve to ~115 MB and kept it. */
#define MALLOC_ARENAS 2
/* TLS 1.2 and 1.3 only, key exchange with forward secrecy only (ECDHE; no static RSA),
 * AEAD ciphers only, in this server's order. */
#define TLS_PRIORITIES "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-DHE-RSA:-DHE-DSS:" \
		       "-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:" \
		       "-MAC-ALL:+AEAD:%SERVER_PRECEDENCE"
#define HSTS "max-age=31536000"

/* What the HTTP side keeps besides the server api.c sees. */
struct http {
	struct server srv;
	struct conn_guard *guard;
	struct workers *workers;
	const char *allowed_hosts[SERVER_ALLOWED_HOSTS_MAX];
	int nallowed_hosts;
	/* libmicrohttpd's first complaint while starting: why it did not start. */
	pthread_mutex_t log_lock;
	bool started;
	char start_error[256];
};

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

static bool is_tls(struct MHD_Connection *conn)
{
	return MHD_get_connection_info(conn, MHD_CONNECTION_INFO_PROTOCOL) != NULL;
}

static void add_common_headers(struct MHD_Connection *conn, struct MHD_Response *resp)
{
	/* Over TLS, the browser comes back over TLS only. */
	if (is_tls(conn))
		MHD_add_response_header(resp, "Strict-Transport-Security", HSTS);
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
	add_common_headers(conn, resp);
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (allow && *allow)
		MHD_add_response_header(resp, "Allow", allow);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, "Retry-After", "10");
	/* A request whose framing or address was refused: nothing more is read from it. */
	if (status == MHD_HTTP_BAD_REQUEST || status == MHD_HTTP_URI_TOO_LONG)
		MHD_add_response_header(resp, "Connection", "close");
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

	if (r->data) {
		char disp[200];

		json_decref(r->doc);
		r->doc = NULL;
		resp = MHD_create_response_from_buffer(r->len, r->data, MHD_RESPMEM_MUST_FREE);
		if (!resp) {
			free(r->data);
			r->data = NULL;
			return MHD_NO;
		}
		r->data = NULL;
		add_common_headers(conn, resp);
		MHD_add_response_header(resp, "Content-Type", r->content_type);
		MHD_add_response_header(resp, "Cache-Control", "no-store");
		/* A download (an export); an agent's message is none. */
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", r->file_name);
		if (r->file_name[0])
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
	struct reply r = { 0 };
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

/* Where signing in sends the browser: the page the URL named, as it was sent (still
 * percent-encoded), without the token. "/" for anything that is not plainly a path of
 * this server: never "//elsewhere" nor a character a header could be bent with. */
static void sign_in__target(const char *raw_uri, char *out, size_t size)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-._~!$&'()*+,;=:@/%?";
	size_t path_len, n = 0;
	const char *query;
	char sep = '?';

	snprintf(out, size, "/");
	if (!raw_uri || raw_uri[0] != '/' || raw_uri[1] == '/' ||
	    strspn(raw_uri, safe) != strlen(raw_uri))
		return;
	path_len = strcspn(raw_uri, "?");
	if (path_len >= size)
		return;
	memcpy(out, raw_uri, path_len);
	n = path_len;
	out[n] = '\0';
	query = raw_uri[path_len] ? raw_uri + path_len + 1 : NULL;
	while (query && *query) {
		size_t len = strcspn(query, "&");

		if (len && strncmp(query, "token=", 6) != 0 && !(len == 5 && !strncmp(query, "token", 5)) &&
		    n + 1 + len < size) {
			out[n++] = sep;
			memcpy(out + n, query, len);
			n += len;
			out[n] = '\0';
			sep = '&';
		}
		query += len + (query[len] == '&');
	}
}

/* "/PAGE?token=T": the token becomes a cookie, and the address bar loses it. */
static enum MHD_Result sign_in(struct MHD_Connection *conn, const char *token,
			       const char *raw_uri)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
	char cookie[200], target[SERVER_URI_MAX + 2];
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	add_common_headers(conn, resp);
	/* Secure over TLS: the cookie never goes back over plain HTTP. */
	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict%s", COOKIE_NAME,
		 token, is_tls(conn) ? "; Secure" : "");
	MHD_add_response_header(resp, "Set-Cookie", cookie);
	sign_in__target(raw_uri, target, sizeof(target));
	MHD_add_response_header(resp, "Location", target);
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

/* "Authorization: Bearer TOKEN", the scheme in any case (RFC 9110 §11.1). */
static bool bearer_ok(struct MHD_Connection *conn, const char *token)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	if (!h || strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t'))
		return false;
	h += 6;
	h += strspn(h, " \t");
	return token__equal(h, token);
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
	char expect[512];

	*origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	if (!*origin)
		return !cookie_auth;
	if (!host)
		return false;
	snprintf(expect, sizeof(expect), "%s://%s", is_tls(conn) ? "https" : "http", host);
	return strcmp(*origin, expect) == 0;
}

/*
 * The Host a request names (RFC 9110 §7.2) must be one this server answers to: an IP
 * address, localhost, this machine's name, or one given with --allow-host. A page of
 * another site whose name was made to point here (DNS rebinding) names its own site.
 * name gets the name alone, without the port. An HTTP/1.0 request without Host passes
 * (browsers always send it); first_call refuses an HTTP/1.1 one.
 */
static bool host_ok(const struct http *h, struct MHD_Connection *conn, char name[256])
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	unsigned char ip[16];
	size_t len;

	name[0] = '\0';
	if (!host)
		return true;
	if (host[0] == '[') { /* [v6]:port */
		const char *end = strchr(host, ']');

		len = end ? (size_t)(end - host - 1) : 0;
		host++;
	} else {
		len = strcspn(host, ":");
	}
	if (len == 0 || len >= 256) {
		snprintf(name, 256, "%.*s", 200, host);
		return false;
	}
	memcpy(name, host, len);
	name[len] = '\0';
	/* "localhost." is "localhost". */
	if (len > 1 && name[len - 1] == '.')
		name[len - 1] = '\0';
	if (inet_pton(AF_INET, name, ip) == 1 || inet_pton(AF_INET6, name, ip) == 1)
		return true;
	if (strcasecmp(name, "localhost") == 0 || strcasecmp(name, h->srv.hostname) == 0)
		return true;
	for (int i = 0; i < h->nallowed_hosts; i++)
		if (strcasecmp(name, h->allowed_hosts[i]) == 0)
			return true;
	return false;
}

/* ---- the request handler ---- */

static void request__free(struct request *req)
{
	if (!req)
		return;
	free(req->raw_path);
	free(req->body);
	upload__free(req->upload);
	json_decref(req->reply.doc);
	free(req->reply.data);
	free(req);
}

static struct conn_slot *slot_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Before the request line is decoded: its URI as sent, which is where a %00 still shows
 * and where its length is its length. What it returns is the request's *con_cls. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct request *req = calloc(1, sizeof(*req));
	size_t len = strlen(uri);

	(void)cls;
	(void)conn;
	if (!req)
		return NULL;
	req->uri_too_long = len > SERVER_URI_MAX;
	req->uri_nul = strstr(uri, "%00") != NULL;
	if (!req->uri_too_long)
		req->raw_path = strdup(uri);
	return req;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;

	(void)toe;
	request__free(*con_cls);
	*con_cls = NULL;
	/* Kept alive for another request: its header is due as a new connection's is. */
	conn_guard__idle(h->guard, slot_of(conn), clock__monotonic_ns());
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		conn_guard__close(h->guard, *socket_context);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	*socket_context = fd ? conn_guard__open(h->guard, fd->connect_fd,
						addr ? addr->client_addr : NULL,
						clock__monotonic_ns()) : NULL;
}

static bool read_body(struct request *req, const char *data, size_t len)
{
	char *grown;

	if (req->body_too_large ||
	    req->body_len + len > (req->body_max ? req->body_max : SERVER_BODY_MAX)) {
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

struct framing {
	unsigned lengths, encodings;
	bool unknown_encoding;
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	struct framing *f = cls;

	(void)kind;
	if (strcasecmp(key, "Content-Length") == 0) {
		f->lengths++;
	} else if (strcasecmp(key, "Transfer-Encoding") == 0) {
		f->encodings++;
		f->unknown_encoding |= !value || strcasecmp(value, "chunked") != 0;
	}
	return MHD_YES;
}

/* The body's length said one way only: a second Content-Length (equal or not), or one
 * beside Transfer-Encoding, lets two readers of the stream disagree on where the next
 * request starts. NULL: fine; else how it is said, for the refusal. */
static const char *framing_problem(struct MHD_Connection *conn)
{
	struct framing f = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, &f);
	if (f.lengths > 1)
		return "with more than one Content-Length";
	if (f.lengths && f.encodings)
		return "with both Content-Length and Transfer-Encoding";
	if (f.encodings > 1 || f.unknown_encoding)
		return "with a Transfer-Encoding other than chunked";
	return NULL;
}

/*
 * The agent protocol's paths (docs/protocol.md): POST only, never from a browser (no
 * Origin), and never with the UI's token or cookie: an agent's credential, checked
 * against the workspace by the worker, or (enrolment) a token in the message. A request
 * without a credential of the right form is refused before its body is read.
 */
static int first_agent_call(struct MHD_Connection *conn, const char *url, const char *method,
			    struct request *req)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");

	if (strcmp(method, "POST") != 0) {
		struct reply r = { 0 };

		snprintf(r.allow, sizeof(r.allow), "POST");
		reply__msg(&r, MHD_HTTP_METHOD_NOT_ALLOWED, MSG_AGENT_ONLY_POST, url);
		return send_reply(conn, &r);
	}
	if (origin)
		return send_error(conn, MHD_HTTP_FORBIDDEN, MSG_AGENT_NO_ORIGIN, origin);
	if (strcmp(url, "/agent/enrol") != 0) {
		if (h && strncasecmp(h, "Bearer", 6) == 0 && (h[6] == ' ' || h[6] == '\t'))
			h += 6 + strspn(h + 6, " \t");
		else
			h = NULL;
		if (!h || strlen(h) != STORE_SECRET_HEX ||
		    strspn(h, "0123456789abcdef") != STORE_SECRET_HEX)
			return send_error(conn, MHD_HTTP_UNAUTHORIZED, MSG_AGENT_NO_CREDENTIAL);
	}
	req->agent = true;
	req->body_max = agent__body_max(url);
	if (len && strtoull(len, NULL, 10) > req->body_max)
		return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, MSG_AGENT_BODY_TOO_LARGE,
				  (unsigned long long)(req->body_max >> 20));
	req->checked = true;
	return -1;
}

/* The first call for a request: is it well formed, who asks, and may they. -1: go on;
 * else the refusal was queued (or failed) and this is its result. */
static int first_call(struct http *h, struct MHD_Connection *conn, const char *url,
		      const char *method, const char *version, struct request *req)
{
	const char *given = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	const char *framing = framing_problem(conn);
	const char *origin;
	bool api = strncmp(url, "/api/", 5) == 0;
	char name[256];

	if (framing)
		return send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_BAD_FRAMING, framing);
	if (req->uri_too_long)
		return send_error(conn, MHD_HTTP_URI_TOO_LONG, MSG_API_URI_TOO_LONG, SERVER_URI_MAX);
	if (req->uri_nul)
		return send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_URI_NUL);
	if (!req->raw_path)
		return send_error(conn, 500, MSG_OUT_OF_MEMORY);
	/* RFC 9112 §3.2: an HTTP/1.1 request without Host is refused. */
	if (strcmp(version, "HTTP/1.0") != 0 &&
	    !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"))
		return send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_NO_HOST);
	if (!host_ok(h, conn, name))
		return send_error(conn, MHD_HTTP_MISDIRECTED_REQUEST, MSG_API_BAD_HOST, name, name);
	if (strncmp(url, "/agent/", 7) == 0)
		return first_agent_call(conn, url, method, req);
	if (!api && strcmp(method, "GET") == 0 && given && token__equal(given, h->srv.token))
		return sign_in(conn, given, req->raw_path);
	if (bearer_ok(conn, h->srv.token)) {
		req->cookie_auth = false;
	} else if (cookie_ok(conn, h->srv.token)) {
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

/* An upload's first call: its file, and its share of the disk when its length is said. */
static int start_upload(struct http *h, struct MHD_Connection *conn, struct request *req)
{
	const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	unsigned long long declared = len ? strtoull(len, NULL, 10) : 0;

	/* Said too large up front: refused before a byte is read. */
	if (declared > VIEWS_UPLOAD_MAX_BYTES)
		return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, MSG_UPLOAD_TOO_LARGE);
	req->upload = upload__new(h->srv.data_dir, &h->srv.uploads, declared);
	if (!req->upload && errno == EBUSY)
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, MSG_API_UPLOADS_BUSY,
				  (unsigned long long)(SERVER_UPLOADS_HELD_MAX >> 20));
	if (!req->upload)
		return send_error(conn, 500, MSG_API_UPLOAD_WRITE, strerror(errno));
	return -1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct http *h = cls;
	struct request *req = *con_cls;
	struct asset a;
	int refused;

	if (!req) { /* on_uri could not allocate it */
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		*con_cls = req;
	}
	if (!req->seen) {
		req->seen = true;
		conn_guard__busy(h->guard, slot_of(conn));
		refused = first_call(h, conn, url, method, version, req);
		if (refused < 0 && api__is_upload(method, url))
			refused = start_upload(h, conn, req);
		return refused >= 0 ? (enum MHD_Result)refused : MHD_YES;
	}
	if (*upload_data_size) {
		if (req->upload)
			upload__write(req->upload, upload_data, *upload_data_size);
		else if (!read_body(req, upload_data, *upload_data_size))
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}

	if (strncmp(url, "/api/", 5) == 0 || req->agent) {
		if (req->replied)
			return send_reply(conn, &req->reply);
		req->srv = &h->srv;
		req->conn = conn;
		req->method = method;
		req->url = url;
		if (workers__submit(h->workers, req))
			return MHD_YES;
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, MSG_API_STOPPING);
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
	struct conn_guard_limits guard = {
		.idle_max = limit > 2 * CONNECTIONS_BUSY ? limit - CONNECTIONS_BUSY : limit / 2,
		.idle_per_address_max = IDLE_PER_ADDRESS_MAX,
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
		err = token__load(srv->data_dir, srv->token);
	if (err) {
		msg_error(MSG_SERVE_TOKEN_FAILED, srv->data_dir, strerror(-err));
		goto out_srv;
	}
	if (gethostname(srv->hostname, sizeof(srv->hostname) - 1))
		snprintf(srv->hostname, sizeof(srv->hostname), "localhost");
	register_this_server(srv);
	srv->hub = agent_hub__new();
	if (!srv->hub || capture_job__init(&srv->job, srv->data_dir, srv->hostname)) {
		msg_error(MSG_OUT_OF_MEMORY);
		goto out_srv;
	}
	mallopt(M_ARENA_MAX, MALLOC_ARENAS);
	h->guard = conn_guard__new(&guard);
	if (h->guard)
		h->workers = workers__start(srv, API_WORKERS);
	if (!h->guard || !h->workers) {
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
	OPT(MHD_OPTION_URI_LOG_CALLBACK, on_uri, h);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, on_completed, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, on_connection, h);
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
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
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
	workers__stop(h->workers);
	h->workers = NULL;
	MHD_stop_daemon(d);
	msg_print(MSG_SERVE_STOPPED);
	ret = 0;
out_workers:
	workers__stop(h->workers);
out_job:
	conn_guard__free(h->guard);
	capture_job__fini(&srv->job);
out_srv:
	agent_hub__free(srv->hub);
	explicit_bzero(srv->token, sizeof(srv->token));
	pthread_mutex_destroy(&srv->uploads.lock);
	pthread_mutex_destroy(&h->log_lock);
	free(h);
out_tls:
	free(cert);
	free(key);
	return ret;
}

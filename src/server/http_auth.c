// SPDX-License-Identifier: MIT
/*
 * Who is asking, and may they (http.h): the workspace token, signing in with it, the
 * Host a request names, the Origin of a change, the agent protocol's credential, and a
 * request's framing, all checked before anything acts on a request.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "store/store.h"

#define COOKIE_NAME "slideops_token"
#define TOKEN_FILE "serve-token"

/* ---- the token ---- */

/* Reads the workspace token, or makes one (0600) on first start. 0 or -errno. */
int http__load_token(const char *dir, char token[SERVER_TOKEN_HEX + 1])
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
	http__add_common_headers(conn, resp);
	/* Secure over TLS: the cookie never goes back over plain HTTP. */
	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict%s", COOKIE_NAME,
		 token, http__is_tls(conn) ? "; Secure" : "");
	MHD_add_response_header(resp, "Set-Cookie", cookie);
	sign_in__target(raw_uri, target, sizeof(target));
	MHD_add_response_header(resp, "Location", target);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	ret = MHD_queue_response(conn, MHD_HTTP_SEE_OTHER, resp);
	MHD_destroy_response(resp);
	return ret;
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
	snprintf(expect, sizeof(expect), "%s://%s", http__is_tls(conn) ? "https" : "http", host);
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
 * Origin), and never with the UI's token or cookie: an agent's credential, or
 * (enrolment) a token in the message. A request without a credential of the right form
 * is refused before its body is read; one with a credential is checked against the
 * workspace before its body is read too (server.c, agent_gate.h), and an address that
 * has been failing credentials waits first (429).
 */
static int first_agent_call(struct MHD_Connection *conn, const char *url, const char *method,
			    struct request *req)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	const union MHD_ConnectionInfo *addr =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	if (strcmp(method, "POST") != 0) {
		struct reply r = { 0 };

		snprintf(r.allow, sizeof(r.allow), "POST");
		reply__msg(&r, MHD_HTTP_METHOD_NOT_ALLOWED, MSG_AGENT_ONLY_POST, url);
		return http__send_reply(conn, &r);
	}
	if (origin)
		return http__send_error(conn, MHD_HTTP_FORBIDDEN, MSG_AGENT_NO_ORIGIN, origin);
	req->enrol = strcmp(url, "/agent/enrol") == 0;
	if (!req->enrol) {
		if (h && strncasecmp(h, "Bearer", 6) == 0 && (h[6] == ' ' || h[6] == '\t'))
			h += 6 + strspn(h + 6, " \t");
		else
			h = NULL;
		if (!h || strlen(h) != STORE_SECRET_HEX ||
		    strspn(h, "0123456789abcdef") != STORE_SECRET_HEX)
			return http__send_error(conn, MHD_HTTP_UNAUTHORIZED,
						MSG_AGENT_NO_CREDENTIAL);
		agent_gate__hash(h, req->cred_hash);
	}
	req->agent = true;
	req->kind = agent__kind(url);
	req->body_max = agent__body_max(url);
	gate_addr__from(&req->from, addr ? addr->client_addr : NULL);
	req->declared = len ? strtoull(len, NULL, 10) : 0;
	if (req->declared > req->body_max) {
		if (req->body_max < (1 << 20))
			return http__send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE,
						MSG_AGENT_BODY_TOO_LARGE_KB,
						(unsigned long long)(req->body_max >> 10));
		return http__send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, MSG_AGENT_BODY_TOO_LARGE,
					(unsigned long long)(req->body_max >> 20));
	}
	req->checked = true;
	return -1;
}

/* The first call for a request: is it well formed, who asks, and may they. -1: go on;
 * else the refusal was queued (or failed) and this is its result. */
int http__first_call(struct http *h, struct MHD_Connection *conn, const char *url,
		      const char *method, const char *version, struct request *req)
{
	const char *given = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	const char *framing = framing_problem(conn);
	const char *origin;
	bool api = strncmp(url, "/api/", 5) == 0;
	char name[256];

	if (framing)
		return http__send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_BAD_FRAMING, framing);
	if (req->uri_too_long)
		return http__send_error(conn, MHD_HTTP_URI_TOO_LONG, MSG_API_URI_TOO_LONG,
					SERVER_URI_MAX);
	if (req->uri_nul)
		return http__send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_URI_NUL);
	if (!req->raw_path)
		return http__send_error(conn, 500, MSG_OUT_OF_MEMORY);
	/* RFC 9112 §3.2: an HTTP/1.1 request without Host is refused. */
	if (strcmp(version, "HTTP/1.0") != 0 &&
	    !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"))
		return http__send_error(conn, MHD_HTTP_BAD_REQUEST, MSG_API_NO_HOST);
	if (!host_ok(h, conn, name))
		return http__send_error(conn, MHD_HTTP_MISDIRECTED_REQUEST, MSG_API_BAD_HOST,
					name, name);
	if (strncmp(url, "/agent/", 7) == 0)
		return first_agent_call(conn, url, method, req);
	if (!api && strcmp(method, "GET") == 0 && given && token__equal(given, h->srv.token))
		return sign_in(conn, given, req->raw_path);
	if (bearer_ok(conn, h->srv.token)) {
		req->cookie_auth = false;
	} else if (cookie_ok(conn, h->srv.token)) {
		req->cookie_auth = true;
	} else {
		return http__send_error(conn, MHD_HTTP_UNAUTHORIZED, MSG_API_NO_TOKEN);
	}
	if (is_change(method) && !origin_ok(conn, req->cookie_auth, &origin)) {
		if (origin)
			return http__send_error(conn, MHD_HTTP_FORBIDDEN, MSG_API_BAD_ORIGIN,
						origin);
		return http__send_error(conn, MHD_HTTP_FORBIDDEN, MSG_API_NO_ORIGIN);
	}
	req->checked = true;
	return -1;
}

/* An upload's first call: its file, and its share of the disk when its length is said. */

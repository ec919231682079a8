// SPDX-License-Identifier: MIT
/*
 * The agent's HTTP client (transport.h) on libcurl's easy interface: one handle a
 * transport, kept between requests so its connection is reused.
 */
#include "agent/transport.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reply larger than this is not one of the workspace's. */
#define REPLY_MAX (16u << 20)
#define URL_MAX 2048

struct transport {
	CURL *curl;
	char base[URL_MAX];
	char *ca_file;
	char *authorization;
};

struct sink {
	char *buf;
	size_t len, cap;
	int err;
};

int transport__global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

struct transport *transport__new(const char *base_url, const char *ca_file)
{
	struct transport *t = calloc(1, sizeof(*t));
	size_t len = strlen(base_url);

	if (!t)
		return NULL;
	while (len && base_url[len - 1] == '/')
		len--;
	if (len >= sizeof(t->base)) {
		free(t);
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(t->base, base_url, len);
	t->curl = curl_easy_init();
	t->ca_file = ca_file ? strdup(ca_file) : NULL;
	if (!t->curl || (ca_file && !t->ca_file)) {
		transport__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void transport__free(struct transport *t)
{
	if (!t)
		return;
	if (t->curl)
		curl_easy_cleanup(t->curl);
	free(t->ca_file);
	if (t->authorization) {
		explicit_bzero(t->authorization, strlen(t->authorization));
		free(t->authorization);
	}
	free(t);
}

void transport__set_credential(struct transport *t, const char *credential)
{
	if (t->authorization) {
		explicit_bzero(t->authorization, strlen(t->authorization));
		free(t->authorization);
		t->authorization = NULL;
	}
	if (credential && asprintf(&t->authorization, "Authorization: Bearer %s", credential) < 0)
		t->authorization = NULL;
}

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = size * n;

	if (s->len + len + 1 > REPLY_MAX) {
		s->err = -EMSGSIZE;
		return 0;
	}
	if (s->len + len + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *grown;

		while (cap < s->len + len + 1)
			cap *= 2;
		grown = realloc(s->buf, cap);
		if (!grown) {
			s->err = -ENOMEM;
			return 0;
		}
		s->buf = grown;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	s->buf[s->len] = '\0';
	return len;
}

/* libcurl asks about once a second, and more often while data flows: non-zero aborts. */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	volatile sig_atomic_t *cancel = ctx;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return cancel && *cancel;
}

static int curl_errno(CURLcode code)
{
	switch (code) {
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_ABORTED_BY_CALLBACK:
		return -ECANCELED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		return -EPROTO;
	default:
		return -EIO;
	}
}

int transport__post(struct transport *t, const char *path, const void *body, size_t len,
		    long timeout_ms, volatile sig_atomic_t *cancel, struct http_reply *reply)
{
	char url[URL_MAX + 256], curl_error[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL, *h;
	struct sink sink = { 0 };
	CURL *c = t->curl;
	CURLcode code;

	memset(reply, 0, sizeof(*reply));
	snprintf(url, sizeof(url), "%s%s", t->base, path);
	h = curl_slist_append(headers, "Content-Type: application/x-protobuf");
	if (h)
		headers = h;
	h = h ? curl_slist_append(headers, "Expect:") : NULL;
	if (h)
		headers = h;
	if (h && t->authorization) {
		h = curl_slist_append(headers, t->authorization);
		if (h)
			headers = h;
	}
	if (!h) {
		curl_slist_free_all(headers);
		snprintf(reply->error, sizeof(reply->error), "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)cancel);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_error);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (t->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, t->ca_file);
	code = curl_easy_perform(c);
	curl_slist_free_all(headers);
	if (code != CURLE_OK) {
		int err = sink.err ? sink.err : curl_errno(code);

		free(sink.buf);
		snprintf(reply->error, sizeof(reply->error), "%s",
			 *curl_error ? curl_error : curl_easy_strerror(code));
		return err;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply->status);
	reply->body = sink.buf ? sink.buf : calloc(1, 1);
	reply->len = sink.len;
	if (!reply->body)
		return -ENOMEM;
	return 0;
}

void http_reply__release(struct http_reply *r)
{
	if (!r)
		return;
	free(r->body);
	memset(r, 0, sizeof(*r));
}

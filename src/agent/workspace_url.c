// SPDX-License-Identifier: MIT
/* Where an agent may send its secrets (workspace_url.h). */
#include "agent/workspace_url.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* A literal loopback address, as curl gives the host: "127.0.0.1", "[::1]". */
static bool literal_loopback(const char *host)
{
	unsigned char a[16];
	char v6[64];
	size_t n = strlen(host);

	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (n < 3 || n >= sizeof(v6) || host[0] != '[' || host[n - 1] != ']')
		return false;
	memcpy(v6, host + 1, n - 2);
	v6[n - 2] = '\0';
	return inet_pton(AF_INET6, v6, a) == 1 &&
	       memcmp(a, (const unsigned char[16]){ [15] = 1 }, 16) == 0;
}

/* True when url has that part. */
static bool has(CURLU *u, CURLUPart part)
{
	char *v = NULL;
	bool yes = curl_url_get(u, part, &v, 0) == CURLUE_OK && v && *v;

	curl_free(v);
	return yes;
}

int workspace_url__check(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int err = -EINVAL;

	if (!u)
		return -ENOMEM;
	/* Only what the transport will connect to: no guessing of a missing scheme. */
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host)
		goto out;
	if (has(u, CURLUPART_USER) || has(u, CURLUPART_PASSWORD) ||
	    has(u, CURLUPART_OPTIONS) || has(u, CURLUPART_QUERY) || has(u, CURLUPART_FRAGMENT))
		goto out;
	if (strcasecmp(scheme, "https") == 0)
		err = 0;
	else if (strcasecmp(scheme, "http") == 0)
		err = literal_loopback(host) ? 0 : -EPERM;
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return err;
}

// SPDX-License-Identifier: MIT
/*
 * The load of bench/agent/ingest.sh: NAGENTS simulated agents delivering stored captures
 * to one workspace (`slideops serve`), as `slideops agent` delivers them, while a user
 * lists the profiles. In C (libcurl, a thread an agent) because fifty agents of curl
 * processes would cost the machine more than the workspace they measure.
 *
 *   ingest BASE UI_TOKEN SERVE_PID NAGENTS SECONDS PROFILE.pb.gz...
 *
 * Each agent is enrolled for real first (POST /api/enrolments with the UI token, then
 * /agent/enrol with its token: a credential of its own), outside the measured time.
 * Then for SECONDS each sends Batch after Batch (its own boot id, sequence 1, 2, ...,
 * the PROFILEs in turn: each batch is new, so each is stored), waiting for each reply
 * as an agent does; and one user asks GET /api/profiles?limit=50 every 100 ms. Prints
 * one line of NAME=VALUE: captures stored and per second, the workspace's CPU (user +
 * system from /proc/SERVE_PID/stat) and peak RSS (VmHWM), the list's p50/p99 latency,
 * and the requests that failed (a failure is counted, not retried).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "agent.pb-c.h"

#define PROTOCOL_VERSION 1

struct buffer {
	char *data;
	size_t len;
};

struct agent {
	pthread_t thread;
	char credential[256];
	char boot_id[40];
	long stored;
	long failed;
};

static const char *base, *ui_token;
static struct buffer *profiles;
static size_t nprofiles;
static double deadline;
static atomic_int running = 1;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench/agent/ingest: %s: %s\n", what, why);
	exit(1);
}

static size_t keep(char *data, size_t size, size_t n, void *out)
{
	struct buffer *b = out;
	char *grown = realloc(b->data, b->len + size * n + 1);

	if (!grown)
		return 0;
	memcpy(grown + b->len, data, size * n);
	b->data = grown;
	b->len += size * n;
	b->data[b->len] = '\0';
	return size * n;
}

/* One request on h: POST of body (NULL: GET) with bearer; the status, the reply in *out. */
static long request(CURL *h, const char *path, const char *bearer, const char *type,
		    const void *body, size_t len, struct buffer *out)
{
	char url[512], auth[300], ctype[80];
	struct curl_slist *headers = NULL;
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", base, path);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", bearer);
	snprintf(ctype, sizeof(ctype), "Content-Type: %s", type);
	headers = curl_slist_append(headers, auth);
	headers = curl_slist_append(headers, ctype);
	free(out->data);
	*out = (struct buffer){ 0 };
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)len);
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	if (curl_easy_perform(h) == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(headers);
	return status;
}

/* Enrols agent i as a server of its own: its credential in a->credential. */
static void enrol(CURL *h, int i, struct agent *a)
{
	Slideops__Agent__EnrolRequest m = SLIDEOPS__AGENT__ENROL_REQUEST__INIT;
	Slideops__Agent__EnrolReply *reply;
	struct buffer out = { 0 };
	char name[32], machine[40], token[128];
	json_t *doc, *t;
	uint8_t *packed;
	size_t len;

	if (request(h, "/api/enrolments", ui_token, "application/json", "{}", 2, &out) != 201)
		die("POST /api/enrolments", out.data ? out.data : "no answer");
	doc = json_loads(out.data, 0, NULL);
	t = json_object_get(doc, "token");
	if (!json_is_string(t))
		die("POST /api/enrolments", "no token in the answer");
	snprintf(token, sizeof(token), "%s", json_string_value(t));
	json_decref(doc);

	snprintf(name, sizeof(name), "ingest-%02d", i);
	snprintf(machine, sizeof(machine), "%032x", i + 1);
	snprintf(a->boot_id, sizeof(a->boot_id), "ingest-boot-%d-%ld", i, (long)time(NULL));
	m.protocol_version = PROTOCOL_VERSION;
	m.enrolment_token = token;
	m.name = name;
	m.hostname = name;
	m.machine_id = machine;
	m.kernel = "6.18.0";
	m.cpus = 2;
	m.agent_version = "bench";
	m.boot_id = a->boot_id;
	len = slideops__agent__enrol_request__get_packed_size(&m);
	packed = malloc(len);
	slideops__agent__enrol_request__pack(&m, packed);
	if (request(h, "/agent/enrol", "", "application/x-protobuf", packed, len, &out) != 200)
		die("POST /agent/enrol", out.data ? out.data : "no answer");
	free(packed);
	reply = slideops__agent__enrol_reply__unpack(NULL, out.len, (uint8_t *)out.data);
	if (!reply || !*reply->credential)
		die("POST /agent/enrol", "no credential in the reply");
	snprintf(a->credential, sizeof(a->credential), "%s", reply->credential);
	slideops__agent__enrol_reply__free_unpacked(reply, NULL);
	free(out.data);
}

static void *deliver(void *arg)
{
	struct agent *a = arg;
	CURL *h = curl_easy_init();
	struct buffer out = { 0 };

	for (uint64_t seq = 1; now() < deadline; seq++) {
		Slideops__Agent__Batch m = SLIDEOPS__AGENT__BATCH__INIT;
		Slideops__Agent__BatchReply *reply;
		struct buffer *p = &profiles[seq % nprofiles];
		uint8_t *packed;
		size_t len;
		long status;

		m.protocol_version = PROTOCOL_VERSION;
		m.boot_id = a->boot_id;
		m.sequence = seq;
		m.profile.data = (uint8_t *)p->data;
		m.profile.len = p->len;
		len = slideops__agent__batch__get_packed_size(&m);
		packed = malloc(len);
		slideops__agent__batch__pack(&m, packed);
		status = request(h, "/agent/batch", a->credential, "application/x-protobuf",
				 packed, len, &out);
		free(packed);
		reply = status == 200 ? slideops__agent__batch_reply__unpack(
						NULL, out.len, (uint8_t *)out.data) : NULL;
		if (reply && !reply->duplicate)
			a->stored++;
		else
			a->failed++;
		if (reply)
			slideops__agent__batch_reply__free_unpacked(reply, NULL);
	}
	free(out.data);
	curl_easy_cleanup(h);
	return NULL;
}

static double *latencies;
static size_t nlatencies, list_failed;

static void *list(void *arg)
{
	CURL *h = curl_easy_init();
	struct buffer out = { 0 };
	size_t cap = 1024;

	(void)arg;
	latencies = malloc(cap * sizeof(double));
	while (atomic_load(&running)) {
		double start = now();

		if (request(h, "/api/profiles?limit=50", ui_token, "application/json", NULL, 0,
			    &out) != 200)
			list_failed++;
		if (nlatencies == cap)
			latencies = realloc(latencies, (cap *= 2) * sizeof(double));
		latencies[nlatencies++] = (now() - start) * 1000;
		usleep(100 * 1000);
	}
	free(out.data);
	curl_easy_cleanup(h);
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double percentile(double p)
{
	size_t i;

	if (!nlatencies)
		return 0;
	i = (size_t)(p * (double)(nlatencies - 1) + 0.5);
	return latencies[i];
}

/* The workspace's user + system so far, in seconds. */
static double cpu_seconds(const char *pid)
{
	char path[64], line[2048], *p;
	unsigned long utime = 0, stime = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f))
		die(path, "cannot read it (the workspace exited?)");
	fclose(f);
	p = strrchr(line, ')'); /* the name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
			 &stime) != 2)
		die(path, "not the format of /proc/PID/stat");
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static long peak_rss_kb(const char *pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static struct buffer read_file(const char *path)
{
	struct buffer b = { 0 };
	char chunk[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		die(path, "cannot open it");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		keep(chunk, 1, n, &b);
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	struct agent *agents;
	pthread_t lister;
	const char *pid;
	double cpu0, start, cpu, elapsed;
	long stored = 0, failed = 0;
	int n, seconds;
	CURL *h;

	if (argc < 7) {
		fprintf(stderr, "usage: ingest BASE UI_TOKEN SERVE_PID NAGENTS SECONDS "
				"PROFILE.pb.gz...\n");
		return 2;
	}
	base = argv[1];
	ui_token = argv[2];
	pid = argv[3];
	n = atoi(argv[4]);
	seconds = atoi(argv[5]);
	nprofiles = (size_t)(argc - 6);
	profiles = calloc(nprofiles, sizeof(*profiles));
	for (size_t i = 0; i < nprofiles; i++)
		profiles[i] = read_file(argv[6 + i]);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	agents = calloc((size_t)n > 0 ? (size_t)n : 1, sizeof(*agents));
	h = curl_easy_init();
	for (int i = 0; i < n; i++)
		enrol(h, i, &agents[i]);
	curl_easy_cleanup(h);

	cpu0 = cpu_seconds(pid);
	start = now();
	deadline = start + seconds;
	pthread_create(&lister, NULL, list, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&agents[i].thread, NULL, deliver, &agents[i]);
	if (n == 0)
		sleep((unsigned)seconds);
	for (int i = 0; i < n; i++) {
		pthread_join(agents[i].thread, NULL);
		stored += agents[i].stored;
		failed += agents[i].failed;
	}
	elapsed = now() - start;
	cpu = cpu_seconds(pid) - cpu0;
	atomic_store(&running, 0);
	pthread_join(lister, NULL);
	qsort(latencies, nlatencies, sizeof(double), by_value);

	printf("agents=%d stored=%ld seconds=%.1f captures_per_s=%.1f cpu_s=%.2f "
	       "cpu_ms_per_capture=%.1f rss_kb=%ld list_n=%zu list_p50_ms=%.1f "
	       "list_p99_ms=%.1f failed=%ld\n",
	       n, stored, elapsed, (double)stored / elapsed, cpu,
	       stored ? cpu * 1000 / (double)stored : 0.0, peak_rss_kb(pid), nlatencies,
	       percentile(0.5), percentile(0.99), failed + (long)list_failed);
	curl_global_cleanup();
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Owner rules (architecture.md) over the cgroup paths real machines have (docker with both
 * cgroup drivers, containerd and CRI-O under kubernetes, podman rootful and rootless,
 * LXC, systemd system and user units, session scopes), container names from the
 * runtimes' own files, declared Services, and the process-tree rules of machines
 * without systemd. Processes and runtime files are fakes in a temporary directory laid
 * out as /proc and / are.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers/fixture.h"
#include "proc/owner.h"
#include "proc/proc.h"
#include "store/store.h"

#define ID_A "4f0cd2c1a8b7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5"
#define ID_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_C "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define POD_UID "1b2c3d4e-5f6a-7b8c-9d0e-1f2a3b4c5d6e"
#define POD_UID_ESC "1b2c3d4e_5f6a_7b8c_9d0e_1f2a3b4c5d6e"
#define SESSIONS "Signed-in sessions"

struct owner_fixture {
	struct fixture *fx;
	char proc[PATH_MAX];
	char root[PATH_MAX];
};

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void mkdirs(struct owner_fixture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void mkdirs(struct owner_fixture *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_int_equal(fixture__sh(c->fx, "mkdir -p '%s'", path), 0);
}

/* A process in the fake /proc: its stat, exe link, cmdline (args separated by '|'). */
static void fake_proc(struct owner_fixture *c, int pid, const char *comm, int ppid, int tty,
		      unsigned long flags, unsigned long long start, const char *exe,
		      const char *cmdline)
{
	char path[PATH_MAX + 64], stat[512];
	int n;

	mkdirs(c, "%s/%d", c->proc, pid);
	n = snprintf(stat, sizeof(stat),
		     "%d (%s) S %d %d %d %d -1 %lu 0 0 0 0 5 3 0 0 20 0 1 0 %llu 0 0\n", pid,
		     comm, ppid, pid, pid, tty, flags, start);
	snprintf(path, sizeof(path), "%s/%d/stat", c->proc, pid);
	write_file(path, stat, n);
	snprintf(path, sizeof(path), "%s/%d/cgroup", c->proc, pid);
	write_file(path, "0::/\n", 5);
	if (exe) {
		snprintf(path, sizeof(path), "%s/%d/exe", c->proc, pid);
		assert_int_equal(symlink(exe, path), 0);
	}
	if (cmdline) {
		char *args = strdup(cmdline);

		assert_non_null(args);
		for (char *p = args; *p; p++)
			if (*p == '|')
				*p = '\0';
		snprintf(path, sizeof(path), "%s/%d/cmdline", c->proc, pid);
		write_file(path, args, strlen(cmdline) + 1);
		free(args);
	}
}

static int setup(void **state)
{
	struct owner_fixture *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	c->fx = fixture__new();
	if (!c->fx)
		return -1;
	snprintf(c->proc, sizeof(c->proc), "%s/proc", fixture__dir(c->fx));
	snprintf(c->root, sizeof(c->root), "%s/root", fixture__dir(c->fx));
	if (mkdir(c->proc, 0755) || mkdir(c->root, 0755))
		return -1;
	unsetenv("SLIDEOPS_CONTAINER_ROOT");
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct owner_fixture *c = *state;

	fixture__free(c->fx);
	free(c);
	return 0;
}

/* A process nobody started from a shell: its parent is init. */
static struct proc_info proc_in(const char *cgroup)
{
	struct proc_info p = { .pid = 4242, .ppid = 1, .start_ticks = 1000 };

	snprintf(p.comm, sizeof(p.comm), "worker");
	snprintf(p.exe, sizeof(p.exe), "/usr/bin/worker");
	snprintf(p.cgroup, sizeof(p.cgroup), "%s", cgroup);
	return p;
}

static void expect(struct owner_resolver *r, const struct proc_info *p, enum group_kind kind,
		   const char *label)
{
	struct owner o;

	owner_resolver__classify(r, p, &o);
	if (o.kind != kind || strcmp(o.label, label) != 0)
		fail_msg("cgroup '%s' pid %d: got kind %d '%s', want kind %d '%s'", p->cgroup,
			 p->pid, o.kind, o.label, kind, label);
}

static void expect_path(struct owner_resolver *r, const char *cgroup, enum group_kind kind,
			const char *label)
{
	struct proc_info p = proc_in(cgroup);

	expect(r, &p, kind, label);
}

static void test_cgroup_paths(void **state)
{
	struct owner_fixture *c = *state;
	static const struct {
		const char *cgroup;
		enum group_kind kind;
		const char *label;
	} cases[] = {
		/* docker, systemd driver and cgroupfs driver */
		{ "/system.slice/docker-" ID_A ".scope", GROUP_CONTAINER,
		  "Container 4f0cd2c1a8b7" },
		{ "/docker/" ID_A, GROUP_CONTAINER, "Container 4f0cd2c1a8b7" },
		/* a container running systemd: the container owns its units */
		{ "/docker/" ID_A "/system.slice/nginx.service", GROUP_CONTAINER,
		  "Container 4f0cd2c1a8b7" },
		/* the daemons themselves are units */
		{ "/system.slice/docker.service", GROUP_UNIT, "Unit docker.service" },
		{ "/system.slice/containerd.service", GROUP_UNIT, "Unit containerd.service" },
		/* kubernetes: systemd driver, all three QoS classes; cgroupfs driver */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID_ESC
		  ".slice/cri-containerd-" ID_B ".scope",
		  GROUP_CONTAINER, "Container 0123456789ab" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_UID_ESC
		  ".slice/crio-" ID_B ".scope",
		  GROUP_CONTAINER, "Container 0123456789ab" },
		{ "/kubepods.slice/kubepods-pod" POD_UID_ESC ".slice/docker-" ID_B ".scope",
		  GROUP_CONTAINER, "Container 0123456789ab" },
		{ "/kubepods/burstable/pod" POD_UID "/" ID_B, GROUP_CONTAINER,
		  "Container 0123456789ab" },
		{ "/kubepods/besteffort/pod" POD_UID "/" ID_C, GROUP_CONTAINER,
		  "Container fedcba987654" },
		/* containerd told to use systemd names without the systemd driver */
		{ "/system.slice/containerd.service/kubepods-burstable-pod" POD_UID_ESC
		  ".slice:cri-containerd:" ID_B,
		  GROUP_CONTAINER, "Container 0123456789ab" },
		/* a pod's own cgroup, outside its containers */
		{ "/kubepods/burstable/pod" POD_UID, GROUP_CONTAINER,
		  "Container pod-1b2c3d4e5f6a" },
		/* kubernetes in a docker container (kind): the inner container */
		{ "/docker/" ID_A "/kubepods/besteffort/pod" POD_UID "/" ID_C, GROUP_CONTAINER,
		  "Container fedcba987654" },
		/* podman: rootful, with its cgroup namespace's inner cgroup, cgroupfs,
		 * rootless under the user's manager; conmon monitors are not containers */
		{ "/machine.slice/libpod-" ID_C ".scope", GROUP_CONTAINER,
		  "Container fedcba987654" },
		{ "/machine.slice/libpod-" ID_C ".scope/container", GROUP_CONTAINER,
		  "Container fedcba987654" },
		{ "/libpod_parent/libpod-" ID_C, GROUP_CONTAINER, "Container fedcba987654" },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID_C ".scope",
		  GROUP_CONTAINER, "Container fedcba987654" },
		{ "/machine.slice/libpod-conmon-" ID_C ".scope", GROUP_OTHER, "Other processes" },
		/* LXC */
		{ "/lxc.payload.web1", GROUP_CONTAINER, "Container web1" },
		{ "/lxc/web2", GROUP_CONTAINER, "Container web2" },
		/* too short or not hex: not a container id */
		{ "/system.slice/docker-abc123.scope", GROUP_OTHER, "Other processes" },
		{ "/docker/not-an-id", GROUP_OTHER, "Other processes" },
		/* systemd units */
		{ "/system.slice/nginx.service", GROUP_UNIT, "Unit nginx.service" },
		{ "/system.slice/system-getty.slice/getty@tty1.service", GROUP_UNIT,
		  "Unit getty@tty1.service" },
		{ "/system.slice/postgresql@15-main.service", GROUP_UNIT,
		  "Unit postgresql@15-main.service" },
		{ "/system.slice/nginx.service/worker", GROUP_UNIT, "Unit nginx.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/syncthing.service",
		  GROUP_UNIT, "Unit syncthing.service" },
		/* sessions */
		{ "/user.slice/user-1000.slice/session-3.scope", GROUP_SESSION, SESSIONS },
		{ "/user.slice/user-0.slice/session-c1.scope", GROUP_SESSION, SESSIONS },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope", GROUP_SESSION,
		  "Signed-in sessions" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-vim-1234.scope",
		  GROUP_SESSION, "Signed-in sessions" },
		/* nothing said */
		{ "/", GROUP_OTHER, "Other processes" },
		{ "", GROUP_OTHER, "Other processes" },
		{ "/system.slice/run-r1234.scope", GROUP_OTHER, "Other processes" },
		{ "/machine.slice", GROUP_OTHER, "Other processes" },
	};
	struct owner_resolver *r = owner_resolver__new(c->proc, c->root, NULL, 0);

	assert_non_null(r);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_path(r, cases[i].cgroup, cases[i].kind, cases[i].label);
	owner_resolver__free(r);
}

static void test_system(void **state)
{
	struct owner_fixture *c = *state;
	struct owner_resolver *r = owner_resolver__new(c->proc, c->root, NULL, 0);
	struct proc_info p = proc_in("/");
	struct owner o;

	assert_non_null(r);
	p.kthread = true;
	p.ppid = 2;
	p.exe[0] = '\0';
	expect(r, &p, GROUP_SYSTEM, "System");
	owner_resolver__classify(r, &p, &o);
	assert_string_equal(o.name, "");

	/* init: with systemd in /init.scope, without it at the root */
	p = proc_in("/init.scope");
	p.pid = 1;
	p.ppid = 0;
	expect(r, &p, GROUP_SYSTEM, "System");
	p = proc_in("/");
	p.pid = 1;
	p.ppid = 0;
	expect(r, &p, GROUP_SYSTEM, "System");
	owner_resolver__free(r);
}

static void write_docker_config(struct owner_fixture *c, const char *id, const char *name)
{
	char path[PATH_MAX + 128], json[512];
	int n;

	mkdirs(c, "%s/var/lib/docker/containers/%s", c->root, id);
	snprintf(path, sizeof(path), "%s/var/lib/docker/containers/%s/config.v2.json", c->root, id);
	n = snprintf(json, sizeof(json),
		     "{\"ID\":\"%s\",\"Name\":\"%s\",\"Config\":{\"Image\":\"redis:7\"}}",
		     id, name);
	write_file(path, json, n);
}

static void test_container_names(void **state)
{
	struct owner_fixture *c = *state;
	struct owner_resolver *r;
	char path[PATH_MAX + 128];
	const char *storage =
		"[{\"id\":\"" ID_C "\",\"names\":[\"web\"],\"image\":\"abc\"},"
		"{\"id\":\"" ID_B "\",\"names\":[\"other\"]}]";

	write_docker_config(c, ID_A, "/redis");
	mkdirs(c, "%s/var/lib/containers/storage/overlay-containers", c->root);
	snprintf(path, sizeof(path),
		 "%s/var/lib/containers/storage/overlay-containers/containers.json", c->root);
	write_file(path, storage, strlen(storage));
	/* kubelet's links name containers whatever the runtime */
	mkdirs(c, "%s/var/log/containers", c->root);
	snprintf(path, sizeof(path),
		 "%s/var/log/containers/billing-7d9f8b-x2x4z_prod_api-" ID_B ".log", c->root);
	write_file(path, "", 0);

	r = owner_resolver__new(c->proc, c->root, NULL, 0);
	assert_non_null(r);
	/* docker: config.v2.json's Name without its '/', under both drivers */
	expect_path(r, "/system.slice/docker-" ID_A ".scope", GROUP_CONTAINER, "Container redis");
	expect_path(r, "/docker/" ID_A, GROUP_CONTAINER, "Container redis");
	/* podman: containers/storage */
	expect_path(r, "/machine.slice/libpod-" ID_C ".scope", GROUP_CONTAINER, "Container web");
	/* kubernetes: POD/CONTAINER from kubelet, before containers/storage's name */
	expect_path(r, "/kubepods/burstable/pod" POD_UID "/" ID_B, GROUP_CONTAINER,
		    "Container billing-7d9f8b-x2x4z/api");
	owner_resolver__free(r);

	/* The same names through SLIDEOPS_CONTAINER_ROOT, whatever the caller passed. */
	setenv("SLIDEOPS_CONTAINER_ROOT", c->root, 1);
	r = owner_resolver__new(c->proc, "/nonexistent", NULL, 0);
	unsetenv("SLIDEOPS_CONTAINER_ROOT");
	assert_non_null(r);
	expect_path(r, "/docker/" ID_A, GROUP_CONTAINER, "Container redis");
	owner_resolver__free(r);

	/* A container root without runtimes: short ids. */
	r = owner_resolver__new(c->proc, "/nonexistent", NULL, 0);
	assert_non_null(r);
	expect_path(r, "/docker/" ID_A, GROUP_CONTAINER, "Container 4f0cd2c1a8b7");
	owner_resolver__free(r);
}

static void test_services(void **state)
{
	struct owner_fixture *c = *state;
	const struct service services[] = {
		{ .name = "billing", .match = SERVICE_BY_UNIT, .value = "billing" },
		{ .name = "web", .match = SERVICE_BY_UNIT, .value = "nginx.service" },
		{ .name = "cache", .match = SERVICE_BY_CONTAINER, .value = "redis" },
		{ .name = "queue", .match = SERVICE_BY_CONTAINER, .value = ID_C },
		{ .name = "reports", .match = SERVICE_BY_EXE, .value = "/opt/reports/bin/reportd" },
		{ .name = "api", .match = SERVICE_BY_EXE, .value = "/usr/local/bin/gunicorn" },
	};
	struct owner_resolver *r;
	struct proc_info p;
	struct owner o;

	write_docker_config(c, ID_A, "/redis");
	r = owner_resolver__new(c->proc, c->root, services, 6);
	assert_non_null(r);

	/* by unit, named with or without ".service"; a Service wins over its unit */
	expect_path(r, "/system.slice/billing.service", GROUP_SERVICE, "Service billing");
	expect_path(r, "/system.slice/nginx.service", GROUP_SERVICE, "Service web");
	expect_path(r, "/system.slice/billing-old.service", GROUP_UNIT, "Unit billing-old.service");
	p = proc_in("/system.slice/billing.service");
	owner_resolver__classify(r, &p, &o);
	assert_int_equal(o.kind, GROUP_SERVICE);
	assert_string_equal(o.name, "billing");

	/* by container name and by id (a Service wins over its container) */
	expect_path(r, "/system.slice/docker-" ID_A ".scope", GROUP_SERVICE, "Service cache");
	expect_path(r, "/machine.slice/libpod-" ID_C ".scope", GROUP_SERVICE, "Service queue");
	expect_path(r, "/docker/" ID_B, GROUP_CONTAINER, "Container 0123456789ab");

	/* by executable, also after the file was replaced under it, and over any group */
	p = proc_in("/system.slice/reports.service");
	snprintf(p.exe, sizeof(p.exe), "/opt/reports/bin/reportd");
	expect(r, &p, GROUP_SERVICE, "Service reports");
	snprintf(p.exe, sizeof(p.exe), "/opt/reports/bin/reportd (deleted)");
	expect(r, &p, GROUP_SERVICE, "Service reports");
	snprintf(p.exe, sizeof(p.exe), "/opt/reports/bin/reportd2");
	expect(r, &p, GROUP_UNIT, "Unit reports.service");

	/* a script: the interpreter is the exe, the script its first argument */
	fake_proc(c, 300, "gunicorn", 1, 0, 0, 100, "/usr/bin/python3.11",
		  "/usr/bin/python3|/usr/local/bin/gunicorn|app:app");
	assert_int_equal(proc__read(c->proc, 300, &p), 0);
	expect(r, &p, GROUP_SERVICE, "Service api");

	/* what a Service's program starts is the Service's too */
	fake_proc(c, 310, "reportd", 1, 0, 0, 100, "/opt/reports/bin/reportd", NULL);
	fake_proc(c, 311, "sh", 310, 0, 0, 110, "/usr/bin/dash", NULL);
	fake_proc(c, 312, "convert", 311, 0, 0, 120, "/usr/bin/convert", NULL);
	assert_int_equal(proc__read(c->proc, 312, &p), 0);
	expect(r, &p, GROUP_SERVICE, "Service reports");
	owner_resolver__free(r);

	/* the first declared Service wins when two match */
	{
		const struct service two[] = {
			{ .name = "first", .match = SERVICE_BY_UNIT, .value = "nginx" },
			{ .name = "second", .match = SERVICE_BY_UNIT, .value = "nginx.service" },
		};

		r = owner_resolver__new(c->proc, c->root, two, 2);
		assert_non_null(r);
		expect_path(r, "/system.slice/nginx.service", GROUP_SERVICE, "Service first");
		owner_resolver__free(r);
	}
}

/* Machines without systemd: a terminal, or an ancestor that is a login or a shell. */
static void test_sessions_without_systemd(void **state)
{
	struct owner_fixture *c = *state;
	struct owner_resolver *r;
	struct proc_info p;

	/* init(1) -> sshd(100) -> sshd(200) -> bash(210) -> make(220) -> cc1(230) */
	fake_proc(c, 1, "init", 0, 0, 0, 1, "/sbin/init", NULL);
	fake_proc(c, 100, "sshd", 1, 0, 0, 50, "/usr/sbin/sshd", NULL);
	fake_proc(c, 200, "sshd", 100, 0, 0, 500, "/usr/sbin/sshd", NULL);
	fake_proc(c, 210, "bash", 200, 34816, 0, 510, "/usr/bin/bash", NULL);
	fake_proc(c, 220, "make", 210, 0, 0, 520, "/usr/bin/make", NULL);
	fake_proc(c, 230, "cc1", 220, 0, 0, 530, "/usr/libexec/cc1", NULL);
	/* a daemon started at boot: init -> nginx(300) -> nginx(301) */
	fake_proc(c, 300, "nginx", 1, 0, 0, 60, "/usr/sbin/nginx", NULL);
	fake_proc(c, 301, "nginx", 300, 0, 0, 61, "/usr/sbin/nginx", NULL);
	/* cron's jobs run under sh but nobody signed in: init -> cron(400) -> sh -> backup */
	fake_proc(c, 400, "cron", 1, 0, 0, 70, "/usr/sbin/cron", NULL);
	fake_proc(c, 410, "sh", 400, 0, 0, 900, "/usr/bin/dash", NULL);
	fake_proc(c, 420, "backup", 410, 0, 0, 901, "/usr/local/bin/backup", NULL);
	/* a console login: init -> login(500) -> app(510) */
	fake_proc(c, 500, "login", 1, 0, 0, 80, "/bin/login", NULL);
	fake_proc(c, 510, "app", 500, 0, 0, 81, "/usr/local/bin/app", NULL);
	/* a shell with no terminal (a script run by hand through a pipe): its children */
	fake_proc(c, 600, "runner", 1, 0, 0, 90, "/usr/bin/runner", NULL);
	fake_proc(c, 610, "bash", 600, 0, 0, 91, "/usr/bin/bash", NULL);
	fake_proc(c, 620, "worker", 610, 0, 0, 92, "/usr/bin/worker", NULL);

	r = owner_resolver__new(c->proc, c->root, NULL, 0);
	assert_non_null(r);
	for (int pid = 210; pid <= 230; pid += 10) {
		assert_int_equal(proc__read(c->proc, pid, &p), 0);
		expect(r, &p, GROUP_SESSION, "Signed-in sessions");
	}
	assert_int_equal(proc__read(c->proc, 200, &p), 0);
	expect(r, &p, GROUP_SESSION, "Signed-in sessions");
	/* the listening sshd itself is a daemon */
	assert_int_equal(proc__read(c->proc, 100, &p), 0);
	expect(r, &p, GROUP_OTHER, "Other processes");
	assert_int_equal(proc__read(c->proc, 301, &p), 0);
	expect(r, &p, GROUP_OTHER, "Other processes");
	assert_int_equal(proc__read(c->proc, 420, &p), 0);
	expect(r, &p, GROUP_OTHER, "Other processes");
	assert_int_equal(proc__read(c->proc, 510, &p), 0);
	expect(r, &p, GROUP_SESSION, "Signed-in sessions");
	assert_int_equal(proc__read(c->proc, 620, &p), 0);
	expect(r, &p, GROUP_SESSION, "Signed-in sessions");

	/* A shell started by a unit is in the unit's cgroup, and the unit wins. */
	assert_int_equal(proc__read(c->proc, 230, &p), 0);
	snprintf(p.cgroup, sizeof(p.cgroup), "/system.slice/build.service");
	expect(r, &p, GROUP_UNIT, "Unit build.service");
	/* So does a container, with a terminal or not. */
	snprintf(p.cgroup, sizeof(p.cgroup), "/docker/%s", ID_B);
	p.tty_nr = 34817;
	expect(r, &p, GROUP_CONTAINER, "Container 0123456789ab");
	owner_resolver__free(r);
}

/* Parents exit and their pids come back as other processes. */
static void test_reused_parent_pid(void **state)
{
	struct owner_fixture *c = *state;
	struct owner_resolver *r;
	struct proc_info p;

	/* 700 is a shell, 710 its child. */
	fake_proc(c, 700, "bash", 1, 0, 0, 100, "/usr/bin/bash", NULL);
	fake_proc(c, 710, "job", 700, 0, 0, 200, "/usr/bin/job", NULL);
	r = owner_resolver__new(c->proc, c->root, NULL, 0);
	assert_non_null(r);
	assert_int_equal(proc__read(c->proc, 710, &p), 0);
	expect(r, &p, GROUP_SESSION, "Signed-in sessions");

	/* The shell exits; 700 comes back as a daemon, which starts 720. A little later
	 * (what the resolver knew of 700 is old then), 720 is the daemon's, not a shell's. */
	assert_int_equal(fixture__sh(c->fx, "rm -r '%s/700'", c->proc), 0);
	fake_proc(c, 700, "daemon", 1, 0, 0, 150, "/usr/sbin/daemon", NULL);
	fake_proc(c, 720, "task", 700, 0, 0, 160, "/usr/bin/task", NULL);
	usleep(1100 * 1000);
	assert_int_equal(proc__read(c->proc, 720, &p), 0);
	expect(r, &p, GROUP_OTHER, "Other processes");

	/* A "parent" younger than its child is another process with the old pid. */
	fake_proc(c, 730, "orphan", 700, 0, 0, 120, "/usr/bin/orphan", NULL);
	assert_int_equal(proc__read(c->proc, 730, &p), 0);
	expect(r, &p, GROUP_OTHER, "Other processes");
	owner_resolver__free(r);
}

/* The resolver on this machine's own /proc: every process gets a group and a label. */
static void test_real_proc(void **state)
{
	struct owner_resolver *r = owner_resolver__new("/proc", "/", NULL, 0);
	struct proc_info p;
	struct owner o;
	size_t n;
	int *pids;

	(void)state;
	assert_non_null(r);
	assert_int_equal(proc__list_pids("/proc", &pids, &n), 0);
	for (size_t i = 0; i < n; i++) {
		if (proc__read("/proc", pids[i], &p))
			continue;
		owner_resolver__classify(r, &p, &o);
		assert_true(o.label[0]);
		if (p.kthread)
			assert_int_equal(o.kind, GROUP_SYSTEM);
	}
	free(pids);
	assert_int_equal(proc__read("/proc", 1, &p), 0);
	owner_resolver__classify(r, &p, &o);
	assert_true(o.kind == GROUP_SYSTEM || o.kind == GROUP_CONTAINER || o.kind == GROUP_UNIT);
	owner_resolver__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cgroup_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_system, setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_services, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sessions_without_systemd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_parent_pid, setup, teardown),
		cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

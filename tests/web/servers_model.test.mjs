// The Servers page and a server's page as data (web/ui/servers_model.js) without a
// browser (servers.js draws them; tests/browser/ follows them in a browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkLines, enrolmentNote, lastSeen, pastMore, removedLines, serverHeading, serverName,
	serverRows, statusWords, topRows } from '../../web/ui/servers_model.js';

const THIS = { id: 'local', this_server: true, hostname: 'db-1', name: 'local',
	status: 'connected', kernel: '6.12.38+deb13-amd64', profiles_server: 'db-1' };
const AGENT = { id: 'a b/1', this_server: false, hostname: 'web-1', name: 'web-1',
	status: 'unreachable', last_seen: '2026-12-04T18:37:56Z', kernel: '6.1.0-31-amd64',
	agent_version: '0.1.0' };

test('each server\'s row: this one by its hostname, an agent\'s by its name and version', () => {
	assert.deepEqual(serverRows({ servers: [THIS, AGENT] }), [
		{ id: 'local', status: 'connected', href: '/servers/local', name: 'db-1',
			statusWords: 'Connected', lastSeen: 'now', kernel: '6.12.38+deb13-amd64',
			by: 'this server' },
		{ id: 'a b/1', status: 'unreachable', href: '/servers/a%20b%2F1', name: 'web-1',
			statusWords: 'Unreachable', lastSeen: '2026-12-04 18:37:56 UTC',
			kernel: '6.1.0-31-amd64', by: 'agent 0.1.0' }]);
	assert.equal(lastSeen({ ...AGENT, last_seen: null }), 'never');
	assert.equal(serverName(THIS), 'db-1');
	// A status a newer server adds reads as the API says it.
	assert.equal(statusWords('enrolling'), 'enrolling');
	assert.equal(statusWords('constructor'), 'constructor');
});

test('a server\'s heading, and whether it can be removed from the workspace', () => {
	assert.deepEqual(serverHeading(THIS), { name: 'db-1', detail: ' this server', removable: false,
		refused: '' });
	assert.deepEqual(serverHeading(AGENT), { name: 'web-1',
		detail: ' Unreachable, last seen 2026-12-04 18:37:56 UTC, kernel 6.1.0-31-amd64',
		removable: true, refused: '' });
	assert.equal(serverHeading({ ...AGENT, kernel: '' }).detail,
		' Unreachable, last seen 2026-12-04 18:37:56 UTC');
	assert.equal(serverHeading({ ...AGENT, status: 'removed' }).removable, false);
});

test('batches refused from a server\'s agent: how many, and the last one\'s time and reason', () => {
	const refused = { ...AGENT, batches_refused: 2, last_refusal: { at: '2026-12-04T18:40:01Z',
		error: 'it held 5000001 stacks; a batch may hold 1000000' } };
	assert.equal(serverHeading(refused).refused, '2 batches from its agent refused for what ' +
		'they held; the last, at 2026-12-04 18:40:01 UTC: it held 5000001 stacks; a batch may hold 1000000');
	assert.equal(serverHeading({ ...refused, batches_refused: 1 }).refused.slice(0, 24),
		'1 batch from its agent r');
});

test('can it be profiled: every requirement when it can, only what is missing when not', () => {
	const reqs = [{ name: 'BTF', ok: true, detail: 'present' },
		{ name: 'root', ok: false, detail: 'run as root' }];
	assert.deepEqual(checkLines({ can_profile: true, requirements: reqs.slice(0, 1) }), {
		ok: true, headline: 'This server can be profiled.',
		requirements: [{ ok: true, name: 'BTF', detail: 'present' }] });
	assert.deepEqual(checkLines({ can_profile: false, requirements: reqs }), {
		ok: false, headline: 'This server cannot be profiled yet. What is missing:',
		requirements: [{ ok: false, name: 'root', detail: 'run as root' }] });
});

test('the busiest processes, their CPU as slideops top writes it', () => {
	assert.deepEqual(topRows({ processes: [
		{ comm: 'postgres', cpu_percent: 54.4, group: 'Unit postgresql.service' },
		{ comm: 'cron', cpu_percent: 0.3, group: 'System' },
		{ comm: 'idle', cpu_percent: 0, group: 'System' }] }), [
		{ comm: 'postgres', cpu: '54% CPU', group: 'Unit postgresql.service' },
		{ comm: 'cron', cpu: '<1% CPU', group: 'System' },
		{ comm: 'idle', cpu: '0% CPU', group: 'System' }]);
});

test('past profiles: a link to them all when the page shows only the first', () => {
	assert.equal(pastMore({ next_offset: null, total: 3 }, 'db-1'), null);
	assert.deepEqual(pastMore({ next_offset: 10, total: 64 }, 'db 1'),
		{ href: '/profiles?server=db%201', text: 'All 64 profiles of this server' });
});

test('what Remove the profiler removed, or that nothing was there', () => {
	assert.deepEqual(removedLines({ removed: [] }), { lines: [], nothing: 'The profiler is ' +
		'not installed on this server and no capture files are left; nothing to remove.' });
	assert.deepEqual(removedLines({ removed: [
		{ path: '/var/lib/slideops/profiler', files: 12, bytes: 3 << 20 },
		{ path: '/tmp/slideops-capture.1', files: 1, bytes: 512 }] }), { nothing: null, lines: [
		'Removed /var/lib/slideops/profiler (12 files, 3 MB).',
		'Removed /tmp/slideops-capture.1 (1 file, 512 bytes).'] });
});

test('add a server: when its one-use token expires', () => {
	assert.equal(enrolmentNote({ command: 'slideops agent ...', expires_at: '2026-12-04T19:37:56Z' }),
		'The token in it works once, and until 2026-12-04 19:37:56 UTC. The server shows in ' +
		'the list once its agent has enrolled.');
});

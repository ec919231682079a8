// A profile's page as data (web/ui/profile_model.js, and each question's own view,
// web/ui/questions/NAME_model.js) without a browser: what a user reads
// in each view of a profile (profile.js draws it; tests/browser/ui.test.js follows the
// page in a browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { couldNotSee, functionRows, groupRows, nextSort, profileHeading, sandwichRows,
	sortMarks, strippedCard } from '../../web/ui/profile_model.js';
import { lockRows } from '../../web/ui/questions/locks_model.js';
import { ownerGrowthRows } from '../../web/ui/questions/memory_model.js';
import { threadSetRows } from '../../web/ui/questions/threads_model.js';
import { runningWaitingRows } from '../../web/ui/questions/wall_model.js';
import { tree } from './tree.mjs';

const QUESTIONS = [
	{ id: 'cpu', title: 'What is using the CPU', has_duration: true, share_of_server: true,
		views: ['groups', 'flamegraph', 'functions'] },
	{ id: 'locks', title: 'What is waiting on locks', has_duration: true,
		views: ['groups', 'locks', 'flamegraph', 'functions'] },
];

function profile(more = {}) {
	return { id: 'p1', question: 'cpu', server: 'web-1', started_at: '2026-12-04T18:37:56Z',
		seconds: 30, answer: 'Over 30 seconds, ...', lost: 0, unit: 'nanoseconds',
		groups: [], functions: [], stripped: [], not_read: [], ...more };
}

test('the heading: the question\'s title, where, when and how long, and its views', () => {
	const h = profileHeading(profile(), QUESTIONS);
	assert.equal(h.title, 'What is using the CPU');
	assert.equal(h.meta, 'web-1, 2026-12-04 18:37:56 UTC, over 30 seconds');
	assert.deepEqual(h.views, ['groups', 'flamegraph', 'functions']);
	assert.equal(h.shareOfServer, true);
	assert.equal(profileHeading(profile({ seconds: 1 }), QUESTIONS).meta,
		'web-1, 2026-12-04 18:37:56 UTC, over 1 second');
	// A question this server's list lacks: its id, and the views every profile has.
	const old = profileHeading(profile({ question: 'io' }), QUESTIONS);
	assert.equal(old.title, 'io');
	assert.deepEqual(old.views, ['groups', 'flamegraph', 'functions']);
	assert.equal(old.shareOfServer, false);
});

test('the stripped card: each binary\'s share and build, or how to have one', () => {
	assert.equal(strippedCard(profile()), null);
	const card = strippedCard(profile({ stripped: [
		{ path: '/usr/local/bin/billing', share: 0.31, build_id: 'b65a313cbf47aa0011', has_build_id: true },
		{ path: '/opt/app/worker', share: 0.004, build_id: '', has_build_id: false }] }));
	assert.deepEqual(card.binaries.map(b => [b.path, b.share, b.build]), [
		['/usr/local/bin/billing', '31% of this profile', 'build b65a313cbf47'],
		['/opt/app/worker', '<1% of this profile', null]]);
	assert.match(card.binaries[1].noBuildId, /^no build id: rebuild with -Wl,--build-id/);
	assert.equal(card.beforeBuildIds, false);
	// Captured before build ids were kept: the card says so, even with no binary listed.
	assert.equal(strippedCard(profile({ build_ids_missing: true })).beforeBuildIds, true);
});

test('groups: each with its first five processes, shares in whole percents', () => {
	const procs = n => Array.from({ length: n }, (_, k) =>
		({ pid: 100 + k, comm: 'w' + k, share: 0.05, value: 1.5e9 }));
	const doc = profile({ groups: [
		{ label: 'Service billing', share: 0.54, value: 32.4e9, top_function: 'build_report',
			processes: procs(7) },
		{ label: 'System', share: 0.004, value: 0.24e9, processes: procs(1) }] });
	const { columns, rows } = groupRows(doc, true);
	assert.deepEqual(columns, ['Group', 'Of the server', 'Amount', '']);
	assert.deepEqual(rows[0], { kind: 'group', label: 'Service billing', share: '54%',
		amount: '32.4 s', where: 'most of it in build_report' });
	assert.deepEqual(rows[1], { kind: 'process', label: 'w0 [100]', share: '5%', amount: '1.5 s',
		where: '' });
	assert.deepEqual(rows[6], { kind: 'more', text: 'and 2 more processes' });
	assert.deepEqual(rows[7], { kind: 'group', label: 'System', share: '<1%', amount: '0.2 s',
		where: '' });
	assert.equal(rows.length, 9);
	assert.equal(groupRows(doc, false).columns[1], 'Share');
});

test('functions: filtered by a regex or as text, sorted, at most 200', () => {
	const functions = [
		{ name: 'build_report', language: 'Python', self: 0.41, total: 0.52 },
		{ name: 'memcpy', language: 'C/C++', self: 0.2, total: 0.2 },
		{ name: 'json.dumps', language: 'Python', self: 0.005, total: 0.3 },
		{ name: 'a(b', language: 'C/C++', self: 0.01, total: 0.01 },
	];
	let sort = { key: 'self', dir: -1 };
	assert.deepEqual(functionRows(functions, '', sort).map(f => [f.name, f.self, f.total]),
		[['build_report', '41%', '52%'], ['memcpy', '20%', '20%'], ['a(b', '1%', '1%'],
			['json.dumps', '<1%', '30%']]);
	assert.deepEqual(functionRows(functions, '^b|DUMPS', sort).map(f => f.name),
		['build_report', 'json.dumps']);
	// Not a regular expression (an open parenthesis): matched as text.
	assert.deepEqual(functionRows(functions, 'a(', sort).map(f => f.name), ['a(b']);
	// A click on Total sorts by it, largest first; again, smallest first.
	sort = nextSort(sort, 'total');
	assert.deepEqual(sort, { key: 'total', dir: -1 });
	assert.deepEqual(sortMarks(sort), ['', '', '', 'desc']);
	assert.equal(functionRows(functions, '', sort)[0].name, 'build_report');
	sort = nextSort(sort, 'total');
	assert.deepEqual(sortMarks(sort), ['', '', '', 'asc']);
	assert.equal(functionRows(functions, '', sort)[0].name, 'a(b');
	// Names start A to Z.
	sort = nextSort(sort, 'name');
	assert.deepEqual(sort, { key: 'name', dir: 1 });
	assert.equal(functionRows(functions, '', sort)[0].name, 'a(b');
	const many = Array.from({ length: 300 }, (_, k) =>
		({ name: 'f' + k, language: 'C/C++', self: k / 1e4, total: k / 1e4 }));
	assert.equal(functionRows(many, '', { key: 'self', dir: -1 }).length, 200);
});

test('the sandwich: callers and callees as shares of the function, it of the profile', () => {
	const data = tree([
		[['svc', 'app', 'main', 'parse', 'lex'], 30],
		[['svc', 'app', 'main', 'parse', 'alloc'], 10],
		[['svc', 'app', 'main', 'parse'], 5],
		[['svc', 'app', 'load', 'parse', 'lex'], 15],
		[['svc', 'app', 'load', 'read'], 40],
	]);
	const s = sandwichRows(data, 'parse', data.value[0]);
	assert.deepEqual(s.callers, [{ name: 'main', share: '75%' }, { name: 'load', share: '25%' }]);
	assert.deepEqual(s.callees, [{ name: 'lex', share: '75%' }, { name: 'alloc', share: '17%' }]);
	assert.equal(s.self, '60% of this profile');
	assert.deepEqual(sandwichRows(data, 'read', data.value[0]).callees, []);
});

test('locks: who waited, who held it, and how many more', () => {
	const lock = k => ({ address: '0x7f00' + k, kind: 'futex', pid: 42, contentions: 9,
		wait_ns: 2.5e9, share: 0.6, longest_ns: 3e6,
		functions: [{ name: 'ledger_post', wait_ns: 2e9 }],
		processes: [{ pid: 42, comm: 'ledger', wait_ns: 2.5e9 }],
		holders: [{ function: 'ledger_settle', process: 'ledger', pid: 42, ns: 1.2e9 }] });
	const kernel = { ...lock('k'), pid: null, holders: [] };
	const { rows, more } = lockRows([lock(0), kernel,
		{ ...lock(2), processes: [{ pid: 7, comm: 'other', wait_ns: 1 }], holders: undefined }]);
	assert.equal(more, null);
	assert.deepEqual(rows[0], { address: '0x7f000', kind: 'futex', owner: 'ledger [42]',
		contentions: 9, wait: '2.5 s', share: '60%', longest: '3 ms',
		waiting: [{ name: 'ledger_post', title: 'ledger_post', amount: '2.0 s' }],
		holders: { list: [{ name: 'ledger_settle', title: 'ledger_settle in ledger [42]',
			amount: '1.2 s' }] },
		processes: [{ name: 'ledger [42]', title: 'ledger [42]', amount: '2.5 s' }] });
	assert.equal(rows[1].owner, 'the kernel');
	assert.deepEqual(rows[1].holders, { none: 'not seen (kernel)' });
	// Its process not among the waiters: the pid alone. Taken before holders were kept.
	assert.equal(rows[2].owner, '[42]');
	assert.deepEqual(rows[2].holders, { none: 'not seen' });
	const many = lockRows(Array.from({ length: 30 }, (_, k) => lock(k)));
	assert.equal(many.rows.length, 25);
	assert.equal(many.more, 'and 5 more locks');
});

test('threads: each set of threads, its stack read from the running frame out', () => {
	assert.equal(threadSetRows(profile()), null);
	assert.equal(threadSetRows(profile({ thread_sets: [] })), null);
	assert.deepEqual(threadSetRows(profile({ thread_sets: [
		{ threads: 8, state: 'waiting', wait: 'futex_wait', group: 'Service billing',
			stack: ['futex_wait', 'pthread_cond_wait', 'worker'] },
		{ threads: 1, state: 'running', group: 'System', stack: 'cpu_idle' }] })), [
		{ threads: 8, state: 'waiting', wait: 'futex_wait', group: 'Service billing',
			stack: 'futex_wait \u2190 pthread_cond_wait \u2190 worker' },
		{ threads: 1, state: 'running', wait: '', group: 'System', stack: 'cpu_idle' }]);
});

test('running and waiting: only a wall profile\'s groups have them', () => {
	assert.equal(runningWaitingRows(profile({ groups: [{ label: 'System', processes: [] }] })),
		null);
	assert.deepEqual(runningWaitingRows(profile({ groups: [
		{ label: 'Service billing', running_ns: 12.44e9, waiting_ns: 312e9 },
		{ label: 'System', running_ns: 4e5 }] })), [
		{ label: 'Service billing', running: '12.4 s', waiting: '312 s' },
		{ label: 'System', running: '<1 ms', waiting: '0 s' }]);
});

test('growth by owner: the most grown first, signed, in the sizes the answer uses', () => {
	assert.equal(ownerGrowthRows(profile({ groups: [{ label: 'System' }] })), null);
	const g = (label, rss, file) => ({ label, rss_grown_bytes: rss, rss_start_bytes: 3 << 20,
		file_grown_bytes: file, file_start_bytes: 1536, processes_started: 2,
		processes_exited: 1 });
	const rows = ownerGrowthRows(profile({ groups: [g('b', -5 << 20, 0), g('a', 212 << 20, 512),
		g('c', 212 << 20, -2048)] }));
	assert.deepEqual(rows.map(r => [r.label, r.rssGrown, r.fileGrown]),
		[['a', '+212 MB', '+512 bytes'], ['c', '+212 MB', '\u22122 kB'], ['b', '\u22125 MB', '+0 bytes']]);
	assert.deepEqual([rows[0].rssStart, rows[0].fileStart, rows[0].started, rows[0].exited],
		['3 MB', '2 kB', 2, 1]);
});

test('what the capture could not see, line by line', () => {
	assert.deepEqual(couldNotSee(profile()), [{ text: 'No events were lost.' }]);
	assert.deepEqual(couldNotSee(profile({ lost: 12,
		stack_quality: { complete: 0.9, sentence: '90% of stacks reached their root.',
			unnamed_starts: [{ sentence: 'app has unnamed functions.' }] },
		mappings_left_to_frame_pointers: { mappings: 3, sentence: '3 mappings were left.' },
		not_read: [{ path: '/opt/big', reason: 'over 1 GB' }] })), [
		{ text: '12 events were lost: the kernel produced them faster than they were read.' },
		{ text: 'app has unnamed functions.' }, { text: '90% of stacks reached their root.' },
		{ text: '3 mappings were left.' }, { path: '/opt/big', reason: 'over 1 GB' }]);
});

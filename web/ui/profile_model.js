// A profile's page as data: what profile.js draws, computed without a browser (no DOM),
// so tests/web/profile_model.test.mjs checks it with `node --test`. From the API's
// documents (GET /api/profiles/ID, its flame graph tree, GET /api/questions): the
// heading, the views the question lists, the card of stripped binaries, the groups,
// the functions (filtered, sorted), the sandwich view of one function, each question's
// own view (running and waiting, the thread dump, locks by address, growth by owner) and
// what the capture could not see: rows of text, every number written by format.js.

import { titleOf } from './api.js';
import { duration, percent, utc, valueWords } from './format.js';
import { sandwich } from './flame_model.js';

// The views a profile shows when its question is not in the list (an old server's).
const DEFAULT_VIEWS = ['groups', 'flamegraph', 'functions'];

// The page's heading: its question's title, where and when, the question's views in its
// order, and whether shares are of the server's CPU time (GET /api/questions).
export function profileHeading(doc, qs) {
	const question = qs.find(q => q.id === doc.question);
	return {
		title: titleOf(qs, doc.question),
		meta: doc.server + ', ' + utc(doc.started_at) + ', over ' + duration(doc.seconds * 1e9),
		views: question ? question.views : DEFAULT_VIEWS,
		shareOfServer: !!(question && question.share_of_server),
	};
}

// The card of stripped binaries, or null when every function has its name.
export function strippedCard(doc) {
	if (!doc.stripped.length && !doc.build_ids_missing)
		return null;
	return {
		binaries: doc.stripped.map(s => ({
			path: s.path,
			share: percent(s.share) + ' of this profile',
			build: s.has_build_id ? 'build ' + s.build_id.slice(0, 12) : null,
			noBuildId: s.has_build_id ? null : 'no build id: rebuild with -Wl,--build-id ' +
				'(gcc, clang) or -ldflags=-B=gobuildid (Go) to have one, then capture again',
		})),
		beforeBuildIds: !!doc.build_ids_missing,
	};
}

// A group's first processes; the rest are one line.
export const PROCESSES_SHOWN = 5;

// The groups, each followed by its largest processes. shareOfServer: the column says
// the shares are of the server's CPU time.
export function groupRows(doc, shareOfServer) {
	const amount = v => valueWords(doc.unit, v);
	const rows = [];
	for (const g of doc.groups) {
		rows.push({ kind: 'group', label: g.label, share: percent(g.share), amount: amount(g.value),
			where: g.top_function ? 'most of it in ' + g.top_function : '' });
		for (const p of g.processes.slice(0, PROCESSES_SHOWN))
			rows.push({ kind: 'process', label: p.comm + ' [' + p.pid + ']',
				share: percent(p.share), amount: amount(p.value), where: '' });
		if (g.processes.length > PROCESSES_SHOWN)
			rows.push({ kind: 'more',
				text: 'and ' + (g.processes.length - PROCESSES_SHOWN) + ' more processes' });
	}
	return { columns: ['Group', shareOfServer ? 'Of the server' : 'Share', 'Amount', ''], rows };
}

// The functions table's columns: [key, heading, numeric].
export const FUNCTION_COLUMNS = [['name', 'Function', false], ['language', 'Language', false],
	['self', 'Self', true], ['total', 'Total', true]];
export const FUNCTIONS_SHOWN = 200;

// The order after a click on column k: the same column turns around; another starts
// with names A to Z and shares largest first.
export function nextSort(sort, k) {
	return { key: k, dir: sort.key === k ? -sort.dir : (k === 'name' || k === 'language' ? 1 : -1) };
}

// The functions that match filter (a regular expression, case-insensitive; as plain
// text while it is not one), in sort's order, at most FUNCTIONS_SHOWN.
export function functionRows(functions, filter, sort) {
	let re = null;
	try {
		re = filter ? new RegExp(filter, 'i') : null;
	} catch (e) {
		re = null;
	}
	const { key, dir } = sort;
	const list = functions.filter(f => !filter || (re ? re.test(f.name) : f.name.includes(filter)));
	list.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * dir);
	return list.slice(0, FUNCTIONS_SHOWN).map(f => ({ name: f.name, language: f.language,
		self: percent(f.self), total: percent(f.total) }));
}

// Each column's sorted mark: 'asc', 'desc' or ''.
export function sortMarks(sort) {
	return FUNCTION_COLUMNS.map(([k]) => k === sort.key ? (sort.dir < 0 ? 'desc' : 'asc') : '');
}

export const SANDWICH_SHOWN = 15;

// The sandwich view of one function: its callers and callees (flame_model.js) with their
// shares of its time, and its share of the profile (total: the tree's root value).
export function sandwichRows(tree, name, total) {
	const s = sandwich(tree, name);
	const rows = list => list.slice(0, SANDWICH_SHOWN).map(([n, v]) =>
		({ name: n, share: percent(v / (s.total || 1)) }));
	return { name, callers: rows(s.callers), callees: rows(s.callees),
		self: percent(s.total / (total || 1)) + ' of this profile' };
}

// ---- the questions' own views ----

// locks: each lock by its address, the longest wait first (the API's order).
export const LOCKS_SHOWN = 25;

export function lockRows(locks) {
	const ns = v => valueWords('nanoseconds', v);
	const owner = l => {
		if (l.pid === null)
			return 'the kernel';
		const p = l.processes.find(w => w.pid === l.pid);
		return (p ? p.comm + ' ' : '') + '[' + l.pid + ']';
	};
	const waiter = text => w => ({ name: text(w), title: text(w), amount: ns(w.wait_ns) });
	// Profiles taken before holders were tracked have none; the kernel's locks neither.
	const holders = l => !l.holders || !l.holders.length ?
		{ none: l.pid === null ? 'not seen (kernel)' : 'not seen' } :
		{ list: l.holders.map(o => ({ name: o.function,
			title: o.function + ' in ' + o.process + ' [' + o.pid + ']', amount: ns(o.ns) })) };
	return {
		rows: locks.slice(0, LOCKS_SHOWN).map(l => ({
			address: l.address, kind: l.kind, owner: owner(l), contentions: l.contentions,
			wait: ns(l.wait_ns), share: percent(l.share), longest: ns(l.longest_ns),
			waiting: l.functions.map(waiter(w => w.name)),
			holders: holders(l),
			processes: l.processes.map(waiter(w => w.comm + ' [' + w.pid + ']')),
		})),
		more: locks.length > LOCKS_SHOWN ? 'and ' + (locks.length - LOCKS_SHOWN) + ' more locks' :
			null,
	};
}

// threads: the thread dump, sets of threads in the same place; null without any.
export function threadSetRows(doc) {
	if (!doc.thread_sets || !doc.thread_sets.length)
		return null;
	return doc.thread_sets.map(t => ({ threads: t.threads, state: t.state, wait: t.wait || '',
		group: t.group,
		stack: Array.isArray(t.stack) ? t.stack.join(' \u2190 ') : t.stack || '' }));
}

// wall: each group's time running against its time waiting; null when not a wall profile.
export function runningWaitingRows(doc) {
	if (!doc.groups.some(g => g.running_ns !== undefined))
		return null;
	return doc.groups.map(g => ({ label: g.label,
		running: valueWords('nanoseconds', g.running_ns || 0),
		waiting: valueWords('nanoseconds', g.waiting_ns || 0) }));
}

// memory: each owner's resident memory from the capture's start to its end, the most
// grown first; null in profiles taken before it was read.
export function ownerGrowthRows(doc) {
	const owners = doc.groups.filter(g => g.rss_grown_bytes !== undefined);
	if (!owners.length)
		return null;
	owners.sort((a, b) => b.rss_grown_bytes - a.rss_grown_bytes || (a.label < b.label ? -1 : 1));
	const bytes = v => valueWords('bytes', Math.abs(v));
	const signed = v => (v < 0 ? '\u2212' : '+') + bytes(v);
	return owners.map(g => ({ label: g.label,
		rssGrown: signed(g.rss_grown_bytes), rssStart: bytes(g.rss_start_bytes),
		fileGrown: signed(g.file_grown_bytes), fileStart: bytes(g.file_start_bytes),
		started: g.processes_started, exited: g.processes_exited }));
}

// ---- what the capture could not see ----

// Each line: { text } or a binary not read, { path, reason }.
export function couldNotSee(doc) {
	const items = [{ text: doc.lost ? doc.lost + ' events were lost: the kernel produced them ' +
		'faster than they were read.' : 'No events were lost.' }];
	const quality = doc.stack_quality;
	for (const u of (quality && quality.unnamed_starts) || [])
		items.push({ text: u.sentence });
	if (quality && quality.sentence)
		items.push({ text: quality.sentence });
	const past = doc.mappings_left_to_frame_pointers;
	if (past && past.mappings)
		items.push({ text: past.sentence });
	for (const b of doc.not_read || [])
		items.push({ path: b.path, reason: b.reason });
	return items;
}

// A profile's page as data: what profile.js draws, computed without a browser (no DOM),
// so tests/web/profile_model.test.mjs checks it with `node --test`. From the API's
// documents (GET /api/profiles/ID, its flame graph tree, GET /api/questions): the
// heading, the views the question lists, the card of stripped binaries, the groups,
// the functions (filtered, sorted), the sandwich view of one function and what the
// capture could not see: rows of text, every number written by format.js. Each
// question's own view is its own (web/ui/questions/NAME_model.js).

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

// Compare, as data: what compare.js draws, computed without a browser, so
// tests/web/compare_model.test.mjs checks it with `node --test`. From the page's address
// (?a=OLDER&b=NEWER) and GET /api/compare: the two profiles compared, the functions that
// grew and shrank the most, and the groups before and after, in whole percents as
// `slideops compare` writes them. The diff flame graph is flame_model.js's.

import { percent, utc } from './format.js';

// The two profiles the address names, and the query that asks for their comparison.
export function compareTarget(search) {
	const params = new URLSearchParams(search);
	const a = params.get('a'), b = params.get('b');
	return { a, b, query: 'a=' + encodeURIComponent(a || '') + '&b=' + encodeURIComponent(b || '') };
}

// Before and after: each profile's link, where and when, and its answer.
export function compareSides(doc) {
	const side = (word, s) => ({ word: word + ': ', href: '/profiles/' + encodeURIComponent(s.id),
		text: s.server + ', ' + utc(s.started_at), answer: ' \u2014 ' + s.answer });
	return [side('Before', doc.before), side('After', doc.after)];
}

// The functions that grew or shrank the most, with their shares before and after.
export function functionChanges(list) {
	return list.map(f => ({ name: f.name, before: percent(f.before), after: percent(f.after) }));
}

// The groups, with their shares before and after.
export function groupChanges(groups) {
	return groups.map(g => ({ label: g.label, before: percent(g.before), after: percent(g.after) }));
}

// Compare, as data (web/ui/compare_model.js) without a browser (compare.js draws it; the
// diff flame graph is flame_model.test.mjs's).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { compareSides, compareTarget, functionChanges,
	groupChanges } from '../../web/ui/compare_model.js';

test('the two profiles the address names, asked for as given', () => {
	assert.deepEqual(compareTarget('?a=2026%2F1&b=x+y'),
		{ a: '2026/1', b: 'x y', query: 'a=2026%2F1&b=x%20y' });
	assert.deepEqual(compareTarget(''), { a: null, b: null, query: 'a=&b=' });
});

test('before and after: each profile linked, with where, when and its answer', () => {
	const side = (id, at) => ({ id, server: 'db-1', started_at: at, answer: 'Over 30 seconds, ...' });
	assert.deepEqual(compareSides({ before: side('a/1', '2026-12-04T18:00:00Z'),
		after: side('b', '2026-12-04T19:00:00Z') }), [
		{ word: 'Before: ', href: '/profiles/a%2F1', text: 'db-1, 2026-12-04 18:00:00 UTC',
			answer: ' \u2014 Over 30 seconds, ...' },
		{ word: 'After: ', href: '/profiles/b', text: 'db-1, 2026-12-04 19:00:00 UTC',
			answer: ' \u2014 Over 30 seconds, ...' }]);
});

test('functions and groups before and after, in whole percents as compare writes them', () => {
	assert.deepEqual(functionChanges([{ name: 'build_report', before: 0.25, after: 0.41 },
		{ name: 'gc', before: 0, after: 0.004 }]), [
		{ name: 'build_report', before: '25%', after: '41%' },
		{ name: 'gc', before: '0%', after: '<1%' }]);
	assert.deepEqual(groupChanges([{ label: 'Service billing', before: 0.125, after: 0.54 }]),
		[{ label: 'Service billing', before: '13%', after: '54%' }]);
});

// Profiles, as data (web/ui/profiles_model.js) without a browser: the rows, choosing two
// of one question to compare, the count, and the queries (profiles.js draws the page;
// tests/browser/ui.test.js pages through 60 profiles and compares two).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { canCompare, choose, chooseBox, compareHref, countLine, filterAddress, pageQuery,
	profileColumns, profileRow } from '../../web/ui/profiles_model.js';

const QS = [{ id: 'cpu', title: 'What is using the CPU' }];
const P = (id, question, at) => ({ id, question, server: 'db-1', started_at: at, seconds: 30,
	answer: 'Over 30 seconds, ...' });

test('a profile\'s row: linked by its question\'s title, started in UTC', () => {
	assert.deepEqual(profileRow(P('2026/a', 'cpu', '2026-12-04T18:37:56Z'), QS), {
		id: '2026/a', question: 'cpu', href: '/profiles/2026%2Fa', title: 'What is using the CPU',
		server: 'db-1', started: '2026-12-04 18:37:56', seconds: 30,
		answer: 'Over 30 seconds, ...' });
	assert.equal(profileRow(P('b', 'io', '2026-12-04T18:37:56Z'), QS).title, 'io');
	assert.deepEqual(profileColumns(), ['Question', 'Started (UTC)', 'Seconds', 'Answer']);
	assert.deepEqual(profileColumns({ choose: true, server: true }),
		['', 'Question', 'Server', 'Started (UTC)', 'Seconds', 'Answer']);
});

test('two profiles of one question are chosen to compare, older first', () => {
	const a = P('a', 'cpu', '2026-12-04T19:00:00Z'), b = P('b', 'cpu', '2026-12-04T18:00:00Z');
	const w = P('w', 'wall', '2026-12-04T17:00:00Z'), c = P('c', 'cpu', '2026-12-04T16:00:00Z');
	let chosen = [];
	assert.deepEqual(chooseBox(w, chosen), { checked: false, disabled: false });
	chosen = choose(chosen, a, true);
	// Another question's profile cannot be chosen beside it.
	assert.deepEqual(chooseBox(w, chosen), { checked: false, disabled: true });
	assert.deepEqual(chooseBox(a, chosen), { checked: true, disabled: false });
	assert.equal(canCompare(chosen), false);
	chosen = choose(chosen, b, true);
	assert.equal(canCompare(chosen), true);
	// Two chosen: a third waits until one is let go.
	assert.deepEqual(chooseBox(c, chosen), { checked: false, disabled: true });
	assert.equal(compareHref(chosen), '/compare?a=b&b=a');
	chosen = choose(chosen, a, false);
	assert.deepEqual(chosen.map(p => p.id), ['b']);
	assert.deepEqual(chooseBox(c, chosen), { checked: false, disabled: false });
});

test('a page of the list, its filters, and the count under it', () => {
	assert.equal(pageQuery(0, '', ''), 'limit=50&offset=0');
	assert.equal(pageQuery(50, 'cpu', 'db 1'), 'limit=50&offset=50&question=cpu&server=db+1');
	assert.equal(filterAddress('', ''), '/profiles');
	assert.equal(filterAddress('wall', ''), '/profiles?question=wall');
	assert.equal(countLine(50, 64), 'Showing 50 of 64 profiles');
	assert.equal(countLine(1, 1), 'Showing 1 of 1 profile');
	assert.equal(countLine(0, 0), '');
});

// Profiles, as data: what profiles.js draws, computed without a browser, so
// tests/web/profiles_model.test.mjs checks it with `node --test`. A profile's row, which
// profiles may be chosen to compare (two of one question), the comparison they lead to,
// the count under the list, and the queries a page of the list and its filters make.

import { titleOf } from './api.js';

// A page of the list (GET /api/profiles?limit&offset): a workspace of 10k profiles opens
// as fast as one of 50.
export const PAGE = 50;

// A profile's row, linked by its question's title (qs: GET /api/questions).
export function profileRow(p, qs) {
	return { id: p.id, question: p.question, href: '/profiles/' + encodeURIComponent(p.id),
		title: titleOf(qs, p.question), server: p.server,
		started: p.started_at.replace('T', ' ').replace('Z', ''), seconds: p.seconds,
		answer: p.answer };
}

// The table's columns: a box to choose with, the server, where opts asks for them.
export function profileColumns(opts = {}) {
	return [opts.choose ? '' : null, 'Question', opts.server ? 'Server' : null, 'Started (UTC)',
		'Seconds', 'Answer'].filter(c => c !== null);
}

// A profile's box: chosen, or not to be chosen: another question than the first chosen,
// or two chosen already.
export function chooseBox(p, chosen) {
	const q = chosen.length ? chosen[0].question : null;
	const mine = chosen.some(c => c.id === p.id);
	return { checked: mine, disabled: !!((q && p.question !== q) || (chosen.length >= 2 && !mine)) };
}

// The profiles chosen after p's box was ticked (checked) or not.
export function choose(chosen, p, checked) {
	return checked ? [...chosen, p] : chosen.filter(c => c.id !== p.id);
}

// Compare is offered for two chosen profiles.
export function canCompare(chosen) {
	return chosen.length === 2;
}

// The comparison of the two chosen, older first: what changed reads from before to after.
export function compareHref(chosen) {
	const order = chosen.slice().sort((a, b) => a.started_at < b.started_at ? -1 :
		a.started_at > b.started_at ? 1 : 0);
	return '/compare?a=' + encodeURIComponent(order[0].id) + '&b=' + encodeURIComponent(order[1].id);
}

// The query of one page of the list, filtered by question and server ('' for any).
export function pageQuery(offset, question, server) {
	const query = new URLSearchParams({ limit: PAGE, offset });
	if (question)
		query.set('question', question);
	if (server)
		query.set('server', server);
	return query.toString();
}

// The page's own address for a filter, so a reload or a link keeps it.
export function filterAddress(question, server) {
	const query = new URLSearchParams();
	if (question)
		query.set('question', question);
	if (server)
		query.set('server', server);
	return '/profiles' + (query.toString() ? '?' + query : '');
}

// The line under the list: how many of how many are shown; nothing when there are none.
export function countLine(shown, total) {
	return total ? 'Showing ' + shown + ' of ' + total + (total === 1 ? ' profile' : ' profiles') : '';
}

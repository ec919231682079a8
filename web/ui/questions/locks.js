// The locks question's page, its own view drawn (locks by address); what it shows is
// locks_model.js's. Reached through the UI's table of the questions (questions.js):
// `views` maps each view its question lists (GET /api/questions) to a function of the
// profile's document that makes its section, or null when there is nothing to show.

import { h } from '../dom.js';
import { lockRows } from './locks_model.js';

// locks: each lock by its address (a user address within its process, or the kernel's),
// what waited on it and for how long, the longest wait first, and beside the waiters who
// held it: the functions that released it while others waited, with the waiting each
// release ended.
function locksTable(locks) {
	const { rows, more } = lockRows(locks);
	const waiters = list => h('ul', { class: 'waiters' }, list.map(w =>
		h('li', {}, h('span', { class: 'fn', title: w.title }, w.name), ' ' + w.amount)));
	const num = text => h('td', { class: 'num' }, text);
	const trs = rows.map(l => h('tr', { 'data-address': l.address },
		h('td', { class: 'mono' }, l.address), h('td', {}, l.kind), h('td', {}, l.owner),
		num(l.contentions), num(l.wait), num(l.share), num(l.longest),
		h('td', { class: 'waiting' }, waiters(l.waiting)),
		h('td', { class: 'holders' }, l.holders.none ?
			h('span', { class: 'muted' }, l.holders.none) : waiters(l.holders.list)),
		h('td', {}, waiters(l.processes))));
	if (more)
		trs.push(h('tr', {}, h('td', { colspan: 10, class: 'muted' }, more)));
	return h('section', { id: 'locks' }, h('h2', {}, 'Locks by address'),
		h('div', { class: 'scroll' }, h('table', { class: 'list locks' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Lock'), h('th', {}, 'Kind'), h('th', {}, 'In'),
				h('th', { class: 'num' }, 'Contentions'), h('th', { class: 'num' }, 'Total wait'),
				h('th', { class: 'num' }, 'Share'), h('th', { class: 'num' }, 'Longest wait'),
				h('th', {}, 'Waiting in'), h('th', {}, 'Held by'),
				h('th', {}, 'Waiting processes'))),
			h('tbody', {}, trs))),
		h('p', { class: 'note' }, 'A user-space address names a lock within its process; ' +
			'the kernel\'s locks are one address space for every process. Held by: the ' +
			'functions that released the lock while others waited, with the waiting ' +
			'each release ended.'));
}

export const views = {
	locks: doc => doc.locks ? locksTable(doc.locks) : null,
};

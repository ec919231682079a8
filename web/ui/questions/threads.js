// The threads question's page, its own view drawn (the thread dump); what it shows is
// threads_model.js's. Reached through the UI's table of the questions (questions.js):
// `views` maps each view its question lists (GET /api/questions) to a function of the
// profile's document that makes its section, or null when there is nothing to show.

import { h } from '../dom.js';
import { threadSetRows } from './threads_model.js';

// threads: the thread dump, sets of threads in the same place.
function threadSets(doc) {
	const rows = threadSetRows(doc);
	if (!rows)
		return null;
	return h('section', { id: 'threads' }, h('h2', {}, 'Threads, by where they are'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Threads'),
			h('th', {}, 'State'), h('th', {}, 'Waiting in'), h('th', {}, 'Group'), h('th', {}, 'Stack'))),
		h('tbody', {}, rows.map(t => h('tr', {}, h('td', { class: 'num' }, t.threads),
			h('td', {}, t.state), h('td', { class: 'fn' }, t.wait), h('td', {}, t.group),
			h('td', { class: 'mono' }, t.stack))))));
}

export const views = {
	thread_sets: doc => threadSets(doc),
};

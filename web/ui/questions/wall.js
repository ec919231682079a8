// The wall question's page, its own view drawn (running and waiting); what it shows is
// wall_model.js's. Reached through the UI's table of the questions (questions.js):
// `views` maps each view its question lists (GET /api/questions) to a function of the
// profile's document that makes its section, or null when there is nothing to show.

import { h } from '../dom.js';
import { runningWaitingRows } from './wall_model.js';

// wall: each group's time running against its time waiting.
function runningWaiting(doc) {
	const rows = runningWaitingRows(doc);
	if (!rows)
		return null;
	return h('section', { id: 'running' }, h('h2', {}, 'Running and waiting'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
			h('th', {}, 'Running'), h('th', {}, 'Waiting'))),
		h('tbody', {}, rows.map(g => h('tr', {}, h('td', {}, g.label),
			h('td', { class: 'num' }, g.running), h('td', { class: 'num' }, g.waiting))))));
}

export const views = {
	running_waiting: doc => runningWaiting(doc),
};

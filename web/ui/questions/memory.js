// The memory question's page, its own view drawn (growth by owner); what it shows is
// memory_model.js's. Reached through the UI's table of the questions (questions.js):
// `views` maps each view its question lists (GET /api/questions) to a function of the
// profile's document that makes its section, or null when there is nothing to show.

import { h } from '../dom.js';
import { ownerGrowthRows } from './memory_model.js';

// memory: each owner's resident memory from the capture's start to its end (RSS:
// anonymous and shared; file-backed apart), the most grown first, with the processes
// that started and exited meanwhile. Profiles taken before it was read have none.
function ownerGrowth(doc) {
	const rows = ownerGrowthRows(doc);
	if (!rows)
		return null;
	const num = text => h('td', { class: 'num' }, text);
	return h('section', { id: 'owner-growth' }, h('h2', {}, 'Growth by owner, from start to end'),
		h('table', { class: 'list owner-growth' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
			h('th', { class: 'num' }, 'RSS grown'), h('th', { class: 'num' }, 'RSS at the start'),
			h('th', { class: 'num' }, 'File-backed grown'), h('th', { class: 'num' }, 'File-backed at the start'),
			h('th', { class: 'num' }, 'Processes started'), h('th', { class: 'num' }, 'Exited'))),
		h('tbody', {}, rows.map(g => h('tr', { 'data-label': g.label }, h('td', {}, g.label),
			num(g.rssGrown), num(g.rssStart), num(g.fileGrown), num(g.fileStart),
			num(g.started), num(g.exited))))),
		h('p', { class: 'note' }, 'Each owner\'s resident memory, read from every process when ' +
			'the capture started and when it ended: RSS is anonymous and shared memory, what ' +
			'a leak holds; file-backed memory (mapped files) is apart. A process gone by the ' +
			'end shrank to 0; one new at the end grew from 0.'));
}

export const views = {
	owner_growth: doc => ownerGrowth(doc),
};

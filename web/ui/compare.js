// Compare two profiles of one question: the summary, the diff flame graph (what grew
// and what shrank, frames only in the older profile included), the functions that grew
// and shrank the most, and the groups before and after. What each shows is
// compare_model.js's, tested without a browser.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api } from './api.js';
import { compareSides, compareTarget, functionChanges, groupChanges } from './compare_model.js';
import { flameGraph } from './flame.js';
import { link } from './nav.js';

export async function comparePage(m) {
	const { a, b, query } = compareTarget(location.search);
	document.title = 'Compare \u2014 SlideOps';
	m.append(h('p', { class: 'crumbs' }, link('/profiles', 'Profiles'), ' \u203a '), h('h1', {}, 'Compare'));
	const doc = await api('compare?' + query);
	const [ta, tb] = await Promise.all([api('profiles/' + encodeURIComponent(a) + '/flamegraph'),
		api('profiles/' + encodeURIComponent(b) + '/flamegraph')]);
	const sides = compareSides(doc).map(s => h('p', { class: 'meta' }, h('b', {}, s.word),
		link(s.href, s.text), s.answer));
	const fn = list => h('table', { class: 'list' }, h('tbody', {}, functionChanges(list).map(f =>
		h('tr', {}, h('td', { class: 'fn', title: f.name }, f.name),
			h('td', { class: 'num' }, f.before), h('td', { class: 'num' }, f.after)))));
	const fg = h('div', { class: 'fg', id: 'flamegraph' });
	m.append(h('p', { class: 'answer', id: 'summary' }, doc.summary), ...sides,
		h('section', {}, h('h2', {}, 'What grew and what shrank'), fg),
		h('div', { class: 'two' },
			h('section', {}, h('h2', {}, 'Grew the most'), fn(doc.grew)),
			h('section', {}, h('h2', {}, 'Shrank the most'), fn(doc.shrank))),
		h('section', {}, h('h2', {}, 'Groups'), h('table', { class: 'list' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Group'), h('th', {}, 'Before'), h('th', {}, 'After'))),
			h('tbody', {}, groupChanges(doc.groups).map(g => h('tr', {}, h('td', {}, g.label),
				h('td', { class: 'num' }, g.before), h('td', { class: 'num' }, g.after)))))));
	flameGraph(fg, tb, { diff: { before: ta } });
}

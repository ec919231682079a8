// Compare two profiles of one question: the summary, the diff flame graph (what grew
// and what shrank, frames only in the older profile included), the functions that grew
// and shrank the most, and the groups before and after.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h, pct } from './dom.js';
import { api } from './api.js';
import { flameGraph } from './flame.js';
import { link } from './nav.js';

export async function comparePage(m) {
	const params = new URLSearchParams(location.search);
	const a = params.get('a'), b = params.get('b');
	document.title = 'Compare \u2014 SlideOps';
	m.append(h('p', { class: 'crumbs' }, link('/profiles', 'Profiles'), ' \u203a '), h('h1', {}, 'Compare'));
	const q = 'a=' + encodeURIComponent(a || '') + '&b=' + encodeURIComponent(b || '');
	const doc = await api('compare?' + q);
	const [ta, tb] = await Promise.all([api('profiles/' + encodeURIComponent(a) + '/flamegraph'),
		api('profiles/' + encodeURIComponent(b) + '/flamegraph')]);
	const side = (word, s) => h('p', { class: 'meta' }, h('b', {}, word + ': '),
		link('/profiles/' + encodeURIComponent(s.id), s.server + ', ' + s.started_at.replace('T', ' ').replace('Z', ' UTC')),
		' \u2014 ' + s.answer);
	const fn = list => h('table', { class: 'list' }, h('tbody', {}, list.map(f => h('tr', {},
		h('td', { class: 'fn', title: f.name }, f.name), h('td', { class: 'num' }, pct(f.before)),
		h('td', { class: 'num' }, pct(f.after))))));
	const fg = h('div', { class: 'fg', id: 'flamegraph' });
	m.append(h('p', { class: 'answer', id: 'summary' }, doc.summary), side('Before', doc.before),
		side('After', doc.after),
		h('section', {}, h('h2', {}, 'What grew and what shrank'), fg),
		h('div', { class: 'two' },
			h('section', {}, h('h2', {}, 'Grew the most'), fn(doc.grew)),
			h('section', {}, h('h2', {}, 'Shrank the most'), fn(doc.shrank))),
		h('section', {}, h('h2', {}, 'Groups'), h('table', { class: 'list' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Group'), h('th', {}, 'Before'), h('th', {}, 'After'))),
			h('tbody', {}, doc.groups.map(g => h('tr', {}, h('td', {}, g.label),
				h('td', { class: 'num' }, pct(g.before)), h('td', { class: 'num' }, pct(g.after))))))));
	flameGraph(fg, tb, { diff: { before: ta } });
}

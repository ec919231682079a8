// Profiles: every profile of the workspace a page at a time, filtered by question and
// server, two of one question chosen to Compare; and the table of profiles a server's
// page shows too.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api, questions, titleOf } from './api.js';
import { errorBox, go, link } from './nav.js';

// A table of profiles, each linked by its question's title (qs: questions()).
export function profileRows(list, qs, opts = {}) {
	if (!list.length)
		return h('p', { class: 'muted' }, 'No profiles yet.');
	return h('table', { class: 'list profiles' },
		h('thead', {}, h('tr', {}, opts.choose ? h('th', {}, '') : null, h('th', {}, 'Question'),
			opts.server ? h('th', {}, 'Server') : null, h('th', {}, 'Started (UTC)'),
			h('th', {}, 'Seconds'), h('th', {}, 'Answer'))),
		h('tbody', {}, list.map(p => h('tr', { 'data-id': p.id, 'data-question': p.question },
			opts.choose ? h('td', {}, opts.choose(p)) : null,
			h('td', {}, link('/profiles/' + encodeURIComponent(p.id),
				titleOf(qs, p.question))),
			opts.server ? h('td', {}, p.server) : null,
			h('td', {}, p.started_at.replace('T', ' ').replace('Z', '')),
			h('td', { class: 'num' }, p.seconds),
			h('td', { class: 'answer' }, p.answer)))));
}

// The list comes a page at a time (GET /api/profiles?limit&offset, filtered by the
// server): a workspace of 10k profiles opens as fast as one of 50.
const PAGE = 50;

export async function profilesPage(m) {
	document.title = 'Profiles \u2014 SlideOps';
	const params = new URLSearchParams(location.search);
	const [servers, qs] = await Promise.all([api('servers'), questions()]);
	const qSel = h('select', { 'aria-label': 'Question' }, h('option', { value: '' }, 'Every question'),
		qs.map(({ id, title }) => h('option', { value: id }, title)));
	const sSel = h('select', { 'aria-label': 'Server' }, h('option', { value: '' }, 'Every server'),
		servers.servers.map(s => h('option', { value: s.profiles_server },
			s.this_server ? s.hostname + ' (this server)' : s.name)));
	qSel.value = params.get('question') || '';
	sSel.value = params.get('server') || '';
	const compareBtn = h('button', { type: 'button', class: 'primary', disabled: true }, 'Compare');
	const hint = h('span', { class: 'muted' }, 'Choose two profiles of the same question to compare.');
	const table = h('div', {});
	const count = h('p', { class: 'muted count' });
	const more = h('button', { type: 'button', hidden: true }, 'Show more');
	const msg = h('div', {});
	let list = [], next = 0, chosen = [], loading = 0;

	const render = () => {
		const q = chosen.length ? chosen[0].question : null;
		table.textContent = '';
		table.append(profileRows(list, qs, { server: true, choose: p => {
			const box = h('input', { type: 'checkbox', 'aria-label': 'Choose ' + p.id,
				checked: chosen.some(c => c.id === p.id),
				disabled: (q && p.question !== q) ||
					(chosen.length >= 2 && !chosen.some(c => c.id === p.id)) });
			box.addEventListener('change', () => {
				chosen = box.checked ? [...chosen, p] : chosen.filter(c => c.id !== p.id);
				render();
			});
			return box;
		} }));
		compareBtn.disabled = chosen.length !== 2;
	};
	// One page more (from offset next), or the first page again after a filter changed.
	const load = async (fresh) => {
		const mine = ++loading;
		const query = new URLSearchParams({ limit: PAGE, offset: fresh ? 0 : next });
		if (qSel.value)
			query.set('question', qSel.value);
		if (sSel.value)
			query.set('server', sSel.value);
		msg.textContent = '';
		try {
			const doc = await api('profiles?' + query);
			if (mine !== loading)
				return;  // a newer filter's answer is on its way
			list = fresh ? doc.profiles : [...list, ...doc.profiles];
			next = doc.next_offset;
			more.hidden = next === null;
			count.textContent = doc.total ? 'Showing ' + list.length + ' of ' + doc.total +
				(doc.total === 1 ? ' profile' : ' profiles') : '';
			if (fresh)
				chosen = chosen.filter(c => list.some(p => p.id === c.id));
			render();
		} catch (e) {
			msg.append(errorBox(e));
		}
	};
	const refilter = () => {
		const query = new URLSearchParams();
		if (qSel.value)
			query.set('question', qSel.value);
		if (sSel.value)
			query.set('server', sSel.value);
		history.replaceState(null, '', '/profiles' + (query.toString() ? '?' + query : ''));
		load(true);
	};
	qSel.addEventListener('change', refilter);
	sSel.addEventListener('change', refilter);
	more.addEventListener('click', () => load(false));
	compareBtn.addEventListener('click', () => {
		// Older first: what changed reads from before to after.
		const order = chosen.slice().sort((a, b) => a.started_at < b.started_at ? -1 :
			a.started_at > b.started_at ? 1 : 0);
		go('/compare?a=' + encodeURIComponent(order[0].id) + '&b=' + encodeURIComponent(order[1].id));
	});
	m.append(h('h1', {}, 'Profiles'), h('div', { class: 'filters' }, qSel, sSel, compareBtn, hint),
		msg, table, h('div', { class: 'more' }, more, count));
	await load(true);
}

// Profiles: every profile of the workspace a page at a time, filtered by question and
// server, two of one question chosen to Compare; and the table of profiles a server's
// page shows too. What each shows is profiles_model.js's, tested without a browser.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api, questions } from './api.js';
import { errorBox, go, link } from './nav.js';
import { canCompare, choose, chooseBox, compareHref, countLine, filterAddress, pageQuery,
	profileColumns, profileRow } from './profiles_model.js';

// A table of profiles, each linked by its question's title (qs: questions()).
export function profileRows(list, qs, opts = {}) {
	if (!list.length)
		return h('p', { class: 'muted' }, 'No profiles yet.');
	return h('table', { class: 'list profiles' },
		h('thead', {}, h('tr', {}, profileColumns(opts).map(c => h('th', {}, c)))),
		h('tbody', {}, list.map(p => {
			const r = profileRow(p, qs);
			return h('tr', { 'data-id': r.id, 'data-question': r.question },
				opts.choose ? h('td', {}, opts.choose(p)) : null,
				h('td', {}, link(r.href, r.title)),
				opts.server ? h('td', {}, r.server) : null,
				h('td', {}, r.started),
				h('td', { class: 'num' }, r.seconds),
				h('td', { class: 'answer' }, r.answer));
		})));
}

// The list comes a page at a time (GET /api/profiles?limit&offset, filtered by the
// server): profiles_model.js's PAGE.
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
		table.textContent = '';
		table.append(profileRows(list, qs, { server: true, choose: p => {
			const state = chooseBox(p, chosen);
			const box = h('input', { type: 'checkbox', 'aria-label': 'Choose ' + p.id,
				checked: state.checked, disabled: state.disabled });
			box.addEventListener('change', () => {
				chosen = choose(chosen, p, box.checked);
				render();
			});
			return box;
		} }));
		compareBtn.disabled = !canCompare(chosen);
	};
	// One page more (from offset next), or the first page again after a filter changed.
	const load = async (fresh) => {
		const mine = ++loading;
		msg.textContent = '';
		try {
			const doc = await api('profiles?' + pageQuery(fresh ? 0 : next, qSel.value, sSel.value));
			if (mine !== loading)
				return;  // a newer filter's answer is on its way
			list = fresh ? doc.profiles : [...list, ...doc.profiles];
			next = doc.next_offset;
			more.hidden = next === null;
			count.textContent = countLine(list.length, doc.total);
			if (fresh)
				chosen = chosen.filter(c => list.some(p => p.id === c.id));
			render();
		} catch (e) {
			msg.append(errorBox(e));
		}
	};
	const refilter = () => {
		history.replaceState(null, '', filterAddress(qSel.value, sSel.value));
		load(true);
	};
	qSel.addEventListener('change', refilter);
	sSel.addEventListener('change', refilter);
	more.addEventListener('click', () => load(false));
	compareBtn.addEventListener('click', () => go(compareHref(chosen)));
	m.append(h('h1', {}, 'Profiles'), h('div', { class: 'filters' }, qSel, sSel, compareBtn, hint),
		msg, table, h('div', { class: 'more' }, more, count));
	await load(true);
}

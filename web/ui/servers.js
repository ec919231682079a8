// The Servers page, and a server's page: its Performance tab (can it be profiled, the
// busiest processes, capture, past profiles, remove the profiler, debug symbols).
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api, post, questions } from './api.js';
import { capturePanel } from './capture.js';
import { bytes } from './format.js';
import { errorBox, link } from './nav.js';
import { profileRows } from './profiles.js';
import { symbolsPanel } from './symbols.js';

export async function serversPage(m) {
	document.title = 'Servers \u2014 SlideOps';
	const doc = await api('servers');
	m.append(h('h1', {}, 'Servers'));
	const rows = doc.servers.map(s => h('tr', {},
		h('td', {}, link('/servers/' + encodeURIComponent(s.id), s.hostname)),
		h('td', {}, s.this_server ? 'this server' : 'agent')));
	m.append(h('table', { class: 'list' },
		h('thead', {}, h('tr', {}, h('th', {}, 'Server'), h('th', {}, 'Where'))),
		h('tbody', {}, rows)));
}

export async function serverPage(m, id) {
	const srv = await api('servers/' + encodeURIComponent(id));
	document.title = srv.hostname + ' \u2014 SlideOps';
	const base = 'servers/' + encodeURIComponent(id);
	m.append(h('p', { class: 'crumbs' }, link('/servers', 'Servers'), ' \u203a '),
		h('h1', {}, srv.hostname, srv.this_server ? h('small', {}, ' this server') : null),
		h('div', { class: 'tabs', role: 'tablist' },
			h('button', { role: 'tab', 'aria-selected': 'true', class: 'tab current' },
				'Performance')));

	const checkSec = h('section', { id: 'check' }, h('h2', {}, 'Can it be profiled'),
		h('p', { class: 'muted' }, 'Checking\u2026'));
	const topSec = h('section', { id: 'top' }, h('h2', {}, 'Busiest processes right now'));
	const capSec = h('section', { id: 'capture' }, h('h2', {}, 'Capture a profile'));
	const pastSec = h('section', { id: 'past' }, h('h2', {}, 'Past profiles'));
	const removeSec = h('section', { id: 'remove' }, h('h2', {}, 'Remove the profiler'));
	const symSec = h('section', { id: 'symbols' }, h('h2', {}, 'Debug symbols'));
	m.append(h('div', { class: 'perf' }, h('div', { class: 'col' }, checkSec, capSec, pastSec),
		h('div', { class: 'col' }, topSec, removeSec)), symSec);

	const check = api(base + '/check');
	loadTop(topSec, base);
	loadPast(pastSec, base, srv.hostname);
	symbolsPanel(symSec);
	removePanel(removeSec, base);
	try {
		const c = await check;
		renderCheck(checkSec, c);
		capturePanel(capSec, base, c);
	} catch (e) {
		checkSec.append(errorBox(e));
		capturePanel(capSec, base, null);
	}
}

function renderCheck(sec, c) {
	sec.querySelector('.muted')?.remove();
	sec.append(h('p', { class: c.can_profile ? 'ok' : 'bad' },
		c.can_profile ? 'This server can be profiled.' :
			'This server cannot be profiled yet. What is missing:'));
	const missing = c.requirements.filter(r => !r.ok);
	const list = (c.can_profile ? c.requirements : missing).map(r =>
		h('li', { class: r.ok ? 'ok' : 'bad' }, h('b', {}, r.name), ': ', r.detail));
	sec.append(h('ul', { class: 'reqs' }, list));
}

async function loadTop(sec, base) {
	try {
		const doc = await api(base + '/top?n=10');
		sec.append(h('ul', { class: 'top' }, doc.processes.map(p =>
			h('li', {}, h('b', {}, p.comm), ' ' + Math.round(p.cpu_percent) + '% CPU',
				h('span', { class: 'group' }, p.group)))),
		h('p', { class: 'note' }, 'These figures are averages since each process started, ' +
			'as ps reports them; a profile shows what they do now.'));
	} catch (e) {
		sec.append(errorBox(e));
	}
}

const PAST_SHOWN = 10;

async function loadPast(sec, base, hostname) {
	try {
		const [doc, qs] = await Promise.all([api(base + '/profiles?limit=' + PAST_SHOWN),
			questions()]);
		sec.append(profileRows(doc.profiles, qs));
		if (doc.next_offset !== null)
			sec.append(h('p', {}, link('/profiles?server=' + encodeURIComponent(hostname),
				'All ' + doc.total + ' profiles of this server')));
	} catch (e) {
		sec.append(errorBox(e));
	}
}

function removePanel(sec, base) {
	const button = h('button', { type: 'button', class: 'danger' }, 'Remove the profiler');
	const out = h('div', { class: 'msg' });
	sec.append(h('p', {}, 'The profiler stays installed so the next capture starts quickly. ' +
		'Removing it deletes it and any capture files left behind; profiles in the workspace ' +
		'stay. The next capture installs it again.'), button, out);
	button.addEventListener('click', async () => {
		if (!confirm('Remove the profiler and its capture files from this server? ' +
			'Profiles in the workspace stay.'))
			return;
		out.textContent = '';
		try {
			const doc = await post(base + '/remove');
			if (!doc.removed.length)
				out.append(h('p', { class: 'ok' }, 'The profiler is not installed on this ' +
					'server and no capture files are left; nothing to remove.'));
			else
				out.append(h('ul', {}, doc.removed.map(r => h('li', {}, 'Removed ' + r.path +
					' (' + r.files + (r.files === 1 ? ' file, ' : ' files, ') + bytes(r.bytes) + ').'))));
			out.append(h('p', { class: 'note' }, 'Kept the workspace: profiles, Services and ' +
				'debug symbols.'));
		} catch (e) {
			out.append(errorBox(e));
		}
	});
}

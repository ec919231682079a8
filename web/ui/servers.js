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
import { addServerPanel } from './add_server.js';

// When a server was last heard from, in words (the API's times are UTC).
function lastSeen(s) {
	if (s.this_server)
		return 'now';
	if (!s.last_seen)
		return 'never';
	return s.last_seen.replace('T', ' ').replace('Z', ' UTC');
}

const STATUS_WORDS = { connected: 'Connected', unreachable: 'Unreachable', removed: 'Removed' };

export async function serversPage(m) {
	document.title = 'Servers \u2014 SlideOps';
	const doc = await api('servers');
	m.append(h('h1', {}, 'Servers'));
	const rows = doc.servers.map(s => h('tr', { 'data-id': s.id, 'data-status': s.status },
		h('td', {}, link('/servers/' + encodeURIComponent(s.id), serverName(s))),
		h('td', { class: 'status ' + s.status }, STATUS_WORDS[s.status] || s.status),
		h('td', {}, lastSeen(s)),
		h('td', { class: 'mono' }, s.kernel),
		h('td', {}, s.this_server ? 'this server' : 'agent ' + s.agent_version)));
	m.append(h('table', { class: 'list servers' },
		h('thead', {}, h('tr', {}, h('th', {}, 'Server'), h('th', {}, 'Status'),
			h('th', {}, 'Last seen'), h('th', {}, 'Kernel'), h('th', {}, 'Profiled by'))),
		h('tbody', {}, rows)));
	const add = h('section', { id: 'add-server' });
	m.append(add);
	addServerPanel(add);
}

// A server's name as the UI shows it: this one by its hostname.
export function serverName(s) {
	return s.this_server ? s.hostname : s.name;
}

export async function serverPage(m, id) {
	const srv = await api('servers/' + encodeURIComponent(id));
	document.title = serverName(srv) + ' \u2014 SlideOps';
	const base = 'servers/' + encodeURIComponent(id);
	m.append(h('p', { class: 'crumbs' }, link('/servers', 'Servers'), ' \u203a '),
		h('h1', {}, serverName(srv), h('small', {}, srv.this_server ? ' this server' :
			' ' + (STATUS_WORDS[srv.status] || srv.status) + ', last seen ' + lastSeen(srv) +
			(srv.kernel ? ', kernel ' + srv.kernel : ''))),
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
	loadPast(pastSec, base, srv.profiles_server);
	symbolsPanel(symSec);
	removePanel(removeSec, base);
	if (!srv.this_server && srv.status !== 'removed')
		removeServerPanel(removeSec, srv);
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

// An agent's server leaves the workspace: its credential stops working at once, its
// agent removes the profiler and exits; its profiles stay.
function removeServerPanel(sec, srv) {
	const button = h('button', { type: 'button', class: 'danger' }, 'Remove this server');
	const out = h('div', { class: 'msg' });
	sec.append(h('h2', {}, 'Remove this server'), h('p', {}, 'Its agent stops and removes ' +
		'the profiler; its profiles stay in the workspace.'), button, out);
	button.addEventListener('click', async () => {
		if (!confirm('Remove ' + srv.name + ' from the workspace?'))
			return;
		out.textContent = '';
		try {
			await api('servers/' + encodeURIComponent(srv.id), { method: 'DELETE' });
			out.append(h('p', { class: 'ok' }, 'Removed. Its agent stops at its next poll.'));
			button.disabled = true;
		} catch (e) {
			out.append(errorBox(e));
		}
	});
}

// The Servers page, and a server's page: its Performance tab (can it be profiled, the
// busiest processes, capture, past profiles, remove the profiler, debug symbols), drawn
// from servers_model.js, which says what each shows and is tested without a browser.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api, post, questions } from './api.js';
import { capturePanel } from './capture.js';
import { errorBox, link } from './nav.js';
import { profileRows } from './profiles.js';
import { symbolsPanel } from './symbols.js';
import { addServerPanel } from './add_server.js';
import { checkLines, pastMore, removedLines, serverHeading, serverRows,
	topRows } from './servers_model.js';

export async function serversPage(m) {
	document.title = 'Servers \u2014 SlideOps';
	const doc = await api('servers');
	m.append(h('h1', {}, 'Servers'));
	const rows = serverRows(doc).map(s => h('tr', { 'data-id': s.id, 'data-status': s.status },
		h('td', {}, link(s.href, s.name)),
		h('td', { class: 'status ' + s.status }, s.statusWords),
		h('td', {}, s.lastSeen),
		h('td', { class: 'mono' }, s.kernel),
		h('td', {}, s.by)));
	m.append(h('table', { class: 'list servers' },
		h('thead', {}, h('tr', {}, h('th', {}, 'Server'), h('th', {}, 'Status'),
			h('th', {}, 'Last seen'), h('th', {}, 'Kernel'), h('th', {}, 'Profiled by'))),
		h('tbody', {}, rows)));
	const add = h('section', { id: 'add-server' });
	m.append(add);
	addServerPanel(add);
}

export async function serverPage(m, id) {
	const srv = await api('servers/' + encodeURIComponent(id));
	const heading = serverHeading(srv);
	document.title = heading.name + ' \u2014 SlideOps';
	const base = 'servers/' + encodeURIComponent(id);
	m.append(h('p', { class: 'crumbs' }, link('/servers', 'Servers'), ' \u203a '),
		h('h1', {}, heading.name, h('small', {}, heading.detail)),
		heading.refused ? h('p', { class: 'error refused', role: 'status' }, heading.refused) : '',
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
	if (heading.removable)
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
	const check = checkLines(c);
	sec.querySelector('.muted')?.remove();
	sec.append(h('p', { class: check.ok ? 'ok' : 'bad' }, check.headline));
	sec.append(h('ul', { class: 'reqs' }, check.requirements.map(r =>
		h('li', { class: r.ok ? 'ok' : 'bad' }, h('b', {}, r.name), ': ', r.detail))));
}

async function loadTop(sec, base) {
	try {
		const doc = await api(base + '/top?n=10');
		sec.append(h('ul', { class: 'top' }, topRows(doc).map(p =>
			h('li', {}, h('b', {}, p.comm), ' ' + p.cpu, h('span', { class: 'group' }, p.group)))),
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
		const more = pastMore(doc, hostname);
		if (more)
			sec.append(h('p', {}, link(more.href, more.text)));
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
			const removed = removedLines(await post(base + '/remove'));
			if (removed.nothing)
				out.append(h('p', { class: 'ok' }, removed.nothing));
			else
				out.append(h('ul', {}, removed.lines.map(line => h('li', {}, line))));
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

// The SlideOps web UI: one page, a few views, the API under /api/ (docs/api.md).
// Plain ES modules, no framework: see README.md beside this file for why.
//
// Every name in a profile (process, function, file, upload file name) is set as text:
// elements are made with h() (dom.js), which only ever makes text nodes from strings.
// Nothing here assigns innerHTML.

import { h, pct } from './dom.js';
import { flameGraph } from './flame.js';
import { sandwich } from './flame_model.js';

const QUESTIONS = [
	['cpu', 'What is using the CPU'],
	['wall', 'Where time goes, including waiting'],
	['threads', 'What every thread is doing right now'],
	['locks', 'What is waiting on locks'],
	['memory', 'Where memory grows'],
];
const TITLE = Object.fromEntries(QUESTIONS);

class ApiError extends Error {
	constructor(message, status) {
		super(message);
		this.status = status;
	}
}

async function api(path, opts = {}) {
	const res = await fetch('/api/' + path, { credentials: 'same-origin', ...opts });
	let doc = null;
	try {
		doc = await res.json();
	} catch (e) {
		doc = null;
	}
	if (!res.ok)
		throw new ApiError(doc && doc.error ? doc.error : res.status + ' ' + res.statusText,
			res.status);
	return doc;
}

function post(path, body) {
	return api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body || {}) });
}

// ---- navigation ----

const main = () => document.getElementById('main');

function link(href, ...children) {
	const a = h('a', { href }, ...children);
	a.addEventListener('click', ev => {
		if (ev.button || ev.ctrlKey || ev.metaKey || ev.shiftKey)
			return;
		ev.preventDefault();
		go(href);
	});
	return a;
}

function go(href) {
	history.pushState(null, '', href);
	route();
}

function errorBox(e) {
	return h('p', { class: 'error', role: 'alert' }, e.message || String(e));
}

let pollTimer = 0;

async function route() {
	clearTimeout(pollTimer);
	const path = location.pathname;
	const m = main();
	m.textContent = '';
	document.querySelectorAll('nav a').forEach(a =>
		a.classList.toggle('current', path.startsWith(a.getAttribute('href')) ||
			(path === '/' && a.getAttribute('href') === '/servers')));
	try {
		let r;
		if (path === '/' || path === '/servers')
			await serversPage(m);
		else if ((r = path.match(/^\/servers\/([^/]+)$/)))
			await serverPage(m, decodeURIComponent(r[1]));
		else if (path === '/profiles')
			await profilesPage(m);
		else if ((r = path.match(/^\/profiles\/([^/]+)$/)))
			await profilePage(m, decodeURIComponent(r[1]));
		else if (path === '/compare')
			await comparePage(m);
		else
			m.append(h('h1', {}, 'Not found'), h('p', {}, 'There is no page here.'));
	} catch (e) {
		m.append(errorBox(e));
	}
	document.body.dataset.page = path;
}

// ---- Servers ----

async function serversPage(m) {
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

// ---- a server: the Performance tab ----

async function serverPage(m, id) {
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

function profileRows(list, opts = {}) {
	if (!list.length)
		return h('p', { class: 'muted' }, 'No profiles yet.');
	return h('table', { class: 'list profiles' },
		h('thead', {}, h('tr', {}, opts.choose ? h('th', {}, '') : null, h('th', {}, 'Question'),
			opts.server ? h('th', {}, 'Server') : null, h('th', {}, 'Started (UTC)'),
			h('th', {}, 'Seconds'), h('th', {}, 'Answer'))),
		h('tbody', {}, list.map(p => h('tr', { 'data-id': p.id, 'data-question': p.question },
			opts.choose ? h('td', {}, opts.choose(p)) : null,
			h('td', {}, link('/profiles/' + encodeURIComponent(p.id), TITLE[p.question] || p.question)),
			opts.server ? h('td', {}, p.server) : null,
			h('td', {}, p.started_at.replace('T', ' ').replace('Z', '')),
			h('td', { class: 'num' }, p.seconds),
			h('td', { class: 'answer' }, p.answer)))));
}

const PAST_SHOWN = 10;

async function loadPast(sec, base, hostname) {
	try {
		const doc = await api(base + '/profiles?limit=' + PAST_SHOWN);
		sec.append(profileRows(doc.profiles));
		if (doc.next_offset !== null)
			sec.append(h('p', {}, link('/profiles?server=' + encodeURIComponent(hostname),
				'All ' + doc.total + ' profiles of this server')));
	} catch (e) {
		sec.append(errorBox(e));
	}
}

function capturePanel(sec, base, check) {
	const form = h('form', { class: 'capture' });
	const choices = h('fieldset', {}, h('legend', {}, 'Question'));
	QUESTIONS.forEach(([id, title], k) => {
		const can = !check || check.questions[id];
		const why = check && !can ? check.question_details[id] : '';
		const input = h('input', { type: 'radio', name: 'question', value: id,
			disabled: !can, checked: k === 0 && can });
		choices.append(h('label', { class: can ? '' : 'disabled' }, input, ' ', title,
			why ? h('span', { class: 'why' }, ' \u2014 ' + why) : null));
	});
	const duration = h('select', { name: 'seconds', 'aria-label': 'Duration' },
		[10, 30, 60, 120, 300].map(s => h('option', { value: s, selected: s === 30 },
			s < 60 ? s + ' seconds' : s / 60 + (s === 60 ? ' minute' : ' minutes'))));
	const durLabel = h('label', { class: 'duration' }, 'Duration ', duration);
	const button = h('button', { type: 'submit', class: 'primary' }, 'Capture');
	const status = h('div', { class: 'progress', hidden: true },
		h('progress', { max: 1, value: 0 }), h('span', { class: 'phase' }),
		h('button', { type: 'button', class: 'stop' }, 'Stop'));
	const msg = h('div', { class: 'msg' });
	form.append(choices, h('div', { class: 'row' }, durLabel, button), status, msg,
		h('p', { class: 'note' }, 'What is holding memory and Where memory is allocated are ' +
			'not offered, because they are read from inside one runtime at a time. ' +
			'Capture them from the Service instead.'));
	sec.append(form);

	const syncDuration = () => {
		const q = form.querySelector('input[name=question]:checked');
		durLabel.hidden = q && q.value === 'threads';  // a snapshot has no duration
	};
	choices.addEventListener('change', syncDuration);
	syncDuration();

	form.addEventListener('submit', async ev => {
		ev.preventDefault();
		const q = form.querySelector('input[name=question]:checked');
		if (!q)
			return;
		msg.textContent = '';
		try {
			const body = { question: q.value };
			if (q.value !== 'threads')
				body.seconds = Number(duration.value);
			await post(base + '/capture', body);
			follow(base, status, button, msg);
		} catch (e) {
			msg.append(errorBox(e));
		}
	});
	status.querySelector('.stop').addEventListener('click', async () => {
		try {
			await post(base + '/capture/stop');
			status.querySelector('.phase').textContent = 'Stopping; keeping what was sampled\u2026';
		} catch (e) {
			msg.append(errorBox(e));
		}
	});
	// A capture already running (started from another tab) is followed too.
	api(base + '/capture').then(s => {
		if (s.running)
			follow(base, status, button, msg);
	}).catch(() => {});
}

function follow(base, status, button, msg) {
	const bar = status.querySelector('progress'), phase = status.querySelector('.phase');
	status.hidden = false;
	button.disabled = true;
	const words = { sampling: 'Sampling', reading: 'Reading binaries', saving: 'Saving',
		done: 'Done', failed: 'Failed' };
	const tick = async () => {
		let s;
		try {
			s = await api(base + '/capture');
		} catch (e) {
			msg.append(errorBox(e));
			return;
		}
		bar.max = s.total || 1;
		bar.value = s.total ? s.done : 0;
		let text = words[s.phase] || s.phase;
		if (s.phase === 'sampling' && s.total)
			text += ': ' + Math.max(0, Math.ceil((s.total - s.done) / 1000)) + ' s left';
		phase.textContent = text;
		status.dataset.phase = s.phase;
		if (s.running) {
			pollTimer = setTimeout(tick, 500);
			return;
		}
		button.disabled = false;
		status.hidden = true;
		if (s.phase === 'done' && s.profile_id)
			go('/profiles/' + encodeURIComponent(s.profile_id));
		else if (s.error)
			msg.append(errorBox(new Error(s.error)));
	};
	tick();
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

function bytes(n) {
	const u = ['bytes', 'kB', 'MB', 'GB'];
	let k = 0;
	while (n >= 1024 && k < u.length - 1) {
		n /= 1024;
		k++;
	}
	return (k && n < 10 ? n.toFixed(1) : Math.round(n)) + ' ' + u[k];
}

// ---- Debug symbols ----

// Sends a file as the request body, with progress: fetch cannot report upload progress.
function uploadFile(file, onProgress) {
	return new Promise((resolve, reject) => {
		const xhr = new XMLHttpRequest();
		xhr.open('POST', '/api/symbols?name=' + encodeURIComponent(file.name));
		xhr.upload.onprogress = ev => onProgress(ev.loaded, ev.total || file.size);
		xhr.onload = () => {
			let doc = null;
			try {
				doc = JSON.parse(xhr.responseText);
			} catch (e) {
				doc = null;
			}
			if (xhr.status >= 200 && xhr.status < 300)
				resolve(doc);
			else
				reject(new ApiError(doc && doc.error ? doc.error : 'upload failed (' + xhr.status + ')',
					xhr.status));
		};
		xhr.onerror = () => reject(new Error('the upload did not reach the workspace server'));
		xhr.send(file);
	});
}

// A button that picks a file and uploads it; done(doc) after a good upload.
function uploadButton(done) {
	const input = h('input', { type: 'file', hidden: true, 'aria-label': 'Debug symbols file' });
	const button = h('button', { type: 'button', class: 'primary' }, 'Upload debug symbols');
	const bar = h('progress', { max: 1, value: 0, hidden: true });
	const out = h('div', { class: 'msg' });
	button.addEventListener('click', () => input.click());
	input.addEventListener('change', async () => {
		const file = input.files[0];
		if (!file)
			return;
		out.textContent = '';
		bar.hidden = false;
		button.disabled = true;
		try {
			const doc = await uploadFile(file, (done, total) => {
				bar.max = total || 1;
				bar.value = done;
			});
			out.append(h('p', { class: 'ok' }, 'Named ' + doc.functions + ' functions of build ' +
				doc.build_id.slice(0, 12) + ' from ' + doc.file_name + '.'));
			done(doc);
		} catch (e) {
			out.append(errorBox(e));
		} finally {
			bar.hidden = true;
			button.disabled = false;
			input.value = '';
		}
	});
	return h('div', { class: 'upload' }, button, input, bar, out);
}

async function symbolsPanel(sec) {
	const listEl = h('div', { class: 'uploads' });
	const refresh = async () => {
		listEl.textContent = '';
		try {
			const doc = await api('symbols');
			if (!doc.uploads.length) {
				listEl.append(h('p', { class: 'muted' }, 'No debug symbols uploaded yet.'));
				return;
			}
			listEl.append(h('table', { class: 'list' },
				h('thead', {}, h('tr', {}, h('th', {}, 'File'), h('th', {}, 'Functions named'),
					h('th', {}, 'Build'), h('th', {}, ''))),
				h('tbody', {}, doc.uploads.map(u => {
					const del = h('button', { type: 'button', class: 'danger small' }, 'Delete');
					del.addEventListener('click', async () => {
						try {
							await api('symbols/' + encodeURIComponent(u.build_id), { method: 'DELETE' });
							refresh();
						} catch (e) {
							listEl.append(errorBox(e));
						}
					});
					return h('tr', { 'data-build': u.build_id }, h('td', {}, u.file_name),
						h('td', { class: 'num' }, u.functions),
						h('td', { class: 'mono', title: u.build_id }, u.build_id.slice(0, 12)),
						h('td', {}, del));
				}))));
		} catch (e) {
			listEl.append(errorBox(e));
		}
	};
	sec.append(h('p', {}, 'Upload the unstripped build of a binary, or the debug file made ' +
		'from it before stripping (objcopy --only-keep-debug app app.debug). Only function ' +
		'names and addresses are read; the file is never stored. Files up to 1 GB.'),
	uploadButton(refresh), listEl);
	refresh();
}

// ---- Profiles ----

// The list comes a page at a time (GET /api/profiles?limit&offset, filtered by the
// server): a workspace of 10k profiles opens as fast as one of 50.
const PAGE = 50;

async function profilesPage(m) {
	document.title = 'Profiles \u2014 SlideOps';
	const params = new URLSearchParams(location.search);
	const servers = await api('servers');
	const qSel = h('select', { 'aria-label': 'Question' }, h('option', { value: '' }, 'Every question'),
		QUESTIONS.map(([id, t]) => h('option', { value: id }, t)));
	const sSel = h('select', { 'aria-label': 'Server' }, h('option', { value: '' }, 'Every server'),
		servers.servers.map(s => h('option', { value: s.hostname }, s.hostname)));
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
		table.append(profileRows(list, { server: true, choose: p => {
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

// ---- a profile ----

function strippedCard(doc, reload) {
	if (!doc.stripped.length && !doc.build_ids_missing)
		return null;
	const card = h('section', { class: 'card', id: 'stripped' },
		h('h2', {}, 'Some functions have no names, because their binaries were stripped'));
	card.append(h('ul', {}, doc.stripped.map(s => h('li', {}, h('span', { class: 'mono' }, s.path),
		' ' + pct(s.share) + ' of this profile, ',
		s.has_build_id ? 'build ' + s.build_id.slice(0, 12) :
			h('span', {}, 'no build id: rebuild with -Wl,--build-id (gcc, clang) or ' +
				'-ldflags=-B=gobuildid (Go) to have one, then capture again')))));
	if (doc.build_ids_missing)
		card.append(h('p', {}, 'This profile was captured before SlideOps kept build ids: ' +
			'capture again, then upload.'));
	card.append(h('p', { class: 'note' }, 'Upload the unstripped build, or the debug file made ' +
		'from it, to name their functions in every profile of that build.'),
	uploadButton(reload));
	return card;
}

function groupsTable(doc) {
	const amount = v => valueWords(doc.unit, v);
	const rows = [];
	for (const g of doc.groups) {
		rows.push(h('tr', { class: 'group' }, h('td', {}, g.label), h('td', { class: 'num' }, pct(g.share)),
			h('td', { class: 'num' }, amount(g.value)),
			h('td', {}, g.top_function ? 'most of it in ' + g.top_function : '')));
		for (const p of g.processes.slice(0, 5))
			rows.push(h('tr', { class: 'process' }, h('td', {}, p.comm + ' [' + p.pid + ']'),
				h('td', { class: 'num' }, pct(p.share)), h('td', { class: 'num' }, amount(p.value)),
				h('td', {}, '')));
		if (g.processes.length > 5)
			rows.push(h('tr', { class: 'process' }, h('td', { colspan: 4, class: 'muted' },
				'and ' + (g.processes.length - 5) + ' more processes')));
	}
	return h('table', { class: 'list groups' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
		h('th', {}, doc.question === 'cpu' ? 'Of the server' : 'Share'), h('th', {}, 'Amount'),
		h('th', {}, ''))), h('tbody', {}, rows));
}

function valueWords(unit, v) {
	if (unit === 'nanoseconds')
		return v >= 1e8 ? (v / 1e9).toFixed(1) + ' s' : (v / 1e6).toFixed(1) + ' ms';
	if (unit === 'bytes')
		return bytes(v);
	return String(v);
}

function functionsTable(doc, onPick) {
	const filter = h('input', { type: 'search', placeholder: 'filter functions', 'aria-label': 'Filter functions' });
	let key = 'self', dir = -1;
	const body = h('tbody', {});
	const head = h('tr', {});
	const cols = [['name', 'Function'], ['language', 'Language'], ['self', 'Self'], ['total', 'Total']];
	cols.forEach(([k, label]) => {
		const th = h('th', { class: k === 'self' || k === 'total' ? 'num sortable' : 'sortable',
			'data-key': k }, label);
		th.addEventListener('click', () => {
			dir = key === k ? -dir : (k === 'name' || k === 'language' ? 1 : -1);
			key = k;
			render();
		});
		head.append(th);
	});
	const render = () => {
		let re = null;
		try {
			re = filter.value ? new RegExp(filter.value, 'i') : null;
		} catch (e) {
			re = null;
		}
		const list = doc.functions.filter(f => !filter.value || (re ? re.test(f.name) :
			f.name.includes(filter.value)));
		list.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * dir);
		body.textContent = '';
		for (const f of list.slice(0, 200)) {
			const name = h('a', { href: '#sandwich' }, f.name);
			name.addEventListener('click', ev => {
				ev.preventDefault();
				onPick(f.name);
			});
			body.append(h('tr', {}, h('td', { class: 'fn', title: f.name }, name), h('td', {}, f.language),
				h('td', { class: 'num' }, pct(f.self)), h('td', { class: 'num' }, pct(f.total))));
		}
		head.querySelectorAll('th').forEach(th => th.dataset.sorted =
			th.dataset.key === key ? (dir < 0 ? 'desc' : 'asc') : '');
	};
	filter.addEventListener('input', render);
	render();
	return h('div', {}, filter, h('div', { class: 'scroll' },
		h('table', { class: 'list functions' }, h('thead', {}, head), body)));
}

function sandwichView(el, tree, name, total) {
	el.textContent = '';
	const s = sandwich(tree, name);
	const rows = list => h('table', { class: 'list' }, h('tbody', {}, list.slice(0, 15).map(([n, v]) =>
		h('tr', {}, h('td', { class: 'fn', title: n }, n), h('td', { class: 'num' }, pct(v / (s.total || 1)))))));
	el.append(h('h3', {}, 'Callers of ', h('span', { class: 'mono' }, name)), rows(s.callers),
		h('p', { class: 'self' }, h('b', {}, name), ' ' + pct(s.total / (total || 1)) + ' of this profile'),
		h('h3', {}, 'Called from it'), s.callees.length ? rows(s.callees) :
			h('p', { class: 'muted' }, 'Nothing: it was running itself.'));
	el.scrollIntoView({ block: 'nearest' });
}

// locks: each lock by its address (a user address within its process, or the kernel's),
// what waited on it and for how long, the longest wait first.
const LOCKS_SHOWN = 25;

function locksTable(locks) {
	const ns = v => valueWords('nanoseconds', v);
	const owner = l => {
		if (l.pid === null)
			return 'the kernel';
		const p = l.processes.find(w => w.pid === l.pid);
		return (p ? p.comm + ' ' : '') + '[' + l.pid + ']';
	};
	const waiters = (list, text) => h('ul', { class: 'waiters' }, list.map(w =>
		h('li', {}, h('span', { class: 'fn', title: text(w) }, text(w)), ' ' + ns(w.wait_ns))));
	const rows = locks.slice(0, LOCKS_SHOWN).map(l => h('tr', { 'data-address': l.address },
		h('td', { class: 'mono' }, l.address), h('td', {}, l.kind), h('td', {}, owner(l)),
		h('td', { class: 'num' }, l.contentions), h('td', { class: 'num' }, ns(l.wait_ns)),
		h('td', { class: 'num' }, pct(l.share)), h('td', { class: 'num' }, ns(l.longest_ns)),
		h('td', {}, waiters(l.functions, w => w.name)),
		h('td', {}, waiters(l.processes, w => w.comm + ' [' + w.pid + ']'))));
	if (locks.length > LOCKS_SHOWN)
		rows.push(h('tr', {}, h('td', { colspan: 9, class: 'muted' },
			'and ' + (locks.length - LOCKS_SHOWN) + ' more locks')));
	return h('section', { id: 'locks' }, h('h2', {}, 'Locks by address'),
		h('div', { class: 'scroll' }, h('table', { class: 'list locks' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Lock'), h('th', {}, 'Kind'), h('th', {}, 'In'),
				h('th', { class: 'num' }, 'Contentions'), h('th', { class: 'num' }, 'Total wait'),
				h('th', { class: 'num' }, 'Share'), h('th', { class: 'num' }, 'Longest wait'),
				h('th', {}, 'Waiting in'), h('th', {}, 'Waiting processes'))),
			h('tbody', {}, rows))),
		h('p', { class: 'note' }, 'A user-space address names a lock within its process; ' +
			'the kernel\'s locks are one address space for every process.'));
}

// Each question's own view, where its document carries one (DESIGN §8's added fields):
// the thread dump (sets of threads in the same place), locks by address, running
// against waiting.
function questionView(doc) {
	const parts = [];
	if (doc.thread_sets && doc.thread_sets.length)
		parts.push(h('section', { id: 'threads' }, h('h2', {}, 'Threads, by where they are'),
			h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Threads'),
				h('th', {}, 'State'), h('th', {}, 'Waiting in'), h('th', {}, 'Group'), h('th', {}, 'Stack'))),
			h('tbody', {}, doc.thread_sets.map(t => h('tr', {}, h('td', { class: 'num' }, t.threads),
				h('td', {}, t.state), h('td', { class: 'fn' }, t.wait || ''), h('td', {}, t.group),
				h('td', { class: 'mono' }, Array.isArray(t.stack) ? t.stack.join(' \u2190 ') : t.stack || '')))))));
	if (doc.locks)
		parts.push(locksTable(doc.locks));
	if (doc.groups.some(g => g.running_ns !== undefined))
		parts.push(h('section', { id: 'running' }, h('h2', {}, 'Running and waiting'),
			h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
				h('th', {}, 'Running'), h('th', {}, 'Waiting'))),
			h('tbody', {}, doc.groups.map(g => h('tr', {}, h('td', {}, g.label),
				h('td', { class: 'num' }, valueWords('nanoseconds', g.running_ns || 0)),
				h('td', { class: 'num' }, valueWords('nanoseconds', g.waiting_ns || 0))))))));
	return parts;
}

function couldNotSee(doc) {
	const items = [];
	items.push(h('li', {}, doc.lost ? doc.lost + ' events were lost: the kernel produced them ' +
		'faster than they were read.' : 'No events were lost.'));
	if (doc.stack_quality)
		items.push(h('li', {}, pct(doc.stack_quality.complete) + ' of the stacks reach a known root.'));
	for (const b of doc.not_read || [])
		items.push(h('li', {}, 'Not read: ', h('span', { class: 'mono' }, b.path), ' (' + b.reason + ')'));
	return h('section', { id: 'unseen' }, h('h2', {}, 'What the capture could not see'), h('ul', {}, items));
}

async function profilePage(m, id) {
	const enc = encodeURIComponent(id);
	const [doc, tree] = await Promise.all([api('profiles/' + enc), api('profiles/' + enc + '/flamegraph')]);
	document.title = (TITLE[doc.question] || doc.question) + ' \u2014 ' + doc.server + ' \u2014 SlideOps';
	const reload = () => route();
	const fg = h('div', { class: 'fg', id: 'flamegraph' });
	const sw = h('section', { id: 'sandwich', class: 'sandwich' });
	const del = h('button', { type: 'button', class: 'danger small' }, 'Delete this profile');
	del.addEventListener('click', async () => {
		if (!confirm('Delete this profile from the workspace?'))
			return;
		try {
			await api('profiles/' + enc, { method: 'DELETE' });
			go('/profiles');
		} catch (e) {
			m.append(errorBox(e));
		}
	});
	// Element.append would write a missing card as "null" and a list as its text.
	m.append(...[h('p', { class: 'crumbs' }, link('/profiles', 'Profiles'), ' \u203a '),
		h('h1', {}, TITLE[doc.question] || doc.question),
		h('p', { class: 'meta' }, doc.server + ', ' + doc.started_at.replace('T', ' ').replace('Z', ' UTC') +
			', over ' + doc.seconds + (doc.seconds === 1 ? ' second' : ' seconds')),
		h('p', { class: 'answer', id: 'answer' }, doc.answer),
		strippedCard(doc, reload),
		h('section', { id: 'groups' }, h('h2', {}, 'Groups'), groupsTable(doc)),
		questionView(doc),
		h('section', {}, h('h2', {}, 'Flame graph'), fg),
		h('div', { class: 'two' },
			h('section', { id: 'functions' }, h('h2', {}, 'Functions'),
				functionsTable(doc, name => sandwichView(sw, tree, name, tree.value[0]))),
			sw),
		couldNotSee(doc),
		h('section', { id: 'exports' }, h('h2', {}, 'Export'),
			h('p', {}, h('a', { href: '/api/profiles/' + enc + '/export?format=pprof', download: '' }, 'pprof'),
				' (go tool pprof, speedscope, Grafana) \u00b7 ',
				h('a', { href: '/api/profiles/' + enc + '/export?format=folded', download: '' }, 'folded stacks')),
			del)].flat().filter(Boolean));
	sw.append(h('p', { class: 'muted' }, 'Choose a function to see its callers and callees.'));
	flameGraph(fg, tree);
}

// ---- Compare ----

async function comparePage(m) {
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

// ---- start ----

window.addEventListener('popstate', route);
document.getElementById('nav-servers').replaceWith(link('/servers', 'Servers'));
document.getElementById('nav-profiles').replaceWith(link('/profiles', 'Profiles'));
route();

// A profile's page: its answer, the card of stripped binaries (with the upload that
// names them), then the views its question lists (GET /api/questions): groups, its own
// (running and waiting, the thread dump, locks by address, memory's growth by owner), the
// flame graph, functions with the sandwich view of one; what the capture could not see;
// export and delete.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.
// Nothing here assigns innerHTML.

import { h, pct } from './dom.js';
import { api, questions, titleOf } from './api.js';
import { flameGraph } from './flame.js';
import { sandwich } from './flame_model.js';
import { valueWords } from './format.js';
import { errorBox, go, link, reload } from './nav.js';
import { uploadButton } from './symbols.js';

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

// shareOfServer: shares are of the server's CPU time (GET /api/questions), not of the profile.
function groupsTable(doc, shareOfServer) {
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
		h('th', {}, shareOfServer ? 'Of the server' : 'Share'), h('th', {}, 'Amount'),
		h('th', {}, ''))), h('tbody', {}, rows));
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
// what waited on it and for how long, the longest wait first, and beside the waiters who
// held it: the functions that released it while others waited, with the waiting each
// release ended.
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
	// Profiles taken before holders were tracked have none; the kernel's locks neither.
	const holders = l => !l.holders || !l.holders.length ?
		h('span', { class: 'muted' }, l.pid === null ? 'not seen (kernel)' : 'not seen') :
		h('ul', { class: 'waiters' }, l.holders.map(o => {
			const who = o.function + ' in ' + o.process + ' [' + o.pid + ']';
			return h('li', {}, h('span', { class: 'fn', title: who }, o.function),
				' ' + ns(o.ns));
		}));
	const rows = locks.slice(0, LOCKS_SHOWN).map(l => h('tr', { 'data-address': l.address },
		h('td', { class: 'mono' }, l.address), h('td', {}, l.kind), h('td', {}, owner(l)),
		h('td', { class: 'num' }, l.contentions), h('td', { class: 'num' }, ns(l.wait_ns)),
		h('td', { class: 'num' }, pct(l.share)), h('td', { class: 'num' }, ns(l.longest_ns)),
		h('td', { class: 'waiting' }, waiters(l.functions, w => w.name)),
		h('td', { class: 'holders' }, holders(l)),
		h('td', {}, waiters(l.processes, w => w.comm + ' [' + w.pid + ']'))));
	if (locks.length > LOCKS_SHOWN)
		rows.push(h('tr', {}, h('td', { colspan: 10, class: 'muted' },
			'and ' + (locks.length - LOCKS_SHOWN) + ' more locks')));
	return h('section', { id: 'locks' }, h('h2', {}, 'Locks by address'),
		h('div', { class: 'scroll' }, h('table', { class: 'list locks' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Lock'), h('th', {}, 'Kind'), h('th', {}, 'In'),
				h('th', { class: 'num' }, 'Contentions'), h('th', { class: 'num' }, 'Total wait'),
				h('th', { class: 'num' }, 'Share'), h('th', { class: 'num' }, 'Longest wait'),
				h('th', {}, 'Waiting in'), h('th', {}, 'Held by'),
				h('th', {}, 'Waiting processes'))),
			h('tbody', {}, rows))),
		h('p', { class: 'note' }, 'A user-space address names a lock within its process; ' +
			'the kernel\'s locks are one address space for every process. Held by: the ' +
			'functions that released the lock while others waited, with the waiting ' +
			'each release ended.'));
}

// threads: the thread dump, sets of threads in the same place.
function threadSets(doc) {
	if (!doc.thread_sets || !doc.thread_sets.length)
		return null;
	return h('section', { id: 'threads' }, h('h2', {}, 'Threads, by where they are'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Threads'),
			h('th', {}, 'State'), h('th', {}, 'Waiting in'), h('th', {}, 'Group'), h('th', {}, 'Stack'))),
		h('tbody', {}, doc.thread_sets.map(t => h('tr', {}, h('td', { class: 'num' }, t.threads),
			h('td', {}, t.state), h('td', { class: 'fn' }, t.wait || ''), h('td', {}, t.group),
			h('td', { class: 'mono' }, Array.isArray(t.stack) ? t.stack.join(' \u2190 ') : t.stack || ''))))));
}

// wall: each group's time running against its time waiting.
function runningWaiting(doc) {
	if (!doc.groups.some(g => g.running_ns !== undefined))
		return null;
	return h('section', { id: 'running' }, h('h2', {}, 'Running and waiting'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
			h('th', {}, 'Running'), h('th', {}, 'Waiting'))),
		h('tbody', {}, doc.groups.map(g => h('tr', {}, h('td', {}, g.label),
			h('td', { class: 'num' }, valueWords('nanoseconds', g.running_ns || 0)),
			h('td', { class: 'num' }, valueWords('nanoseconds', g.waiting_ns || 0)))))));
}

// memory: each owner's resident memory from the capture's start to its end (RSS:
// anonymous and shared; file-backed apart), the most grown first, with the processes
// that started and exited meanwhile. Profiles taken before it was read have none.
function ownerGrowth(doc) {
	const owners = doc.groups.filter(g => g.rss_grown_bytes !== undefined);
	if (!owners.length)
		return null;
	owners.sort((a, b) => b.rss_grown_bytes - a.rss_grown_bytes || (a.label < b.label ? -1 : 1));
	const bytes = v => valueWords('bytes', Math.abs(v));
	const signed = v => (v < 0 ? '\u2212' : '+') + bytes(v);
	return h('section', { id: 'owner-growth' }, h('h2', {}, 'Growth by owner, from start to end'),
		h('table', { class: 'list owner-growth' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
			h('th', { class: 'num' }, 'RSS grown'), h('th', { class: 'num' }, 'RSS at the start'),
			h('th', { class: 'num' }, 'File-backed grown'), h('th', { class: 'num' }, 'File-backed at the start'),
			h('th', { class: 'num' }, 'Processes started'), h('th', { class: 'num' }, 'Exited'))),
		h('tbody', {}, owners.map(g => h('tr', { 'data-label': g.label }, h('td', {}, g.label),
			h('td', { class: 'num' }, signed(g.rss_grown_bytes)),
			h('td', { class: 'num' }, bytes(g.rss_start_bytes)),
			h('td', { class: 'num' }, signed(g.file_grown_bytes)),
			h('td', { class: 'num' }, bytes(g.file_start_bytes)),
			h('td', { class: 'num' }, g.processes_started),
			h('td', { class: 'num' }, g.processes_exited))))),
		h('p', { class: 'note' }, 'Each owner\'s resident memory, read from every process when ' +
			'the capture started and when it ended: RSS is anonymous and shared memory, what ' +
			'a leak holds; file-backed memory (mapped files) is apart. A process gone by the ' +
			'end shrank to 0; one new at the end grew from 0.'));
}

function couldNotSee(doc) {
	const items = [];
	items.push(h('li', {}, doc.lost ? doc.lost + ' events were lost: the kernel produced them ' +
		'faster than they were read.' : 'No events were lost.'));
	const quality = doc.stack_quality;
	for (const u of (quality && quality.unnamed_starts) || [])
		items.push(h('li', {}, u.sentence));
	if (quality && quality.sentence)
		items.push(h('li', {}, quality.sentence));
	const past = doc.mappings_left_to_frame_pointers;
	if (past && past.mappings)
		items.push(h('li', {}, past.sentence));
	for (const b of doc.not_read || [])
		items.push(h('li', {}, 'Not read: ', h('span', { class: 'mono' }, b.path), ' (' + b.reason + ')'));
	return h('section', { id: 'unseen' }, h('h2', {}, 'What the capture could not see'), h('ul', {}, items));
}

export async function profilePage(m, id) {
	const enc = encodeURIComponent(id);
	const [doc, tree, qs] = await Promise.all([api('profiles/' + enc),
		api('profiles/' + enc + '/flamegraph'), questions()]);
	const title = titleOf(qs, doc.question);
	const question = qs.find(q => q.id === doc.question);
	const views = question ? question.views : ['groups', 'flamegraph', 'functions'];
	document.title = title + ' \u2014 ' + doc.server + ' \u2014 SlideOps';
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
	// The question's views (GET /api/questions), in its order; one this UI does not know
	// is left out.
	const view = {
		groups: () => h('section', { id: 'groups' }, h('h2', {}, 'Groups'),
			groupsTable(doc, question && question.share_of_server)),
		running_waiting: () => runningWaiting(doc),
		owner_growth: () => ownerGrowth(doc),
		thread_sets: () => threadSets(doc),
		locks: () => doc.locks ? locksTable(doc.locks) : null,
		flamegraph: () => h('section', {}, h('h2', {}, 'Flame graph'), fg),
		functions: () => h('div', { class: 'two' },
			h('section', { id: 'functions' }, h('h2', {}, 'Functions'),
				functionsTable(doc, name => sandwichView(sw, tree, name, tree.value[0]))),
			sw),
	};
	// Element.append would write a missing card as "null" and a list as its text.
	m.append(...[h('p', { class: 'crumbs' }, link('/profiles', 'Profiles'), ' \u203a '),
		h('h1', {}, title),
		h('p', { class: 'meta' }, doc.server + ', ' + doc.started_at.replace('T', ' ').replace('Z', ' UTC') +
			', over ' + doc.seconds + (doc.seconds === 1 ? ' second' : ' seconds')),
		h('p', { class: 'answer', id: 'answer' }, doc.answer),
		strippedCard(doc, reload),
		views.map(v => Object.hasOwn(view, v) ? view[v]() : null),
		couldNotSee(doc),
		h('section', { id: 'exports' }, h('h2', {}, 'Export'),
			h('p', {}, h('a', { href: '/api/profiles/' + enc + '/export?format=pprof', download: '' }, 'pprof'),
				' (go tool pprof, speedscope, Grafana) \u00b7 ',
				h('a', { href: '/api/profiles/' + enc + '/export?format=folded', download: '' }, 'folded stacks')),
			del)].flat().filter(Boolean));
	sw.append(h('p', { class: 'muted' }, 'Choose a function to see its callers and callees.'));
	if (views.includes('flamegraph'))
		flameGraph(fg, tree);
}

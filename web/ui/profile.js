// A profile's page, drawn: its answer, the card of stripped binaries (with the upload that
// names them), then the views its question lists (GET /api/questions): groups, its own
// (running and waiting, the thread dump, locks by address, memory's growth by owner), the
// flame graph, functions with the sandwich view of one; what the capture could not see;
// export and delete. What each shows (rows, labels, numbers) is profile_model.js's,
// tested without a browser; this module makes the elements and listens.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.
// Nothing here assigns innerHTML.

import { h } from './dom.js';
import { api, questions } from './api.js';
import { flameGraph } from './flame.js';
import { FUNCTION_COLUMNS, couldNotSee, functionRows, groupRows, lockRows, nextSort,
	ownerGrowthRows, profileHeading, runningWaitingRows, sandwichRows, sortMarks,
	strippedCard, threadSetRows } from './profile_model.js';
import { errorBox, go, link, reload } from './nav.js';
import { uploadButton } from './symbols.js';

function strippedSection(doc, reload) {
	const model = strippedCard(doc);
	if (!model)
		return null;
	const card = h('section', { class: 'card', id: 'stripped' },
		h('h2', {}, 'Some functions have no names, because their binaries were stripped'));
	card.append(h('ul', {}, model.binaries.map(s => h('li', {}, h('span', { class: 'mono' }, s.path),
		' ' + s.share + ', ', s.build !== null ? s.build : h('span', {}, s.noBuildId)))));
	if (model.beforeBuildIds)
		card.append(h('p', {}, 'This profile was captured before SlideOps kept build ids: ' +
			'capture again, then upload.'));
	card.append(h('p', { class: 'note' }, 'Upload the unstripped build, or the debug file made ' +
		'from it, to name their functions in every profile of that build.'),
	uploadButton(reload));
	return card;
}

function groupsTable(doc, shareOfServer) {
	const { columns, rows } = groupRows(doc, shareOfServer);
	const num = text => h('td', { class: 'num' }, text);
	return h('table', { class: 'list groups' }, h('thead', {}, h('tr', {},
		columns.map(c => h('th', {}, c)))),
	h('tbody', {}, rows.map(r => r.kind === 'more' ?
		h('tr', { class: 'process' }, h('td', { colspan: 4, class: 'muted' }, r.text)) :
		h('tr', { class: r.kind }, h('td', {}, r.label), num(r.share), num(r.amount),
			h('td', {}, r.where)))));
}

function functionsTable(doc, onPick) {
	const filter = h('input', { type: 'search', placeholder: 'filter functions', 'aria-label': 'Filter functions' });
	let sort = { key: 'self', dir: -1 };
	const body = h('tbody', {});
	const head = h('tr', {});
	FUNCTION_COLUMNS.forEach(([k, label, numeric]) => {
		const th = h('th', { class: numeric ? 'num sortable' : 'sortable', 'data-key': k }, label);
		th.addEventListener('click', () => {
			sort = nextSort(sort, k);
			render();
		});
		head.append(th);
	});
	const render = () => {
		body.textContent = '';
		for (const f of functionRows(doc.functions, filter.value, sort)) {
			const name = h('a', { href: '#sandwich' }, f.name);
			name.addEventListener('click', ev => {
				ev.preventDefault();
				onPick(f.name);
			});
			body.append(h('tr', {}, h('td', { class: 'fn', title: f.name }, name), h('td', {}, f.language),
				h('td', { class: 'num' }, f.self), h('td', { class: 'num' }, f.total)));
		}
		const marks = sortMarks(sort);
		head.querySelectorAll('th').forEach((th, k) => th.dataset.sorted = marks[k]);
	};
	filter.addEventListener('input', render);
	render();
	return h('div', {}, filter, h('div', { class: 'scroll' },
		h('table', { class: 'list functions' }, h('thead', {}, head), body)));
}

function sandwichView(el, tree, name, total) {
	el.textContent = '';
	const s = sandwichRows(tree, name, total);
	const rows = list => h('table', { class: 'list' }, h('tbody', {}, list.map(r =>
		h('tr', {}, h('td', { class: 'fn', title: r.name }, r.name), h('td', { class: 'num' }, r.share)))));
	el.append(h('h3', {}, 'Callers of ', h('span', { class: 'mono' }, name)), rows(s.callers),
		h('p', { class: 'self' }, h('b', {}, name), ' ' + s.self),
		h('h3', {}, 'Called from it'), s.callees.length ? rows(s.callees) :
			h('p', { class: 'muted' }, 'Nothing: it was running itself.'));
	el.scrollIntoView({ block: 'nearest' });
}

// locks: each lock by its address (a user address within its process, or the kernel's),
// what waited on it and for how long, the longest wait first, and beside the waiters who
// held it: the functions that released it while others waited, with the waiting each
// release ended.
function locksTable(locks) {
	const { rows, more } = lockRows(locks);
	const waiters = list => h('ul', { class: 'waiters' }, list.map(w =>
		h('li', {}, h('span', { class: 'fn', title: w.title }, w.name), ' ' + w.amount)));
	const num = text => h('td', { class: 'num' }, text);
	const trs = rows.map(l => h('tr', { 'data-address': l.address },
		h('td', { class: 'mono' }, l.address), h('td', {}, l.kind), h('td', {}, l.owner),
		num(l.contentions), num(l.wait), num(l.share), num(l.longest),
		h('td', { class: 'waiting' }, waiters(l.waiting)),
		h('td', { class: 'holders' }, l.holders.none ?
			h('span', { class: 'muted' }, l.holders.none) : waiters(l.holders.list)),
		h('td', {}, waiters(l.processes))));
	if (more)
		trs.push(h('tr', {}, h('td', { colspan: 10, class: 'muted' }, more)));
	return h('section', { id: 'locks' }, h('h2', {}, 'Locks by address'),
		h('div', { class: 'scroll' }, h('table', { class: 'list locks' },
			h('thead', {}, h('tr', {}, h('th', {}, 'Lock'), h('th', {}, 'Kind'), h('th', {}, 'In'),
				h('th', { class: 'num' }, 'Contentions'), h('th', { class: 'num' }, 'Total wait'),
				h('th', { class: 'num' }, 'Share'), h('th', { class: 'num' }, 'Longest wait'),
				h('th', {}, 'Waiting in'), h('th', {}, 'Held by'),
				h('th', {}, 'Waiting processes'))),
			h('tbody', {}, trs))),
		h('p', { class: 'note' }, 'A user-space address names a lock within its process; ' +
			'the kernel\'s locks are one address space for every process. Held by: the ' +
			'functions that released the lock while others waited, with the waiting ' +
			'each release ended.'));
}

// threads: the thread dump, sets of threads in the same place.
function threadSets(doc) {
	const rows = threadSetRows(doc);
	if (!rows)
		return null;
	return h('section', { id: 'threads' }, h('h2', {}, 'Threads, by where they are'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Threads'),
			h('th', {}, 'State'), h('th', {}, 'Waiting in'), h('th', {}, 'Group'), h('th', {}, 'Stack'))),
		h('tbody', {}, rows.map(t => h('tr', {}, h('td', { class: 'num' }, t.threads),
			h('td', {}, t.state), h('td', { class: 'fn' }, t.wait), h('td', {}, t.group),
			h('td', { class: 'mono' }, t.stack))))));
}

// wall: each group's time running against its time waiting.
function runningWaiting(doc) {
	const rows = runningWaitingRows(doc);
	if (!rows)
		return null;
	return h('section', { id: 'running' }, h('h2', {}, 'Running and waiting'),
		h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Group'),
			h('th', {}, 'Running'), h('th', {}, 'Waiting'))),
		h('tbody', {}, rows.map(g => h('tr', {}, h('td', {}, g.label),
			h('td', { class: 'num' }, g.running), h('td', { class: 'num' }, g.waiting))))));
}

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

function couldNotSeeSection(doc) {
	return h('section', { id: 'unseen' }, h('h2', {}, 'What the capture could not see'),
		h('ul', {}, couldNotSee(doc).map(i => i.path === undefined ? h('li', {}, i.text) :
			h('li', {}, 'Not read: ', h('span', { class: 'mono' }, i.path), ' (' + i.reason + ')'))));
}

export async function profilePage(m, id) {
	const enc = encodeURIComponent(id);
	const [doc, tree, qs] = await Promise.all([api('profiles/' + enc),
		api('profiles/' + enc + '/flamegraph'), questions()]);
	const { title, meta, views, shareOfServer } = profileHeading(doc, qs);
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
			groupsTable(doc, shareOfServer)),
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
		h('p', { class: 'meta' }, meta),
		h('p', { class: 'answer', id: 'answer' }, doc.answer),
		strippedSection(doc, reload),
		views.map(v => Object.hasOwn(view, v) ? view[v]() : null),
		couldNotSeeSection(doc),
		h('section', { id: 'exports' }, h('h2', {}, 'Export'),
			h('p', {}, h('a', { href: '/api/profiles/' + enc + '/export?format=pprof', download: '' }, 'pprof'),
				' (go tool pprof, speedscope, Grafana) \u00b7 ',
				h('a', { href: '/api/profiles/' + enc + '/export?format=folded', download: '' }, 'folded stacks')),
			del)].flat().filter(Boolean));
	sw.append(h('p', { class: 'muted' }, 'Choose a function to see its callers and callees.'));
	if (views.includes('flamegraph'))
		flameGraph(fg, tree);
}

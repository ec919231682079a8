// A profile's page, drawn: its answer, the card of stripped binaries (with the upload that
// names them), then the views its question lists (GET /api/questions): groups, its own
// (drawn by its module, web/ui/questions/NAME.js, found in questions/questions.js), the
// flame graph, functions with the sandwich view of one; what the capture could not see;
// export and delete. What each shows (rows, labels, numbers) is profile_model.js's,
// tested without a browser; this module makes the elements and listens.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.
// Nothing here assigns innerHTML.

import { h } from './dom.js';
import { api, questions } from './api.js';
import { flameGraph } from './flame.js';
import { FUNCTION_COLUMNS, couldNotSee, functionRows, groupRows, nextSort, profileHeading,
	sandwichRows, sortMarks, strippedCard } from './profile_model.js';
import { questionViews } from './questions/questions.js';
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
	// The question's views (GET /api/questions), in its order: every question's, and its
	// own from its module (web/ui/questions/); one this UI does not know is left out.
	const view = {
		...questionViews(doc.question),
		groups: () => h('section', { id: 'groups' }, h('h2', {}, 'Groups'),
			groupsTable(doc, shareOfServer)),
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
		views.map(v => Object.hasOwn(view, v) ? view[v](doc) : null),
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

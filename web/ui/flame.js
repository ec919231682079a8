// The flame graph of the web UI: a canvas drawn from the tree the API sends
// (GET /api/profiles/ID/flamegraph: nodes in pre-order with their depth), with zoom,
// search (regex, every match highlighted with their total share), tooltips (share of
// the total and of the parent), Colour by: Language | Group with a legend, and a diff
// mode for Compare (the union of both profiles' frames). The standalone page `show
// --flamegraph` writes draws with it too (web/bundle.py). Every name is drawn on the
// canvas or set as textContent: a function called <script> is only ever text.

import { h, pct } from './dom.js';

const ROW = 18;

// Positions from the pre-order: each node starts where its previous sibling ended,
// its first child where it starts. end[i] is the index just past i's subtree.
export function layout(data) {
	const N = data.depth.length;
	const depth = Int32Array.from(data.depth);
	const value = Float64Array.from(data.value);
	const x = new Float64Array(N), end = new Int32Array(N), parent = new Int32Array(N);
	const cursor = [0], path = [];
	let maxDepth = 0;
	for (let i = 0; i < N; i++) {
		const d = depth[i];
		while (path.length > d)
			end[path.pop()] = i;
		parent[i] = d ? path[d - 1] : -1;
		x[i] = d ? cursor[d] : 0;
		if (d)
			cursor[d] += value[i];
		cursor[d + 1] = x[i];
		path.push(i);
		if (d > maxDepth)
			maxDepth = d;
	}
	while (path.length)
		end[path.pop()] = N;
	return { N, depth, value, x, end, parent, maxDepth, nameOf: Int32Array.from(data.name),
		lang: Int32Array.from(data.lang), group: Int32Array.from(data.group) };
}

function hash(s) {
	let v = 2166136261;
	for (let k = 0; k < s.length; k++) {
		v ^= s.charCodeAt(k);
		v = Math.imul(v, 16777619);
	}
	return v >>> 0;
}

function rgb(hex) {
	const n = parseInt(hex.slice(1), 16);
	return [n >> 16 & 255, n >> 8 & 255, n & 255];
}

function shade(c, f) {
	const k = v => Math.max(0, Math.min(255, Math.round(v * f)));
	return 'rgb(' + k(c[0]) + ',' + k(c[1]) + ',' + k(c[2]) + ')';
}

// amount(v): v in the profile's unit, in words.
export function amountFn(data) {
	return v => {
		if (data.unit === 'nanoseconds') {
			const s = v / 1e9;
			if (s >= 100)
				return s.toFixed(0) + ' s';
			if (s >= 0.095)
				return s.toFixed(1) + ' s';
			return (v / 1e6).toFixed(v >= 1e7 ? 0 : 1) + ' ms';
		}
		if (data.unit === 'bytes') {
			const u = ['bytes', 'kB', 'MB', 'GB', 'TB'];
			let n = v, k = 0;
			while (n >= 1024 && k < u.length - 1) {
				n /= 1024;
				k++;
			}
			return (k && n < 10 ? n.toFixed(1) : Math.round(n)) + ' ' + u[k];
		}
		return Math.round(v).toLocaleString('en');
	};
}

/*
 * "Hide system code": runtime and system-library frames (data.system, DESIGN §6's one
 * predicate) folded into the user's function that called them. Their time stays in
 * that function, as its own; what they called hangs beneath it. A new tree of the same
 * shape as the API's.
 */
export function foldSystem(data) {
	const t = layout(data);
	const root = { name: data.name[0], lang: data.lang[0], group: data.group[0], value: 0,
		kids: new Map() };
	const at = new Array(t.N);
	for (let i = 0; i < t.N; i++) {
		if (i === 0) {
			root.value = t.value[0];
			at[0] = root;
			continue;
		}
		const target = at[t.parent[i]];
		if (t.depth[i] >= 3 && data.system[i]) {
			at[i] = target;
			continue;
		}
		let n = target.kids.get(t.nameOf[i]);
		if (!n) {
			n = { name: t.nameOf[i], lang: t.lang[i], group: t.group[i], value: 0, kids: new Map() };
			target.kids.set(t.nameOf[i], n);
		}
		n.value += t.value[i];
		at[i] = n;
	}
	const out = { ...data, name: [], depth: [], value: [], lang: [], group: [], system: [] };
	const stack = [[root, 0]];
	while (stack.length) {
		const [n, d] = stack.pop();
		out.name.push(n.name);
		out.depth.push(d);
		out.value.push(n.value);
		out.lang.push(n.lang);
		out.group.push(n.group);
		out.system.push(0);
		const kids = [...n.kids.values()].sort((a, b) => a.value - b.value);
		for (const k of kids)
			stack.push([k, d + 1]);
	}
	return out;
}

/*
 * Compare: the union of two trees (the newer, after, and the older, before), in the
 * shape of the API's, so one layout draws it. A frame of both keeps its width from the
 * newer profile; a frame only in the older one is drawn at the width of its older share
 * of the server (its value scaled by the two profiles' share_of), and its ancestors grow
 * by that much so it fits beneath them. Beside the tree: after[i] and before[i], the
 * node's value in each profile (0 where it is absent), and gone[i] for frames only in
 * the older profile.
 */
export function mergeDiff(after, before) {
	const ta = layout(after), tb = layout(before);
	const scale = (after.share_of || ta.value[0] || 1) / (before.share_of || tb.value[0] || 1);
	const groups = [...after.groups], groupIndex = new Map(groups.map((g, k) => [g, k]));
	const node = (name, lang, group, system) => ({ name, lang, group, system, after: 0,
		before: 0, kids: new Map() });
	const at = new Array(ta.N);
	let root = null;
	for (let i = 0; i < ta.N; i++) {
		const n = node(after.names[ta.nameOf[i]] || '', ta.lang[i], ta.group[i],
			after.system ? after.system[i] : 0);
		n.after = ta.value[i];
		if (i === 0)
			root = n;
		else
			at[ta.parent[i]].kids.set(n.name, n);
		at[i] = n;
	}
	if (!root)
		return null;
	const bt = new Array(tb.N);
	for (let i = 0; i < tb.N; i++) {
		if (i === 0) {
			root.before = tb.value[0];
			bt[0] = root;
			continue;
		}
		const name = before.names[tb.nameOf[i]] || '', up = bt[tb.parent[i]];
		let n = up.kids.get(name);
		if (!n) {
			const label = before.groups[tb.group[i]];
			if (!groupIndex.has(label)) {
				groupIndex.set(label, groups.length);
				groups.push(label);
			}
			n = node(name, tb.lang[i], groupIndex.get(label), before.system ? before.system[i] : 0);
			up.kids.set(name, n);
		}
		n.before += tb.value[i];
		bt[i] = n;
	}
	// Widths, from the leaves up: a gone frame its scaled older value; others their
	// newer value plus the gone frames beneath them.
	const width = n => {
		let extra = 0;
		for (const k of n.kids.values())
			extra += k.after ? width(k) - k.after : width(k);
		n.value = n.after ? n.after + extra : n.before * scale;
		if (!n.after)
			n.value = Math.max(n.value, extra);
		return n.value;
	};
	width(root);
	const names = [], nameIndex = new Map();
	const out = { ...after, groups, names, name: [], depth: [], value: [], lang: [], group: [],
		system: [], after: [], before: [], gone: [] };
	const stack = [[root, 0]];
	while (stack.length) {
		const [n, d] = stack.pop();
		let k = nameIndex.get(n.name);
		if (k === undefined) {
			k = names.length;
			names.push(n.name);
			nameIndex.set(n.name, k);
		}
		out.name.push(k);
		out.depth.push(d);
		out.value.push(n.value);
		out.lang.push(n.lang);
		out.group.push(n.group);
		out.system.push(n.system);
		out.after.push(n.after);
		out.before.push(n.before);
		out.gone.push(n.after ? 0 : 1);
		// The newer profile's order first, then what only the older one has.
		const kids = [...n.kids.values()];
		const order = [...kids.filter(c => c.after), ...kids.filter(c => !c.after)];
		for (let c = order.length; c-- > 0;)
			stack.push([order[c], d + 1]);
	}
	return out;
}

/*
 * Draws data into el. opts.diff: { before: data } for Compare: boxes are the union of
 * both profiles' frames (mergeDiff), coloured by the change in share of the server (red
 * grew, blue shrank; a frame only in the older profile is drawn at its older share,
 * as shrunk), and grey where the change is within sampling error of the two captures.
 */
export function flameGraph(el, full, opts = {}) {
	const data = opts.diff ? mergeDiff(full, opts.diff.before) || full :
		opts.hideSystem && full.system ? foldSystem(full) : full;
	const t = layout(data);
	const { N, depth, value, x, end, parent, nameOf, lang, group } = t;
	const names = data.names;
	const total = N ? value[0] : 0;
	const amount = amountFn(data);
	const nameAt = i => names[nameOf[i]] || '';
	const langRgb = data.languages.map(l => rgb(l[1]));
	const groupHue = data.groups.map(g => hash(g) % 360);
	let zoom = 0, matches = null, mode = opts.diff ? 'change' : opts.colour || 'language';
	let colours = new Array(N), hits = [], charWidth = 7;

	// ---- diff: the change in share of the server per node, and whether it is noise ----
	let change = null, noise = null, gone = null;
	if (opts.diff && data.before) {
		const b = opts.diff.before;
		const totA = full.value[0] || 1, totB = b.value[0] || 1;
		const ofA = full.share_of || totA, ofB = b.share_of || totB;
		const sA = Math.max(full.samples || 1, 1), sB = Math.max(b.samples || 1, 1);
		change = new Float64Array(N);
		noise = new Uint8Array(N);
		gone = Uint8Array.from(data.gone);
		for (let i = 0; i < N; i++) {
			const va = data.after[i], vb = data.before[i];
			change[i] = va / ofA - vb / ofB;
			// Binomial error of each share from the samples it rests on; two standard
			// errors of the difference is the line between a change and chance.
			const fa = va / totA, fb = vb / totB;
			const vara = (totA / ofA) ** 2 * fa * (1 - fa) / sA;
			const varb = (totB / ofB) ** 2 * fb * (1 - fb) / sB;
			noise[i] = Math.abs(change[i]) <= 2 * Math.sqrt(vara + varb) ? 1 : 0;
		}
		let ngone = 0;
		for (let i = 1; i < N; i++)
			if (gone[i] && !gone[parent[i]])
				ngone++;
		el.dataset.gone = ngone;
	} else if (opts.diff) {
		mode = 'language';  // nothing to compare against: drawn as a profile
	}

	// ---- the controls ----
	// opts.ids: the standalone page's element ids, which links and scripts address.
	const id = name => opts.ids ? name : null;
	const search = h('input', { type: 'search', placeholder: 'function, process or group (regex)',
		'aria-label': 'Search', autocomplete: 'off', spellcheck: 'false', id: id('search') });
	const matched = h('span', { class: 'matched', id: id('matched') });
	const reset = h('button', { type: 'button', disabled: '', id: id('reset') }, 'Reset zoom');
	const colourSel = h('select', { 'aria-label': 'Colour by', id: id('colour') },
		h('option', { value: 'language' }, 'Language'),
		h('option', { value: 'group' }, 'Group'));
	const controls = h('div', { class: 'fg-controls' },
		h('label', {}, 'Search ', search), matched, reset);
	if (!opts.diff) {
		const hide = h('input', { type: 'checkbox', checked: !!opts.hideSystem });
		controls.append(h('label', {}, 'Colour by: ', colourSel),
			h('label', { title: 'Fold runtime and system-library frames into the function of ' +
				'yours that called them' }, hide, ' Hide system code'));
		hide.addEventListener('change', () => flameGraph(el, full, { ...opts,
			hideSystem: hide.checked, colour: mode, search: search.value }));
		colourSel.value = mode;
	}
	const legendEl = h('div', { class: 'legend', id: id('legend') });
	const crumbsEl = h('div', { class: 'crumbs', id: id('crumbs') });
	const canvas = h('canvas', { class: 'flame', id: id('graph') });
	const tip = h('div', { class: 'tip', hidden: '', id: id('tip') });
	el.textContent = '';
	el.append(controls, legendEl, crumbsEl, canvas, tip);
	const ctx = canvas.getContext('2d');

	function colourOf(i) {
		const d = depth[i];
		const jitter = 0.9 + (hash(nameAt(i)) % 1000) / 5000;
		if (d === 0)
			return '#d5d8dc';
		if (mode === 'change') {
			if (noise[i])
				return '#c9cdd2';
			const c = Math.min(Math.abs(change[i]) / 0.05, 1);  // 5 points: full colour
			const l = Math.round(85 - 35 * c);
			return change[i] > 0 ? 'hsl(4,75%,' + l + '%)' : 'hsl(215,70%,' + l + '%)';
		}
		if (mode === 'group') {
			const hue = groupHue[group[i]];
			if (d <= 2)
				return 'hsl(' + hue + ',45%,' + (d === 1 ? 58 : 66) + '%)';
			return 'hsl(' + hue + ',60%,' + Math.round(72 * jitter) + '%)';
		}
		if (d <= 2)
			return d === 1 ? '#c3c8cf' : '#d9dce1';
		return shade(langRgb[lang[i] >= 0 ? lang[i] : langRgb.length - 1], jitter);
	}

	function legend() {
		legendEl.textContent = '';
		const item = (colour, text, key) => {
			const s = h('span', { 'data-key': key }, h('i', {}), text);
			s.firstChild.style.background = colour;
			legendEl.append(s);
		};
		if (mode === 'change') {
			item('hsl(4,75%,55%)', 'grew (share of the server)', 'grew');
			item('hsl(215,70%,55%)', 'shrank', 'shrank');
			item('hsl(215,70%,55%)', 'only in the older profile (drawn at its older share, outlined)',
				'gone');
			legendEl.lastChild.firstChild.classList.add('gone');
			item('#c9cdd2', 'no change beyond sampling error', 'same');
			return;
		}
		const share = new Map();
		if (mode === 'group') {
			for (let i = 1; i < N; i = end[i])
				share.set(group[i], (share.get(group[i]) || 0) + value[i]);
		} else {
			// Each language by the time its own frames were running.
			for (let i = 0; i < N; i++) {
				if (depth[i] < 3)
					continue;
				let own = value[i];
				for (let c = i + 1; c < end[i]; c = end[c])
					own -= value[c];
				share.set(lang[i], (share.get(lang[i]) || 0) + Math.max(own, 0));
			}
		}
		[...share.entries()].sort((a, b) => b[1] - a[1]).forEach(([k, v]) => {
			if (mode === 'group') {
				item('hsl(' + groupHue[k] + ',60%,66%)', data.groups[k] + ' ' + pct(v / total),
					data.groups[k]);
			} else {
				const l = data.languages[k >= 0 ? k : data.languages.length - 1];
				item(l[1], l[0] + ' ' + pct(v / total), l[0]);
			}
		});
	}

	function draw() {
		const dpr = window.devicePixelRatio || 1;
		const width = canvas.clientWidth || 1000;
		const height = (t.maxDepth + 1) * ROW;
		canvas.style.height = height + 'px';
		canvas.width = Math.round(width * dpr);
		canvas.height = Math.round(height * dpr);
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.font = '12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
		ctx.textBaseline = 'middle';
		charWidth = ctx.measureText('mmmmmmmmmm').width / 10 || 7;
		hits = [];
		for (let d = 0; d <= t.maxDepth; d++)
			hits.push([]);
		if (!N)
			return;
		let drawn = 0;
		const scale = width / (value[zoom] || 1), x0 = x[zoom];
		for (let a = parent[zoom]; a >= 0; a = parent[a], drawn++)
			box(a, 0, width, true);
		for (let i = zoom; i < end[zoom];) {
			const w = value[i] * scale;
			if (w < 0.4) {  // too narrow to see, and so is all beneath it
				i = end[i];
				continue;
			}
			box(i, (x[i] - x0) * scale, w, false);
			drawn++;
			i++;
		}
		el.dataset.boxes = drawn;
	}

	function box(i, left, w, ancestor) {
		const y = depth[i] * ROW;
		if (colours[i] === undefined)
			colours[i] = colourOf(i);
		ctx.globalAlpha = ancestor ? 0.55 : 1;
		ctx.fillStyle = matches && matches[i] ? '#e040fb' : colours[i];
		ctx.fillRect(left, y, Math.max(w - 1, 0.4), ROW - 1);
		ctx.globalAlpha = 1;
		if (gone && gone[i] && w > 3) {
			// Gone since the older profile: outlined, so it reads apart from what shrank.
			ctx.strokeStyle = '#1d3f73';
			ctx.setLineDash([3, 2]);
			ctx.strokeRect(left + 0.5, y + 0.5, Math.max(w - 2, 0.4), ROW - 2);
			ctx.setLineDash([]);
		}
		hits[depth[i]].push(i, left, w);
		if (w > 3 * charWidth + 6) {
			const room = Math.floor((w - 6) / charWidth);
			let label = nameAt(i);
			if (label.length > room)
				label = label.slice(0, Math.max(room - 1, 1)) + '\u2026';
			ctx.fillStyle = '#1d232b';
			ctx.fillText(label, left + 3, y + ROW / 2);
		}
	}

	function nodeAt(ev) {
		const r = canvas.getBoundingClientRect();
		const mx = ev.clientX - r.left, row = hits[Math.floor((ev.clientY - r.top) / ROW)];
		if (!row)
			return -1;
		for (let k = 0; k < row.length; k += 3)
			if (mx >= row[k + 1] && mx < row[k + 1] + row[k + 2])
				return row[k];
		return -1;
	}

	function crumbs() {
		crumbsEl.textContent = '';
		if (zoom === 0)
			return;
		const path = [];
		for (let a = zoom; a >= 0; a = parent[a])
			path.unshift(a);
		path.forEach((a, k) => {
			if (k)
				crumbsEl.append(' \u203a ');
			const link = h('a', { href: '#' }, nameAt(a));
			link.onclick = ev => {
				ev.preventDefault();
				setZoom(a);
			};
			crumbsEl.append(link);
		});
	}

	function setZoom(i) {
		zoom = i;
		reset.disabled = zoom === 0;
		el.dataset.zoom = nameAt(zoom);
		crumbs();
		draw();
	}

	function runSearch() {
		const q = search.value;
		let re = null;
		search.classList.remove('invalid');
		if (q) {
			try {
				re = new RegExp(q, 'i');
			} catch (e) {
				search.classList.add('invalid');
				re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
			}
		}
		if (!re) {
			matches = null;
			matched.textContent = '';
			delete el.dataset.matched;
			draw();
			return;
		}
		matches = new Uint8Array(N);
		const seen = new Map();
		for (let i = 1; i < N; i++) {
			let m = seen.get(nameOf[i]);
			if (m === undefined) {
				m = re.test(names[nameOf[i]]);
				seen.set(nameOf[i], m);
			}
			matches[i] = m ? 1 : 0;
		}
		// What the matches hold, each sample once: a match under a match is not added again.
		let sum = 0;
		for (let i = 0; i < N;) {
			if (matches[i]) {
				sum += value[i];
				i = end[i];
			} else {
				i++;
			}
		}
		matched.textContent = 'Matched: ' + pct(sum / (total || 1)) + ' (' + amount(sum) + ')';
		el.dataset.matched = total ? (100 * sum / total).toFixed(1) : '0.0';
		draw();
	}

	function what(i) {
		const d = depth[i];
		if (d === 0)
			return 'everything in this profile';
		if (d === 1)
			return 'owner group';
		if (d === 2)
			return 'process, in ' + data.groups[group[i]];
		const l = data.languages[lang[i]];
		return (l ? l[0] : 'Other') + ', in ' + data.groups[group[i]];
	}

	canvas.addEventListener('mousemove', ev => {
		const i = nodeAt(ev);
		if (i < 0) {
			tip.hidden = true;
			return;
		}
		const p = parent[i];
		const lines = [h('b', {}, nameAt(i)), h('div', { class: 'k' }, what(i))];
		if (change) {
			lines.push(h('div', {}, gone[i] ? 'only in the older profile: ' +
				amount(data.before[i]) + ' then, none now' :
				'now ' + amount(data.after[i]) + ', before ' + amount(data.before[i])));
			lines.push(h('div', {}, (change[i] >= 0 ? 'grew ' : 'shrank ') +
				(Math.abs(change[i]) * 100).toFixed(1) + ' points of the server' +
				(noise[i] ? ' (within sampling error)' : '')));
		} else {
			lines.push(h('div', {}, amount(value[i]) + ', ' + pct(value[i] / (total || 1)) +
				' of total' + (p >= 0 ? ', ' + pct(value[i] / (value[p] || 1)) + ' of ' +
				nameAt(p) : '')));
		}
		tip.textContent = '';
		tip.append(...lines);
		tip.hidden = false;
		const tw = tip.offsetWidth, th = tip.offsetHeight;
		let left = ev.clientX + 14, top = ev.clientY + 16;
		if (left + tw > window.innerWidth - 4)
			left = Math.max(4, ev.clientX - tw - 14);
		if (top + th > window.innerHeight - 4)
			top = Math.max(4, ev.clientY - th - 12);
		tip.style.left = left + 'px';
		tip.style.top = top + 'px';
	});
	canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
	canvas.addEventListener('click', ev => {
		const i = nodeAt(ev);
		if (i >= 0)
			setZoom(i === zoom ? Math.max(parent[i], 0) : i);
	});
	reset.addEventListener('click', () => setZoom(0));
	search.addEventListener('input', runSearch);
	colourSel.addEventListener('change', () => {
		mode = colourSel.value;
		colours = new Array(N);
		el.dataset.colour = mode;
		legend();
		draw();
	});
	if (el.resizeObserver)
		el.resizeObserver.disconnect();
	el.resizeObserver = new ResizeObserver(() => draw());
	el.resizeObserver.observe(canvas);

	el.dataset.colour = mode;
	el.dataset.nodes = N;
	el.dataset.hideSystem = opts.hideSystem ? '1' : '0';
	legend();
	if (opts.search) {
		search.value = opts.search;
		runSearch();
	}
	draw();
	el.dataset.ready = '1';
	return {
		// Zooms to the largest box of that name.
		zoomTo(name) {
			let best = -1;
			for (let i = 0; i < N; i++)
				if (nameAt(i) === name && (best < 0 || value[i] > value[best]))
					best = i;
			if (best >= 0)
				setZoom(best);
		},
	};
}

// Callers and callees of one function, from the tree: the sandwich view's two halves.
export function sandwich(data, name) {
	const t = layout(data);
	const callers = new Map(), callees = new Map();
	let total = 0;
	for (let i = 0; i < t.N; i++) {
		if (t.depth[i] < 3 || data.names[t.nameOf[i]] !== name)
			continue;
		// Count each sample once: skip occurrences under another of the same name.
		let nested = false;
		for (let a = t.parent[i]; a >= 0; a = t.parent[a])
			if (data.names[t.nameOf[a]] === name)
				nested = true;
		if (nested)
			continue;
		total += t.value[i];
		const p = t.parent[i];
		const pn = p >= 0 ? data.names[t.nameOf[p]] : '';
		callers.set(pn, (callers.get(pn) || 0) + t.value[i]);
		for (let c = i + 1; c < t.end[i]; c = t.end[c]) {
			const cn = data.names[t.nameOf[c]];
			callees.set(cn, (callees.get(cn) || 0) + t.value[c]);
		}
	}
	const sorted = m => [...m.entries()].sort((a, b) => b[1] - a[1]);
	return { total, callers: sorted(callers), callees: sorted(callees) };
}

// The flame graph of the web UI, drawn: a canvas from the tree the API sends, with zoom,
// search (regex, every match highlighted with their total share), tooltips (share of
// the total and of the parent), Colour by: Language | Group | Why it waited (a wall
// profile's: each box by the kind of time that holds most of it) with a legend, and a diff
// mode for Compare (the union of both profiles' frames). What it draws is computed by
// flame_model.js (layout, diff, Hide system code, search totals) and flame_look.js (each
// box's colour, the legend, the tooltip's words), both tested without a browser; this
// module only draws and listens. The standalone page `show --flamegraph` writes draws
// with it too (web/bundle.py). Every name is drawn on the canvas or set as textContent:
// a function called <script> is only ever text.

import { h } from './dom.js';
import { boxColours, legendItems, matchedLine, tipLines } from './flame_look.js';
import { amountFn, diffChange, foldSystem, largestBox, layout, mergeDiff, searchMatches,
	searchPattern, waitMix } from './flame_model.js';

const ROW = 18;

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
	const { N, depth, value, x, end, parent, nameOf } = t;
	const names = data.names;
	const total = N ? value[0] : 0;
	const amount = amountFn(data);
	const nameAt = i => names[nameOf[i]] || '';
	let zoom = 0, matches = null, mode = opts.diff ? 'change' : opts.colour || 'language';
	let colours = new Array(N), hits = [], charWidth = 7;
	// Why each box waited, when the profile says (a wall profile's); none in Compare.
	const why = opts.diff ? null : waitMix(data);
	if (mode === 'reason' && !why)
		mode = 'language';

	// ---- diff: the change in share of the server per node, and whether it is noise ----
	let diff = null, gone = null;
	if (opts.diff && data.before) {
		diff = diffChange(data, t, full, opts.diff.before);
		gone = diff.gone;
		el.dataset.gone = diff.goneRoots;
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
	if (why)
		colourSel.append(h('option', { value: 'reason' }, 'Why it waited'));
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
	// The graph keeps a bounded height and scrolls within itself: a few deep stacks
	// beside shallow ones would otherwise push the page's tables thousands of pixels down.
	const viewport = h('div', { class: 'flame-viewport', id: id('viewport') }, canvas);
	const tip = h('div', { class: 'tip', hidden: '', id: id('tip') });
	el.textContent = '';
	el.append(controls, legendEl, crumbsEl, viewport, tip);
	const ctx = canvas.getContext('2d');

	let colourOf = boxColours(data, t, mode, why, diff);

	function legend() {
		legendEl.textContent = '';
		for (const item of legendItems(data, t, mode, why)) {
			const s = h('span', { 'data-key': item.key }, h('i', {}), item.text);
			s.firstChild.style.background = item.colour;
			if (item.gone)
				s.firstChild.classList.add('gone');
			legendEl.append(s);
		}
	}

	// The deepest row with a box wide enough to draw, under the zoom: towers too narrow
	// to see take no height.
	function visibleDepth(width) {
		let deepest = depth[zoom] || 0;
		const scale = width / (value[zoom] || 1);
		for (let i = zoom; i < end[zoom];) {
			if (value[i] * scale < 0.4) {
				i = end[i];
				continue;
			}
			if (depth[i] > deepest)
				deepest = depth[i];
			i++;
		}
		return deepest;
	}

	function draw() {
		const dpr = window.devicePixelRatio || 1;
		const width = canvas.clientWidth || 1000;
		const height = ((N ? visibleDepth(width) : 0) + 1) * ROW;
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
		el.dataset.height = height;
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
		const { re, valid } = searchPattern(search.value);
		search.classList.toggle('invalid', !valid);
		if (!re) {
			matches = null;
			matched.textContent = '';
			delete el.dataset.matched;
			draw();
			return;
		}
		let sum;
		({ matches, sum } = searchMatches(t, names, re));
		matched.textContent = matchedLine(sum, total, amount);
		el.dataset.matched = total ? (100 * sum / total).toFixed(1) : '0.0';
		draw();
	}

	canvas.addEventListener('mousemove', ev => {
		const i = nodeAt(ev);
		if (i < 0) {
			tip.hidden = true;
			return;
		}
		const words = tipLines(data, t, i, amount, { why, diff, mode });
		const lines = [h('b', {}, words.name), h('div', { class: 'k' }, words.what),
			...words.lines.map(line => h('div', {}, line))];
		if (words.mix !== null)
			lines.push(h('div', { class: 'why' }, words.mix));
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
		colourOf = boxColours(data, t, mode, why, diff);
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
			const best = largestBox(t, names, name);
			if (best >= 0)
				setZoom(best);
		},
	};
}

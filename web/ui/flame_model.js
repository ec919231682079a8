// The flame graph's model: what the canvas draws, computed without a browser (no DOM,
// no canvas), so tests/web/flame_model.test.mjs checks it with `node --test`. From the
// tree the API sends (GET /api/profiles/ID/flamegraph: nodes in pre-order with their
// depth): the layout, Hide system code, the diff of two profiles for Compare, search
// totals, the legend's shares, why each box waited, the sandwich view's callers and
// callees, and amounts in words.
// flame.js draws what these compute; the standalone page inlines both
// (web/bundle.py), so no name here may also be a top-level name of another module.

import { valueWords } from './format.js';

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

// amount(v): v in the profile's unit, in words (format.js, the rule the answers follow).
export function amountFn(data) {
	return v => valueWords(data.unit, v);
}

/*
 * "Hide system code": runtime and system-library frames (data.system, the one predicate
 * the API marks them by) folded into the user's function that called them. Their time
 * stays in that function, as its own; what they called hangs beneath it, merged with
 * the function's other callees of the same name. A new tree of the same shape as the
 * API's.
 */
export function foldSystem(data) {
	const t = layout(data);
	const why = data.waiting_by_reason ? Object.keys(data.waiting_by_reason) : [];
	const root = { name: data.name[0], lang: data.lang[0], group: data.group[0], value: 0,
		waited: why.map(r => data.waiting_by_reason[r][0]), kids: new Map() };
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
			n = { name: t.nameOf[i], lang: t.lang[i], group: t.group[i], value: 0,
				waited: why.map(() => 0), kids: new Map() };
			target.kids.set(t.nameOf[i], n);
		}
		n.value += t.value[i];
		why.forEach((r, k) => { n.waited[k] += data.waiting_by_reason[r][i]; });
		at[i] = n;
	}
	const out = { ...data, name: [], depth: [], value: [], lang: [], group: [], system: [] };
	if (why.length)
		out.waiting_by_reason = Object.fromEntries(why.map(r => [r, []]));
	const stack = [[root, 0]];
	while (stack.length) {
		const [n, d] = stack.pop();
		out.name.push(n.name);
		out.depth.push(d);
		out.value.push(n.value);
		out.lang.push(n.lang);
		out.group.push(n.group);
		out.system.push(0);
		why.forEach((r, k) => out.waiting_by_reason[r].push(n.waited[k]));
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
		system: [], after: [], before: [], gone: [], waiting_by_reason: undefined };
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
 * What each box of a merged tree (mergeDiff's, laid out as t) did between the two
 * profiles: change[i], its change in share of the server (positive grew), and noise[i],
 * 1 where that change is within sampling error of the two captures. goneRoots: how many
 * frames only in the older profile hang under a frame the newer one has (each such
 * subtree once).
 */
export function diffChange(merged, t, after, before) {
	const N = t.N;
	const totA = after.value[0] || 1, totB = before.value[0] || 1;
	const ofA = after.share_of || totA, ofB = before.share_of || totB;
	const sA = Math.max(after.samples || 1, 1), sB = Math.max(before.samples || 1, 1);
	const change = new Float64Array(N), noise = new Uint8Array(N);
	const gone = Uint8Array.from(merged.gone);
	for (let i = 0; i < N; i++) {
		const va = merged.after[i], vb = merged.before[i];
		change[i] = va / ofA - vb / ofB;
		// Binomial error of each share from the samples it rests on; two standard
		// errors of the difference is the line between a change and chance.
		const fa = va / totA, fb = vb / totB;
		const vara = (totA / ofA) ** 2 * fa * (1 - fa) / sA;
		const varb = (totB / ofB) ** 2 * fb * (1 - fb) / sB;
		noise[i] = Math.abs(change[i]) <= 2 * Math.sqrt(vara + varb) ? 1 : 0;
	}
	let goneRoots = 0;
	for (let i = 1; i < N; i++)
		if (gone[i] && !gone[t.parent[i]])
			goneRoots++;
	return { change, noise, gone, goneRoots };
}

/*
 * Search: matches[i] is 1 for every frame, process or group whose name re matches (the
 * root is never one); sum is what the matches hold, each sample once: a match under a
 * match (recursion, or two matching names on one stack) is not added again.
 */
export function searchMatches(t, names, re) {
	const matches = new Uint8Array(t.N);
	const seen = new Map();
	for (let i = 1; i < t.N; i++) {
		let m = seen.get(t.nameOf[i]);
		if (m === undefined) {
			m = re.test(names[t.nameOf[i]]);
			seen.set(t.nameOf[i], m);
		}
		matches[i] = m ? 1 : 0;
	}
	let sum = 0;
	for (let i = 0; i < t.N;) {
		if (matches[i]) {
			sum += t.value[i];
			i = t.end[i];
		} else {
			i++;
		}
	}
	return { matches, sum };
}

// What the user typed as a search: a regex, case-insensitive; what is no regex is
// searched for as the text it is (valid false).
export function searchPattern(text) {
	if (!text)
		return { re: null, valid: true };
	try {
		return { re: new RegExp(text, 'i'), valid: true };
	} catch (e) {
		return { re: new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), valid: false };
	}
}

/*
 * The legend's shares, largest first, as [key, value]: by group, each owner group's
 * value; by language, the time each language's own frames were running (a frame's value
 * less its callees'), so a C function called from Python counts as C.
 */
export function legendShares(t, by) {
	const share = new Map();
	if (by === 'group') {
		for (let i = 1; i < t.N; i = t.end[i])
			share.set(t.group[i], (share.get(t.group[i]) || 0) + t.value[i]);
	} else {
		for (let i = 0; i < t.N; i++) {
			if (t.depth[i] < 3)
				continue;
			let own = t.value[i];
			for (let c = i + 1; c < t.end[i]; c = t.end[c])
				own -= t.value[c];
			share.set(t.lang[i], (share.get(t.lang[i]) || 0) + Math.max(own, 0));
		}
	}
	return [...share.entries()].sort((a, b) => b[1] - a[1]);
}

/*
 * "Colour by: Why it waited". The kinds of time a box is split into: running (on a CPU),
 * then the reasons the API gives a wall profile's waiting (data.waiting_by_reason:
 * runqueue, waiting for a CPU; io; lock; sleep; other).
 */
export const WAIT_KINDS = ['running', 'runqueue', 'io', 'lock', 'sleep', 'other'];

/*
 * Why each box's time went, from the tree (null when the profile says nothing of why
 * its threads waited): mix[i * K + k], box i's time of kind WAIT_KINDS[k] (K of them;
 * running is what its value leaves after its waiting), and dominant[i], the kind that
 * holds the most of it (-1: none); totals[k], the whole profile's (the root's).
 */
export function waitMix(data) {
	const by = data.waiting_by_reason;
	if (!by)
		return null;
	const N = data.value.length, K = WAIT_KINDS.length;
	const mix = new Float64Array(N * K), dominant = new Int8Array(N).fill(-1);
	const columns = WAIT_KINDS.map(kind => by[kind]);
	for (let i = 0; i < N; i++) {
		let waited = 0;
		for (let k = 1; k < K; k++) {
			const v = columns[k] ? Math.max(Number(columns[k][i]) || 0, 0) : 0;
			mix[i * K + k] = v;
			waited += v;
		}
		mix[i * K] = Math.max(data.value[i] - waited, 0);
		let best = -1;
		for (let k = 0; k < K; k++)
			if (mix[i * K + k] > 0 && (best < 0 || mix[i * K + k] > mix[i * K + best]))
				best = k;
		dominant[i] = best;
	}
	const totals = N ? Array.from(mix.subarray(0, K)) : WAIT_KINDS.map(() => 0);
	return { mix, dominant, totals, K };
}

// The legend of Why it waited: [kind index, time] of each kind the profile has, largest
// first.
export function waitLegend(w) {
	return w.totals.map((v, k) => [k, v]).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
}

// The largest box of that name (-1: none), where a link's zoom=NAME goes.
export function largestBox(t, names, name) {
	let best = -1;
	for (let i = 0; i < t.N; i++)
		if (names[t.nameOf[i]] === name && (best < 0 || t.value[i] > t.value[best]))
			best = i;
	return best;
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

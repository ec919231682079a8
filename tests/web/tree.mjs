// A flame graph tree in the API's shape (GET /api/profiles/ID/flamegraph), from stacks:
// what the web UI's models are tested on (flame_model.test.mjs, flame_look.test.mjs,
// profile_model.test.mjs).

import assert from 'node:assert/strict';

import { layout } from '../../web/ui/flame_model.js';

export const LANGUAGES = [['Kernel', '#e8a33d'], ['C/C++', '#7aa6da'], ['Python', '#6cc66c'],
	['Other', '#b0b0b0']];
export const LANG = { Kernel: 0, C: 1, Python: 2 };

/*
 * A tree in the API's shape (GET /api/profiles/ID/flamegraph) from stacks, each
 * [[group, process, outermost frame, ..., running frame], value, why]. opts.system:
 * names of runtime and system-library frames; opts.lang: a frame's language (default C);
 * opts.share_of and opts.samples as the API sends them; opts.wall: the tree carries
 * waiting_by_reason as a wall profile's does, each stack's why its reason (none: it ran).
 */
const REASONS = ['runqueue', 'io', 'lock', 'sleep', 'other'];
export function tree(stacks, opts = {}) {
	const system = new Set(opts.system || []);
	const waiting = () => Object.fromEntries(REASONS.map(r => [r, 0]));
	const root = { name: 'all', kids: new Map(), value: 0, waiting: waiting() };
	for (const [path, v, why] of stacks) {
		root.value += v;
		if (why)
			root.waiting[why] += v;
		let n = root;
		for (const name of path) {
			if (!n.kids.has(name))
				n.kids.set(name, { name, kids: new Map(), value: 0,
					waiting: waiting() });
			n = n.kids.get(name);
			n.value += v;
			if (why)
				n.waiting[why] += v;
		}
	}
	const out = { unit: opts.unit || 'nanoseconds', share_of: opts.share_of || 0,
		samples: opts.samples || 0, languages: LANGUAGES, groups: [], names: [], name: [],
		depth: [], value: [], lang: [], group: [], system: [] };
	if (opts.wall)
		out.waiting_by_reason = Object.fromEntries(REASONS.map(r => [r, []]));
	const intern = (list, s) => {
		const k = list.indexOf(s);
		return k >= 0 ? k : list.push(s) - 1;
	};
	const walk = (n, d, g) => {
		if (d === 1)
			g = intern(out.groups, n.name);
		out.name.push(intern(out.names, n.name));
		out.depth.push(d);
		out.value.push(n.value);
		out.lang.push(d >= 3 ? LANG[(opts.lang || {})[n.name] || 'C'] : -1);
		out.group.push(g);
		out.system.push(d >= 3 && system.has(n.name) ? 1 : 0);
		if (opts.wall)
			REASONS.forEach(r => out.waiting_by_reason[r].push(n.waiting[r]));
		for (const k of n.kids.values())
			walk(k, d + 1, g);
	};
	walk(root, 0, 0);
	return out;
}

// The index of the box at path ("group;process;frame;...").
export function indexOf(data, path) {
	const t = layout(data), names = path.split(';');
	let at = 0;
	for (const name of names) {
		let found = -1;
		for (let c = at + 1; c < t.end[at]; c = t.end[c])
			if (data.names[t.nameOf[c]] === name)
				found = c;
		assert.ok(found >= 0, 'no box ' + path);
		at = found;
	}
	return at;
}

// A wall profile's tree: spinners waiting for a CPU, nappers asleep, a reader on I/O and
// a lock.
export function wallTree() {
	return tree([
		[['svc', 'crowd', 'main', 'spin_forever'], 20],
		[['svc', 'crowd', 'main', 'spin_forever', 'preempt_schedule_irq'], 60, 'runqueue'],
		[['svc', 'crowd', 'main', 'nap', 'hrtimer_nanosleep'], 50, 'sleep'],
		[['svc', 'crowd', 'main', 'read_log', 'io_schedule'], 15, 'io'],
		[['svc', 'crowd', 'main', 'read_log', 'parse'], 10],
		[['svc', 'crowd', 'main', 'read_log', 'pthread_mutex_lock'], 5, 'lock'],
	], { wall: true, system: ['pthread_mutex_lock'] });
}

// Writes the same profile twice into DIR: stacks.folded (for speedscope) and data.json
// (the flame graph tree the API sends): NSTACKS unique stacks, 5-33 frames deep, names
// from a vocabulary of a few thousand, under 6 owner groups and 60 processes.
'use strict';
const fs = require('fs');
const [dir, nstacks] = [process.argv[2], Number(process.argv[3] || 100000)];
let seed = 42;
const rand = n => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % n);
const vocab = Array.from({ length: 4000 }, (_, i) => 'fn_' + i.toString(36) + '_' + ['parse', 'hash', 'render', 'flush', 'lock', 'read'][i % 6]);
const groups = ['Service billing', 'Unit nginx.service', 'Container redis', 'Signed-in sessions', 'System', 'Other processes'];
// Call paths share their callers as real ones do: 3000 trunks, walks of a tree with few
// branches (4-30 frames), each stack a trunk and 1-3 frames of its own at the end.
const trunks = Array.from({ length: 3000 }, () => {
	const depth = 4 + rand(27), frames = [];
	let h = rand(8);
	for (let d = 0; d < depth; d++)
		frames.push(vocab[(h = (h * 31 + rand(d < 3 ? 2 : 4)) % vocab.length)]);
	return frames;
});
const lines = [];
const seen = new Set();
while (lines.length < nstacks) {
	const g = rand(groups.length), p = 'proc' + (g * 10 + rand(10));
	const frames = trunks[rand(trunks.length)].slice();
	for (let k = 1 + rand(3); k > 0; k--)
		frames.push(vocab[rand(vocab.length)]);
	const key = groups[g] + ';' + p + ';' + frames.join(';');
	if (seen.has(key))
		continue;
	seen.add(key);
	lines.push([g, p, frames, 1 + rand(20)]);
}
fs.writeFileSync(dir + '/stacks.folded', lines.map(([g, p, f, v]) => groups[g] + ';' + p + ';' + f.join(';') + ' ' + v).join('\n') + '\n');

// The tree: root, group, process, frames; children largest first; pre-order.
const names = ['all'], nameIx = new Map();
const nm = s => { if (!nameIx.has(s)) { nameIx.set(s, names.length); names.push(s); } return nameIx.get(s); };
const root = { n: 0, v: 0, g: -1, k: new Map() };
for (const [g, p, f, v] of lines) {
	let node = root;
	root.v += v;
	for (const s of [groups[g], p, ...f]) {
		const id = nm(s);
		let c = node.k.get(id);
		if (!c)
			node.k.set(id, c = { n: id, v: 0, g, k: new Map() });
		c.v += v;
		node = c;
	}
}
const out = { question: 'cpu', title: 'What is using the CPU', server: 'bench', started_at: '', seconds: 30,
	answer: '', unit: 'count', share_of: root.v, samples: root.v, total: root.v, colour: 'language',
	languages: [['C/C++', '#6a9fd8'], ['Other', '#a0a0a0']], groups, names,
	name: [], depth: [], value: [], lang: [], group: [], system: [] };
const stack = [[root, 0]];
while (stack.length) {
	const [n, d] = stack.pop();
	out.name.push(n.n); out.depth.push(d); out.value.push(n.v);
	out.lang.push(d >= 3 ? 0 : -1); out.group.push(n.g); out.system.push(0);
	for (const c of [...n.k.values()].sort((a, b) => a.v - b.v))
		stack.push([c, d + 1]);
}
fs.writeFileSync(dir + '/data.json', JSON.stringify(out));
console.log(lines.length + ' unique stacks, ' + out.depth.length + ' nodes');

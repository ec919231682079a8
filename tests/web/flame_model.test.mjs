// The flame graph's model (web/ui/flame_model.js) without a browser: what a user reads
// off the flame graph, the Compare diff, Hide system code, search and the sandwich view.
// Run by tests/run.sh (node --test); the canvas is followed in a browser by
// tests/browser/ui.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WAIT_KINDS, amountFn, diffChange, foldSystem, largestBox, layout, legendShares,
	mergeDiff, sandwich, searchMatches, searchPattern, waitLegend,
	waitMix } from '../../web/ui/flame_model.js';
import { LANG, indexOf, tree, wallTree } from './tree.mjs';

// The boxes of a tree as "a;b;c" paths (from the first group down) to their values.
function boxes(data) {
	const t = layout(data), path = [], out = {};
	for (let i = 1; i < t.N; i++) {
		path.length = t.depth[i] - 1;
		path.push(data.names[t.nameOf[i]]);
		out[path.join(';')] = t.value[i];
	}
	return out;
}

test('a callee is drawn within its caller, and siblings side by side', () => {
	const data = tree([[['svc', 'app', 'main', 'parse'], 30], [['svc', 'app', 'main', 'send'], 10],
		[['svc', 'app', 'idle'], 60]]);
	const t = layout(data);
	const main = indexOf(data, 'svc;app;main'), parse = indexOf(data, 'svc;app;main;parse');
	const send = indexOf(data, 'svc;app;main;send'), idle = indexOf(data, 'svc;app;idle');
	assert.equal(t.x[parse], t.x[main]);
	assert.equal(t.x[send], t.x[parse] + 30);
	assert.equal(t.x[idle], t.x[main] + 40);
	assert.equal(t.parent[send], main);
	assert.equal(t.maxDepth, 4);
});

test('Compare marks a frame only in the older profile as shrunk, at its older share', () => {
	// The newer profile: 200 of a server's 1000; the older: 100 of a server's 1000.
	const before = tree([[['svc', 'app', 'main', 'work'], 60],
		[['batch', 'job', 'retired_batch_job'], 40]], { share_of: 1000, samples: 100 });
	const after = tree([[['svc', 'app', 'main', 'work'], 200]], { share_of: 1000, samples: 200 });
	const merged = mergeDiff(after, before);
	const t = layout(merged);
	const gone = indexOf(merged, 'batch;job;retired_batch_job');
	assert.equal(merged.gone[gone], 1);
	assert.equal(merged.after[gone], 0);
	assert.equal(merged.before[gone], 40);
	// Drawn at its older share of the server (40 of 1000) in the newer profile's scale,
	// and the root grows by that much so it fits.
	assert.equal(t.value[gone], 40);
	assert.equal(t.value[0], 240);
	const { change, noise, goneRoots } = diffChange(merged, t, after, before);
	assert.ok(change[gone] < 0, 'a frame gone since the older profile did not shrink');
	assert.ok(Math.abs(change[gone] - -0.04) < 1e-12);
	assert.equal(noise[gone], 0);
	// Its whole subtree (group, process, frame) is one gone frame under the root.
	assert.equal(goneRoots, 1);
	const work = indexOf(merged, 'svc;app;main;work');
	assert.equal(merged.gone[work], 0);
	assert.ok(change[work] > 0, 'work went from 6% to 20% of the server and did not grow');
});

test('Compare calls a change within sampling error no change', () => {
	const before = tree([[['svc', 'app', 'f'], 50], [['svc', 'app', 'g'], 50]],
		{ share_of: 100, samples: 100 });
	const after = tree([[['svc', 'app', 'f'], 52], [['svc', 'app', 'g'], 48]],
		{ share_of: 100, samples: 100 });
	const merged = mergeDiff(after, before);
	const { noise } = diffChange(merged, layout(merged), after, before);
	assert.equal(noise[indexOf(merged, 'svc;app;f')], 1);
	assert.equal(noise[indexOf(merged, 'svc;app;g')], 1);
});

test('Hide system code removes system frames and merges what they called', () => {
	const data = tree([
		[['svc', 'app', 'main', 'malloc', 'mmap_hook'], 5],
		[['svc', 'app', 'main', 'memcpy'], 20],
		[['svc', 'app', 'main', 'libc_start', 'handler'], 30],
		[['svc', 'app', 'main', 'handler'], 10],
	], { system: ['malloc', 'memcpy', 'libc_start'] });
	const folded = foldSystem(data);
	const b = boxes(folded);
	for (const path of Object.keys(b))
		assert.ok(!/malloc|memcpy|libc_start/.test(path), 'a system frame is left: ' + path);
	// main keeps its whole time, the system frames' own time as its own; handler, called
	// both through libc_start and directly, is one box with both.
	assert.equal(b['svc;app;main'], 65);
	assert.equal(b['svc;app;main;handler'], 40);
	assert.equal(b['svc;app;main;mmap_hook'], 5);
	assert.equal(folded.system.every(s => s === 0), true);
	assert.ok(folded.name.length < data.name.length);
});

test('Hide system code keeps groups and processes, whatever they are marked', () => {
	const data = tree([[['svc', 'app', 'main'], 10]]);
	data.system = data.depth.map(() => 1);
	assert.deepEqual(boxes(foldSystem(data)), { svc: 10, 'svc;app': 10 });
});

// A wall profile: spin_forever has 8 threads on 2 CPUs (a quarter of its time on a CPU,
// the rest waiting for one); nap sleeps; read_log waits on I/O, then parses a little.
const kind = name => WAIT_KINDS.indexOf(name);

test('why it waited: each box takes the kind of time that holds most of it', () => {
	const data = wallTree(), w = waitMix(data);
	const at = path => indexOf(data, path);
	assert.equal(w.dominant[at('svc;crowd;main;spin_forever')], kind('runqueue'));
	assert.equal(w.dominant[at('svc;crowd;main;spin_forever;preempt_schedule_irq')],
		kind('runqueue'));
	assert.equal(w.dominant[at('svc;crowd;main;nap')], kind('sleep'));
	assert.equal(w.dominant[at('svc;crowd;main;read_log')], kind('io'));
	assert.equal(w.dominant[at('svc;crowd;main;read_log;parse')], kind('running'));
	// main's time is all of them: runqueue 60 leads sleep 50.
	assert.equal(w.dominant[at('svc;crowd;main')], kind('runqueue'));
	// The mix: running is what the box's waiting leaves of its time.
	const spin = at('svc;crowd;main;spin_forever');
	assert.deepEqual(Array.from(w.mix.subarray(spin * w.K, spin * w.K + w.K)),
		[20, 60, 0, 0, 0, 0]);
	const read = at('svc;crowd;main;read_log');
	assert.deepEqual(Array.from(w.mix.subarray(read * w.K, read * w.K + w.K)),
		[10, 0, 15, 5, 0, 0]);
});

test('why it waited: the legend is the whole profile\'s, largest first', () => {
	const w = waitMix(wallTree());
	assert.deepEqual(waitLegend(w).map(([k, v]) => [WAIT_KINDS[k], v]),
		[['runqueue', 60], ['sleep', 50], ['running', 30], ['io', 15], ['lock', 5]]);
});

test('why it waited: a profile that says nothing of waiting has no such colouring', () => {
	assert.equal(waitMix(tree([[['svc', 'app', 'main'], 10]])), null);
});

test('why it waited survives Hide system code, and Compare drops it', () => {
	const data = wallTree(), folded = foldSystem(data), w = waitMix(folded);
	const read = indexOf(folded, 'svc;crowd;main;read_log');
	// pthread_mutex_lock folded into read_log: its lock wait stays read_log's.
	assert.deepEqual(Array.from(w.mix.subarray(read * w.K, read * w.K + w.K)),
		[10, 0, 15, 5, 0, 0]);
	assert.ok(!Object.keys(boxes(folded)).some(p => p.includes('pthread_mutex_lock')));
	assert.equal(w.dominant[indexOf(folded, 'svc;crowd;main;spin_forever')], kind('runqueue'));
	assert.equal(waitMix(mergeDiff(data, data)), null);
});

test('the sandwich of a function totals its callers and its callees', () => {
	const data = tree([
		[['svc', 'app', 'main', 'parse', 'lex'], 30],
		[['svc', 'app', 'main', 'parse', 'alloc'], 10],
		[['svc', 'app', 'main', 'parse'], 5],
		[['svc', 'app', 'load', 'parse', 'lex'], 15],
		[['svc', 'app', 'load', 'read'], 40],
	]);
	const s = sandwich(data, 'parse');
	assert.equal(s.total, 60);
	assert.deepEqual(s.callers, [['main', 45], ['load', 15]]);
	assert.deepEqual(s.callees, [['lex', 45], ['alloc', 10]]);
});

test('the sandwich counts a recursive function once', () => {
	const data = tree([[['svc', 'app', 'main', 'walk', 'walk', 'walk', 'visit'], 12],
		[['svc', 'app', 'main', 'walk', 'visit'], 8]]);
	const s = sandwich(data, 'walk');
	assert.equal(s.total, 20);
	assert.deepEqual(s.callers, [['main', 20]]);
});

test('search totals count a matched frame once, even when recursive', () => {
	const data = tree([
		[['svc', 'app', 'main', 'eval', 'eval', 'eval'], 30],
		[['svc', 'app', 'main', 'eval', 'print'], 10],
		[['svc', 'app', 'main', 'idle'], 60],
	]);
	const t = layout(data);
	const { matches, sum } = searchMatches(t, data.names, searchPattern('^eval$').re);
	assert.equal(sum, 40);
	assert.equal(matches.reduce((a, b) => a + b, 0), 3);
	// Two names on one stack: what they hold together, once.
	assert.equal(searchMatches(t, data.names, searchPattern('main|eval').re).sum, 100);
	assert.equal(searchMatches(t, data.names, searchPattern('nothing').re).sum, 0);
});

test('a search that is no regex is searched for as text', () => {
	const data = tree([[['svc', 'app', 'operator[]('], 7], [['svc', 'app', 'other'], 3]]);
	const p = searchPattern('operator[](');
	assert.equal(p.valid, false);
	assert.equal(searchMatches(layout(data), data.names, p.re).sum, 7);
	assert.equal(searchPattern('').re, null);
});

test('the legend gives each language the time its own frames ran', () => {
	const data = tree([
		[['svc', 'app', 'py_main', 'c_ext'], 30],
		[['svc', 'app', 'py_main'], 10],
		[['kern', 'kworker', 'schedule'], 60],
	], { lang: { py_main: 'Python', c_ext: 'C', schedule: 'Kernel' } });
	const t = layout(data);
	assert.deepEqual(legendShares(t, 'language'),
		[[LANG.Kernel, 60], [LANG.C, 30], [LANG.Python, 10]]);
	assert.deepEqual(legendShares(t, 'group').map(([g, v]) => [data.groups[g], v]),
		[['kern', 60], ['svc', 40]]);
});

test('a link zooms to the largest box of the name it gives', () => {
	const data = tree([[['svc', 'a', 'main', 'build_report'], 5],
		[['svc', 'b', 'build_report'], 9]]);
	assert.equal(largestBox(layout(data), data.names, 'build_report'),
		indexOf(data, 'svc;b;build_report'));
	assert.equal(largestBox(layout(data), data.names, 'missing'), -1);
});

// As the answers and `slideops show` write them (format.js, tests/format_cases.tsv):
// whole milliseconds and megabytes, counts without separators.
test('amounts read in the profile\'s unit', () => {
	assert.equal(amountFn({ unit: 'nanoseconds' })(2.5e9), '2.5 s');
	assert.equal(amountFn({ unit: 'nanoseconds' })(3e6), '3 ms');
	assert.equal(amountFn({ unit: 'bytes' })(3 * 1024 * 1024), '3 MB');
	assert.equal(amountFn({ unit: 'count' })(12345), '12345');
});

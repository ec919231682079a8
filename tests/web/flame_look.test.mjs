// What the flame graph looks like and says (web/ui/flame_look.js) without a browser: each
// box's colour in each Colour by, the legend, the search's line and a box's tooltip.
// tests/browser/ui.test.js checks on the canvas that boxes take their legend's colour.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WAIT_LOOKS, boxColours, groupHue, legendItems, matchedLine, nameHash,
	tipLines } from '../../web/ui/flame_look.js';
import { amountFn, diffChange, layout, mergeDiff, waitMix } from '../../web/ui/flame_model.js';
import { LANGUAGES, indexOf, tree, wallTree } from './tree.mjs';

test('a name has one hash, so one shade and hue on every page', () => {
	assert.equal(nameHash(''), 2166136261);
	assert.equal(nameHash('a'), 0xe40c292c);
	assert.equal(groupHue('Service billing'), nameHash('Service billing') % 360);
});

test('by language: rows above the frames in greys, frames in their language\'s shade', () => {
	const data = tree([[['svc', 'app', 'main', 'parse'], 30], [['svc', 'app', 'idle'], 10]],
		{ lang: { parse: 'Python' } });
	const t = layout(data), colour = boxColours(data, t, 'language', null, null);
	assert.equal(colour(0), '#d5d8dc');
	assert.equal(colour(indexOf(data, 'svc')), '#c3c8cf');
	assert.equal(colour(indexOf(data, 'svc;app')), '#d9dce1');
	// Python is #6cc66c, shaded by 0.9 to 1.1 by the frame's name.
	const [r, g, b] = colour(indexOf(data, 'svc;app;main;parse')).match(/\d+/g).map(Number);
	const f = g / 0xc6;
	assert.ok(f >= 0.9 && f <= 1.1, 'shade ' + f);
	assert.ok(Math.abs(r - Math.round(0x6c * f)) <= 1 && Math.abs(b - Math.round(0x6c * f)) <= 1);
	// The same name, the same colour, wherever it is.
	const again = tree([[['other', 'proc', 'parse'], 5]], { lang: { parse: 'Python' } });
	assert.equal(boxColours(again, layout(again), 'language', null, null)(3),
		colour(indexOf(data, 'svc;app;main;parse')));
});

test('by group: each group\'s hue, its frames lighter', () => {
	const data = tree([[['Service billing', 'app', 'main'], 30]]);
	const t = layout(data), colour = boxColours(data, t, 'group', null, null);
	const hue = groupHue('Service billing');
	assert.equal(colour(1), 'hsl(' + hue + ',45%,58%)');
	assert.equal(colour(2), 'hsl(' + hue + ',45%,66%)');
	assert.match(colour(3), new RegExp('^hsl\\(' + hue + ',60%,\\d+%\\)$'));
});

test('why it waited: a box in the colour of its legend\'s kind, the legend largest first', () => {
	const data = wallTree(), t = layout(data), why = waitMix(data);
	const colour = boxColours(data, t, 'reason', why, null);
	assert.equal(colour(indexOf(data, 'svc;crowd;main;spin_forever')), WAIT_LOOKS.runqueue[1]);
	assert.equal(colour(indexOf(data, 'svc;crowd;main;nap')), WAIT_LOOKS.sleep[1]);
	const legend = legendItems(data, t, 'reason', why);
	// 160 in all: runqueue 60, sleep 50, running 30, io 15, lock 5.
	assert.deepEqual(legend.map(l => [l.key, l.text, l.colour]), [
		['runqueue', 'waited for a CPU 38%', '#e4572e'],
		['sleep', 'asleep 31%', '#c5d0da'],
		['running', 'ran on a CPU 19%', '#86bf6b'],
		['io', 'waited on I/O 9.4%', '#4a8fd8'],
		['lock', 'waited on a lock 3.1%', '#9b59c6']]);
});

test('the legend by language and by group, with small shares to a tenth', () => {
	const data = tree([[['svc', 'app', 'main', 'work'], 993], [['sys', 'k', 'irq'], 7]],
		{ lang: { irq: 'Kernel' } });
	const t = layout(data);
	assert.deepEqual(legendItems(data, t, 'language', null).map(l => [l.key, l.text, l.colour]),
		[['C/C++', 'C/C++ 99%', '#7aa6da'], ['Kernel', 'Kernel 0.7%', '#e8a33d']]);
	assert.deepEqual(legendItems(data, t, 'group', null).map(l => [l.key, l.text]),
		[['svc', 'svc 99%'], ['sys', 'sys 0.7%']]);
	assert.equal(legendItems(data, t, 'group', null)[1].colour,
		'hsl(' + groupHue('sys') + ',60%,66%)');
});

test('Compare: grew red, shrank blue, within sampling error grey, and its legend', () => {
	const before = tree([[['svc', 'app', 'main', 'work'], 60], [['svc', 'app', 'main', 'idle'], 40],
		[['batch', 'job', 'gone'], 10]], { share_of: 1000, samples: 110 });
	const after = tree([[['svc', 'app', 'main', 'work'], 200], [['svc', 'app', 'main', 'idle'], 40]],
		{ share_of: 1000, samples: 240 });
	const merged = mergeDiff(after, before), t = layout(merged);
	const diff = diffChange(merged, t, after, before);
	const colour = boxColours(merged, t, 'change', null, diff);
	// work: 6% to 20% of the server, past 5 points: full red.
	assert.equal(colour(indexOf(merged, 'svc;app;main;work')), 'hsl(4,75%,50%)');
	// gone: 1% to none: light blue.
	assert.equal(colour(indexOf(merged, 'batch;job;gone')), 'hsl(215,70%,78%)');
	// idle: 4% then and now: no change.
	assert.equal(colour(indexOf(merged, 'svc;app;main;idle')), '#c9cdd2');
	const legend = legendItems(merged, t, 'change', null);
	assert.deepEqual(legend.map(l => l.key), ['grew', 'shrank', 'gone', 'same']);
	assert.equal(legend[2].gone, true);
	// A tooltip in Compare: then and now, and the change in points of the server.
	const tip = tipLines(merged, t, indexOf(merged, 'batch;job;gone'), v => v + ' ns', { diff });
	assert.deepEqual(tip.lines, ['only in the older profile: 10 ns then, none now',
		'shrank 1.0 points of the server']);
	const work = tipLines(merged, t, indexOf(merged, 'svc;app;main;work'), v => v + ' ns', { diff });
	assert.deepEqual(work.lines, ['now 200 ns, before 60 ns', 'grew 14.0 points of the server']);
});

test('the search\'s line and a box\'s tooltip', () => {
	assert.equal(matchedLine(25e6, 1e9, amountFn({ unit: 'nanoseconds' })), 'Matched: 2.5% (25 ms)');
	assert.equal(matchedLine(0, 0, String), 'Matched: 0% (0)');
	const data = tree([[['svc', 'app', 'main', 'parse'], 30e6], [['svc', 'app', 'main'], 970e6]],
		{ lang: { parse: 'Python' } });
	const t = layout(data), amount = amountFn(data);
	assert.deepEqual(tipLines(data, t, indexOf(data, 'svc;app;main;parse'), amount), {
		name: 'parse', what: 'Python, in svc', mix: null,
		lines: ['30 ms, 3.0% of total, 3.0% of main'] });
	assert.deepEqual(tipLines(data, t, 0, amount), { name: 'all', what: 'everything in this profile',
		mix: null, lines: ['1.0 s, 100% of total'] });
	assert.equal(tipLines(data, t, indexOf(data, 'svc'), amount).what, 'owner group');
	assert.equal(tipLines(data, t, indexOf(data, 'svc;app'), amount).what, 'process, in svc');
	// Why it waited: the box's mix, largest first.
	const wall = wallTree(), wt = layout(wall), why = waitMix(wall);
	assert.equal(tipLines(wall, wt, indexOf(wall, 'svc;crowd;main;read_log'), String,
		{ why, mode: 'reason' }).mix, 'waited on I/O 50%, ran on a CPU 33%, waited on a lock 17%');
	assert.equal(tipLines(wall, wt, indexOf(wall, 'svc;crowd;main;read_log'), String,
		{ why, mode: 'language' }).mix, null);
});

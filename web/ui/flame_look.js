// What the flame graph looks like and says, computed without a browser, so
// tests/web/flame_look.test.mjs checks it with `node --test`: each box's colour in each
// Colour by (language, group, why it waited, and the change in Compare), the legend's
// items, the search total's line and a box's tooltip. flame_model.js computes the
// numbers (layout, diff, waits); flame.js draws these on the canvas and listens. The
// standalone page inlines all three (web/bundle.py), so no name here may also be a
// top-level name of another module.

import { WAIT_KINDS, legendShares, waitLegend } from './flame_model.js';
import { percentTenths } from './format.js';

// Why it waited: each kind of time (flame_model.js's WAIT_KINDS) in words and its colour,
// drawn flat (no jitter), so a box reads as its legend's colour. Waiting for a CPU is the
// one that alarms.
export const WAIT_LOOKS = {
	running: ['ran on a CPU', '#86bf6b'],
	runqueue: ['waited for a CPU', '#e4572e'],
	io: ['waited on I/O', '#4a8fd8'],
	lock: ['waited on a lock', '#9b59c6'],
	sleep: ['asleep', '#c5d0da'],
	other: ['waited on other events', '#d9b36c'],
};

// Compare's colours: what grew, what shrank (and what is gone, outlined), and a change
// within sampling error.
const GREW = 'hsl(4,75%,55%)', SHRANK = 'hsl(215,70%,55%)', SAME = '#c9cdd2';
// Boxes above the frames: everything, the owner groups, the processes.
const ROOT = '#d5d8dc', GROUP_ROW = '#c3c8cf', PROCESS_ROW = '#d9dce1';

// FNV-1a of a name: the same name, the same shade and hue on every page.
export function nameHash(s) {
	let v = 2166136261;
	for (let k = 0; k < s.length; k++) {
		v ^= s.charCodeAt(k);
		v = Math.imul(v, 16777619);
	}
	return v >>> 0;
}

function hexRgb(hex) {
	const n = parseInt(hex.slice(1), 16);
	return [n >> 16 & 255, n >> 8 & 255, n & 255];
}

function shadeRgb(c, f) {
	const k = v => Math.max(0, Math.min(255, Math.round(v * f)));
	return 'rgb(' + k(c[0]) + ',' + k(c[1]) + ',' + k(c[2]) + ')';
}

// A group's hue, by its label.
export function groupHue(label) {
	return nameHash(label) % 360;
}

/*
 * The colour of each box in a Colour by (mode: 'language', 'group', 'reason' or 'change'),
 * as a function of the box: t is flame_model.js's layout of data; why its waitMix
 * (mode 'reason'); diff its diffChange (mode 'change'). A box's shade varies a little by
 * its name, so neighbours of one language read apart; Why it waited is drawn flat.
 */
export function boxColours(data, t, mode, why, diff) {
	const names = data.names;
	const langRgb = data.languages.map(l => hexRgb(l[1]));
	const hues = data.groups.map(groupHue);
	return i => {
		const d = t.depth[i];
		const jitter = 0.9 + (nameHash(names[t.nameOf[i]] || '') % 1000) / 5000;
		if (d === 0)
			return ROOT;
		if (mode === 'change') {
			if (diff.noise[i])
				return SAME;
			const c = Math.min(Math.abs(diff.change[i]) / 0.05, 1);  // 5 points: full colour
			const l = Math.round(85 - 35 * c);
			return diff.change[i] > 0 ? 'hsl(4,75%,' + l + '%)' : 'hsl(215,70%,' + l + '%)';
		}
		if (mode === 'reason') {
			const k = why.dominant[i];
			return k >= 0 ? WAIT_LOOKS[WAIT_KINDS[k]][1] : PROCESS_ROW;
		}
		if (mode === 'group') {
			const hue = hues[t.group[i]];
			if (d <= 2)
				return 'hsl(' + hue + ',45%,' + (d === 1 ? 58 : 66) + '%)';
			return 'hsl(' + hue + ',60%,' + Math.round(72 * jitter) + '%)';
		}
		if (d <= 2)
			return d === 1 ? GROUP_ROW : PROCESS_ROW;
		const lang = t.lang[i];
		return shadeRgb(langRgb[lang >= 0 ? lang : langRgb.length - 1], jitter);
	};
}

/*
 * The legend of a Colour by: [{ colour, text, key, gone }], largest share first; each
 * share of the profile to a tenth under 10% (format.js), as the legend of a few small
 * kinds needs.
 */
export function legendItems(data, t, mode, why) {
	const total = t.N ? t.value[0] : 0;
	const share = v => percentTenths(v / total);
	if (mode === 'change')
		return [
			{ colour: GREW, text: 'grew (share of the server)', key: 'grew' },
			{ colour: SHRANK, text: 'shrank', key: 'shrank' },
			{ colour: SHRANK, text: 'only in the older profile (drawn at its older share, ' +
				'outlined)', key: 'gone', gone: true },
			{ colour: SAME, text: 'no change beyond sampling error', key: 'same' },
		];
	if (mode === 'reason')
		return waitLegend(why).map(([k, v]) => {
			const [words, colour] = WAIT_LOOKS[WAIT_KINDS[k]];
			return { colour, text: words + ' ' + share(v), key: WAIT_KINDS[k] };
		});
	return legendShares(t, mode).map(([k, v]) => {
		if (mode === 'group')
			return { colour: 'hsl(' + groupHue(data.groups[k]) + ',60%,66%)',
				text: data.groups[k] + ' ' + share(v), key: data.groups[k] };
		const l = data.languages[k >= 0 ? k : data.languages.length - 1];
		return { colour: l[1], text: l[0] + ' ' + share(v), key: l[0] };
	});
}

// The search's line: what the matches hold, of the whole and in the profile's unit.
export function matchedLine(sum, total, amount) {
	return 'Matched: ' + percentTenths(sum / (total || 1)) + ' (' + amount(sum) + ')';
}

/*
 * A box's tooltip: its name, what it is (the whole, an owner group, a process, or a
 * frame's language and group), then its amount and shares, or in Compare its amounts
 * then and now and its change; in Why it waited, its mix, largest first ("waited for a
 * CPU 75%, ran on a CPU 25%"; null otherwise).
 */
export function tipLines(data, t, i, amount, opts = {}) {
	const { why, diff, mode } = opts;
	const names = data.names;
	const nameAt = j => names[t.nameOf[j]] || '';
	const d = t.depth[i], p = t.parent[i], total = t.N ? t.value[0] : 0;
	let what;
	if (d === 0) {
		what = 'everything in this profile';
	} else if (d === 1) {
		what = 'owner group';
	} else if (d === 2) {
		what = 'process, in ' + data.groups[t.group[i]];
	} else {
		const l = data.languages[t.lang[i]];
		what = (l ? l[0] : 'Other') + ', in ' + data.groups[t.group[i]];
	}
	const lines = [];
	if (diff) {
		lines.push(diff.gone[i] ? 'only in the older profile: ' + amount(data.before[i]) +
			' then, none now' : 'now ' + amount(data.after[i]) + ', before ' +
			amount(data.before[i]));
		lines.push((diff.change[i] >= 0 ? 'grew ' : 'shrank ') +
			(Math.abs(diff.change[i]) * 100).toFixed(1) + ' points of the server' +
			(diff.noise[i] ? ' (within sampling error)' : ''));
	} else {
		lines.push(amount(t.value[i]) + ', ' + percentTenths(t.value[i] / (total || 1)) +
			' of total' + (p >= 0 ? ', ' + percentTenths(t.value[i] / (t.value[p] || 1)) +
			' of ' + nameAt(p) : ''));
	}
	let mix = null;
	if (mode === 'reason' && why && t.value[i] > 0)
		mix = WAIT_KINDS.map((kind, k) => [kind, why.mix[i * why.K + k]])
			.filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])
			.map(([kind, v]) => WAIT_LOOKS[kind][0] + ' ' + percentTenths(v / t.value[i]))
			.join(', ');
	return { name: nameAt(i), what, lines, mix };
}

// Numbers for people, as the pages write them: the rule of src/util/format.c, function
// for function, so a page writes a share, a time or a size as the answer and `slideops
// show` do. tests/format_cases.tsv is the one table of cases both are checked against
// (tests/web/format.test.mjs, tests/unit/util/test_format.c): change the rule in both.
//
// Every rounding is half away from zero (C's llround), done on the number itself; times
// and sizes by integer arithmetic, exact in a double below 2^53. The standalone flame
// graph page inlines this file (web/bundle.py), so no name here may also be a top-level
// name of another module it inlines.

// C's llround: half away from zero (Math.round takes -2.5 to -2).
function roundHalfAway(x) {
	return (x < 0 ? -Math.round(-x) : Math.round(x)) || 0;
}

// Whole a / b for integers a >= 0, b > 0, exactly (a / b may round up to the next one).
function wholeDiv(a, b) {
	return (a - a % b) / b;
}

// A share (0.54) in whole percents: "54%"; above 0 and under 1%, "<1%"; else "0%".
export function percent(share) {
	const p = share * 100;
	if (!(p > 0))
		return '0%';
	if (p < 1)
		return '<1%';
	return roundHalfAway(p) + '%';
}

// A share that is often small (a flame graph's box, an idle server's use), to a tenth of
// a percent under 10%: "0.8%"; above 0 and under 0.1%, "<0.1%"; from 10%, as percent().
export function percentTenths(share) {
	const p = share * 100;
	if (!(p > 0))
		return '0%';
	if (p < 0.1)
		return '<0.1%';
	const tenths = roundHalfAway(p * 10);
	if (tenths < 100)
		return (tenths / 10).toFixed(1) + '%';
	return roundHalfAway(p) + '%';
}

// A change of share in percentage points: "+16", "-3", "+0".
export function points(delta) {
	const n = roundHalfAway(delta * 100);
	return (n < 0 ? '' : '+') + n;
}

// A capture's length, rounded to whole seconds: "1 second", "30 seconds".
export function duration(ns) {
	const s = wholeDiv(Math.max(0, Math.round(ns)) + 5e8, 1e9);
	return s === 1 ? '1 second' : s + ' seconds';
}

// An amount of time: "12.4 s", "312 s", "45 ms", "<1 ms".
export function seconds(ns) {
	ns = Math.round(ns);
	// Tenths while they mean something, whole seconds once they do not.
	if (ns >= 99950000000)
		return wholeDiv(ns + 5e8, 1e9) + ' s';
	if (ns >= 95000000)
		return (wholeDiv(ns + 5e7, 1e8) / 10).toFixed(1) + ' s';
	if (ns >= 500000)
		return wholeDiv(ns + 5e5, 1e6) + ' ms';
	if (ns > 0)
		return '<1 ms';
	return '0 s';
}

// An amount of memory, binary multiples: "512 bytes", "3 kB", "212 MB", "1.5 GB".
export function bytes(n) {
	n = Math.round(n);
	if (n < 1024)
		return n + ' bytes';
	if (n < 1024 * 1023.5)
		return roundHalfAway(n / 1024) + ' kB';
	if (n < 1024 * 1024 * 1023.5)
		return roundHalfAway(n / 1048576) + ' MB';
	return (roundHalfAway(n / 1073741824 * 10) / 10).toFixed(1) + ' GB';
}

// A value of a profile's unit ("nanoseconds", "bytes", "count").
export function valueWords(unit, v) {
	if (unit === 'nanoseconds')
		return seconds(v);
	if (unit === 'bytes')
		return bytes(v);
	return String(Math.round(v));
}

// A time the API gives (ISO 8601, UTC) as the pages write it: "2026-12-04 18:37:56 UTC".
// The UI's own, not a number of the rule.
export function utc(iso) {
	return iso.replace('T', ' ').replace('Z', ' UTC');
}

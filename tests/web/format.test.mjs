// Numbers for people (web/ui/format.js) against tests/format_cases.tsv, the one table of
// cases the C rule (src/util/format.c) is checked against too (tests/unit/util/test_format.c):
// a page writes a share, a time or a size as the answer and `slideops show` do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { bytes, duration, percent, percentTenths, points, seconds,
	valueWords } from '../../web/ui/format.js';

const TABLE = new URL('../format_cases.tsv', import.meta.url);

// The table's function names are C's (format_NAME); value:UNIT is format_value's unit.
const FUNCTIONS = {
	percent, percent_tenths: percentTenths, points, duration, seconds, bytes,
};
function written(fn, input) {
	if (fn.startsWith('value:'))
		return valueWords(fn.slice(6), Number(input));
	if (!Object.hasOwn(FUNCTIONS, fn))
		throw new Error('no function ' + fn);
	return FUNCTIONS[fn](Number(input));
}

const cases = readFileSync(TABLE, 'utf8').split('\n').map((line, k) => [line, k + 1])
	.filter(([line]) => line && !line.startsWith('#'));

test('the table of cases is whole', () => {
	assert.ok(cases.length >= 50, 'only ' + cases.length + ' cases');
	for (const [line, at] of cases)
		assert.equal(line.split('\t').length, 3, 'line ' + at + ' is not three columns');
	const names = new Set(cases.map(([line]) => line.split('\t')[0].replace(/:.*/, ':')));
	for (const fn of [...Object.keys(FUNCTIONS), 'value:'])
		assert.ok(names.has(fn), 'no case of ' + fn);
});

test('every case of the table, as C writes it', () => {
	const wrong = [];
	for (const [line, at] of cases) {
		const [fn, input, want] = line.split('\t');
		const got = written(fn, input);
		if (got !== want)
			wrong.push('line ' + at + ': ' + fn + '(' + input + ') wrote "' + got +
				'", the table says "' + want + '"');
	}
	assert.deepEqual(wrong, []);
});

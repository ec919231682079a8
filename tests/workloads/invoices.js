// SPDX-License-Identifier: MIT
/*
 * A node process with known function names for the JavaScript tests
 * (tests/integration/node.sh): computeTotals is a hot loop TurboFan compiles, calling
 * applyRate, reached through descendA and descendB, which recurse into each other 12
 * deep (the test runs node with --no-turbo-inlining, so that each stays its own frame,
 * and without, where TurboFan inlines applyRate and the recursion), and auditOnce is a
 * loop V8 is told never to optimise (%NeverOptimizeFunction: it runs in the interpreter
 * or its baseline code). Each turn of runLedger runs both, a few milliseconds each.
 * Runs until killed; prints "ready" after its first second.
 */
'use strict';

let sink = 0;

function applyRate(s, i) {
	return (s * 31 + (i ^ (s >>> 7))) % 1000000007;
}

function computeTotals(seed) {
	let s = seed;
	for (let i = 0; i < 2000000; i++)
		s = applyRate(s, i);
	return s;
}

function descendA(depth, seed) {
	return depth === 0 ? computeTotals(seed) : descendB(depth - 1, seed + depth) + 1;
}

function descendB(depth, seed) {
	return descendA(depth, seed) + 1;
}

function auditOnce(seed) {
	let s = seed;
	for (let i = 0; i < 300000; i++)
		s = (s ^ ((s << 13) + i)) | 0;
	sink = s;
}
%NeverOptimizeFunction(auditOnce);

function runLedger() {
	let seed = 1, last = Date.now(), said = false;

	for (;;) {
		seed = descendA(12, seed) % 1000;
		auditOnce(seed);
		if (!said && Date.now() - last > 1000) {
			console.log('ready');
			said = true;
		}
	}
}

runLedger();

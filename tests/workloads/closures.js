// SPDX-License-Identifier: MIT
/*
 * A node whose hot function is a new closure every few milliseconds, while it allocates
 * enough that a scavenge runs every few milliseconds too (the test runs node with
 * --max-semi-space-size=1): each churn is a JSFunction in V8's young generation, moved
 * by the next scavenges or freed, so a sample of it is named only when its name is read
 * soon after (tests/integration/node_young.sh). Runs until killed; prints "ready" after
 * its first second.
 */
'use strict';

let keep = [];

function makeWorker(k) {
	return function churn(n) {
		let s = k;

		for (let i = 0; i < n; i++) {
			s = (s * 31 + i) % 1000003;
			if ((i & 255) === 0) {
				keep.push(new Array(32).fill(s));
				if (keep.length > 512)
					keep = [];
			}
		}
		return s;
	};
}

let seed = 1, said = false;
const t0 = Date.now();

for (;;) {
	const w = makeWorker(seed); /* a new JSFunction, young */
	const end = Date.now() + 4;

	while (Date.now() < end)
		seed = w(20000);
	if (!said && Date.now() - t0 > 1000) {
		console.log('ready');
		said = true;
	}
}

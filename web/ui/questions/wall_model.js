// The wall question's own view as data, without a DOM (tested by
// tests/web/profile_model.test.mjs): wall.js draws it.

import { valueWords } from '../format.js';

// wall: each group's time running against its time waiting; null when not a wall profile.
export function runningWaitingRows(doc) {
	if (!doc.groups.some(g => g.running_ns !== undefined))
		return null;
	return doc.groups.map(g => ({ label: g.label,
		running: valueWords('nanoseconds', g.running_ns || 0),
		waiting: valueWords('nanoseconds', g.waiting_ns || 0) }));
}

// The memory question's own view as data, without a DOM (tested by
// tests/web/profile_model.test.mjs): memory.js draws it.

import { valueWords } from '../format.js';

// memory: each owner's resident memory from the capture's start to its end, the most
// grown first; null in profiles taken before it was read.
export function ownerGrowthRows(doc) {
	const owners = doc.groups.filter(g => g.rss_grown_bytes !== undefined);
	if (!owners.length)
		return null;
	owners.sort((a, b) => b.rss_grown_bytes - a.rss_grown_bytes || (a.label < b.label ? -1 : 1));
	const bytes = v => valueWords('bytes', Math.abs(v));
	const signed = v => (v < 0 ? '\u2212' : '+') + bytes(v);
	return owners.map(g => ({ label: g.label,
		rssGrown: signed(g.rss_grown_bytes), rssStart: bytes(g.rss_start_bytes),
		fileGrown: signed(g.file_grown_bytes), fileStart: bytes(g.file_start_bytes),
		started: g.processes_started, exited: g.processes_exited }));
}

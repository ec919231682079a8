// The Servers page and a server's page as data: what servers.js draws, computed without a
// browser, so tests/web/servers_model.test.mjs checks it with `node --test`. From the
// API's documents (GET /api/servers, /servers/ID, its check, top and remove): each
// server's row, a server's heading, whether it can be profiled and what is missing, the
// busiest processes, and what Remove the profiler removed.

import { bytes, percent, utc } from './format.js';

const STATUS_WORDS = { connected: 'Connected', unreachable: 'Unreachable', removed: 'Removed' };

// A server's status in words; one this UI does not know, as the API says it.
export function statusWords(status) {
	return Object.hasOwn(STATUS_WORDS, status) ? STATUS_WORDS[status] : status;
}

// When a server was last heard from, in words (the API's times are UTC).
export function lastSeen(s) {
	if (s.this_server)
		return 'now';
	if (!s.last_seen)
		return 'never';
	return utc(s.last_seen);
}

// A server's name as the UI shows it: this one by its hostname.
export function serverName(s) {
	return s.this_server ? s.hostname : s.name;
}

// The Servers page's table: one row a server.
export function serverRows(doc) {
	return doc.servers.map(s => ({ id: s.id, status: s.status,
		href: '/servers/' + encodeURIComponent(s.id), name: serverName(s),
		statusWords: statusWords(s.status), lastSeen: lastSeen(s), kernel: s.kernel,
		by: s.this_server ? 'this server' : 'agent ' + s.agent_version }));
}

// A server's page heading: its name, and beside it this server, or the agent's status.
export function serverHeading(srv) {
	return { name: serverName(srv), detail: srv.this_server ? ' this server' :
		' ' + statusWords(srv.status) + ', last seen ' + lastSeen(srv) +
		(srv.kernel ? ', kernel ' + srv.kernel : ''),
	// An agent's server, not yet removed, can be removed from the workspace.
	removable: !srv.this_server && srv.status !== 'removed',
	refused: batchesRefused(srv) };
}

// Batches the workspace refused from this server's agent for what they held, and the
// last one's reason; empty when none was refused.
export function batchesRefused(srv) {
	if (!srv.batches_refused) return '';
	const last = srv.last_refusal || {};
	return srv.batches_refused + (srv.batches_refused === 1 ? ' batch' : ' batches') +
		' from its agent refused for what they held; the last, at ' +
		(last.at || '').replace('T', ' ').replace('Z', ' UTC') + ': ' + (last.error || '');
}

// Can it be profiled (GET /api/servers/ID/check): every requirement when it can, what is
// missing when it cannot.
export function checkLines(c) {
	return { ok: !!c.can_profile,
		headline: c.can_profile ? 'This server can be profiled.' :
			'This server cannot be profiled yet. What is missing:',
		requirements: (c.can_profile ? c.requirements : c.requirements.filter(r => !r.ok))
			.map(r => ({ ok: !!r.ok, name: r.name, detail: r.detail })) };
}

// The busiest processes (GET /api/servers/ID/top), their CPU as `slideops top` writes it.
export function topRows(doc) {
	return doc.processes.map(p => ({ comm: p.comm, cpu: percent(p.cpu_percent / 100) + ' CPU',
		group: p.group }));
}

// The link to all of a server's profiles, when the page shows only the first few.
export function pastMore(doc, hostname) {
	if (doc.next_offset === null)
		return null;
	return { href: '/profiles?server=' + encodeURIComponent(hostname),
		text: 'All ' + doc.total + ' profiles of this server' };
}

// What Remove the profiler did (POST /api/servers/ID/remove): a line a path removed, or
// that there was nothing to remove.
export function removedLines(doc) {
	if (!doc.removed.length)
		return { nothing: 'The profiler is not installed on this server and no capture ' +
			'files are left; nothing to remove.', lines: [] };
	return { nothing: null, lines: doc.removed.map(r => 'Removed ' + r.path + ' (' + r.files +
		(r.files === 1 ? ' file, ' : ' files, ') + bytes(r.bytes) + ').') };
}

// Add a server (POST /api/enrolments): the line under the command, with when its
// one-use token expires.
export function enrolmentNote(doc) {
	return 'The token in it works once, and until ' + utc(doc.expires_at) + '. The server ' +
		'shows in the list once its agent has enrolled.';
}

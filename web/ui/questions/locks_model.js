// The locks question's own view as data, without a DOM (tested by
// tests/web/profile_model.test.mjs): locks.js draws it.

import { percent, valueWords } from '../format.js';

// locks: each lock by its address, the longest wait first (the API's order).
export const LOCKS_SHOWN = 25;

export function lockRows(locks) {
	const ns = v => valueWords('nanoseconds', v);
	const owner = l => {
		if (l.pid === null)
			return 'the kernel';
		const p = l.processes.find(w => w.pid === l.pid);
		return (p ? p.comm + ' ' : '') + '[' + l.pid + ']';
	};
	const waiter = text => w => ({ name: text(w), title: text(w), amount: ns(w.wait_ns) });
	// Profiles taken before holders were tracked have none; the kernel's locks neither.
	const holders = l => !l.holders || !l.holders.length ?
		{ none: l.pid === null ? 'not seen (kernel)' : 'not seen' } :
		{ list: l.holders.map(o => ({ name: o.function,
			title: o.function + ' in ' + o.process + ' [' + o.pid + ']', amount: ns(o.ns) })) };
	return {
		rows: locks.slice(0, LOCKS_SHOWN).map(l => ({
			address: l.address, kind: l.kind, owner: owner(l), contentions: l.contentions,
			wait: ns(l.wait_ns), share: percent(l.share), longest: ns(l.longest_ns),
			waiting: l.functions.map(waiter(w => w.name)),
			holders: holders(l),
			processes: l.processes.map(waiter(w => w.comm + ' [' + w.pid + ']')),
		})),
		more: locks.length > LOCKS_SHOWN ? 'and ' + (locks.length - LOCKS_SHOWN) + ' more locks' :
			null,
	};
}

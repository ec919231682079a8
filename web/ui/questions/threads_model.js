// The threads question's own view as data, without a DOM (tested by
// tests/web/profile_model.test.mjs): threads.js draws it.

// threads: the thread dump, sets of threads in the same place; null without any.
export function threadSetRows(doc) {
	if (!doc.thread_sets || !doc.thread_sets.length)
		return null;
	return doc.thread_sets.map(t => ({ threads: t.threads, state: t.state, wait: t.wait || '',
		group: t.group,
		stack: Array.isArray(t.stack) ? t.stack.join(' \u2190 ') : t.stack || '' }));
}

// Capture a profile, as data: what capture.js draws, computed without a browser, so
// tests/web/capture_model.test.mjs checks it with `node --test`. The questions this
// server can answer (GET /api/questions and the server's check, which says why one
// cannot), the durations offered, the request a choice makes, and a capture's progress
// (GET /api/servers/ID/capture: the progress document of docs/architecture.md) as the
// bar, the words under it and where it leads when it ends.

// The durations offered, in seconds; the second is chosen first.
export const DURATIONS = [10, 30, 60, 120, 300];
const DURATION_CHOSEN = 30;

// Each question as a choice: enabled where the check says this server can answer it (all
// of them while the check has not answered), with why not beside it; the first, if it
// can be, chosen.
export function questionChoices(qs, check) {
	return qs.map(({ id, title }, k) => {
		const can = !check || !!check.questions[id];
		return { id, title, enabled: can, checked: k === 0 && can,
			why: check && !can ? check.question_details[id] : '' };
	});
}

export function durationOptions() {
	return DURATIONS.map(s => ({ value: s, selected: s === DURATION_CHOSEN,
		label: s < 60 ? s + ' seconds' : s / 60 + (s === 60 ? ' minute' : ' minutes') }));
}

// Whether question id takes a duration: a snapshot of one moment (threads) does not.
export function hasDuration(qs, id) {
	return qs.some(q => q.id === id && q.has_duration);
}

// The body of POST /api/servers/ID/capture for a choice.
export function captureRequest(qs, id, seconds) {
	const body = { question: id };
	if (hasDuration(qs, id))
		body.seconds = Number(seconds);
	return body;
}

const PHASE_WORDS = { sampling: 'Sampling', reading: 'Reading binaries', saving: 'Saving',
	done: 'Done', failed: 'Failed' };

export const STOPPING = 'Stopping; keeping what was sampled\u2026';

// A capture's progress: the bar (max, value), the words beside it, whether to ask again,
// and once it ended, the profile to go to or the error to show.
export function captureProgress(s) {
	let text = Object.hasOwn(PHASE_WORDS, s.phase) ? PHASE_WORDS[s.phase] : s.phase;
	if (s.phase === 'sampling' && s.total)
		text += ': ' + Math.max(0, Math.ceil((s.total - s.done) / 1000)) + ' s left';
	const ended = !s.running;
	return { max: s.total || 1, value: s.total ? s.done : 0, text, phase: s.phase,
		running: !!s.running,
		profile: ended && s.phase === 'done' && s.profile_id ?
			'/profiles/' + encodeURIComponent(s.profile_id) : null,
		error: ended && !(s.phase === 'done' && s.profile_id) && s.error ? s.error : null };
}

// Capture a profile, as data (web/ui/capture_model.js) without a browser: the choices,
// the request, and the progress a user follows (capture.js draws them).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { captureProgress, captureRequest, durationOptions, hasDuration,
	questionChoices } from '../../web/ui/capture_model.js';

const QS = [{ id: 'cpu', title: 'What is using the CPU', has_duration: true },
	{ id: 'threads', title: 'What every thread is doing right now', has_duration: false },
	{ id: 'locks', title: 'What is waiting on locks', has_duration: true }];

test('the questions: those the check says this server cannot answer are off, with why', () => {
	const check = { questions: { cpu: true, threads: true, locks: false },
		question_details: { locks: 'needs Linux 5.19 (the lock contention tracepoints)' } };
	assert.deepEqual(questionChoices(QS, check), [
		{ id: 'cpu', title: 'What is using the CPU', enabled: true, checked: true, why: '' },
		{ id: 'threads', title: 'What every thread is doing right now', enabled: true,
			checked: false, why: '' },
		{ id: 'locks', title: 'What is waiting on locks', enabled: false, checked: false,
			why: 'needs Linux 5.19 (the lock contention tracepoints)' }]);
	// No check (it failed): every question offered.
	assert.ok(questionChoices(QS, null).every(c => c.enabled && !c.why));
	// The first question cannot be answered: none is chosen for the user.
	const noCpu = { questions: { cpu: false, threads: true, locks: true },
		question_details: { cpu: 'no perf events' } };
	assert.ok(questionChoices(QS, noCpu).every(c => !c.checked));
});

test('durations: 30 seconds first, minutes past one', () => {
	assert.deepEqual(durationOptions().map(o => [o.value, o.label, o.selected]), [
		[10, '10 seconds', false], [30, '30 seconds', true], [60, '1 minute', false],
		[120, '2 minutes', false], [300, '5 minutes', false]]);
});

test('a snapshot question is asked without a duration', () => {
	assert.equal(hasDuration(QS, 'cpu'), true);
	assert.equal(hasDuration(QS, 'threads'), false);
	assert.equal(hasDuration(QS, 'nope'), false);
	assert.deepEqual(captureRequest(QS, 'cpu', '60'), { question: 'cpu', seconds: 60 });
	assert.deepEqual(captureRequest(QS, 'threads', '60'), { question: 'threads' });
});

test('progress: the bar, the seconds left, and where a capture leads when it ends', () => {
	assert.deepEqual(captureProgress({ running: true, phase: 'sampling', done: 12400,
		total: 30000 }), { max: 30000, value: 12400, text: 'Sampling: 18 s left',
		phase: 'sampling', running: true, profile: null, error: null });
	// Past its time (a slow stop): never a negative count.
	assert.equal(captureProgress({ running: true, phase: 'sampling', done: 31000,
		total: 30000 }).text, 'Sampling: 0 s left');
	assert.deepEqual(captureProgress({ running: true, phase: 'reading', done: 3, total: 0 }),
		{ max: 1, value: 0, text: 'Reading binaries', phase: 'reading', running: true,
			profile: null, error: null });
	// A phase this UI has no words for is shown as the API says it.
	assert.equal(captureProgress({ running: true, phase: 'installing' }).text, 'installing');
	const done = captureProgress({ running: false, phase: 'done', profile_id: '2026/a b' });
	assert.equal(done.profile, '/profiles/2026%2Fa%20b');
	assert.equal(done.error, null);
	const failed = captureProgress({ running: false, phase: 'failed',
		error: 'the workspace is full' });
	assert.deepEqual([failed.profile, failed.error], [null, 'the workspace is full']);
	// Still running, an error is not yet the end.
	assert.equal(captureProgress({ running: true, phase: 'saving', error: 'x' }).error, null);
});

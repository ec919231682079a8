// Capture a profile, on a server's Performance tab: the questions this server can answer
// (GET /api/questions, and the server's check for why one cannot), the duration where
// the question has one, and the capture followed to its profile (or stopped, keeping
// what was sampled).

import { h } from './dom.js';
import { api, post, questions } from './api.js';
import { errorBox, go, poll } from './nav.js';

export async function capturePanel(sec, base, check) {
	let qs;
	try {
		qs = await questions();
	} catch (e) {
		sec.append(errorBox(e));
		return;
	}
	// A snapshot of one moment (threads) takes no duration.
	const hasDuration = id => qs.some(q => q.id === id && q.has_duration);
	const form = h('form', { class: 'capture' });
	const choices = h('fieldset', {}, h('legend', {}, 'Question'));
	qs.forEach(({ id, title }, k) => {
		const can = !check || check.questions[id];
		const why = check && !can ? check.question_details[id] : '';
		const input = h('input', { type: 'radio', name: 'question', value: id,
			disabled: !can, checked: k === 0 && can });
		choices.append(h('label', { class: can ? '' : 'disabled' }, input, ' ', title,
			why ? h('span', { class: 'why' }, ' \u2014 ' + why) : null));
	});
	const duration = h('select', { name: 'seconds', 'aria-label': 'Duration' },
		[10, 30, 60, 120, 300].map(s => h('option', { value: s, selected: s === 30 },
			s < 60 ? s + ' seconds' : s / 60 + (s === 60 ? ' minute' : ' minutes'))));
	const durLabel = h('label', { class: 'duration' }, 'Duration ', duration);
	const button = h('button', { type: 'submit', class: 'primary' }, 'Capture');
	const status = h('div', { class: 'progress', hidden: true },
		h('progress', { max: 1, value: 0 }), h('span', { class: 'phase' }),
		h('button', { type: 'button', class: 'stop' }, 'Stop'));
	const msg = h('div', { class: 'msg' });
	form.append(choices, h('div', { class: 'row' }, durLabel, button), status, msg,
		h('p', { class: 'note' }, 'What is holding memory and Where memory is allocated are ' +
			'not offered, because they are read from inside one runtime at a time. ' +
			'Capture them from the Service instead.'));
	sec.append(form);

	const syncDuration = () => {
		const q = form.querySelector('input[name=question]:checked');
		durLabel.hidden = q && !hasDuration(q.value);
	};
	choices.addEventListener('change', syncDuration);
	syncDuration();

	form.addEventListener('submit', async ev => {
		ev.preventDefault();
		const q = form.querySelector('input[name=question]:checked');
		if (!q)
			return;
		msg.textContent = '';
		try {
			const body = { question: q.value };
			if (hasDuration(q.value))
				body.seconds = Number(duration.value);
			await post(base + '/capture', body);
			follow(base, status, button, msg);
		} catch (e) {
			msg.append(errorBox(e));
		}
	});
	status.querySelector('.stop').addEventListener('click', async () => {
		try {
			await post(base + '/capture/stop');
			status.querySelector('.phase').textContent = 'Stopping; keeping what was sampled\u2026';
		} catch (e) {
			msg.append(errorBox(e));
		}
	});
	// A capture already running (started from another tab) is followed too.
	api(base + '/capture').then(s => {
		if (s.running)
			follow(base, status, button, msg);
	}).catch(() => {});
}

function follow(base, status, button, msg) {
	const bar = status.querySelector('progress'), phase = status.querySelector('.phase');
	status.hidden = false;
	button.disabled = true;
	const words = { sampling: 'Sampling', reading: 'Reading binaries', saving: 'Saving',
		done: 'Done', failed: 'Failed' };
	const tick = async () => {
		let s;
		try {
			s = await api(base + '/capture');
		} catch (e) {
			msg.append(errorBox(e));
			return;
		}
		bar.max = s.total || 1;
		bar.value = s.total ? s.done : 0;
		let text = words[s.phase] || s.phase;
		if (s.phase === 'sampling' && s.total)
			text += ': ' + Math.max(0, Math.ceil((s.total - s.done) / 1000)) + ' s left';
		phase.textContent = text;
		status.dataset.phase = s.phase;
		if (s.running) {
			poll(tick, 500);
			return;
		}
		button.disabled = false;
		status.hidden = true;
		if (s.phase === 'done' && s.profile_id)
			go('/profiles/' + encodeURIComponent(s.profile_id));
		else if (s.error)
			msg.append(errorBox(new Error(s.error)));
	};
	tick();
}

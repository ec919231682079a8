// Capture a profile, on a server's Performance tab: the questions this server can answer
// (GET /api/questions, and the server's check for why one cannot), the duration where
// the question has one, and the capture followed to its profile (or stopped, keeping
// what was sampled). What each shows is capture_model.js's, tested without a browser.

import { h } from './dom.js';
import { api, post, questions } from './api.js';
import { STOPPING, captureProgress, captureRequest, durationOptions, hasDuration,
	questionChoices } from './capture_model.js';
import { errorBox, go, poll } from './nav.js';

export async function capturePanel(sec, base, check) {
	let qs;
	try {
		qs = await questions();
	} catch (e) {
		sec.append(errorBox(e));
		return;
	}
	const form = h('form', { class: 'capture' });
	const choices = h('fieldset', {}, h('legend', {}, 'Question'));
	for (const c of questionChoices(qs, check)) {
		const input = h('input', { type: 'radio', name: 'question', value: c.id,
			disabled: !c.enabled, checked: c.checked });
		choices.append(h('label', { class: c.enabled ? '' : 'disabled' }, input, ' ', c.title,
			c.why ? h('span', { class: 'why' }, ' \u2014 ' + c.why) : null));
	}
	const duration = h('select', { name: 'seconds', 'aria-label': 'Duration' },
		durationOptions().map(o => h('option', { value: o.value, selected: o.selected }, o.label)));
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
		durLabel.hidden = q && !hasDuration(qs, q.value);
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
			await post(base + '/capture', captureRequest(qs, q.value, duration.value));
			follow(base, status, button, msg);
		} catch (e) {
			msg.append(errorBox(e));
		}
	});
	status.querySelector('.stop').addEventListener('click', async () => {
		try {
			await post(base + '/capture/stop');
			status.querySelector('.phase').textContent = STOPPING;
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
	const tick = async () => {
		let s;
		try {
			s = await api(base + '/capture');
		} catch (e) {
			msg.append(errorBox(e));
			return;
		}
		const p = captureProgress(s);
		bar.max = p.max;
		bar.value = p.value;
		phase.textContent = p.text;
		status.dataset.phase = p.phase;
		if (p.running) {
			poll(tick, 500);
			return;
		}
		button.disabled = false;
		status.hidden = true;
		if (p.profile)
			go(p.profile);
		else if (p.error)
			msg.append(errorBox(new Error(p.error)));
	};
	tick();
}

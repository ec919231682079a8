// Add a server, on the Servers page: a one-use enrolment token (POST /api/enrolments)
// and the command to run on the new server, with when the token expires. The server
// appears in the list once its agent has enrolled.

import { h } from './dom.js';
import { post } from './api.js';
import { errorBox } from './nav.js';
import { enrolmentNote } from './servers_model.js';

export function addServerPanel(sec) {
	const button = h('button', { type: 'button', class: 'primary' }, 'Add a server');
	const out = h('div', { class: 'enrol' });
	sec.append(button, out);
	button.addEventListener('click', async () => {
		out.textContent = '';
		try {
			const doc = await post('enrolments');
			const cmd = h('code', { class: 'command mono', 'aria-label': 'Command to run' },
				doc.command);
			const copy = h('button', { type: 'button', class: 'small' }, 'Copy');
			copy.addEventListener('click', async () => {
				try {
					await navigator.clipboard.writeText(doc.command);
					copy.textContent = 'Copied';
				} catch (e) {
					// Not allowed here (plain HTTP off loopback): select it to copy by hand.
					getSelection().selectAllChildren(cmd);
				}
			});
			out.append(h('p', {}, 'Run this as root on the server to add; it installs nothing ' +
				'else and connects out to this workspace:'),
			h('div', { class: 'cmdline' }, cmd, copy),
			h('p', { class: 'note' }, enrolmentNote(doc)));
		} catch (e) {
			out.append(errorBox(e));
		}
	});
}

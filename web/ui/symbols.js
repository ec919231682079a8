// Debug symbols: the upload button (on a server's page and on a profile's card of
// stripped binaries) and the panel listing what was uploaded, each with Delete. What
// each shows is symbols_model.js's, tested without a browser.
// Every name (process, function, file, upload file name) is set as text: elements are
// made with h() (dom.js), which only ever makes text nodes from strings.

import { h } from './dom.js';
import { api, uploadFile } from './api.js';
import { errorBox } from './nav.js';
import { uploadProgress, uploadRows, uploadedLine } from './symbols_model.js';

// A button that picks a file and uploads it; done(doc) after a good upload.
export function uploadButton(done) {
	const input = h('input', { type: 'file', hidden: true, 'aria-label': 'Debug symbols file' });
	const button = h('button', { type: 'button', class: 'primary' }, 'Upload debug symbols');
	const bar = h('progress', { max: 1, value: 0, hidden: true });
	const out = h('div', { class: 'msg' });
	button.addEventListener('click', () => input.click());
	input.addEventListener('change', async () => {
		const file = input.files[0];
		if (!file)
			return;
		out.textContent = '';
		bar.hidden = false;
		button.disabled = true;
		try {
			const doc = await uploadFile(file, (done, total) => {
				const p = uploadProgress(done, total);
				bar.max = p.max;
				bar.value = p.value;
			});
			out.append(h('p', { class: 'ok' }, uploadedLine(doc)));
			done(doc);
		} catch (e) {
			out.append(errorBox(e));
		} finally {
			bar.hidden = true;
			button.disabled = false;
			input.value = '';
		}
	});
	return h('div', { class: 'upload' }, button, input, bar, out);
}

export async function symbolsPanel(sec) {
	const listEl = h('div', { class: 'uploads' });
	const refresh = async () => {
		listEl.textContent = '';
		try {
			const { empty, rows } = uploadRows(await api('symbols'));
			if (empty) {
				listEl.append(h('p', { class: 'muted' }, empty));
				return;
			}
			listEl.append(h('table', { class: 'list' },
				h('thead', {}, h('tr', {}, h('th', {}, 'File'), h('th', {}, 'Functions named'),
					h('th', {}, 'Build'), h('th', {}, ''))),
				h('tbody', {}, rows.map(u => {
					const del = h('button', { type: 'button', class: 'danger small' }, 'Delete');
					del.addEventListener('click', async () => {
						try {
							await api('symbols/' + encodeURIComponent(u.build), { method: 'DELETE' });
							refresh();
						} catch (e) {
							listEl.append(errorBox(e));
						}
					});
					return h('tr', { 'data-build': u.build }, h('td', {}, u.file),
						h('td', { class: 'num' }, u.functions),
						h('td', { class: 'mono', title: u.build }, u.short),
						h('td', {}, del));
				}))));
		} catch (e) {
			listEl.append(errorBox(e));
		}
	};
	sec.append(h('p', {}, 'Upload the unstripped build of a binary, or the debug file made ' +
		'from it before stripping (objcopy --only-keep-debug app app.debug). Only function ' +
		'names and addresses are read; the file is never stored. Files up to 1 GB.'),
	uploadButton(refresh), listEl);
	refresh();
}

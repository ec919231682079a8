// The calls to the workspace server's API (/api/, docs/api.md): JSON in and out, an
// error as an ApiError with the server's own words, an upload with its progress, and
// the questions a profile answers (GET /api/questions), asked once a page load.

export class ApiError extends Error {
	constructor(message, status) {
		super(message);
		this.status = status;
	}
}

export async function api(path, opts = {}) {
	const res = await fetch('/api/' + path, { credentials: 'same-origin', ...opts });
	let doc = null;
	try {
		doc = await res.json();
	} catch (e) {
		doc = null;
	}
	if (!res.ok)
		throw new ApiError(doc && doc.error ? doc.error : res.status + ' ' + res.statusText,
			res.status);
	return doc;
}

export function post(path, body) {
	return api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body || {}) });
}

// Sends a file as the request body, with progress: fetch cannot report upload progress.
export function uploadFile(file, onProgress) {
	return new Promise((resolve, reject) => {
		const xhr = new XMLHttpRequest();
		xhr.open('POST', '/api/symbols?name=' + encodeURIComponent(file.name));
		xhr.upload.onprogress = ev => onProgress(ev.loaded, ev.total || file.size);
		xhr.onload = () => {
			let doc = null;
			try {
				doc = JSON.parse(xhr.responseText);
			} catch (e) {
				doc = null;
			}
			if (xhr.status >= 200 && xhr.status < 300)
				resolve(doc);
			else
				reject(new ApiError(doc && doc.error ? doc.error : 'upload failed (' + xhr.status + ')',
					xhr.status));
		};
		xhr.onerror = () => reject(new Error('the upload did not reach the workspace server'));
		xhr.send(file);
	});
}

// The questions, from the server's one table of them: [{id, title, has_duration, views}],
// in the order the UI offers them. Asked once; asked again after a failure.
let questionsAsked = null;

export function questions() {
	if (!questionsAsked) {
		questionsAsked = api('questions').then(doc => doc.questions);
		questionsAsked.catch(() => { questionsAsked = null; });
	}
	return questionsAsked;
}

// A question's title, from questions()'s list; its id where the list has no such question.
export function titleOf(list, id) {
	const q = list.find(q => q.id === id);
	return q ? q.title : id;
}

// Debug symbols, as data: what symbols.js draws, computed without a browser, so
// tests/web/symbols_model.test.mjs checks it with `node --test`. What an upload named
// (POST /api/symbols) and the panel of uploads (GET /api/symbols), each by its build.

// A build id as the pages show it: its first 12 hex digits, as `slideops symbols list`.
export function shortBuild(id) {
	return id.slice(0, 12);
}

// The line after a good upload.
export function uploadedLine(doc) {
	return 'Named ' + doc.functions + ' functions of build ' + shortBuild(doc.build_id) +
		' from ' + doc.file_name + '.';
}

// The upload's progress bar, from what was sent of how much.
export function uploadProgress(done, total) {
	return { max: total || 1, value: done };
}

// The panel: a row an upload (its file, the functions it named, its build), or the line
// that says there is none.
export function uploadRows(doc) {
	if (!doc.uploads.length)
		return { empty: 'No debug symbols uploaded yet.', rows: [] };
	return { empty: null, rows: doc.uploads.map(u => ({ build: u.build_id,
		short: shortBuild(u.build_id), file: u.file_name, functions: u.functions })) };
}

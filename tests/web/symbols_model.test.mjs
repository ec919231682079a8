// Debug symbols, as data (web/ui/symbols_model.js) without a browser (symbols.js draws
// the upload button and the panel).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { shortBuild, uploadProgress, uploadRows, uploadedLine } from '../../web/ui/symbols_model.js';

const BUILD = 'b65a313cbf47a0f1d2e3c4b5a6978877';

test('an upload says what it named, of which build, from which file', () => {
	assert.equal(shortBuild(BUILD), 'b65a313cbf47');
	assert.equal(uploadedLine({ functions: 1204, build_id: BUILD, file_name: 'app.debug' }),
		'Named 1204 functions of build b65a313cbf47 from app.debug.');
});

test('the upload\'s bar, before the browser knows the size', () => {
	assert.deepEqual(uploadProgress(512, 2048), { max: 2048, value: 512 });
	assert.deepEqual(uploadProgress(0, 0), { max: 1, value: 0 });
});

test('the panel: a row an upload, or that there is none', () => {
	assert.deepEqual(uploadRows({ uploads: [] }),
		{ empty: 'No debug symbols uploaded yet.', rows: [] });
	assert.deepEqual(uploadRows({ uploads: [{ build_id: BUILD, file_name: '<b>app</b>.debug',
		functions: 7, uploaded_at: '2026-12-04T18:00:00Z' }] }), { empty: null, rows: [
		{ build: BUILD, short: 'b65a313cbf47', file: '<b>app</b>.debug', functions: 7 }] });
});

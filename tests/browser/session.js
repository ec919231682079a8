// What every browser test shares: Debian's Chromium driven by playwright-core, the
// screenshots in ARTIFACTS, the page's errors collected, the check that no name became
// markup, and how a run ends (the step it failed at, what the page said, a last
// screenshot).
'use strict';
const { chromium } = require('playwright-core');
const assert = require('assert');
const path = require('path');
const fs = require('fs');

// A browser with one page; ARTIFACTS emptied of an earlier run's screenshots.
async function open(artifacts, timeoutMs) {
	fs.mkdirSync(artifacts, { recursive: true });
	for (const f of fs.readdirSync(artifacts))
		if (f.endsWith('.png'))
			fs.unlinkSync(path.join(artifacts, f));
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox'] });
	const page = await browser.newPage({ viewport: { width: 1366, height: 860 } });
	const errors = [];
	page.on('pageerror', e => errors.push(e.message));
	page.on('dialog', d => d.accept());
	page.setDefaultTimeout(timeoutMs);
	return {
		browser, page, errors, artifacts,
		shot: (p, name) => p.screenshot({ path: path.join(artifacts, name + '.png'),
			fullPage: true }),
	};
}

// No element came from a name: the page holds only its own one script, and no value
// shows where an element belongs.
async function noInjectedScript(page) {
	const n = await page.evaluate(() => document.querySelectorAll('script').length);
	assert.strictEqual(n, 1, 'a name became a <script> element');
	assert.strictEqual(await page.evaluate(() => window.__injected === undefined), true,
		'a name ran as markup');
	const text = await page.evaluate(() => document.body.innerText);
	assert.ok(!/\[object |^null$/m.test(text), 'the page shows a value where an element belongs');
}

// Waits until fn(arg), run in the page, is true. page.waitForFunction cannot: it polls
// with the page's own eval, which the UI's Content-Security-Policy (script-src 'self')
// refuses, so it only ever passed when its first try, made inside DevTools' call, was
// already true. page.evaluate is DevTools' call every time.
async function waitUntil(page, fn, arg, timeoutMs) {
	const until = Date.now() + (timeoutMs || 30000);
	for (;;) {
		if (await page.evaluate(fn, arg))
			return;
		if (Date.now() > until)
			throw new Error('timed out waiting for ' + String(fn).replace(/\s+/g, ' '));
		await new Promise(r => setTimeout(r, 50));
	}
}

// The run passed: the page never threw.
async function passed(s) {
	assert.deepStrictEqual(s.errors, [], 'the page threw');
	console.log('ok: ' + fs.readdirSync(s.artifacts).length + ' screenshots in ' + s.artifacts);
	await s.browser.close();
}

// The run failed at step: say where and what the page said, keep a screenshot, exit 1.
async function failed(s, step, e) {
	console.error('FAIL at "' + step + '": ' + e.message);
	if (s.errors.length)
		console.error('page errors: ' + s.errors.join('; '));
	const said = await s.page.locator('.error').allTextContents().catch(() => []);
	if (said.length)
		console.error('the page said: ' + said.join('; '));
	await s.shot(s.page, 'failed').catch(() => {});
	await s.browser.close();
	process.exit(1);
}

module.exports = { open, noInjectedScript, waitUntil, passed, failed };

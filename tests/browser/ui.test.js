// The web UI followed as a user follows it, by visible labels, in Debian's Chromium
// driven by playwright-core. Run by tests/integration/serve_browser.sh, which starts the
// server and the workload and passes:
//   SLIDEOPS_URL   the URL serve printed (with the token)
//   UPLOAD_FILE    the workload's debug file (not DEBUG_FILE: playwright writes its log there), named "<script>app.debug"
//   WORKLOAD       the stripped workload's path (its name contains "<script>")
//   LOCKS_PROFILE  the id of a locks profile of threads contending one mutex in
//                  ledger_post (empty: this machine cannot capture locks)
//   THREADS_PROFILE  the id of a threads profile (empty: this machine cannot capture one)
//   MEMORY_PROFILE  the id of a memory profile (empty: this machine cannot capture one),
//                   MEMORY_OWNERS its groups with an owner's growth
//   ARTIFACTS      where screenshots go
'use strict';
const { chromium } = require('playwright-core');
const assert = require('assert');
const path = require('path');
const fs = require('fs');

const url = process.env.SLIDEOPS_URL;
const artifacts = process.env.ARTIFACTS;
const debugFile = process.env.UPLOAD_FILE;
const workload = process.env.WORKLOAD;
const workloadName = path.basename(workload);
fs.mkdirSync(artifacts, { recursive: true });
for (const f of fs.readdirSync(artifacts))
	if (f.endsWith('.png'))
		fs.unlinkSync(path.join(artifacts, f));

let step = 'start';
const errors = [];

async function shot(page, name) {
	await page.screenshot({ path: path.join(artifacts, name + '.png'), fullPage: true });
}

// No element came from a name: the page holds only its own one script.
async function noInjectedScript(page) {
	const n = await page.evaluate(() => document.querySelectorAll('script').length);
	assert.strictEqual(n, 1, 'a name became a <script> element');
	assert.strictEqual(await page.evaluate(() => window.__injected === undefined), true);
	const text = await page.evaluate(() => document.body.innerText);
	assert.ok(!/\[object |^null$/m.test(text), 'the page shows a value where an element belongs');
}

(async () => {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox'] });
	const page = await browser.newPage({ viewport: { width: 1366, height: 860 } });
	page.on('pageerror', e => errors.push(e.message));
	page.on('dialog', d => d.accept());
	page.setDefaultTimeout(20000);
	try {
		step = 'open the printed URL';
		await page.goto(url);
		assert.ok(!page.url().includes('token='), 'the token stays in the address bar');
		await page.getByRole('heading', { name: 'Servers' }).waitFor();
		await shot(page, '01-servers');

		step = 'open the server, Performance tab';
		await page.getByRole('table').getByRole('link').first().click();
		await page.getByRole('tab', { name: 'Performance' }).waitFor();
		// check loads every question's programs: seconds on a quiet machine, far more on a
		// loaded one.
		await page.getByText('This server can be profiled.').waitFor({ timeout: 120000 });
		await page.getByText('These figures are averages since each process started').waitFor();
		await page.getByText('What is holding memory and Where memory is allocated are not offered').waitFor();
		for (const q of ['What is using the CPU', 'Where time goes, including waiting',
			'What every thread is doing right now', 'What is waiting on locks', 'Where memory grows'])
			await page.getByRole('radio', { name: q }).waitFor({ state: 'attached' });
		await shot(page, '02-performance');
		// A snapshot of one moment takes no duration (GET /api/questions says which).
		const radio = name => page.getByRole('radio', { name });
		await radio('What every thread is doing right now').check();
		await page.getByLabel('Duration').waitFor({ state: 'hidden' });
		await radio('Where time goes, including waiting').check();
		await page.getByLabel('Duration').waitFor();

		step = 'capture: What is using the CPU, 10 seconds';
		await page.getByRole('radio', { name: 'What is using the CPU' }).check();
		await page.getByLabel('Duration').selectOption('10');
		await page.getByRole('button', { name: 'Capture' }).click();
		await page.getByRole('button', { name: 'Stop' }).waitFor();
		await page.waitForSelector('.progress[data-phase="sampling"]');
		await shot(page, '03-capturing');
		await page.waitForURL(/\/profiles\/[^/]+$/, { timeout: 90000 });

		step = 'read the answer';
		const answer = page.locator('#answer');
		await answer.waitFor();
		assert.match(await answer.textContent(), /^Over 1\d seconds?|^Over \d+ seconds, /);
		await page.waitForSelector('#flamegraph[data-ready="1"]');
		const card = page.locator('#stripped');
		await card.getByText(workloadName).waitFor();
		await page.locator('#groups').getByText('Unit web-billing.service').waitFor();
		await noInjectedScript(page);
		await shot(page, '04-profile');

		step = 'the flame graph keeps a bounded height beside deep stacks';
		const viewport = await page.locator('#flamegraph .flame-viewport').boundingBox();
		const graphHeight = Number(await page.locator('#flamegraph').getAttribute('data-height'));
		assert.ok(graphHeight > viewport.height + 100, 'the deep workload drew no graph taller ' +
			'than its viewport (' + graphHeight + ' px): this step proves nothing');
		assert.ok(viewport.height <= 700, 'the flame graph is ' + viewport.height + ' px tall');
		const table = await page.locator('table.functions').boundingBox();
		assert.ok(table.y - (viewport.y + viewport.height) < 600, 'the functions table is ' +
			Math.round(table.y - viewport.y - viewport.height) + ' px below the flame graph');

		step = 'colour by language';
		await page.getByLabel('Colour by').selectOption('group');
		await page.waitForSelector('#flamegraph[data-colour="group"]');
		await page.locator('.legend').getByText('Unit web-billing.service').waitFor();
		await page.getByLabel('Colour by').selectOption('language');
		await page.waitForSelector('#flamegraph[data-colour="language"]');
		await page.locator('.legend').getByText(/^C\/C\+\+ /).waitFor();
		await shot(page, '05-colour-by-language');

		step = 'hide system code';
		const fg = page.locator('#flamegraph');
		const nodes = Number(await fg.getAttribute('data-nodes'));
		await page.getByLabel('Hide system code').check();
		await page.waitForSelector('#flamegraph[data-hide-system="1"][data-colour="language"]');
		assert.ok(Number(await fg.getAttribute('data-nodes')) < nodes,
			'hiding system code folded no frame');
		await shot(page, '05b-hide-system-code');
		await page.getByLabel('Hide system code').uncheck();
		await page.waitForSelector('#flamegraph[data-hide-system="0"]');

		step = 'search highlights every match with their share';
		await page.getByLabel('Search').fill('^(ledger_settle_hot|post_invoices)$');
		await page.waitForSelector('#flamegraph[data-matched]');
		const before = await page.locator('#flamegraph').getAttribute('data-matched');
		assert.strictEqual(before, '0.0', 'the stripped functions matched by name before the upload');
		await page.getByLabel('Search').fill('');

		step = 'upload the debug file from the card';
		const profileUrl = page.url();
		await card.getByRole('button', { name: 'Upload debug symbols' }).waitFor();
		await card.locator('input[type=file]').setInputFiles(debugFile);
		step = 'see the names appear in that profile';
		await page.locator('table.functions').getByText('ledger_settle_hot').waitFor({ timeout: 30000 });
		await page.getByLabel('Search').fill('ledger_settle_hot');
		await page.waitForFunction(() => Number(document.querySelector('#flamegraph').dataset.matched) > 0);
		await page.goto(profileUrl);
		await page.locator('table.functions').getByText('ledger_settle_hot').waitFor();
		await shot(page, '06-named-after-upload');

		step = 'delete the upload in the Debug symbols panel';
		await page.getByRole('link', { name: 'Servers' }).click();
		await page.getByRole('table').getByRole('link').first().click();
		const panel = page.locator('#symbols');
		const row = panel.locator('tr', { hasText: '<script>app.debug' });
		await row.waitFor();
		await noInjectedScript(page);
		await shot(page, '07-debug-symbols');
		await row.getByRole('button', { name: 'Delete' }).click();
		await row.waitFor({ state: 'detached' });
		await panel.getByText('No debug symbols uploaded yet.').waitFor();

		step = 'compare two profiles';
		await page.getByRole('navigation').getByRole('link', { name: 'Profiles' }).click();
		step = 'the profile list comes a page at a time';
		const shown = page.getByText(/^Showing \d+ of \d+ profiles$/);
		await shown.waitFor();
		const [, first, all] = (await shown.textContent()).match(/Showing (\d+) of (\d+)/).map(Number);
		assert.ok(first === 50 && all > 60, 'the first page is ' + first + ' of ' + all);
		assert.strictEqual(await page.locator('table.profiles tbody tr').count(), 50);
		await page.getByRole('button', { name: 'Show more' }).click();
		await page.getByText('Showing ' + all + ' of ' + all + ' profiles').waitFor();
		assert.strictEqual(await page.locator('table.profiles tbody tr').count(), all);
		assert.ok(await page.getByRole('button', { name: 'Show more' }).isHidden(),
			'Show more stays after the last page');
		step = 'compare two profiles';
		await page.getByLabel('Question').selectOption('cpu');
		const boxes = page.locator('table.profiles input[type=checkbox]');
		await boxes.first().waitFor();
		await page.waitForFunction(() => [...document.querySelectorAll('table.profiles tbody tr')]
			.every(tr => tr.dataset.question === 'cpu'));
		assert.ok(await boxes.count() >= 2, 'fewer than two profiles to compare');
		await boxes.nth(0).check();
		await boxes.nth(1).check();
		assert.ok(await boxes.nth(2).count() === 0 || await boxes.nth(2).isDisabled(),
			'a third profile can still be chosen');
		await shot(page, '08-profiles');
		await page.getByRole('button', { name: 'Compare' }).click();
		await page.locator('#summary').waitFor();
		await page.waitForSelector('#flamegraph[data-ready="1"]');
		await page.locator('.legend').getByText('no change beyond sampling error').waitFor();
		assert.ok((await page.locator('#summary').textContent()).length > 10);
		await shot(page, '09-compare');

		step = 'compare shows a function only in the older profile';
		const diff = page.locator('#flamegraph');
		assert.ok(Number(await diff.getAttribute('data-gone')) > 0,
			'the diff flame graph drew no frame of the older profile alone');
		await page.locator('.legend').getByText(/^only in the older profile/).waitFor();
		await page.getByLabel('Search').fill('^retired_batch_job$');
		await page.waitForFunction(() => Number(document.querySelector('#flamegraph').dataset.matched) > 0,
			null, { timeout: 5000 }).catch(() => {
			throw new Error('retired_batch_job, only in the older profile, is not in the diff flame graph');
		});
		await shot(page, '09b-compare-gone');
		await page.getByLabel('Search').fill('');

		if (process.env.LOCKS_PROFILE) {
			step = 'a locks profile: locks by address';
			await page.getByRole('navigation').getByRole('link', { name: 'Profiles' }).click();
			await page.getByLabel('Question').selectOption('locks');
			await page.getByRole('link', { name: 'What is waiting on locks' }).first().click();
			const locks = page.locator('#locks');
			await locks.getByRole('heading', { name: 'Locks by address' }).waitFor();
			// The test's mutex (other processes of the machine may have waited longer).
			const first = locks.locator('tbody tr')
				.filter({ hasText: 'ledger_post' }).first();
			assert.match(await first.locator('td').first().textContent(), /^0x[0-9a-f]+$/);
			await first.getByText('futex', { exact: true }).waitFor();
			await first.locator('td.waiting').getByText('ledger_post').waitFor();
			// Who held it, beside the waiters: the clerks release it in ledger_post.
			await locks.locator('thead th', { hasText: 'Held by' }).waitFor();
			await first.locator('td.holders').getByText('ledger_post').waitFor();
			// The process's name holds "<script>": text, in the owner and waiter cells.
			await first.getByText(/^<script>lock \[\d+\]$/).first().waitFor();
			await noInjectedScript(page);
			await shot(page, '09c-locks-by-address');
		}

		if (process.env.THREADS_PROFILE) {
			step = 'a threads profile: the thread dump after the groups, before the flame graph';
			const threads = '/profiles/' + encodeURIComponent(process.env.THREADS_PROFILE);
			await page.goto(new URL(threads, page.url()).href);
			await page.getByRole('heading', { name: 'What every thread is doing right now' })
				.waitFor();
			await page.locator('#threads').getByRole('heading',
				{ name: 'Threads, by where they are' }).waitFor();
			await page.waitForSelector('#flamegraph[data-ready="1"]');
			const order = await page.evaluate(() =>
				['groups', 'threads', 'flamegraph', 'functions'].map(id => document.getElementById(id))
					.every((el, k, all) => el && (k === 0 || all[k - 1]
						.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)));
			assert.ok(order, 'the threads page does not show groups, threads, flame graph, ' +
				'functions in that order');
			assert.strictEqual(await page.locator('#running, #locks').count(), 0,
				'the threads page shows another question\'s view');
			await shot(page, '09d-threads');
		}

		if (process.env.MEMORY_PROFILE) {
			step = 'a memory profile: growth by owner after the groups, before the flame graph';
			const memory = '/profiles/' + encodeURIComponent(process.env.MEMORY_PROFILE);
			await page.goto(new URL(memory, page.url()).href);
			await page.getByRole('heading', { name: 'Where memory grows' }).waitFor();
			const owners = page.locator('#owner-growth');
			await owners.getByRole('heading', { name: 'Growth by owner, from start to end' }).waitFor();
			await owners.locator('thead th', { hasText: 'RSS grown' }).waitFor();
			await owners.locator('thead th', { hasText: 'File-backed grown' }).waitFor();
			assert.strictEqual(await owners.locator('tbody tr').count(),
				Number(process.env.MEMORY_OWNERS), 'not one row per owner of the document');
			assert.match(await owners.locator('tbody tr td.num').first().innerText(),
				/^[+\u2212]\d/, 'an owner\'s growth is not signed');
			await page.waitForSelector('#flamegraph[data-ready="1"]');
			const order = await page.evaluate(() =>
				['groups', 'owner-growth', 'flamegraph', 'functions'].map(id => document.getElementById(id))
					.every((el, k, all) => el && (k === 0 || all[k - 1]
						.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)));
			assert.ok(order, 'the memory page does not show groups, growth by owner, flame ' +
				'graph, functions in that order');
			await shot(page, '09e-memory-owners');
		}

		step = 'remove the profiler';
		await page.getByRole('link', { name: 'Servers' }).click();
		await page.getByRole('table').getByRole('link').first().click();
		await page.getByRole('button', { name: 'Remove the profiler' }).click();
		// The captures (the one above from this page too) installed the profiler.
		await page.getByText(/^Removed \/.*\/profiler \(\d+ files?, /).waitFor();
		await page.getByText('Kept the workspace: profiles, Services and debug symbols.').waitFor();
		await shot(page, '10-removed');

		assert.deepStrictEqual(errors, [], 'the page threw');
		console.log('ok: ' + fs.readdirSync(artifacts).length + ' screenshots in ' + artifacts);
		await browser.close();
	} catch (e) {
		console.error('FAIL at "' + step + '": ' + e.message);
		if (errors.length)
			console.error('page errors: ' + errors.join('; '));
		const said = await page.locator('.error').allTextContents().catch(() => []);
		if (said.length)
			console.error('the page said: ' + said.join('; '));
		await shot(page, 'failed').catch(() => {});
		await browser.close();
		process.exit(1);
	}
})();

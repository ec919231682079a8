// The web UI followed as a user follows it, by visible labels, in Debian's Chromium
// driven by playwright-core. Run by tests/integration/serve_browser.sh, which starts the
// server and the workload and passes:
//   SLIDEOPS_URL   the URL serve printed (with the token)
//   UPLOAD_FILE    the workload's debug file (not DEBUG_FILE: playwright writes its log there), named "<script>app.debug"
//   WORKLOAD       the stripped workload's path (its name contains "<script>")
//   LOCKS_PROFILE  the id of a locks profile of threads contending one mutex in
//                  ledger_post (empty: this machine cannot capture locks)
//   THREADS_PROFILE  the id of a threads profile (empty: this machine cannot capture one)
//   WALL_PROFILE   the id of a wall profile of threads spinning in spin_forever, three a
//                  CPU, and threads napping in nap_between_work (empty: this machine
//                  cannot capture wall)
//   MEMORY_PROFILE  the id of a memory profile (empty: this machine cannot capture one),
//                   MEMORY_OWNERS its groups with an owner's growth
//   ARTIFACTS      where screenshots go
'use strict';
const session = require('./session');
const assert = require('assert');
const path = require('path');

const url = process.env.SLIDEOPS_URL;
const artifacts = process.env.ARTIFACTS;
const debugFile = process.env.UPLOAD_FILE;
const workload = process.env.WORKLOAD;
const workloadName = path.basename(workload);

let step = 'start';
let s = null; // the browser session (./session.js)

const shot = (page, name) => s.shot(page, name);

// The canvas pixels the search paints (its highlight, #e040fb), every one inside a box.
async function highlighted(page) {
	return page.evaluate(() => {
		const c = document.querySelector('#flamegraph canvas');
		const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		const at = [];
		for (let k = 0; k < px.length; k += 4)
			if (px[k] === 0xe0 && px[k + 1] === 0x40 && px[k + 2] === 0xfb &&
				px[k + 3] === 255)
				at.push(k);
		return at;
	});
}

// Of those pixels, the share now drawn in the legend's colour of that key.
async function shareInLegendColour(page, at, key) {
	return page.evaluate(([at, key]) => {
		const swatch = document.querySelector('#flamegraph .legend span[data-key="' + key +
			'"] i');
		if (!swatch)
			return -1;
		const want = getComputedStyle(swatch).backgroundColor.match(/\d+/g).map(Number);
		const c = document.querySelector('#flamegraph canvas');
		const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
		const same = at.filter(k => px[k] === want[0] && px[k + 1] === want[1] &&
			px[k + 2] === want[2]).length;
		return at.length ? same / at.length : 0;
	}, [at, key]);
}

// The boxes of the functions re matches, drawn in the colour the legend gives key.
async function boxesInColour(page, re, key) {
	await page.getByLabel('Search').fill(re);
	await page.waitForSelector('#flamegraph[data-matched]');
	const at = await highlighted(page);
	assert.ok(at.length > 100, 'no box of ' + re + ' in the flame graph');
	await page.getByLabel('Search').fill('');
	await session.waitUntil(page, () => !document.querySelector('#flamegraph').dataset.matched);
	const share = await shareInLegendColour(page, at, key);
	assert.ok(share >= 0, 'the legend has no ' + key);
	assert.ok(share >= 0.9, 'only ' + Math.round(share * 100) + '% of the boxes of ' + re +
		' are drawn in the colour of ' + key);
}

(async () => {
	s = await session.open(artifacts, 20000);
	const page = s.page;
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
		await session.noInjectedScript(page);
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
		await session.waitUntil(page, () => Number(document.querySelector('#flamegraph').dataset.matched) > 0);
		await page.goto(profileUrl);
		await page.locator('table.functions').getByText('ledger_settle_hot').waitFor();
		await shot(page, '06-named-after-upload');

		step = 'delete the upload in the Debug symbols panel';
		await page.getByRole('link', { name: 'Servers' }).click();
		await page.getByRole('table').getByRole('link').first().click();
		const panel = page.locator('#symbols');
		const row = panel.locator('tr', { hasText: '<script>app.debug' });
		await row.waitFor();
		await session.noInjectedScript(page);
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
		await session.waitUntil(page, () => [...document.querySelectorAll('table.profiles tbody tr')]
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
		await session.waitUntil(page, () => Number(document.querySelector('#flamegraph').dataset.matched) > 0,
			null, 5000).catch(() => {
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
			await session.noInjectedScript(page);
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

		if (process.env.WALL_PROFILE) {
			step = 'a wall profile: Colour by Why it waited';
			const wall = '/profiles/' + encodeURIComponent(process.env.WALL_PROFILE);
			await page.goto(new URL(wall, page.url()).href);
			await page.waitForSelector(
				'#flamegraph[data-ready="1"][data-colour="language"]');
			const legend = page.locator('#flamegraph .legend');
			await legend.getByText(/^C\/C\+\+ /).waitFor();
			await page.getByLabel('Colour by').selectOption({ label: 'Why it waited' });
			await page.waitForSelector('#flamegraph[data-colour="reason"]');
			await legend.getByText(/^waited for a CPU \d/).waitFor();
			await legend.getByText(/^asleep \d/).waitFor();
			await legend.getByText(/^ran on a CPU \d/).waitFor();
			await shot(page, '09e-wall-why-it-waited');
			step = 'the oversubscribed spinners take the colour of waiting for a CPU';
			await boxesInColour(page, '^spin_forever$', 'runqueue');
			step = 'the nappers take the colour of sleep';
			await boxesInColour(page, '^nap_between_work$', 'sleep');
			step = 'back to Language';
			await page.getByLabel('Colour by').selectOption('language');
			await page.waitForSelector('#flamegraph[data-colour="language"]');
			await legend.getByText(/^C\/C\+\+ /).waitFor();
			assert.strictEqual(await legend.getByText(/^waited for a CPU/).count(), 0,
				'the legend of Language still shows why threads waited');
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
			await shot(page, '09f-memory-owners');
		}

		step = 'remove the profiler';
		await page.getByRole('link', { name: 'Servers' }).click();
		await page.getByRole('table').getByRole('link').first().click();
		await page.getByRole('button', { name: 'Remove the profiler' }).click();
		// The captures (the one above from this page too) installed the profiler.
		await page.getByText(/^Removed \/.*\/profiler \(\d+ files?, /).waitFor();
		await page.getByText('Kept the workspace: profiles, Services and debug symbols.').waitFor();
		await shot(page, '10-removed');

		await session.passed(s);
	} catch (e) {
		await session.failed(s, step, e);
	}
})();

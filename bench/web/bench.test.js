// Opens both pages in Chromium and prints the figures (milliseconds).
'use strict';
const { chromium } = require('playwright-core');
(async () => {
	const base = process.argv[2];
	const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const runs = Number(process.env.RUNS || 3);
	const ours = [], zooms = [], theirs = [];
	for (let r = 0; r < runs; r++) {
		let p = await b.newPage({ viewport: { width: 1366, height: 860 } });
		await p.goto(base + '/bench.html');
		await p.waitForFunction(() => window.zoom !== undefined, null, { timeout: 120000 });
		ours.push(await p.evaluate(() => window.firstRender));
		zooms.push(await p.evaluate(() => window.zoom));
		await p.close();
		// speedscope: from the start of its page to its flame graph's canvas being drawn
		// with the profile (its name in the toolbar, then two frames).
		p = await b.newPage({ viewport: { width: 1366, height: 860 } });
		await p.goto(base + '/speedscope/index.html#profileURL=' + encodeURIComponent(base + '/stacks.folded'));
		await p.getByText('stacks.folded').first().waitFor({ timeout: 120000 });
		await p.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
		theirs.push(await p.evaluate(() => performance.now()));
		await p.close();
	}
	const med = a => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
	console.log(JSON.stringify({ ours: med(ours), zoom: med(zooms), speedscope: med(theirs) }));
	await b.close();
})();

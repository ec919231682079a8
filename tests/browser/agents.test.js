// Servers of a workspace in the browser, followed by visible labels as a user follows
// them (playwright-core driving Debian's Chromium). Run by
// tests/integration/serve_browser_agents.sh, which starts the workspace and passes:
//   SLIDEOPS_URL   the URL serve printed (with the token)
//   FAKE_NAME      the name of a server enrolled with crafted messages (markup in it)
//   AGENT          a slideops binary with the agent command ("" : none in this build)
//   AGENT_DATA     the agent's data directory
//   WORKLOAD_FN    a function the workload running on this machine spends its time in
//   ARTIFACTS      where screenshots go
// Add a server shows the command to run and when its token expires; with an agent, the
// command as the page shows it enrols it, the server shows connected, its Performance
// tab checks, captures (its profile names the workload's function) and the Profiles
// page filters by it; Remove this server stops its agent.
'use strict';
const session = require('./session');
const { spawn } = require('child_process');
const assert = require('assert');

const url = process.env.SLIDEOPS_URL;
const artifacts = process.env.ARTIFACTS;
const agentBin = process.env.AGENT;
const agentName = 'web-agent';

let step = 'start';
let s = null; // the browser session (./session.js)
let agent = null;

const shot = (page, name) => s.shot(page, name);

// The Servers page until the row of name says status (the agent polls in its own time).
async function waitForStatus(page, name, status) {
	for (let i = 0; i < 60; i++) {
		await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
		await page.getByRole('heading', { name: 'Servers' }).waitFor();
		const row = page.getByRole('row').filter({ has: page.getByRole('link',
			{ name, exact: true }) });
		if (await row.count() && (await row.first().getAttribute('data-status')) === status)
			return row.first();
		await page.waitForTimeout(1000);
	}
	throw new Error(name + ' did not show ' + status);
}

(async () => {
	s = await session.open(artifacts, 30000);
	const page = s.page;
	try {
		step = 'the Servers page';
		await page.goto(url);
		await page.getByRole('heading', { name: 'Servers' }).waitFor();
		await page.locator('table.servers').waitFor();
		assert.deepStrictEqual(await page.locator('table.servers thead th').allTextContents(),
			['Server', 'Status', 'Last seen', 'Kernel', 'Profiled by']);
		// The crafted server's name is text, not markup.
		await page.getByRole('link', { name: process.env.FAKE_NAME, exact: true }).waitFor();
		await session.noInjectedScript(page);

		step = 'Add a server';
		await page.getByRole('button', { name: 'Add a server' }).click();
		const cmd = page.getByLabel('Command to run');
		await cmd.waitFor();
		const command = (await cmd.textContent()).trim();
		const origin = new URL(page.url()).origin;
		assert.match(command, new RegExp('^slideops agent --workspace ' +
			origin.replace(/[.]/g, '\\.') + ' --enrol-token [0-9a-f]{64}$'));
		await page.getByText(/The token in it works once, and until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
			.waitFor();
		await shot(page, '01-add-a-server');

		if (!agentBin) {
			console.log('ok (no agent command in this build: Add a server only)');
			await session.passed(s);
			return;
		}

		step = 'run the command the page shows';
		const args = command.split(' ').slice(1).concat(['--name', agentName, '--data',
			process.env.AGENT_DATA]);
		agent = spawn(agentBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
		let agentSaid = '';
		agent.stdout.on('data', d => { agentSaid += d; });
		agent.stderr.on('data', d => { agentSaid += d; });
		const agentExit = new Promise(resolve => agent.on('exit', code => resolve(code)));
		const row = await waitForStatus(page, agentName, 'connected');
		assert.match(await row.textContent(), /Connected/);
		await shot(page, '02-agent-connected');

		step = 'its Performance tab';
		await row.getByRole('link', { name: agentName }).click();
		await page.getByRole('tab', { name: 'Performance' }).waitFor();
		// Through the agent, which answers in turn: its first check loads every question's
		// programs (seconds on a quiet machine, a minute on a loaded one); the API waits
		// up to 150 s for a check and 45 s for top.
		await page.getByText('This server can be profiled.').waitFor({ timeout: 200000 });
		await page.getByText('These figures are averages since each process started')
			.waitFor({ timeout: 100000 });
		await shot(page, '03-agent-performance');

		step = 'capture on the agent\'s server: What is using the CPU, 10 seconds';
		await page.getByRole('radio', { name: 'What is using the CPU' }).check();
		await page.getByLabel('Duration').selectOption('10');
		await page.getByRole('button', { name: 'Capture' }).click();
		await page.getByRole('button', { name: 'Stop' }).waitFor();
		await shot(page, '04-agent-capturing');
		await page.waitForURL(/\/profiles\/[^/]+$/, { timeout: 90000 });
		await page.getByText(process.env.WORKLOAD_FN).first().waitFor();
		await session.noInjectedScript(page);
		await shot(page, '05-agent-profile');

		step = 'Profiles, filtered by the agent\'s server';
		await page.getByRole('navigation').getByRole('link', { name: 'Profiles' }).click();
		await page.getByLabel('Server').selectOption({ label: agentName });
		await page.waitForURL(/server=web-agent/);
		await page.locator('table.profiles tbody tr').first().waitFor();
		const servers = await page.locator('table.profiles tbody tr td:nth-child(3)').allTextContents();
		assert.ok(servers.length >= 1 && servers.every(s => s === agentName),
			'the filter shows other servers\' profiles: ' + servers.join(', '));
		await shot(page, '06-profiles-of-agent');

		step = 'Remove this server';
		await waitForStatus(page, agentName, 'connected');
		await page.getByRole('link', { name: agentName, exact: true }).click();
		await page.getByRole('button', { name: 'Remove this server' }).click();
		await page.getByText('Removed. Its agent stops at its next poll.').waitFor();
		const code = await Promise.race([agentExit,
			new Promise(r => setTimeout(() => r('still running'), 60000))]);
		assert.notStrictEqual(code, 'still running', 'the removed server\'s agent did not stop: ' +
			agentSaid.slice(-400));
		// It cleaned up (the profiler, its spool, its credential) and said so.
		assert.strictEqual(code, 0, 'the removed server\'s agent exited ' + code + ': ' +
			agentSaid.slice(-600));
		agent = null;
		await waitForStatus(page, agentName, 'removed');
		await shot(page, '07-agent-removed');

		await session.passed(s);
	} catch (e) {
		if (agent)
			agent.kill('SIGTERM');
		await session.failed(s, step, e);
	}
})();

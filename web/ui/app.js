// The SlideOps web UI: one page, a few views, the API under /api/ (docs/api.md).
// Plain ES modules, no framework: see README.md beside this file for why. This file is
// the router: each address to its page (one module a page or two), and the start.
//
// Every name in a profile (process, function, file, upload file name) is set as text:
// elements are made with h() (dom.js), which only ever makes text nodes from strings.
// Nothing here assigns innerHTML.

import { h } from './dom.js';
import { comparePage } from './compare.js';
import { errorBox, link, main, setRouter, stopPolling } from './nav.js';
import { profilePage } from './profile.js';
import { profilesPage } from './profiles.js';
import { serverPage, serversPage } from './servers.js';

async function route() {
	stopPolling();
	const path = location.pathname;
	const m = main();
	m.textContent = '';
	document.querySelectorAll('nav a').forEach(a =>
		a.classList.toggle('current', path.startsWith(a.getAttribute('href')) ||
			(path === '/' && a.getAttribute('href') === '/servers')));
	try {
		let r;
		if (path === '/' || path === '/servers')
			await serversPage(m);
		else if ((r = path.match(/^\/servers\/([^/]+)$/)))
			await serverPage(m, decodeURIComponent(r[1]));
		else if (path === '/profiles')
			await profilesPage(m);
		else if ((r = path.match(/^\/profiles\/([^/]+)$/)))
			await profilePage(m, decodeURIComponent(r[1]));
		else if (path === '/compare')
			await comparePage(m);
		else
			m.append(h('h1', {}, 'Not found'), h('p', {}, 'There is no page here.'));
	} catch (e) {
		m.append(errorBox(e));
	}
	document.body.dataset.page = path;
}

// ---- start ----

setRouter(route);
window.addEventListener('popstate', route);
document.getElementById('nav-servers').replaceWith(link('/servers', 'Servers'));
document.getElementById('nav-profiles').replaceWith(link('/profiles', 'Profiles'));
route();

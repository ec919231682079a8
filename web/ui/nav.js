// Moving between the UI's pages without reloading (history.pushState): links that
// navigate in place, the page's <main>, errors shown where they happened, and the one
// timer a page polls with, cleared when the user leaves it.

import { h } from './dom.js';

export const main = () => document.getElementById('main');

let router = () => {};
let pollTimer = 0;

// route(): draws the page of the address; app.js sets it.
export function setRouter(route) {
	router = route;
}

// fn after ms, unless the user goes to another page first.
export function poll(fn, ms) {
	pollTimer = setTimeout(fn, ms);
}

export function stopPolling() {
	clearTimeout(pollTimer);
}

export function link(href, ...children) {
	const a = h('a', { href }, ...children);
	a.addEventListener('click', ev => {
		if (ev.button || ev.ctrlKey || ev.metaKey || ev.shiftKey)
			return;
		ev.preventDefault();
		go(href);
	});
	return a;
}

export function go(href) {
	history.pushState(null, '', href);
	router();
}

// Draws this page again, as it is now (after an upload named its functions).
export function reload() {
	router();
}

export function errorBox(e) {
	return h('p', { class: 'error', role: 'alert' }, e.message || String(e));
}

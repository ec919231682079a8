// What every module of the UI shares, and the standalone flame graph page too
// (web/flamegraph.html embeds it at build time): h(), which makes elements and only
// ever makes text nodes from strings, so a name is always text.

export function h(tag, attrs, ...children) {
	const el = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === false || v === null || v === undefined)
			continue;
		el.setAttribute(k, v === true ? '' : v);
	}
	for (const c of children.flat()) {
		if (c === null || c === undefined || c === false)
			continue;
		el.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return el;
}

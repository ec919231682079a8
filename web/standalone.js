// The standalone flame graph page (`slideops show ID --flamegraph FILE.html`): the UI's
// own flame graph (web/ui/flame.js and what it imports), with the profile read from the
// page itself. Beside its template (web/flamegraph.html), not in web/ui/: the UI does
// not serve it.
// web/bundle.py inlines this module and those it imports into web/flamegraph.html at
// build time, so the file opens offline from file:// (where a module cannot load
// another file).
//
// A link may carry a colouring, a zoom and a search:
// FILE.html#colour=group&zoom=build_report&search=memcpy (colour: language, group, or
// reason for Why it waited where the profile says; zoom: the largest box of that
// name).

import { flameGraph } from './ui/flame.js';
import { amountFn } from './ui/flame_model.js';

function standalonePage() {
	const data = JSON.parse(document.getElementById('profile').textContent);
	const hash = new URLSearchParams(location.hash.slice(1));
	const colours = ['language', 'group', 'reason'];
	const colour = colours.includes(hash.get('colour')) ? hash.get('colour') :
		data.colour === 'group' ? 'group' : 'language';
	const total = data.value.length ? data.value[0] : 0;

	document.title = data.title + ' \u2014 ' + data.server;
	document.getElementById('title').textContent = data.title;
	document.getElementById('meta').textContent = data.server + ', ' + data.started_at +
		', ' + data.seconds + (data.seconds === 1 ? ' second' : ' seconds') + ', ' +
		amountFn(data)(total) + ' in all';
	document.getElementById('answer').textContent = data.answer;
	const fg = flameGraph(document.getElementById('fg'), data,
		{ colour, search: hash.get('search') || '', ids: true });
	if (hash.get('zoom'))
		fg.zoomTo(hash.get('zoom'));
}

standalonePage();

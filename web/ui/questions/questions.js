// The questions' own views in the UI, one module each (web/ui/questions/NAME.js), by the
// question's id: the UI's twin of src/questions/questions.def, in its order. A module
// exports `views`, { view name: doc => section or null }, for the views its question
// lists (GET /api/questions) beyond every question's (groups, flame graph, functions).
// Adding a question: its module here and its row below.

import * as cpu from './cpu.js';
import * as wall from './wall.js';
import * as threads from './threads.js';
import * as locks from './locks.js';
import * as memory from './memory.js';

const QUESTIONS = {
	cpu,
	wall,
	threads,
	locks,
	memory,
};

// The views of the question of id (none for a question this UI does not know).
export function questionViews(id) {
	return Object.hasOwn(QUESTIONS, id) ? QUESTIONS[id].views : {};
}

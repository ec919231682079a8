// The cpu question's page: no view of its own (its profile shows groups, the flame graph
// and functions, drawn by profile.js for every question). Reached through the UI's table
// of the questions (questions.js).

export const views = {};

/**
 * What the offline model's answers share: the line for tools switched off, the map line, the walking
 * pace and the line for a home no saved fact names.
 */

export const MAP_LINE = 'It is marked on the campus map that comes with this answer.';
export const WALK_METRES_PER_MINUTE = 80;

/** Where the user lives is asked for, and no saved fact says. */
export const UNKNOWN_HOME = 'I don\'t know where you live yet: tell me, for example, "Remember that I live in Stever House",';

/** The answer when the question needs campus tools the front end switched off. */
export const TOOLS_OFF =
  "The campus tools I would need for that are turned off for this conversation, so I can't look it up.";

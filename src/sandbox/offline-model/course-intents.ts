/**
 * Course questions without a course number (issue 78, item 3): what a course question asks of a course
 * (prerequisites, schedule, instructors, where it meets), the semester it asks about, and a course named
 * by its title, a shortening or a nickname ("the intro databases course", "intro to ML", "the systems
 * course"), as words the catalog search finds.
 */

export type CourseAspect = 'prereqs' | 'schedule' | 'instructors' | 'place';
export type Semester = 'Fall' | 'Spring' | 'Summer';

export function courseAspects(q: string): CourseAspect[] {
  const aspects: CourseAspect[] = [];
  if (/\b(pre-?req\w*|pre-?requisit\w*|requisites?|before taking|need to take|need before|required before)\b/i.test(q)) aspects.push('prereqs');
  if (/\b(when|schedule|times?|meets?|meeting|lectures?|what days?|where is the lecture|offered|available|semesters?)\b/i.test(q) || termAsked(q)) aspects.push('schedule');
  if (/\b(who teaches|instructors?|professors?|profs?|taught by|teacher|teaching)\b/i.test(q)) aspects.push('instructors');
  if (/\bwhere\b.*\b(lectures?|meets?|class|taught)\b|\b(which|what) (building|room)\b/i.test(q)) {
    aspects.push(...(aspects.includes('schedule') ? [] : (['schedule'] as const)), 'place');
  }
  return aspects;
}

/** A question that names a course by its title and asks about it: "the", "course" or "class", or "intro to …". */
const COURSE_NOUN = /\b(?:course|class|lecture|intro(?:duction)?\s+to)\b/i;
/** Words of a course question that are not its title. */
const NOT_TITLE = new Set(
  'course courses class classes lecture lectures room rooms building which where when what who whom meet meets meeting held time times schedule scheduled prereq prereqs prerequisite prerequisites requisites offered semester fall spring summer teaches teach taught teaching instructor instructors professor prof take taking need required before days day is are the a an in at of for does do did it its this that on me my i to about there'.split(' '),
);
/**
 * How students shorten course titles, as the catalog's words: "intro" is "introduction", "ML" machine
 * learning, "databases" database, "the systems course" Introduction to Computer Systems.
 */
const TITLE_WORDS: Record<string, string> = {
  intro: 'introduction', ml: 'machine learning', ai: 'artificial intelligence', db: 'database', dbs: 'database', databases: 'database',
  os: 'operating systems', algo: 'algorithms', algos: 'algorithms', calc: 'calculus', psych: 'psychology', econ: 'economics',
  micro: 'microeconomics', stats: 'statistics', stat: 'statistics', fp: 'functional programming', pl: 'programming languages',
  se: 'software engineering', hci: 'human centered', theory: 'theoretical', prob: 'probability', linalg: 'matrices linear',
  'linear algebra': 'matrices linear transformations', 'data structures': 'data structures algorithms',
};

/** "Which room is the intro databases course in?": a course by its title with what is asked of it, or null. */
export function courseTitleOf(q: string): { title: string; query: string; aspects: CourseAspect[]; term: Semester | null } | null {
  const aspects = courseAspects(q);
  if (aspects.length === 0 || !COURSE_NOUN.test(q)) return null;
  const words = (q.toLowerCase().match(/[\p{L}\p{N}'-]+/gu) ?? []).filter((w) => !NOT_TITLE.has(w) && !/^\d/.test(w));
  if (words.length === 0) return null;
  const title = words.join(' ');
  // The shortening of two words first ("linear algebra"), then each word; "systems" alone is the systems course.
  let query = title;
  for (const [short, long] of Object.entries(TITLE_WORDS).sort((a, b) => b[0].length - a[0].length)) query = query.replace(new RegExp(`\\b${short}\\b`, 'g'), long);
  if (query === 'systems') query = 'introduction computer systems';
  return { title, query, aspects, term: termAsked(q) };
}

/** The semester a course question asks about ("is 15-112 offered in spring?"). */
export function termAsked(q: string): Semester | null {
  const m = /\b(fall|autumn|spring|summer)\b/i.exec(q);
  if (!m) return null;
  const word = m[1]!.toLowerCase();
  return word === 'spring' ? 'Spring' : word === 'summer' ? 'Summer' : 'Fall';
}

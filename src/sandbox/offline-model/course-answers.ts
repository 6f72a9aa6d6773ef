/**
 * The offline model's course answers: a course's details, prerequisites and schedule, courses on a
 * topic, and gen-eds, written from the course tools' results.
 */
import type { Conversation } from './conversation.js';
import type { Intent } from './intents.js';
import { clock12Of } from '../campus/dining-hours.js';
import { failed, lectureOf, mapShown, outcome, parseJson, schedulesOf } from './tool-readings.js';
import { prereqVerdict } from './prereq-check.js';
import { MAP_LINE, notLookedUp } from './answer-parts.js';
import { coverage } from './retrieve.js';

const WEEKDAY: Record<string, string> = { M: 'Mon', T: 'Tue', W: 'Wed', R: 'Thu', F: 'Fri', S: 'Sat', U: 'Sun' };

export function courseAnswer(intent: Extract<Intent, { kind: 'course' }>, conv: Conversation): string {
  const byId = outcome(conv, 'courses_fetch_course_by_id');
  if (!byId && conv.done.length === 0) return notLookedUp(conv, 'courses');
  const course = byId && !failed(byId.result) ? (parseJson(byId.result) as Record<string, unknown> | undefined) : undefined;
  if (byId && !course) {
    return /not found/i.test(byId.result) || !failed(byId.result)
      ? `I couldn't find course ${intent.courseId} in the course catalog. Check the number (for example 15-122).`
      : `I couldn't look up course ${intent.courseId} just now; please try again in a moment.`;
  }
  const lines: string[] = [];
  const facts: string[] = [];
  if (course) {
    lines.push(`### ${course.courseID} ${course.name}`, '', `${course.units} units · ${course.department}`, '', String(course.desc), '');
    facts.push(course.prereqString ? `- **Prerequisites:** ${course.prereqString}` : '- **Prerequisites:** none');
  }
  const reqs = outcome(conv, 'courses_fetch_course_requisites');
  const reqData = reqs && !failed(reqs.result) ? (parseJson(reqs.result) as { postreqs?: string[]; prereqRelations?: string[][] } | undefined) : undefined;
  if (reqData?.postreqs?.length) facts.push(`- **Leads to:** ${reqData.postreqs.join(', ')}`);
  // "Can I take 15-213 without 15-122?": the yes or no first, from the requisites.
  if (intent.prereqCheck && course && reqData?.prereqRelations) {
    lines.unshift(prereqVerdict(intent.prereqCheck, `**${course.courseID} ${course.name}**`, reqData.prereqRelations), '');
  }
  const terms = schedulesOf(conv);
  const asked = intent.term ? terms?.find((t) => t.semester === intent.term) : undefined;
  const lecture = lectureOf(conv, intent.term);
  const name = course ? `**${course.courseID} ${course.name}**` : `**${intent.courseId}**`;
  if (intent.term && terms) {
    // The question asked comes first: is it offered that semester?
    const listed = [...new Set(terms.map((t) => `${t.semester} ${t.year}`))].join(' and ');
    lines.unshift(
      asked
        ? `Yes: ${name} is offered in ${asked.semester} ${asked.year}.`
        : `The schedule data lists ${name} only in ${listed || 'no semester'}, not in ${intent.term}; check the Schedule of Classes when the ${intent.term.toLowerCase()} schedule is published.`,
      '',
    );
  }
  if (lecture) {
    const days = lecture.days.map((d) => WEEKDAY[d] ?? d).join('/');
    facts.push(`- **Lecture (${lecture.semester} ${lecture.year}):** ${days} ${clock12Of(lecture.begin)} - ${clock12Of(lecture.end)} in ${lecture.building} ${lecture.room}`);
    const map = intent.aspects.includes('place') ? mapShown(conv) : null;
    if (map) lines.unshift(`${name} meets in **${lecture.building} ${lecture.room}**, in ${map.destination}. ${MAP_LINE}`, '');
  }
  const who = outcome(conv, 'courses_fetch_course_instructors');
  const names = who && !failed(who.result) ? (parseJson(who.result) as string[] | undefined) : undefined;
  if (names?.length) facts.push(`- **Taught by:** ${names.join(', ')}`);
  if (lines.length === 0 && facts.length === 0) return `I couldn't look up course ${intent.courseId} just now; please try again in a moment.`;
  return [...lines, ...facts].join('\n').trim();
}

/**
 * A course named by its title (issue 78): the catalog search's best match, said as the course taken
 * ("I took "intro databases" to be 15-445 Database Systems"), with the others that fit the words as
 * well, then what was asked of it.
 */
export function courseTitleAnswer(intent: Extract<Intent, { kind: 'course-title' }>, conv: Conversation): string {
  const found = outcome(conv, 'courses_search_courses_by_query', { query: intent.query });
  if (!found) return notLookedUp(conv, 'courses');
  if (failed(found.result)) return "I couldn't search the course catalog just now; please try again in a moment.";
  const courses = parseJson(found.result);
  if (!Array.isArray(courses) || courses.length === 0) {
    return `I didn't find a course called "${intent.title}" in the course catalog. Try its number (for example 15-445) or other words from its title.`;
  }
  const [top, ...rest] = courses as CourseJson[];
  const fit = (c: CourseJson) => coverage(intent.query, `${c.name} ${c.courseID}`);
  const alike = rest.filter((c) => fit(c) >= fit(top!)).slice(0, 3);
  const lead = alike.length > 0
    ? `I took "${intent.title}" to be **${top!.courseID} ${top!.name}**; ${alike.map((c) => `${c.courseID} ${c.name}`).join(' and ')} ${alike.length > 1 ? 'fit' : 'fits'} too: ask with its number for ${alike.length > 1 ? 'one of those' : 'that one'}.`
    : `I took "${intent.title}" to be **${top!.courseID} ${top!.name}**.`;
  return [lead, '', courseAnswer({ kind: 'course', courseId: top!.courseID, aspects: intent.aspects, term: intent.term }, conv)].join('\n');
}

interface CourseJson {
  courseID: string;
  name: string;
  units: string;
  desc?: string;
  tags?: string[];
}

export function courseSearchAnswer(topic: string, conv: Conversation): string {
  const searches = conv.done.filter((d) => d.name === 'courses_search_courses_by_query');
  if (searches.length === 0) return notLookedUp(conv, 'courses');
  if (searches.every((s) => failed(s.result))) return "I couldn't search the course catalog just now; please try again in a moment.";
  const found = searches.map((s) => parseJson(s.result)).find((l): l is CourseJson[] => Array.isArray(l) && l.length > 0);
  if (!found) return `I didn't find a course about "${topic}" in the catalog. Try another word, or a course number such as 15-122.`;
  const who = parseJson(outcome(conv, 'courses_fetch_course_instructors')?.result ?? '');
  const lead = Array.isArray(who) && who.length > 0 ? [`**${found[0]!.courseID} ${found[0]!.name}** is taught by ${who.join(' and ')}.`, ''] : [];
  return [...lead, `### Courses about ${topic}`, '', ...found.slice(0, 8).map((c) => `- **${c.courseID} ${c.name}** (${c.units} units): ${c.desc ?? ''}`.trim())].join('\n');
}

const SCHOOL_NAMES: Record<string, string> = {
  DC: 'Dietrich College',
  SCS: 'the School of Computer Science',
  MCS: 'Mellon College of Science',
  CIT: 'the College of Engineering',
  TSB: 'the Tepper School of Business',
  CFA: 'the College of Fine Arts',
};

export function genedsAnswer(intent: Extract<Intent, { kind: 'geneds' }>, conv: Conversation): string {
  const result = conv.done.find((d) => d.name.startsWith('courses_fetch_geneds'));
  if (!result) return notLookedUp(conv, 'courses');
  if (failed(result.result)) return "I couldn't check the gen-ed courses just now; please try again in a moment.";
  const list = parseJson(result.result);
  const school = intent.school ? (SCHOOL_NAMES[intent.school] ?? intent.school) : null;
  const scope = [intent.department ? `${intent.department} ` : '', 'gen eds', school ? ` in ${school}` : ''].join('');
  if (!Array.isArray(list) || list.length === 0) return `I didn't find any ${scope} in the course catalog.`;
  const items = (list as CourseJson[]).slice(0, 10).map((c) => `- **${c.courseID} ${c.name}** (${c.units} units): ${(c.tags ?? []).join(', ')}`);
  const note = intent.school ? [] : ['', 'Gen-ed requirements differ by school: ask, for example, "What gen eds can I take in Dietrich?"'];
  return [`### ${scope.charAt(0).toUpperCase()}${scope.slice(1)}`, '', ...items, ...note].join('\n');
}

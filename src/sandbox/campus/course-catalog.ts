/**
 * Queries over the sandbox courses, in the JSON shapes of the production `courses_*` tools: lookup by
 * id (with "15122" normalised to "15-122"), requisites with their reverse (postreqs), full-text search,
 * schedules and gen-eds.
 */
import { SANDBOX_COURSES, type SandboxCourse } from './data/courses.js';
import { textIndex } from './text-search.js';

/** The semesters of the sample schedules: every course in the fall, some again in the spring. */
const FALL = { year: 2026, semester: 'Fall' } as const;
const SPRING = { year: 2027, semester: 'Spring' } as const;

/** "15122", "15-122", " 15 122 " → "15-122"; null when it is not a course number. */
export function normaliseCourseId(input: string): string | null {
  const m = /^\s*(\d{2})\s*-?\s*(\d{3})\s*$/.exec(input);
  return m ? `${m[1]}-${m[2]}` : null;
}

export function findCourse(id: string): SandboxCourse | null {
  const normal = normaliseCourseId(id);
  return (normal && SANDBOX_COURSES.find((c) => c.courseID === normal)) || null;
}

function prereqString(c: SandboxCourse): string {
  return c.prereqs.map((g) => (g.length > 1 ? `(${g.join(' or ')})` : g[0])).join(' and ');
}

/** The course object of `courses_fetch_course_by_id`; schedules added on request. */
export function courseJson(c: SandboxCourse, withSchedules = false) {
  const base = {
    courseID: c.courseID,
    name: c.name,
    department: c.department,
    units: c.units,
    desc: c.desc,
    prereqs: [...new Set(c.prereqs.flat())],
    prereqString: prereqString(c),
    coreqs: c.coreqs,
    crosslisted: c.crosslisted,
  };
  return withSchedules ? { ...base, schedules: schedulesJson(c) } : base;
}

export function requisitesJson(c: SandboxCourse) {
  return {
    prereqs: [...new Set(c.prereqs.flat())],
    prereqRelations: c.prereqs,
    postreqs: SANDBOX_COURSES.filter((o) => o.prereqs.some((g) => g.includes(c.courseID))).map((o) => o.courseID),
  };
}

export function schedulesJson(c: SandboxCourse) {
  const lecture = c.lecture;
  const term = (semester: typeof FALL | typeof SPRING) => ({
    ...semester,
    instructors: c.instructors,
    lectures: [{ name: 'Lec 1', instructors: c.instructors, times: [lecture] }],
    // One recitation on Fridays after the lecture slot, in the same building.
    sections: [
      {
        name: 'A',
        instructors: [],
        times: [{ days: ['F'], begin: '14:00', end: '14:50', building: lecture.building, room: lecture.room }],
      },
    ],
  });
  return c.spring ? [term(FALL), term(SPRING)] : [term(FALL)];
}

const COURSE_INDEX = textIndex(SANDBOX_COURSES, {
  name: { text: (c) => c.name, boost: 3 },
  department: { text: (c) => c.department, boost: 2 },
  instructors: { text: (c) => c.instructors.join(' '), boost: 2 },
  desc: { text: (c) => c.desc },
});

/** Courses by number, or by title, department, instructor and description words (text-search.ts), best first. */
export function searchCourses(query: string, limit = 10): SandboxCourse[] {
  const id = normaliseCourseId(query);
  if (id) return SANDBOX_COURSES.filter((c) => c.courseID === id);
  return COURSE_INDEX.search(query, limit).map((hit) => hit.item);
}

/** Gen-ed courses of one school (all schools when omitted), optionally of one department. */
export function genedsJson(school: string | undefined, department?: string) {
  const dept = department?.trim().toLowerCase();
  return SANDBOX_COURSES.filter((c) => {
    const tags = school ? c.geneds[school.toUpperCase()] : Object.values(c.geneds).flat();
    if (!tags || tags.length === 0) return false;
    return !dept || c.department.toLowerCase().includes(dept) || c.courseID.startsWith(`${dept}-`);
  }).map((c) => ({
    courseID: c.courseID,
    name: c.name,
    units: c.units,
    desc: c.desc,
    tags: [...new Set(school ? c.geneds[school.toUpperCase()] ?? [] : Object.values(c.geneds).flat())],
  }));
}

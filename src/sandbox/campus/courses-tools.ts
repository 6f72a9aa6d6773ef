/**
 * The sandbox's `courses` group: production tool names and argument names, JSON results over the
 * sample courses. An unknown course is an error result, as in production; unknown ids in a batch are
 * left out.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { courseJson, findCourse, genedsJson, requisitesJson, schedulesJson, searchCourses } from './course-catalog.js';
import { errorResult, jsonResult } from './tool-results.js';

const ID_ARG = '    course_id: Course number such as "15-122" (or "15122").';

/** Runs `fn` on the course, or answers the production-style error result for an unknown one. */
function withCourse(tool: string, id: string, fn: (c: NonNullable<ReturnType<typeof findCourse>>) => unknown) {
  const course = findCourse(id);
  if (!course) return errorResult(tool, `Course '${id}' not found`);
  return jsonResult(fn(course));
}

/** Registers the eight courses tools on a server. */
export function registerCoursesTools(server: McpServer): void {
  server.registerTool(
    'courses_fetch_course_by_id',
    {
      description: `Fetch one course by its number.\n\nArgs:\n${ID_ARG}\n\nReturns the course with name, units, description and requisites.`,
      inputSchema: { course_id: z.string() },
    },
    async ({ course_id }) => withCourse('courses_fetch_course_by_id', course_id, (c) => courseJson(c)),
  );

  server.registerTool(
    'courses_fetch_courses_by_ids',
    {
      description:
        'Fetch several courses at once.\n\nArgs:\n    course_ids: List of course numbers.\n    schedules: Include this semester\'s schedules (default false).',
      inputSchema: { course_ids: z.array(z.string()), schedules: z.boolean().default(false) },
    },
    async ({ course_ids, schedules }) =>
      jsonResult(course_ids.map(findCourse).filter((c) => c !== null).map((c) => courseJson(c, schedules))),
  );

  server.registerTool(
    'courses_fetch_course_requisites',
    {
      description: `Prerequisites of a course and the courses it unlocks.\n\nArgs:\n${ID_ARG}`,
      inputSchema: { course_id: z.string() },
    },
    async ({ course_id }) => withCourse('courses_fetch_course_requisites', course_id, requisitesJson),
  );

  server.registerTool(
    'courses_search_courses_by_query',
    {
      description: 'Search courses by number, title, department or description words.\n\nArgs:\n    query: Search text.',
      inputSchema: { query: z.string() },
    },
    async ({ query }) => jsonResult(searchCourses(query).map((c) => courseJson(c))),
  );

  server.registerTool(
    'courses_fetch_course_instructors',
    {
      description: `Instructors who teach a course.\n\nArgs:\n${ID_ARG}`,
      inputSchema: { course_id: z.string() },
    },
    async ({ course_id }) => withCourse('courses_fetch_course_instructors', course_id, (c) => c.instructors),
  );

  server.registerTool(
    'courses_fetch_course_schedules',
    {
      description: `Lecture and section times of a course.\n\nArgs:\n${ID_ARG}`,
      inputSchema: { course_id: z.string() },
    },
    async ({ course_id }) => withCourse('courses_fetch_course_schedules', course_id, schedulesJson),
  );

  server.registerTool(
    'courses_fetch_geneds_tool',
    {
      description: 'General-education courses of a school.\n\nArgs:\n    school: School code such as "DC" or "SCS" (optional).',
      inputSchema: { school: z.string().optional() },
    },
    async ({ school }) => jsonResult(genedsJson(school)),
  );

  server.registerTool(
    'courses_fetch_geneds_for_department_tool',
    {
      description:
        'General-education courses offered by one department.\n\nArgs:\n    department: Department name or number prefix.\n    school: School code (optional).',
      inputSchema: { department: z.string(), school: z.string().optional() },
    },
    async ({ department, school }) => jsonResult(genedsJson(school, department)),
  );
}

/**
 * Issue 14's table: natural student questions, as students write them (lower case, typos, follow-ups
 * with history), asked of the zero-config service: the real app and pipeline, the offline model through
 * the real `openai` gateway, the sandbox tool server over MCP on a fixed clock (a Wednesday at 12:30
 * campus time), real memory. Every row must call the tool a good model would, carry the sandbox's data
 * in the text, and read well: no canned fallback, no coordinates, 12-hour times only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import type { MemoryStore } from '../src/memory/store.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { OFFLINE_INTRO } from '../src/sandbox/offline-model/answers.js';
import { OFFLINE_BASE_URL, createOfflineModelFetch } from '../src/sandbox/offline-model/offline-fetch.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { toolGroupOf } from '../src/tools/tool-groups.js';
import { createTestDeps, testTurnMemory } from './support/deps.js';

const WEDNESDAY_LUNCH = new Date('2026-11-18T17:30:00Z'); // 12:30 in Pittsburgh

interface Row {
  q: string;
  /** Earlier turns of the conversation, user and assistant alternating (answers are read for what they name). */
  history?: string[];
  /** Facts saved for the user before the question. */
  facts?: string[];
  /** Campus tools that must be among services_used. */
  tools: string[];
  /** Texts the answer must contain. */
  has: Array<string | RegExp>;
  /** Texts it must not contain. */
  not?: Array<string | RegExp>;
  /** The map target, when a map must come with the answer. */
  map?: string;
}

const MAPS: Row[] = [
  { q: 'Where is Gates?', tools: ['maps_search_buildings'], has: ['**Gates & Hillman Centers** (GHC)'], map: 'GHC' },
  { q: 'where is wean hall', tools: ['maps_search_buildings'], has: ['**Wean Hall** (WEH)'], map: 'WEH' },
  { q: "where's the library?", tools: ['maps_search_buildings'], has: ['**Hunt Library** (HL)'], map: 'HL' },
  { q: 'wher is doherty hall', tools: ['maps_search_buildings'], has: ['**Doherty Hall** (DH)'], map: 'DH' },
  { q: 'Where is bakr hall?', tools: ['maps_search_buildings'], has: ['**Baker Hall** (BH)'], map: 'BH' },
  { q: 'where is GHC 4401', tools: ['maps_search_buildings'], has: ['**GHC 4401**', 'floor 4', '**Gates & Hillman Centers** (GHC)'], map: 'GHC' },
  { q: 'Where is the UC?', tools: ['maps_search_buildings'], has: ['**Cohon University Center** (CUC)'], map: 'CUC' },
  { q: 'where is morewood gardens', tools: ['maps_search_buildings'], has: ['**Morewood Gardens** (MOR)'], map: 'MOR' },
  { q: 'How far is Baker Hall from Gates?', tools: ['maps_search_buildings', 'maps_distance_between', 'maps_get_path'], has: [/\*\*Baker Hall\*\* \(BH\) is about \*\*\d+ m\*\* from \*\*Gates & Hillman Centers\*\* \(GHC\)/, /\d+-minute walk/], map: 'BH' },
  { q: 'How do I get from Wean Hall to the UC?', tools: ['maps_get_path', 'maps_distance_between'], has: ['### Walking from Wean Hall to Cohon University Center', /About \*\*\d+ m\*\*/, '1. Start at **Wean Hall** (WEH).', 'Arrive at **Cohon University Center** (CUC).'], map: 'CUC' },
  { q: 'directions from hunt library to doherty hall', tools: ['maps_get_path'], has: ['### Walking from Hunt Library to Doherty Hall', 'Walk about'], map: 'DH' },
  { q: 'how far is it from tepper to posner hall', tools: ['maps_distance_between'], has: ['**Posner Hall** (POS) is about', '**Tepper Building** (TEP)'], map: 'POS' },
  { q: 'distance between morewood gardens and gates', tools: ['maps_distance_between'], has: ['**Gates & Hillman Centers** (GHC) is about', 'from **Morewood Gardens** (MOR)'], map: 'GHC' },
  { q: 'how do i walk to scaife hall from wean', tools: ['maps_get_path'], has: ['### Walking from Wean Hall to Scaife Hall'], map: 'SH' },
  { q: 'what about Wean Hall?', history: ['How far is Baker Hall from Gates?', 'Baker Hall is about 100 m from Gates.'], tools: ['maps_distance_between'], has: ['**Wean Hall** (WEH) is about', 'from **Gates & Hillman Centers** (GHC)'], map: 'WEH' },
  { q: 'and what about hunt library?', history: ['where is gates', 'Gates is here.'], tools: ['maps_search_buildings'], has: ['**Hunt Library** (HL)'], map: 'HL' },
  { q: 'how about to porter hall', history: ['directions from wean hall to the uc', 'Walk east.'], tools: ['maps_get_path'], has: ['### Walking from Wean Hall to Porter Hall'], map: 'PH' },
];

const EATS: Row[] = [
  { q: 'What can I eat right now?', tools: ['eats_get_locations_open_now'], has: ['### Open on campus right now', '**Schatz Dining Room**', '7:30 AM - 8:00 PM'] },
  { q: 'anything open rn', tools: ['eats_get_locations_open_now'], has: ['**Schatz Dining Room**'] },
  { q: "i'm hungry, where can i get food", tools: ['eats_get_locations_open_now'], has: ['**Nourish**'] },
  { q: 'What is open on Sunday at 7 pm?', tools: ['eats_get_locations_open_at_time'], has: ['### Open Sunday at 7:00 PM', '**Tartan Pizza Co.**'], not: ['Gates Café'] },
  { q: 'whats open saturday at 9am', tools: ['eats_get_locations_open_at_time'], has: ['### Open Saturday at 9:00 AM', "**Scotty’s Market**"] },
  { q: 'and on Sunday?', history: ['what is open saturday at 7 pm', 'Several places.'], tools: ['eats_get_locations_open_at_time'], has: ['### Open Sunday at 7:00 PM'] },
  { q: 'Where can I get pizza?', tools: ['eats_get_locations_by_cuisine'], has: ['### Pizza on campus', '**Tartan Pizza Co.**'] },
  { q: 'any good sushi on campus', tools: ['eats_get_locations_by_cuisine'], has: ['**Sushi Sama**'] },
  { q: 'i need coffee', tools: ['eats_get_locations_by_cuisine'], has: ['### Coffee on campus', '**Gates Café**', '**Wean Coffee Bar**'] },
  { q: 'indian food?', tools: ['eats_get_locations_by_cuisine'], has: ['**Taste of India**'] },
  { q: 'what about tacos', history: ['where can i get pizza', 'Tartan Pizza Co.'], tools: ['eats_get_locations_by_cuisine'], has: ['**El Gallo de Oro**'] },
  { q: 'Is Nourish open on Saturday?', tools: ['eats_get_location_hours'], has: ['On Saturday, **Nourish** is open **11:00 AM - 3:00 PM**.', '- Monday: 10:30 AM - 7:00 PM'] },
  { q: 'nourish hours', tools: ['eats_get_location_hours'], has: ['**Nourish** (Cohon University Center, 1st floor) is open right now', '- Sunday: Closed'] },
  { q: 'when does schatz close', tools: ['eats_get_location_hours'], has: ['**Schatz Dining Room**', '- Friday: 7:30 AM - 8:00 PM'] },
  { q: 'is the exchange open sunday', tools: ['eats_get_location_hours'], has: ['**The Exchange** is closed on Sunday.'] },
  { q: 'what about sunday?', history: ['is nourish open on saturday', 'Yes.'], tools: ['eats_get_location_hours'], has: ['**Nourish** is closed on Sunday.'] },
  { q: 'Where can I eat in the UC?', tools: ['eats_get_all_dining_locations', 'maps_search_buildings'], has: ['### Dining in Cohon University Center', '**Schatz Dining Room**', '**El Gallo de Oro**'], not: ['Wean Coffee Bar'] },
  { q: 'food in tepper', tools: ['eats_get_all_dining_locations'], has: [/### Dining in Tepper( Building)?\n/, '**Stephanie’s Bakery**', '**Rohr Café**'] },
  { q: 'Lunch that fits my diet', facts: ['Is vegetarian'], tools: ['eats_get_locations_by_cuisine'], has: ["Since you're vegetarian", '**Nourish**', '**Taste of India**'] },
  { q: 'what can i eat right now', facts: ['Is vegetarian'], tools: ['eats_get_locations_open_now'], has: ["Since you're vegetarian, places with vegetarian options come first.", /### Open on campus right now\n\n- \*\*(Nourish|Tartan Pizza Co\.|Taste of India)\*\* \(vegetarian options\)/] },
  { q: 'lunch that fits my diet', tools: ['eats_get_locations_open_now'], has: ["I don't know your diet yet", '**Schatz Dining Room**'] },
];

const COURSES: Row[] = [
  { q: 'What are the prerequisites for 15-213?', tools: ['courses_fetch_course_by_id', 'courses_fetch_course_requisites'], has: ['### 15-213 Introduction to Computer Systems', '**Prerequisites:** 15-122', '**Leads to:** 15-440, 15-445'] },
  { q: 'prereqs for 15213 and who teaches it', tools: ['courses_fetch_course_instructors'], has: ['**Taught by:** Brian Railing, David Varodayan'] },
  { q: 'when does 15-122 meet', tools: ['courses_fetch_course_schedules'], has: ['**Lecture (Fall 2026):** Tue/Thu 11:00 AM - 12:20 PM in GHC 4401'] },
  { q: 'who teaches 15-150?', tools: ['courses_fetch_course_instructors'], has: ['Michael Erdmann'] },
  { q: 'tell me about 21-127', tools: ['courses_fetch_course_by_id'], has: ['### 21-127 Concepts of Mathematics', '**Prerequisites:** none'] },
  { q: 'what about 15-150?', history: ['what are the prereqs for 15-210', '15-122 and 15-150.'], tools: ['courses_fetch_course_requisites'], has: ['**Prerequisites:** 15-112 and (21-127 or 15-151)'] },
  { q: 'what do i need before taking 10-301', tools: ['courses_fetch_course_requisites'], has: ['15-122 and (21-127 or 15-151)'] },
  { q: 'Are there any machine learning courses?', tools: ['courses_search_courses_by_query'], has: ['### Courses about machine learning', '**10-301 Introduction to Machine Learning**'] },
  { q: 'classes about databases', tools: ['courses_search_courses_by_query'], has: ['**15-445 Database Systems**'] },
  { q: 'which class teaches python', tools: ['courses_search_courses_by_query'], has: ['**15-112 Fundamentals of Programming and Computer Science**'] },
  { q: 'any AI courses?', tools: ['courses_search_courses_by_query'], has: ['**15-281 Artificial Intelligence: Representation and Problem Solving**'] },
  { q: 'courses on distributed systems', tools: ['courses_search_courses_by_query'], has: ['**15-440 Distributed Systems**'] },
  { q: 'What gen eds can I take in Dietrich?', tools: ['courses_fetch_geneds_tool'], has: ['### Gen eds in Dietrich College', '**76-101 Interpretation and Argument**', 'First-Year Writing'] },
  { q: 'scs gen eds', tools: ['courses_fetch_geneds_tool'], has: ['the School of Computer Science', '**79-104 Global Histories**'] },
  { q: 'history gen eds for dietrich', tools: ['courses_fetch_geneds_for_department_tool'], has: ['**79-104 Global Histories**', 'Cultural/Global Understanding'], not: ['76-101'] },
  { q: 'what about psychology?', history: ['What gen eds can I take in Dietrich?', 'Several.'], tools: ['courses_fetch_geneds_for_department_tool'], has: ['**85-102 Introduction to Psychology**'] },
  { q: 'general education courses', tools: ['courses_fetch_geneds_tool'], has: ['**73-102 Principles of Microeconomics**', 'Gen-ed requirements differ by school'] },
];

const GUIDE: Row[] = [
  { q: 'How does housing work for first-years?', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Housing › First-year housing', 'guaranteed a room on campus', 'Source: [Housing › First-year housing]'] },
  { q: 'how do meal plans work', tools: ['guide_search_guide'], has: ['Meal Plans', 'blocks'] },
  { q: 'what is dinextra', tools: ['guide_search_guide'], has: ['### Meal Plans › DineXtra', 'declining balance'] },
  { q: 'how do i connect to wifi', tools: ['guide_search_guide'], has: ['eduroam'] },
  { q: 'where can i print', tools: ['guide_search_guide'], has: ['### Libraries and Study Spaces › Printing'] },
  { q: 'is there a shuttle at night?', tools: ['guide_search_guide'], has: ['### Getting Around › Shuttles and escorts'] },
  { q: 'i need to talk to a counselor', tools: ['guide_search_guide'], has: ['CaPS', '412-268-2922'] },
  { q: 'how does room selection work', tools: ['guide_search_guide'], has: ['### Housing › Room selection', 'lottery'] },
  { q: 'when is move in', tools: ['guide_search_guide'], has: ['### Housing › Moving in and out', 'Saturday before orientation'] },
  { q: 'where do i pick up packages', tools: ['guide_search_guide'], has: ['mailroom'] },
  { q: 'and parking?', history: ['is there a shuttle at night', 'Yes.'], tools: ['guide_search_guide'], has: ['### Getting Around › Parking'] },
];

/**
 * Issue 27's second pass: what students ask next. Place names people use, near and nearest (ranked by
 * the walk, from a place or from where the user lives), times (tonight, after midnight, a whole day,
 * "of those" narrowing the last list), the question asked of a course, and the guide pages for the ID
 * card and the academic calendar. Wednesday 12:30 on campus.
 */
const SECOND_PASS: Row[] = [
  // Place names people use
  { q: 'where is the CS building', tools: ['maps_search_buildings'], has: ['**Gates & Hillman Centers** (GHC): the School of Computer Science (the CS building)'], map: 'GHC' },
  { q: 'wheres the gym', tools: ['maps_search_buildings'], has: ['**Cohon University Center** (CUC): the UC, student center: dining, the gym (fitness center and pool)', 'Next to it: West Wing (WWG, 75 m)'], map: 'CUC' },
  { q: 'where is the computer science department?', tools: ['maps_search_buildings'], has: ['**Gates & Hillman Centers** (GHC)'], map: 'GHC' },
  { q: 'weh 5310 where is that', tools: ['maps_search_buildings'], has: ['**WEH 5310** is a lecture room on floor 5 of **Wean Hall** (WEH).'], map: 'WEH' },
  { q: 'weh 5300 where is that', tools: ['maps_search_buildings'], has: ["Room **WEH 5300** isn't in the campus map data", 'floor 5 of **Wean Hall** (WEH)'], map: 'WEH' },
  { q: 'GHC 4401, where?', tools: ['maps_search_buildings'], has: ['**GHC 4401** is a lecture room on floor 4 of **Gates & Hillman Centers** (GHC).'], map: 'GHC' },
  { q: 'when does the UC close', tools: ['maps_search_buildings', 'eats_get_all_dining_locations'], has: ['**Cohon University Center** (CUC) has 5 dining places; the last to close today is **Scotty’s Market**, at 2:00 AM.', '**Schatz Dining Room**'], not: ['Rohr Café', "I couldn't find"] },
  { q: 'is the gym open on saturday', tools: ['eats_get_all_dining_locations'], has: ['**Cohon University Center** (CUC) has 5 dining places; the last to close on Saturday is', '**Nourish**', 'Saturday 11:00 AM - 3:00 PM'] },
  // Near and nearest, by the walk
  { q: 'coffee near the library right now', tools: ['eats_get_locations_by_cuisine', 'maps_search_buildings', 'maps_distance_between'], has: ['### Coffee near Hunt Library, open now, nearest first', /### [^\n]+\n\n- \*\*The Exchange\*\*: Posner Hall, ground floor · \*\*\d+ m\*\*, about a \d-minute walk[^\n]*\n- \*\*Wean Coffee Bar\*\*[^\n]*\n- \*\*Gates Café\*\*[^\n]*\n- \*\*Rohr Café\*\*/, 'The walk to the nearest, **The Exchange**'], not: ['Schatz'], map: 'POS' },
  { q: 'closest dining to Tepper', tools: ['eats_get_locations_open_now', 'maps_distance_between'], has: ['### Open near Tepper Building right now, nearest first', /\n\n- \*\*Stephanie’s Bakery\*\*: Tepper Building, 1st floor · \*\*in the same building\*\*/, /- \*\*Gates Café\*\*[^\n]+\n- \*\*Wean Coffee Bar\*\*/], map: 'TEP' },
  { q: 'nearest dining to where I live', facts: ['Lives in Stever House'], tools: ['maps_search_buildings', 'maps_distance_between'], has: ['### Open near Stever House (where you live) right now, nearest first', /\n\n- \*\*Sushi Sama\*\*: Resnik House, food hall · \*\*71 m\*\*, about a 1-minute walk[^\n]*\n- \*\*Taste of India\*\*: Resnik House, food hall · \*\*71 m\*\*/, '…and 7 more.'], map: 'RES' },
  { q: 'Nearest coffee', tools: ['eats_get_locations_by_cuisine'], has: ["I don't know where you live yet", '### Coffee on campus', '**Gates Café**'], not: ['nearest first'] },
  { q: 'nearest coffee', facts: ['Lives in Morewood Gardens'], tools: ['maps_distance_between'], has: ['### Coffee near Morewood Gardens (where you live), nearest first', /\n\n- \*\*Rohr Café\*\*: Tepper Building, Rohr Commons · \*\*162 m\*\*, about a 2-minute walk/, /- \*\*Gates Café\*\*: Gates & Hillman Centers, 3rd floor · \*\*201 m\*\*/], map: 'TEP' },
  { q: 'pizza close to wean', tools: ['eats_get_locations_by_cuisine', 'maps_distance_between'], has: ['### Pizza near Wean Hall, nearest first', /- \*\*Tartan Pizza Co\.\*\*: Cohon University Center, lower level · \*\*\d+ m\*\*/], map: 'CUC' },
  { q: 'any food near gates rn', tools: ['eats_get_locations_open_now', 'maps_distance_between'], has: ['### Open near Gates & Hillman Centers right now, nearest first', /\n\n- \*\*Gates Café\*\*: Gates & Hillman Centers, 3rd floor · \*\*in the same building\*\*/], map: 'GHC' },
  { q: 'lunch near the cs building', tools: ['maps_distance_between'], has: ['near Gates & Hillman Centers', /\n\n- \*\*Gates Café\*\*/], map: 'GHC' },
  { q: 'nearest food to morewood gardens', tools: ['maps_distance_between'], has: ['### Open near Morewood Gardens right now, nearest first', /\n\n- \*\*Stephanie’s Bakery\*\*: Tepper Building, 1st floor · \*\*162 m\*\*/], map: 'TEP' },
  // Times
  { q: "what's open tonight", tools: ['eats_get_locations_open_at_time'], has: ['### Open Wednesday at 9:00 PM', '**Tartan Pizza Co.**', '**Scotty’s Market**'], not: ['El Gallo de Oro', 'Schatz'] },
  { q: 'anything open after midnight?', tools: ['eats_get_locations_open_at_time'], has: ['### Open Thursday at 12:30 AM', '**Scotty’s Market**'], not: ['Tartan Pizza'] },
  { q: 'food at 1 AM', tools: ['eats_get_locations_open_at_time'], has: ['### Open Thursday at 1:00 AM', '**Scotty’s Market**'] },
  { q: 'is anything open friday night at 1am', tools: ['eats_get_locations_open_at_time'], has: ['### Open Saturday at 1:00 AM', '**Scotty’s Market**'], not: ['Tartan Pizza'] },
  { q: 'whats open on saturday', tools: ['eats_get_all_dining_locations'], has: ['### Open on Saturday', '- **Nourish**: Cohon University Center, 1st floor. Saturday 11:00 AM - 3:00 PM'], not: ['The Exchange', 'Gates Café', 'Monday'] },
  { q: 'and on sunday?', history: ['whats open saturday', 'Several places.'], tools: ['eats_get_all_dining_locations'], has: ['### Open on Sunday', '**Taste of India**'], not: ['Nourish'] },
  { q: 'which of those are open on sunday?', history: ['any vegan places?', 'Tartan Pizza Co., Nourish and Taste of India.'], tools: ['eats_get_locations_by_cuisine'], has: ['### Vegan on campus, open on Sunday', '**Tartan Pizza Co.**', 'Sunday 12:00 PM - 8:00 PM'], not: ['Nourish', 'Schatz'] },
  { q: 'of those, which are open late tonight', history: ['where can i get pizza', 'Tartan Pizza Co.'], tools: ['eats_get_locations_by_cuisine', 'eats_get_locations_open_at_time'], has: ['### Pizza on campus, open Wednesday at 10:00 PM', '**Tartan Pizza Co.**'], not: ['Scotty'] },
  { q: 'any of them vegan?', history: ["what's open right now", 'Twelve places.'], tools: ['eats_get_locations_by_cuisine'], has: ['### Vegan on campus, open now', '**Nourish**', '**Taste of India**'], not: ['Schatz', 'Sushi Sama'] },
  { q: 'breakfast tomorrow', tools: ['eats_get_locations_open_at_time'], has: ['### Open Thursday at 9:00 AM', '**Wean Coffee Bar**'], not: ['Tartan Pizza'] },
  { q: 'sushi on saturday', tools: ['eats_get_locations_by_cuisine'], has: ['I didn\'t find a dining location on campus for "sushi" open on Saturday.'] },
  // The question asked of a course
  { q: 'is 15-112 offered in spring?', tools: ['courses_fetch_course_schedules'], has: [/^Yes: \*\*15-112 Fundamentals of Programming and Computer Science\*\* is offered in Spring 2027\./, '**Lecture (Spring 2027):** Mon/Wed/Fri'] },
  { q: 'is 15-440 offered in the spring', tools: ['courses_fetch_course_schedules'], has: [/^The schedule data lists \*\*15-440 Distributed Systems\*\* only in Fall 2026, not in Spring/] },
  { q: 'can i take 15122 in spring', tools: ['courses_fetch_course_schedules'], has: ['Yes: **15-122 Principles of Imperative Computation** is offered in Spring 2027.'] },
  { q: 'what about 15-445?', history: ['is 15-112 offered in spring?', 'Yes.'], tools: ['courses_fetch_course_schedules'], has: ['**15-445 Database Systems** only in Fall 2026, not in Spring'] },
  // The guide's ID card and academic calendar
  { q: 'how do I get a new ID card', tools: ['guide_search_guide', 'guide_get_section'], has: ['### ID Card › Lost or damaged cards', '$25', 'Warner Hall'] },
  { q: 'i lost my student id', tools: ['guide_search_guide'], has: ['ID Card', 'Report a lost card'] },
  { q: 'deadline to drop a class?', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Academic Calendar › Adding and dropping courses', 'end of the sixth week'] },
  { q: 'when are finals', tools: ['guide_search_guide'], has: ['### Academic Calendar › Final exams'] },
];

/**
 * Issue 38's rows, the third pass: questions that need understanding rather than a wording rule. History
 * answers are written as a model would write them (the offline model's own, or a real model's prose):
 * the dialogue state reads the entities they name.
 */
const THIRD_PASS: Row[] = [
  // Follow-ups that point back at the last answer
  { q: 'and its prerequisites?', history: ['tell me about 15-213', '### 15-213 Introduction to Computer Systems\n\n12.0 units · Computer Science'], tools: ['courses_fetch_course_requisites'], has: ['### 15-213 Introduction to Computer Systems', '**Prerequisites:** 15-122', '**Leads to:** 15-440, 15-445'] },
  { q: 'is that one offered in spring?', history: ['any database courses?', '### Courses about database\n\n- **15-445 Database Systems** (12.0 units): Storage, indexing, query processing.'], tools: ['courses_fetch_course_schedules'], has: ['**15-445 Database Systems** only in Fall 2026, not in Spring'] },
  { q: "where's its lecture?", history: ['what is 15-122 about', '15-122 Principles of Imperative Computation teaches imperative programming in C0 and C.'], tools: ['courses_fetch_course_schedules'], has: ['**15-122 Principles of Imperative Computation** meets in **GHC 4401**, in Gates & Hillman Centers (GHC).', 'Tue/Thu 11:00 AM - 12:20 PM'], map: 'GHC' },
  { q: 'who teaches it?', history: ['is 15-150 hard?', '15-150 Principles of Functional Programming is a 12-unit course in Standard ML.'], tools: ['courses_fetch_course_instructors'], has: ['**Taught by:** Michael Erdmann'] },
  { q: 'what are the prereqs for that class?', history: ['intro to psychology class?', '### Courses about psychology\n\n- **85-102 Introduction to Psychology** (9.0 units)'], tools: ['courses_fetch_course_requisites'], has: ['### 85-102 Introduction to Psychology', '**Prerequisites:** none'] },
  { q: 'how do I get there from Wean?', history: ['where is Doherty Hall?', '**Doherty Hall** (DH): chemistry labs and large lecture halls.'], tools: ['maps_get_path', 'maps_distance_between'], has: ['### Walking from Wean Hall to Doherty Hall', 'Arrive at **Doherty Hall** (DH).'], map: 'DH' },
  { q: 'what can I eat there?', history: ['where is the UC?', '**Cohon University Center** (CUC): the UC, student center.'], tools: ['eats_get_all_dining_locations'], has: ['### Dining in Cohon University Center', '**Schatz Dining Room**', '**Nourish**'], not: ['Gates Café'] },
  { q: 'is it open on sunday?', history: ['any vegetarian food?', 'Nourish, in the Cohon University Center, has vegetarian and vegan bowls.'], tools: ['eats_get_location_hours'], has: ['**Nourish** is closed on Sunday.'] },
  { q: 'how far is it from Gates?', history: ['where is hunt library', '**Hunt Library** (HL): the main library.'], tools: ['maps_distance_between'], has: [/\*\*Hunt Library\*\* \(HL\) is about \*\*\d+ m\*\* from \*\*Gates & Hillman Centers\*\* \(GHC\)/], map: 'HL' },
  { q: 'when does that one close?', history: ['where can I get coffee', '### Coffee on campus\n\n- **Gates Café**: Gates & Hillman Centers, 3rd floor\n- **Wean Coffee Bar**: Wean Hall, 4th floor'], tools: ['eats_get_location_hours'], has: ['**Gates Café** (Gates & Hillman Centers, 3rd floor) is open right now', '- Friday: 8:00 AM - 5:00 PM'] },
  { q: 'and who teaches it?', history: ['Is 21-127 offered this semester?', 'Yes, 21-127 Concepts of Mathematics runs this fall.'], tools: ['courses_fetch_course_instructors'], has: ['### 21-127 Concepts of Mathematics', '**Taught by:**'] },
  { q: 'is there food in it?', history: ['what building is the business school', '**Tepper Building** (TEP): the Tepper School of Business.'], tools: ['eats_get_all_dining_locations'], has: ['### Dining in Tepper Building', '**Rohr Café**', '**Stephanie’s Bakery**'] },
  // Topics, instructors and needs, not codes
  { q: 'is there an intro statistics course?', tools: ['courses_search_courses_by_query'], has: ['**36-200 Reasoning with Data**'], not: ['Accounting'] },
  { q: 'classes taught by Andy Pavlo', tools: ['courses_search_courses_by_query'], has: ['**15-445 Database Systems**'] },
  { q: 'what does professor Blelloch teach', tools: ['courses_search_courses_by_query'], has: ['**15-210 Parallel and Sequential Data Structures and Algorithms**'] },
  { q: 'something about neural networks?', tools: ['courses_search_courses_by_query'], has: ['**10-301 Introduction to Machine Learning**'] },
  { q: 'which course covers virtual memory', tools: ['courses_search_courses_by_query'], has: ['**15-213 Introduction to Computer Systems**'] },
  { q: 'who teaches machine learning?', tools: ['courses_search_courses_by_query', 'courses_fetch_course_instructors'], has: [/^\*\*10-301 Introduction to Machine Learning\*\* is taught by \w+/] },
  { q: 'functional programming class', tools: ['courses_search_courses_by_query'], has: ['**15-150 Principles of Functional Programming**'] },
  { q: 'I need a quiet place to read', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Libraries and Study Spaces › Hunt Library', 'quiet study floors'] },
  { q: 'I want someone to talk to about stress', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Health and Wellness › Counseling', '412-268-2922'] },
  { q: 'where can I do laundry', tools: ['guide_search_guide'], has: ['free laundry machines'] },
  { q: 'where is the mailroom', tools: ['maps_search_buildings'], has: ['**Cohon University Center** (CUC)', 'the mailroom'], map: 'CUC' },
  // What the user told us
  { q: 'where is my dorm?', facts: ['Lives in Morewood Gardens'], tools: ['maps_search_buildings'], has: ['**Morewood Gardens** (MOR): first-year housing, University Health Services (the health center).'], map: 'MOR' },
  { q: 'where is my dorm?', tools: [], has: ["I don't know where you live yet", 'Remember that I live in'], not: ["couldn't find"] },
  { q: 'how far is my dorm from Gates?', facts: ['Lives in Donner House'], tools: ['maps_distance_between'], has: [/\*\*Donner House\*\* \(DON\) is about \*\*\d+ m\*\* from \*\*Gates & Hillman Centers\*\* \(GHC\)/], map: 'DON' },
  { q: 'walk from my dorm to the library', facts: ['Lives in Mudge House'], tools: ['maps_get_path'], has: ['### Walking from Mudge House to Hunt Library'], map: 'HL' },
  { q: 'food near home', facts: ['Lives in Stever House'], tools: ['maps_distance_between'], has: ['near Stever House (where you live)', 'nearest first'] },
  { q: 'remember that I moved to Donner', facts: ['Lives in Morewood Gardens'], tools: [], has: ['Got it, I\'ll remember that: "Lives in Donner".'] },
  { q: 'anything vegan I can eat tonight?', facts: ['Is vegan'], tools: ['eats_get_locations_by_cuisine', 'eats_get_locations_open_at_time'], has: ['**Tartan Pizza Co.**'], not: ['**Nourish**'] },
  // Free wording around places
  { q: 'closest place to grab coffee from Doherty', tools: ['eats_get_locations_by_cuisine', 'maps_distance_between'], has: ['### Coffee near Doherty Hall, nearest first', /\n\n- \*\*Wean Coffee Bar\*\*: Wean Hall, 4th floor · \*\*\d+ m\*\*/], map: 'WEH' },
  { q: 'is there somewhere to eat inside tepper', tools: ['eats_get_all_dining_locations'], has: ['### Dining in Tepper', '**Rohr Café**'] },
  { q: 'can u tell me where scaife is', tools: ['maps_search_buildings'], has: ['**Scaife Hall** (SH)'], map: 'SH' },
  { q: 'whats the walk like from the UC to hunt', tools: ['maps_get_path'], has: ['### Walking from Cohon University Center to Hunt Library'], map: 'HL' },
  { q: 'need a coffee near the business school asap', tools: ['eats_get_locations_by_cuisine', 'maps_distance_between'], has: ['### Coffee near Tepper Building', '**Rohr Café**: Tepper Building, Rohr Commons · **in the same building**'], map: 'TEP' },
  { q: 'show me baker hall on the map', tools: ['maps_search_buildings'], has: ['**Baker Hall** (BH): humanities and social sciences (Dietrich College).', 'Next to it:'], map: 'BH' },
  // Times with before and after
  { q: "what's open before 8am?", tools: ['eats_get_locations_open_at_time'], has: ['### Open Wednesday at 7:30 AM (before 8:00 AM)', '**Wean Coffee Bar**'], not: ['Gates Café'] },
  { q: 'anything open after 9pm?', tools: ['eats_get_locations_open_at_time'], has: ['### Open Wednesday at 9:30 PM (after 9:00 PM)', '**Scotty’s Market**', '**Tartan Pizza Co.**'] },
  { q: 'is anything open after 11 pm on friday', tools: ['eats_get_locations_open_at_time'], has: ['### Open Friday at 11:30 PM (after 11:00 PM)', '**Scotty’s Market**'], not: ['Tartan Pizza'] },
  { q: 'pizza after 10pm', tools: ['eats_get_locations_by_cuisine', 'eats_get_locations_open_at_time'], has: ['Wednesday at 10:30 PM (after 10:00 PM)', '**Tartan Pizza Co.**'] },
  { q: 'coffee before 9 tomorrow', tools: ['eats_get_locations_by_cuisine', 'eats_get_locations_open_at_time'], has: ['Thursday at 8:30 AM (before 9:00 AM)', '**Wean Coffee Bar**', '**Gates Café**'], not: ['Tartan Pizza'] },
  { q: "what's open on saturday before noon", tools: ['eats_get_locations_open_at_time'], has: ['### Open Saturday at 11:30 AM (before 12:00 PM)'] },
  // A second set written after the first passed, graded the same way
  { q: 'what time does rohr cafe open on sunday', tools: ['eats_get_location_hours'], has: ['On Sunday, **Rohr Café** is open **10:00 AM - 4:00 PM**.'] },
  { q: 'where is the health center', tools: ['maps_search_buildings'], has: ['**Morewood Gardens** (MOR)', 'University Health Services'], map: 'MOR' },
  { q: 'is there a gym on campus', tools: ['maps_search_buildings'], has: ['**Cohon University Center** (CUC)', 'the gym'], not: ['Wi-Fi'], map: 'CUC' },
  { q: 'how far is the library from my dorm', tools: [], has: ["I don't know where you live yet"], not: ['Donner'] },
  { q: 'can i bring a car to campus', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Getting Around › Parking', 'parking permit'] },
  { q: 'where can i study late at night', tools: ['guide_search_guide'], has: ['Hunt Library', 'open late'] },
  { q: 'where can i get a smoothie', tools: ['eats_get_locations_by_cuisine'], has: ['### Smoothies on campus'] },
  { q: "what's near wean hall to eat", tools: ['eats_get_locations_open_now', 'maps_distance_between'], has: ['### Open near Wean Hall right now, nearest first'], not: ['"eat"'] },
  { q: 'where do first years live', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Housing › First-year housing', 'Morewood Gardens'] },
  { q: 'what building is the math department in', tools: ['maps_search_buildings'], has: ['**Wean Hall** (WEH): mathematics'], not: ['Apartments'], map: 'WEH' },
  // Honest limits
  { q: 'can you do my 15-122 homework?', tools: [], has: ["I won't do graded work for you"], not: ['### 15-122'] },
  { q: 'write my essay for 76-101', tools: [], has: ["I won't do graded work for you", 'academic integrity'] },
  { q: 'give me the solutions to the 15-112 problem set', tools: [], has: ["I won't do graded work for you"] },
  { q: 'who is the president of the united states', tools: ['guide_search_guide'], has: ["That's outside the campus data"] },
];

/** Issue 48: buses at Forbes Ave & Morewood Ave, on the sandbox's clock (Wednesday 12:30 PM). */
const BUS: Row[] = [
  { q: "when's the next 61C?", tools: ['bus_get_next_bus'], has: ['**Next 61C** (predictions as of Wednesday 12:30 PM)', '**61C** to McKeesport reaches **Forbes Ave & Morewood Ave (near CUC)**', 'in 2 minutes'] },
  { q: 'how do I get to Squirrel Hill?', tools: ['bus_get_next_bus'], has: ['**Next bus toward Squirrel Hill**', 'Forbes Ave & Morewood Ave (near CUC)**, outbound'], not: ['Tepper Quad'] },
  { q: 'next bus to the airport', tools: ['bus_get_next_bus'], has: ['**Next bus toward Airport**', '**28X** to Airport', 'near Tepper Quad'] },
  { q: 'is the 28X running right now', tools: ['bus_get_next_bus'], has: ['**Next 28X**', '**28X** to Airport reaches'] },
  { q: 'can I ride the PRT for free with my CMU ID?', tools: ['bus_get_cmu_prt_rider_guide'], has: ['**Riding PRT with your CMU ID**', 'no fare', '4. Tap your CMU ID card on the fare reader.'] },
  { q: 'and the one after that?', history: ["when's the next 61C?", '**Next 61C**: the 61C to McKeesport in 2 minutes.'], tools: ['bus_get_stop_predictions'], has: ['**The bus after that**', 'The 61C to McKeesport after that one reaches', 'in 17 minutes'] },
  { q: 'what about toward downtown?', history: ['next bus to squirrel hill', '**Next bus toward Squirrel Hill**: the 61C in 2 minutes.'], tools: ['bus_get_next_bus'], has: ['**Next bus toward Downtown**', 'near Tepper Quad'] },
];

/** Issue 48's fourth pass: a prerequisite asked as yes or no, a move told as news, a building's closing time. */
const FOURTH_PASS: Row[] = [
  { q: 'Can I take 15-213 without 15-122?', tools: ['courses_fetch_course_requisites'], has: ['**No**: **15-122** is a prerequisite of **15-213 Introduction to Computer Systems**, so you need it first'] },
  { q: 'do I need 15-122 before 15-213', tools: ['courses_fetch_course_requisites'], has: ['**Yes**: **15-122** is a prerequisite of **15-213 Introduction to Computer Systems**'] },
  { q: 'is 21-127 required for 15-251?', tools: ['courses_fetch_course_requisites'], has: ['needs 21-127 or 15-151: **21-127** is one way to meet that prerequisite'] },
  { q: "can I take 15-213 if I haven't taken 15-112", tools: ['courses_fetch_course_requisites'], has: ['**Yes**, as far as its own prerequisites go: **15-112** is not a direct prerequisite', 'check their own prerequisites too'] },
  { q: "I moved to Donner House last week, so what's good to eat near me?", facts: ['Lives in Mudge House'], tools: ['maps_distance_between'], has: ['near Donner House (where you live)'], not: ['Mudge'] },
  { q: "oh I'm in Stever House now, where can I get coffee near me?", facts: ['Lives in Mudge House'], tools: ['eats_get_locations_by_cuisine'], has: ['Coffee near Stever House (where you live)'], not: ['Mudge'] },
  { q: 'what time does the cohon center close tonight', tools: ['eats_get_all_dining_locations'], has: ['**Cohon University Center** (CUC) has 5 dining places; the last to close on Wednesday is **Scotty’s Market**, at 2:00 AM.', 'Wednesday 7:00 AM - 2:00 AM'], not: ["I couldn't find"] },
];

const ROWS = [...MAPS, ...EATS, ...COURSES, ...GUIDE, ...SECOND_PASS, ...THIRD_PASS, ...BUS, ...FOURTH_PASS];

let sandbox: SandboxToolServer;
let tools: CampusTools;
let store: MemoryStore;
let app: ReturnType<typeof createApp>;
let userCounter = 0;

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => WEDNESDAY_LUNCH });
  tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  const gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
  store = createInMemoryStore({ embeddingModel: null });
  const background = createBackgroundTasks(silentLogger);
  const turnMemory = testTurnMemory({ store, gateway, background, extractionModel: 'offline/x' });
  app = createApp(await createTestDeps({ gateway, campusTools: tools, memory: store, turnMemory, background, now: () => WEDNESDAY_LUNCH }));
});

afterAll(async () => {
  await tools?.close();
  await sandbox?.close();
});

async function ask(row: Pick<Row, 'q' | 'history' | 'facts'>) {
  const userId = `student-${++userCounter}`;
  for (const text of row.facts ?? []) await store.add({ userId, kind: 'remembered', text });
  const message_history = (row.history ?? []).map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
  const res = await app.request('/agent/respond', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: row.q, user_id: userId, message_history }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { response_text: string; services_used: string[]; cmu_maps: { target: string | null }; metadata: { grounding: { unverified: number } } };
  // The offline model writes only from tool data: nothing it says goes unconfirmed (issue 45).
  expect(body.metadata.grounding.unverified, body.response_text).toBe(0);
  return body;
}

describe(`the offline model answers ${ROWS.length} natural student questions`, () => {
  it('expects only tools the sandbox publishes, and asks about every tool group it publishes', async () => {
    const published = (await tools.list()).map((t) => t.name);
    const expected = new Set(ROWS.flatMap((r) => r.tools));
    expect([...expected].filter((name) => !published.includes(name))).toEqual([]);
    const groups = new Set(published.map(toolGroupOf));
    expect([...groups].filter((g) => g !== null && ![...expected].some((name) => toolGroupOf(name) === g))).toEqual([]);
  });

  it.each(ROWS.map((r) => [r.q + (r.history ? ` (after "${r.history[0]}")` : '') + (r.facts ? ` [${r.facts.join('; ')}]` : ''), r] as const))('%s', async (_, row) => {
    const body = await ask(row);
    const text = body.response_text;
    for (const tool of row.tools) expect(body.services_used, text).toContain(tool);
    for (const want of row.has) {
      if (typeof want === 'string') expect(text).toContain(want);
      else expect(text).toMatch(want);
    }
    for (const unwanted of row.not ?? []) expect(text).not.toContain(unwanted);
    expect(text).not.toBe(OFFLINE_INTRO);
    expect(text).not.toMatch(/-?\d{2}\.\d{3,}/); // no coordinates
    expect(text).not.toMatch(/\b\d{1,2}:\d{2}\b(?!\s*(AM|PM))/); // one time format: 12-hour
    if (row.map) expect(body.cmu_maps.target).toBe(row.map);
  });
});

describe('what the offline model cannot do', () => {
  it.each([
    ['Write me a poem about autumn', /^Jokes, poems and stories need a language model/],
    ["what's the weather like tomorrow", /^I don't have weather data\./],
    ['who won the steelers game', /^News and sports aren't in the campus data/],
    ['explain quantum computing', /^That's outside the campus data/],
    ['Sing the alma mater backwards', /^I can't answer that from the campus data/],
  ])('answers "%s" in one line: what the campus data does not cover, what it does, two questions to try', async (q, says) => {
    const body = await ask({ q });
    // What might still be campus data is searched first, in every source; a stray one-word match is not an answer.
    const searched = /quantum|alma/.test(q) ? ['guide_search_guide', 'courses_search_courses_by_query', 'maps_search_buildings'] : [];
    expect(body.response_text).toMatch(says);
    expect(body.response_text).toContain('places, dining, courses, the student guide and buses from campus');
    expect(body.response_text.split('\n')).toHaveLength(1);
    expect(body.response_text.match(/"[^"]+\?"/g)).toHaveLength(2);
    expect(body.services_used).toEqual(searched);
  });
});

/**
 * Sandbox sample data: a few dozen courses with prerequisites, gen-ed tags and one semester of
 * schedule each. `prereqs` is an AND of OR-groups (the tool server's `prereqRelations`): every inner
 * list must be satisfied by one of its courses.
 */

export interface SandboxMeeting {
  days: string[];
  begin: string;
  end: string;
  building: string;
  room: string;
}

export interface SandboxCourse {
  courseID: string;
  name: string;
  department: string;
  units: string;
  desc: string;
  prereqs: string[][];
  coreqs: string[];
  crosslisted: string[];
  instructors: string[];
  /** Also scheduled in the spring after the fall semester (intro courses run every semester). */
  spring: boolean;
  /** Gen-ed tags per school, e.g. `{ DC: ['Cultural/Global Understanding'] }`. */
  geneds: Record<string, string[]>;
  lecture: SandboxMeeting;
}

type Row = [id: string, name: string, dept: string, units: string, prereqs: string, instructors: string, meeting: string, desc: string];

/** `meeting` is `"MWF 10:00-10:50 GHC 4401"`; `prereqs` is `"15-112 & (21-127|15-151)"`. */
const ROWS: Row[] = [
  ['15-112', 'Fundamentals of Programming and Computer Science', 'Computer Science', '12.0', '', 'Kelly Rivers; Mike Taylor', 'MWF 10:00-10:50 DH 2210', 'Introductory programming in Python: problem solving, data structures, graphics and animation.'],
  ['15-122', 'Principles of Imperative Computation', 'Computer Science', '12.0', '15-112', 'Iliano Cervesato', 'TR 11:00-12:20 GHC 4401', 'Imperative programming in C0 and C with contracts, data structures and reasoning about code.'],
  ['15-150', 'Principles of Functional Programming', 'Computer Science', '12.0', '15-112 & (21-127|15-151)', 'Michael Erdmann', 'TR 09:30-10:50 GHC 4401', 'Functional programming in Standard ML: recursion, induction, higher-order functions and types.'],
  ['15-151', 'Mathematical Foundations for Computer Science', 'Computer Science', '12.0', '', 'John Mackey', 'MWF 09:00-09:50 WEH 7500', 'Proofs, sets, functions, induction, counting and graph theory for computer scientists.'],
  ['15-210', 'Parallel and Sequential Data Structures and Algorithms', 'Computer Science', '12.0', '15-122 & 15-150', 'Umut Acar; Guy Blelloch', 'TR 12:30-13:50 GHC 4401', 'Algorithm design and analysis with parallelism in mind: sequences, graphs, dynamic programming.'],
  ['15-213', 'Introduction to Computer Systems', 'Computer Science', '12.0', '15-122', 'Brian Railing; David Varodayan', 'TR 14:00-15:20 GHC 4401', 'Machine-level programs, memory hierarchy, linking, processes, virtual memory and networking.'],
  ['15-251', 'Great Ideas in Theoretical Computer Science', 'Computer Science', '12.0', '(21-127|15-151) & 15-122', 'Anil Ada', 'TR 15:30-16:50 DH 2210', 'Computability, complexity, graphs, randomness and cryptography.'],
  ['15-281', 'Artificial Intelligence: Representation and Problem Solving', 'Computer Science', '12.0', '15-122 & 21-127', 'Pat Virtue', 'MW 14:00-15:20 GHC 4215', 'Search, constraint satisfaction, probabilistic reasoning, decision making and learning.'],
  ['15-312', 'Foundations of Programming Languages', 'Computer Science', '12.0', '15-150 & 15-251', 'Robert Harper', 'MW 10:30-11:50 GHC 4301', 'Type systems, operational semantics and the design of programming languages.'],
  ['15-440', 'Distributed Systems', 'Computer Science', '12.0', '15-213', 'Heather Miller', 'TR 10:00-11:20 POS 152', 'Communication, consistency, fault tolerance and replication in distributed systems.'],
  ['15-445', 'Database Systems', 'Computer Science', '12.0', '15-213', 'Andy Pavlo', 'MW 12:30-13:50 GHC 4401', 'Storage, indexing, query processing, transactions and recovery in relational databases.'],
  ['10-301', 'Introduction to Machine Learning', 'Machine Learning', '12.0', '15-122 & (21-127|15-151)', 'Matt Gormley', 'MW 11:00-12:20 TEP 1403', 'Supervised and unsupervised learning, neural networks and learning theory.'],
  ['21-120', 'Differential and Integral Calculus', 'Mathematical Sciences', '10.0', '', 'Jason Howell', 'MWF 08:00-08:50 DH A302', 'Limits, derivatives, integrals and their applications.'],
  ['21-122', 'Integration and Approximation', 'Mathematical Sciences', '10.0', '21-120', 'Gregory Johnson', 'MWF 10:00-10:50 WEH 7500', 'Integration techniques, sequences, series and Taylor approximation.'],
  ['21-127', 'Concepts of Mathematics', 'Mathematical Sciences', '12.0', '', 'Clive Newstead', 'MWF 12:00-12:50 WEH 5421', 'Logic, proof techniques, sets, functions, number theory and combinatorics.'],
  ['21-241', 'Matrices and Linear Transformations', 'Mathematical Sciences', '11.0', '', 'Irene Fonseca', 'MWF 11:00-11:50 DH 2210', 'Linear systems, vector spaces, eigenvalues and applications.'],
  ['21-259', 'Calculus in Three Dimensions', 'Mathematical Sciences', '10.0', '21-122', 'Tom Bohman', 'MWF 13:00-13:50 DH 1212', 'Vectors, partial derivatives, multiple integrals and vector calculus.'],
  ['36-200', 'Reasoning with Data', 'Statistics and Data Science', '9.0', '', 'Rebecca Nugent', 'TR 09:30-10:50 BH A51', 'Exploratory data analysis, probability and statistical inference with real data.'],
  ['36-218', 'Probability Theory for Computer Scientists', 'Statistics and Data Science', '9.0', '21-122 & (21-127|15-151)', 'Joel Greenhouse', 'TR 11:00-12:20 PH 100', 'Probability, random variables and their use in computer science.'],
  ['18-100', 'Introduction to Electrical and Computer Engineering', 'Electrical and Computer Engineering', '12.0', '', 'Tom Sullivan', 'TR 13:00-14:20 HH B103', 'Circuits, signals and systems through hands-on labs.'],
  ['18-213', 'Introduction to Computer Systems', 'Electrical and Computer Engineering', '12.0', '18-240 & 15-122', 'Brian Railing', 'TR 14:00-15:20 GHC 4401', 'Cross-listed with 15-213.'],
  ['18-240', 'Structure and Design of Digital Systems', 'Electrical and Computer Engineering', '12.0', '18-100', 'Bill Nace', 'MW 09:30-10:50 HH B131', 'Digital logic, finite state machines and hardware description languages.'],
  ['76-101', 'Interpretation and Argument', 'English', '9.0', '', 'Staff', 'MWF 09:00-09:50 BH 136A', 'Academic writing: reading arguments closely and building your own.'],
  ['79-104', 'Global Histories', 'History', '9.0', '', 'Staff', 'TR 10:00-11:20 PH A18A', 'Themes of world history from the early modern period to today.'],
  ['85-102', 'Introduction to Psychology', 'Psychology', '9.0', '', 'Sharon Carver', 'MWF 10:00-10:50 CUC McConomy Auditorium', 'Perception, memory, learning, development and social behaviour.'],
  ['73-102', 'Principles of Microeconomics', 'Economics', '9.0', '', 'Lori Donohue', 'MW 14:00-15:20 TEP Simmons Auditorium', 'Markets, consumers, firms and public policy.'],
  ['70-122', 'Introduction to Accounting', 'Business Administration', '9.0', '', 'Staff', 'TR 08:00-09:20 TEP 1403', 'Financial statements and the accounting cycle.'],
  ['99-101', 'Computing @ Carnegie Mellon', 'University Wide Studies', '3.0', '', 'Staff', 'F 15:00-15:50 HL Reading Room', 'Computing resources, academic integrity and information security at the university.'],
  ['05-391', 'Designing Human Centered Software', 'Human-Computer Interaction', '12.0', '15-112', 'Staff', 'TR 12:30-13:50 NSH 3305', 'User research, prototyping and evaluation of interactive software.'],
  ['17-313', 'Foundations of Software Engineering', 'Software and Societal Systems', '12.0', '15-214|17-214', 'Michael Hilton', 'TR 15:30-16:50 POS 152', 'Process, requirements, quality assurance and teamwork in software engineering.'],
  ['17-214', 'Principles of Software Construction: Objects, Design, and Concurrency', 'Software and Societal Systems', '12.0', '15-122', 'Josh Bloch; Charlie Garrod', 'MW 11:00-12:20 DH 2210', 'Object-oriented design, testing, concurrency and API design in Java and TypeScript.'],
  ['60-101', 'Concept Studio: Space and Time', 'Art', 'VAR', '', 'Staff', 'TR 13:30-16:20 CFA 300', 'Studio course on time-based and spatial art practices.'],
];

const GENEDS: Record<string, Record<string, string[]>> = {
  '76-101': { DC: ['First-Year Writing'], SCS: ['Humanities and Arts'] },
  '79-104': { DC: ['Cultural/Global Understanding'], SCS: ['Humanities and Arts'] },
  '85-102': { DC: ['Cognition, Choice and Behavior'], SCS: ['Cognition, Choice and Behavior'] },
  '73-102': { DC: ['Economic, Political and Social Institutions'], SCS: ['Economic, Political and Social Institutions'] },
  '36-200': { DC: ['Statistical Reasoning'], MCS: ['Statistics'] },
  '60-101': { DC: ['Creative Production and Reflection'], SCS: ['Humanities and Arts'] },
  '99-101': { DC: ['Computing @ Carnegie Mellon'], SCS: ['Computing @ Carnegie Mellon'] },
};

/** Courses the sample schedule also lists in the spring; every other course runs in the fall only. */
const SPRING_TOO = new Set(['15-112', '15-122', '15-150', '15-213', '21-120', '21-127', '76-101', '85-102', '36-200', '99-101']);

const CROSSLISTED: Record<string, string[]> = { '15-213': ['18-213'], '18-213': ['15-213'] };

function parsePrereqs(text: string): string[][] {
  if (!text) return [];
  return text.split('&').map((group) => group.replace(/[()]/g, '').split('|').map((id) => id.trim()));
}

function parseMeeting(text: string): SandboxMeeting {
  const [days, range, building, ...room] = text.split(' ') as [string, string, string, ...string[]];
  const [begin, end] = range.split('-') as [string, string];
  return { days: days.match(/R|[MTWF]/g)?.map((d) => ({ M: 'M', T: 'T', W: 'W', R: 'R', F: 'F' })[d]!) ?? [], begin, end, building, room: room.join(' ') };
}

/** Every sample course. */
export const SANDBOX_COURSES: readonly SandboxCourse[] = ROWS.map(
  ([courseID, name, department, units, prereqs, instructors, meeting, desc]) => ({
    courseID,
    name,
    department,
    units,
    desc,
    prereqs: parsePrereqs(prereqs),
    coreqs: [],
    crosslisted: CROSSLISTED[courseID] ?? [],
    instructors: instructors.split(';').map((s) => s.trim()),
    spring: SPRING_TOO.has(courseID),
    geneds: GENEDS[courseID] ?? {},
    lecture: parseMeeting(meeting),
  }),
);

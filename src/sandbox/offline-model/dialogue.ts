/**
 * Dialogue state, the first step of understanding: what the conversation has been talking about and
 * what the user told us, so a question's references resolve before it is read. The entities are the
 * campus's courses, buildings and dining places, recognised by name in the earlier messages (the
 * assistant's answers as well as the user's questions) with a lexicon of the sandbox data; a saved
 * "Lives in …" fact makes "my dorm", "home" and "where I live" a place. "its prerequisites",
 * "is that one offered in spring?", "what's to eat there?" are read as if they named it.
 */
import { SANDBOX_BUILDINGS } from '../campus/data/buildings.js';
import { selfQuestionOf } from './self-questions.js';
import { SANDBOX_COURSES } from '../campus/data/courses.js';
import { SANDBOX_DINING } from '../campus/data/dining.js';
import { BUS_ROUTES } from '../campus/data/bus.js';
import { livesIn } from '../../memory/fact-wording.js';
import type { Conversation } from './conversation.js';
import { HOME_PHRASE } from './place-names.js';

type EntityKind = 'course' | 'place' | 'dining' | 'route';

interface Entity {
  kind: EntityKind;
  /** How a question names it once the reference is resolved. */
  name: string;
  said: RegExp;
}

/** Accents folded ("Café" and "cafe" alike), one character for one, so positions still match. */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');

const escape = (s: string) => fold(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/&/g, '(?:&|and)').replace(/['’]/g, "['’]");

/** Every entity a conversation can point back at. Names only: what is known of them comes from the tools. */
const LEXICON: Entity[] = [
  ...SANDBOX_COURSES.map((c) => ({ kind: 'course' as const, name: c.courseID, said: new RegExp(`\\b${c.courseID.replace('-', '-?')}\\b|\\b${escape(c.name)}\\b`, 'i') })),
  ...SANDBOX_DINING.map((d) => ({ kind: 'dining' as const, name: d.name, said: new RegExp(`(?:^|\\W)${escape(d.name)}(?=\\W|$)`, 'i') })),
  // A bus route by its id ("61C"); a route of digits only where a list names it ("69 to Squirrel Hill").
  ...[...new Set([...BUS_ROUTES.values()].flatMap((routes) => routes.map((r) => r.route)))].map((route) => ({
    kind: 'route' as const,
    name: route,
    said: /\D$/.test(route) ? new RegExp(`\\b${route}\\b`) : new RegExp(`\\b${route}(?= to )`),
  })),
  ...SANDBOX_BUILDINGS.filter((b) => !/^\d/.test(b.name)).map((b) => ({
    kind: 'place' as const,
    name: b.name,
    said: new RegExp(`\\b${escape(b.name)}\\b|\\b${b.code}\\b`), // codes only in capitals: "DH", not "dh"
  })),
];

/** The entities a message mentions, in the order it mentions them, with where. */
export function mentions(text: string): Array<{ entity: Entity; at: number }> {
  const folded = fold(text);
  return LEXICON.map((entity) => ({ entity, at: entity.said.exec(folded)?.index ?? -1 }))
    .filter((m) => m.at >= 0)
    .sort((a, b) => a.at - b.at);
}

/** Words that point back; "there" only where it means a place ("food there", not "is there food"). */
const THAT_ONE = /\b(?:that|this|the same) (?:one|course|class|building|place|hall|spot)\b/i;
const THERE = /(?<!\b(?:is|are|was|were|any|anything)\s)\bthere\b(?!\s+(?:is|are|a|any|some)\b)/i;
const POINTING = new RegExp(`${THAT_ONE.source}|\\b(?:its|it)\\b|${THERE.source}`, 'i');
const COURSE_CUE = /\b(pre-?req\w*|requisites?|offered|semester|spring|fall|summer|lectures?|teach\w*|professors?|instructors?|units|take|taking|course|class)\b/i;
const DINING_CUE = /\b(open|close[sd]?|hours|menu|serve[sd]?|eat)\b/i;

/** What the user's words "my dorm", "home", "where I live" stand for. */
const HOME_WORDS = new RegExp(`\\b(?:${HOME_PHRASE})\\b`, 'i');

/** Where the saved facts say the user lives (facts are in the one wording of fact-wording.ts), or null. */
export const homeOf = (facts: readonly string[]): string | null => facts.map(livesIn).find(Boolean) ?? null;

/** "the first of those", "the second one", "the last course": an item of the previous answer, by its place. */
const ORDINAL = /\bthe (first|second|third|last) (?:one|of (?:those|them|these)|(?:course|class|place|building|option|prereq(?:uisite)?)s?)\b/i;
const POSITION: Record<string, number> = { first: 0, second: 1, third: 2, last: -1 };
/** "all of those", "both of them", "those courses": every item of the previous answer. */
const ALL_OF_THOSE = /\b(?:all|both|each) (?:of )?(?:those|them|these)\b|\b(?:those|these) (?:courses|classes|places|prereq(?:uisite)?s)\b/i;
/** "does that count?", "is that enough?": whether what the student has is enough for the course the answer was about. */
const COUNTS = /\b(?:does (?:that|it|this) count|is (?:that|it|this) enough|would (?:that|it|this) (?:work|do|count)|(?:am i|is that) (?:good|ok(?:ay)?|fine))\b/i;

/**
 * The items of the last answer (issue 78, item 4): the courses, places and dining places it names, in
 * its order, without the subject the question before it asked about ("the prerequisites of 15-150 are
 * 15-112 and 21-127": 15-112 and 21-127). `roles` tells the answers from the questions.
 */
function lastAnswerItems(before: readonly string[], roles: readonly ('user' | 'assistant')[]): { items: Entity[]; subject: Entity | undefined } {
  const at = roles.lastIndexOf('assistant');
  if (at < 0 || before.length !== roles.length) return { items: [], subject: undefined };
  const asked = at > 0 && roles[at - 1] === 'user' ? mentions(before[at - 1]!).map((m) => m.entity) : [];
  // A course card's list is its prerequisites ("Leads to: …" names courses too, not the ones meant).
  const answer = /^- \*\*Prerequisites:\*\* (.+)$/m.exec(before[at]!)?.[1] ?? before[at]!;
  const items: Entity[] = [];
  for (const { entity } of mentions(answer)) {
    // A course by its number (a cross-listed twin shares the asked course's title), never twice.
    if (asked.includes(entity) || items.includes(entity) || (entity.kind === 'course' && !answer.includes(entity.name))) continue;
    items.push(entity);
  }
  // The list is of one kind, the first item's ("The Exchange: Posner Hall …": the dining places, not their buildings).
  return { items: items.filter((e) => e.kind === items[0]?.kind), subject: asked[0] };
}

/** A question with its references resolved against the messages before it (oldest first); `roles`, when given, are theirs. */
export function resolveReferences(question: string, before: readonly string[], facts: readonly string[], roles: readonly ('user' | 'assistant')[] = []): string {
  if (/\b(remember|forget)\b/i.test(question)) return question; // a statement to save is kept as said
  if (selfQuestionOf(question)) return question; // "what's my dorm?" asks what is saved, not about the place
  const home = homeOf(facts);
  let q = home ? question.replace(HOME_WORDS, home) : question;
  const ordinal = ORDINAL.exec(q);
  const all = ordinal ? null : ALL_OF_THOSE.exec(q);
  if (ordinal || all) {
    const { items, subject } = lastAnswerItems(before, roles);
    const picked = ordinal ? items.slice(POSITION[ordinal[1]!.toLowerCase()]!).slice(0, 1) : items;
    if (picked.length > 0) {
      const names = picked.map((e) => e.name);
      q = q.replace(ordinal ? ORDINAL : ALL_OF_THOSE, names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!);
      // "I only took the first of those, does that count?", "I took both of those, can I take it?": can I
      // take the course the answer was about?
      if (subject?.kind === 'course' && picked[0]!.kind === 'course') q = q.replace(COUNTS, `can I take ${subject.name}`).replace(/\btake (?:it|that)\b/i, `take ${subject.name}`);
      return q;
    }
  }
  const pointing = POINTING.exec(q);
  // The pointing phrase's own noun decides ("that building"), then what the question asks about.
  const noun = /\b(?:that|this|the same) (building|hall|course|class)\b/i.exec(q)?.[1]?.toLowerCase();
  const wanted: EntityKind[] =
    noun === 'building' || noun === 'hall' ? ['place'] : noun || COURSE_CUE.test(q) ? ['course'] : DINING_CUE.test(q) ? ['dining', 'place'] : ['place', 'dining', 'course'];
  // A name before the pointing word is what it points at ("is Nourish open, and when does it close").
  if (!pointing || mentions(q).some((m) => m.at < pointing.index && wanted.includes(m.entity.kind))) return q;
  for (const message of [...before].reverse()) {
    const found = mentions(message).map((m) => m.entity);
    const entity = wanted.map((kind) => found.find((e) => e.kind === kind)).find(Boolean) ?? found[0];
    if (!entity) continue;
    q = q
      .replace(THAT_ONE, entity.name)
      .replace(/\bits\b/i, `${entity.name}'s`)
      .replace(/\b(get|go|walk|head)\s+there\b/i, `$1 to ${entity.name}`)
      .replace(THERE, `in ${entity.name}`)
      .replace(/\bit\b/i, entity.name);
    return q;
  }
  return q;
}

/** The conversation's questions with their references resolved: the question, and the earlier ones. */
export function understand(conv: Pick<Conversation, 'question' | 'history' | 'facts'>): { question: string; earlier: string[] } {
  const users = conv.history.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  const resolve = (text: string, upTo: number) =>
    resolveReferences(text, conv.history.slice(0, upTo).map((m) => m.text), conv.facts, conv.history.slice(0, upTo).map((m) => m.role));
  return {
    question: resolve(conv.question, conv.history.length),
    earlier: users.map((i) => resolve(conv.history[i]!.text, i)),
  };
}

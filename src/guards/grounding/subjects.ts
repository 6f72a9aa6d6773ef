/**
 * What a piece of evidence is about, so a claim can be checked against its own subject's facts (issue
 * 45: a wrong hour must not pass because another place closes then). Subjects come from a result's
 * structure: a dining place's block in the Markdown lists (`### <name>`, or a detail's one `# <name>`),
 * a JSON object with a `courseID` (the course), a lecture or section of a schedule (`{name, times}`),
 * a bus stop's direction (`direction`, or a stop's in `stops`) and a JSON object with a `route` (the
 * bus route). A sentence names a subject by one of its aliases: the whole name, its first two words, a
 * distinctive first word (five letters or more), a course number, a route id, "section B", "lecture",
 * "inbound" or "toward Downtown". An alias two subjects share names neither.
 */

/** Accents taken off, each character where it was ("Café" → "Cafe"). */
export const fold = (text: string): string => text.normalize('NFKD').replace(/\p{M}/gu, '');

/** Lowercase words of `text`, accents folded, every other mark a space, padded with spaces: " tazza d oro ". */
export function phrase(text: string): string {
  const words = fold(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return words ? ` ${words} ` : ' ';
}

/** The phrases that name a place called `name` ("Schatz Dining Room": the name, "schatz dining", "schatz"). */
export function placeAliases(name: string): string[] {
  const words = phrase(name).trim().split(' ').filter(Boolean);
  if (words.length === 0) return [];
  const out = new Set([` ${words.join(' ')} `]);
  if (words.length >= 3) out.add(` ${words.slice(0, 2).join(' ')} `);
  if (words.length >= 2 && words[0]!.length >= 5) out.add(` ${words[0]} `);
  return [...out];
}

/** The subject key of a dining place, a course, a lecture or section, a bus direction, a route or a schedule's term. */
export const placeSubject = (name: string) => `place:${phrase(name).trim()}`;
export const courseSubject = (digits: string) => `course:${digits}`;
export const sectionSubject = (name: string) => `section:${phrase(name).trim().replace(/ /g, '')}`;
export const directionSubject = (direction: string) => `dir:${direction.trim().toLowerCase()}`;
export const routeSubject = (id: string) => `route:${id.replace(/[\s-]/g, '').toUpperCase()}`;
/** A room of a places result (`maps_search_buildings`: "GHC 6115" → `space:GHC6115`), named by a room claim; it binds only floors. */
export const spaceSubject = (code: string, number: string) => `space:${code.toUpperCase()}${number.toUpperCase()}`;
/** A schedule's term ("fall", 2026 → `sem:fall2026`), named by "fall 2026" or "fall semester" (not "fall" alone: "spring break" is no term's). */
export const semesterSubject = (season: string, year: string) => `sem:${season}${year}`;

/** The kind of a subject key: "place", "course", "section", "dir", "route", "sem", "space" or "topic". */
export const kindOf = (subject: string): string => subject.slice(0, subject.indexOf(':'));

/** The phrases that name a schedule's lecture or section: "Lec 1" → "lec 1", "lecture 1", "lecture"; "B" → "section b", "recitation b". */
export function sectionAliases(name: string): string[] {
  const p = phrase(name).trim();
  const lecture = /^lec(?:ture)?\s*(\w*)$/.exec(p);
  if (lecture) return [` lec ${lecture[1]} `, ` lecture ${lecture[1]} `, ' lecture '].map((a) => a.replace(/\s+/g, ' '));
  return /^\w{1,3}$/.test(p) ? [` section ${p} `, ` recitation ${p} `, ` sec ${p} `, ` lab ${p} `] : [` ${p} `];
}

/**
 * The phrases that name a bus stop's direction (CAMPUS_TOOLS.md `stops`): the direction ("inbound"), the
 * stop id ("4407"), its landmarks ("Tepper Quad"), "toward" each typical destination ("toward Downtown")
 * and "to"/"toward" the `destination` of each bus predicted there ("to Monroeville").
 */
export function directionAliases(
  stop: { direction?: unknown; stop_id?: unknown; landmarks?: unknown; typical_destinations?: unknown },
  id?: string,
  destinations: readonly string[] = [],
): string[] {
  const out = new Set<string>();
  if (typeof stop.direction === 'string') out.add(phrase(stop.direction));
  const stopId = typeof stop.stop_id === 'string' ? stop.stop_id : id;
  if (stopId) out.add(phrase(stopId));
  for (const landmark of Array.isArray(stop.landmarks) ? stop.landmarks : []) if (typeof landmark === 'string') out.add(phrase(landmark));
  for (const place of Array.isArray(stop.typical_destinations) ? stop.typical_destinations : []) {
    if (typeof place !== 'string') continue;
    for (const toward of ['toward', 'towards']) out.add(phrase(`${toward} ${place}`));
  }
  // Where the buses at this stop are headed ("the 67 to Monroeville"): a destination both ways names neither.
  for (const place of destinations) for (const to of ['to', 'toward', 'towards']) out.add(phrase(`${to} ${place}`));
  out.delete(' ');
  return [...out];
}

/**
 * One pattern matching any of the alias phrases (" tazza d oro ") in text as written ("Tazza D'Oro"):
 * their words with anything but letters and digits between, longest first, bounded by non-words.
 */
export function aliasesPattern(aliases: readonly string[]): RegExp {
  const each = aliases.map((a) => a.trim()).sort((a, b) => b.length - a.length);
  // ASCII classes, not Unicode ones: the text is folded first (mentionsOf), and a Unicode property in a
  // lookbehind tried at every position cost a third of the answer's check (measured on the corpus).
  const alternatives = each.map((a) => a.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^a-z0-9]+'));
  return new RegExp(`(?<![a-z0-9])(?:${alternatives.join('|')})(?![a-z0-9])`, 'gi');
}

/** A dining place's name from its Markdown heading ("### 🟢 La Prima Espresso" → "La Prima Espresso"). */
export function headingName(line: string): string {
  return line
    .replace(/^#+\s*/, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .trim();
}

/** A guide section's topic, by its heading ("University Health Services" → `topic:university health services`). */
export const topicSubject = (heading: string) => `topic:${phrase(heading).trim()}`;

/** Small words a name's initials skip ("Counseling and Psychological Services": CPS). */
const MINOR = new Set(['a', 'an', 'and', 'at', 'for', 'in', 'of', 'on', 'the', 'to', '&']);
const initials = (words: readonly string[]) =>
  words
    .filter((w) => !MINOR.has(w.toLowerCase()))
    .map((w) => w[0]!.toLowerCase())
    .join('');
// "Counseling and Psychological Services (CaPS)": capitalised words, then an acronym in parentheses.
const DEFINED = /((?:[A-Z][\w'’-]*[ \t]+(?:(?:and|of|for|the|&)[ \t]+)*){1,6})\(([A-Z][A-Za-z]{1,7})\)/g;
// A word of two capitals or more ("UHS", "CaPS"), up to eight letters.
const ACRONYM = /\b(?=[A-Za-z]*[A-Z][a-z]*[A-Z])[A-Z][A-Za-z]{1,7}\b/g;
const capitalsOf = (acronym: string) => acronym.replace(/[^A-Z]/g, '').toLowerCase();

/**
 * The phrases that name a guide section (issue 59, "heading"): its heading when that is a proper name
 * (two words or more, each capitalised but the small ones: "University Health Services", not
 * "Changing your plan"), the acronym of such a name in the section's text or of three words or more
 * ("UHS", "CaPS"), and a name the text defines with its acronym ("Counseling and Psychological Services
 * (CaPS)": both).
 */
export function topicAliases(heading: string, text: string): string[] {
  const out = new Set<string>();
  const words = heading.trim().split(/\s+/);
  const major = words.filter((w) => !MINOR.has(w.toLowerCase()));
  const proper = major.length >= 2 && major.every((w) => /^\p{Lu}/u.test(w));
  if (proper) {
    out.add(phrase(heading));
    if (major.length >= 3) out.add(` ${initials(words)} `);
    for (const [acronym] of text.matchAll(ACRONYM)) if (capitalsOf(acronym) === initials(words)) out.add(phrase(acronym));
  }
  for (const m of text.matchAll(DEFINED)) {
    const name = m[1]!.trim().split(/\s+/);
    const acronym = capitalsOf(m[2]!);
    // The name's last words whose initials the acronym spells ("call University Police (UP)": the last two).
    for (let i = name.length - 2; i >= 0; i--) {
      if (initials(name.slice(i)) !== acronym) continue;
      out.add(phrase(name.slice(i).join(' ')));
      out.add(phrase(m[2]!));
      break;
    }
  }
  out.delete(' ');
  return [...out];
}

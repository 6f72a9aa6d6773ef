/**
 * What a piece of evidence is about, so a claim can be checked against its own subject's facts (issue
 * 45: a wrong hour must not pass because another place closes then). Subjects come from a result's
 * structure: a dining place's block in the Markdown lists (`### <name>`, or a detail's one `# <name>`),
 * a JSON object with a `courseID` (the course), a JSON object with a `route` (the bus route). A
 * sentence names a subject by one of its aliases: the whole name, its first two words, a distinctive
 * first word (five letters or more), a course number, a route id. An alias two subjects share names
 * neither.
 */

/** Lowercase words of `text`, accents folded, every other mark a space, padded with spaces: " tazza d oro ". */
export function phrase(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
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

/** The subject key of a dining place, a course or a route. */
export const placeSubject = (name: string) => `place:${phrase(name).trim()}`;
export const courseSubject = (digits: string) => `course:${digits}`;
export const routeSubject = (id: string) => `route:${id.replace(/[\s-]/g, '').toUpperCase()}`;

/** A dining place's name from its Markdown heading ("### 🟢 La Prima Espresso" → "La Prima Espresso"). */
export function headingName(line: string): string {
  return line
    .replace(/^#+\s*/, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .trim();
}

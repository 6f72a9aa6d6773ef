/**
 * Questions about the student (issue 64): what the service remembers of them, in general ("what do you
 * know about me?") or of one kind ("where am I living this year?", "what's my major?", "what can't I
 * eat?", "do you remember my diet?"). They are answered from the saved facts of that kind, say plainly
 * when none is saved, and never search the campus data: a student's home is not a building search.
 */

export type SelfTopic = 'all' | 'home' | 'major' | 'diet' | 'year';

/** How each kind of question is asked, whatever the word order or politeness around it. */
const ASKS: Array<[SelfTopic, RegExp]> = [
  [
    'all',
    /\b(?:what|anything|everything|which facts?|what info(?:rmation)?|what stuff)\b.{0,40}\b(?:know|remember|recall|have|keep|saved|stored|learn(?:ed|t)?)\b.{0,20}\babout me\b|\bwhat (?:have you|did you) (?:saved|stored|remembered|learn(?:ed|t)?)\b|\bwhat do you have on me\b|\b(?:show|list|tell) me (?:my saved facts|what you (?:know|remember|have saved))\b/i,
  ],
  [
    'home',
    /\bwhere (?:do|am|did) i (?:live|living|stay|staying|sleep|reside)\b|\bwhere(?:'s| is| are)? (?:i|me) (?:living|staying)\b|\b(?:which|what) (?:dorm|residence(?: hall)?|building|house|hall) (?:(?:do|am|did) )?(?:i (?:live|living|stay|staying|am in|'m in|in)|i'?m (?:in|living in|staying in))\b|\bwhat(?:'s| is) my (?:dorm|address|residence hall|housing|home address)\b|\b(?:do you )?(?:know|remember|recall) (?:where i (?:live|stay)|my (?:dorm|address|housing))\b/i,
  ],
  [
    'major',
    /\bwhat(?:'s| is| was) my (?:major|minor|program|degree|field|concentration)\b|\bwhat (?:am i|do i|did i) (?:study|studying|major(?:ing)? in|minor(?:ing)? in|majoring)\b|\b(?:know|remember|recall) (?:what i (?:study|major in)|my (?:major|minor|program|degree))\b|\bmy major\s*\?/i,
  ],
  [
    'diet',
    /\bwhat (?:can'?t|cannot|can not|shouldn'?t|should not|don'?t|do not) i eat\b|\bwhat (?:am i|i'?m) allergic to\b|\bwhat(?:'s| is| are) my (?:diet|dietary (?:needs|restrictions)|food (?:restrictions|allergies)|allergies)\b|\b(?:know|remember|recall) (?:my (?:diet|dietary|allergies|food)|what i (?:can'?t|cannot|don'?t) eat|(?:if|that|whether) i(?:'?m| am) (?:vegetarian|vegan|allergic))\b|\bam i (?:vegetarian|vegan|allergic)\b|\b(?:(?:should|must|do) i|i (?:should|must|have to)) (?:avoid|not eat|stay away from)\b.{0,15}\b(?:eat\w*|food|foods)\b|\bwhat (?:foods? )?(?:should|must|do) i avoid\b/i,
  ],
  ['year', /\bwhat year (?:am i|i'?m|i am)(?: in)?\b|\bwhat(?:'s| is) my (?:class )?year\b|\b(?:know|remember|recall) (?:my year|what year i'?m)\b/i],
];

/** "remember my major is chemistry", "please note my dorm is Donner": something to save, not a question. */
const TELLING = /^\W*(?:(?:hey|hi|ok|okay|so|and|also)\b\W*)?(?:please\s+)?(?:remember|forget|note|save|keep in mind|store|update|delete|erase)\b(?!.*\?\s*$)/i;

/** What each kind is called in "my …" (the words the generic asks below look for). */
const MY: Array<[Exclude<SelfTopic, 'all'>, string]> = [
  ['home', String.raw`dorm|address|residence hall|housing|home address`],
  ['major', String.raw`major|minor|program|degree|field of study|concentration`],
  ['diet', String.raw`diet|dietary (?:needs|restrictions|preferences)|food (?:restrictions|allergies)|allergies`],
  ['year', String.raw`(?:class )?year`],
];

/**
 * Asks of any kind, by its words: "what did I say my major was?", "do you have my dietary restrictions
 * saved?", "remind me where I live", "tell me my dorm".
 */
function askedOfMy(q: string): SelfTopic | null {
  for (const [topic, words] of MY) {
    const my = `my (?:${words})`;
    const asks = new RegExp(
      String.raw`\bwhat (?:did|do) i (?:say|tell you|mention)\b.{0,20}\b${my}\b|\b(?:do|did) (?:you|u|ya) (?:still )?(?:have|got|keep|know|remember|recall)\b.{0,20}\b${my}\b|\bwhat\b.{0,25}\b(?:saved|stored|noted|on file)\b.{0,15}\b${my}\b|\b(?:remind me|tell me)\b.{0,10}\b${my}\b|\b${my}\b.{0,20}\b(?:saved|stored|on file|again)\s*\??\s*$`,
      'i',
    );
    if (asks.test(q)) return topic;
  }
  if (/\b(?:remind me|tell me|do you (?:know|remember|recall)|you (?:know|remember))\b.{0,15}\bwhere i (?:live|stay|am living|'m living)\b/i.test(q)) return 'home';
  return null;
}

/** The kind of a question about the student, or null when it is not one. */
export function selfQuestionOf(q: string): SelfTopic | null {
  if (TELLING.test(q)) return null;
  return ASKS.find(([, re]) => re.test(q))?.[0] ?? askedOfMy(q);
}

/** What a saved fact is about, by its wording (src/memory/fact-wording.ts: "Lives in …", "Majors in …"). */
const FACT_KINDS: Array<[Exclude<SelfTopic, 'all'>, RegExp]> = [
  ['home', /^(?:lives|living|stays|staying|moved|resides)\b|\b(?:dorm|residence hall|apartment|lives in)\b/i],
  ['major', /\b(?:majors?|majoring|minors?|minoring|studies|studying|degree|program|concentration)\b/i],
  ['diet', /\b(?:vegetarian|vegan|halal|kosher|gluten|allerg\w*|lactose|dairy|pescatarian|diet\w*|eats?|eating|nuts?|peanuts?|shellfish)\b/i],
  ['year', /\b(?:first-?year|freshman|sophomore|junior|senior|graduate student|grad student|phd|year)\b/i],
];

/** The saved facts of one kind (all of them for `all`). */
export function factsAbout(facts: readonly string[], topic: SelfTopic): string[] {
  if (topic === 'all') return [...facts];
  const re = FACT_KINDS.find(([kind]) => kind === topic)![1];
  return facts.filter((f) => re.test(f));
}

/** A kind named as such in "forget where I live", "forget my major": the opening its facts are worded with. */
const FORGET_KIND: Array<[RegExp, string]> = [
  [/^(?:where i (?:live|stay)|my (?:dorm|address|housing|home))\b/i, 'Lives in'],
  [/^my major\b/i, 'Majors in'],
  [/^my minor\b/i, 'Minors in'],
];

/** What "forget …" names as the saved facts word it ("where I live" → "Lives in"), or null when it names no kind. */
export function forgetKindOf(text: string): string | null {
  return FORGET_KIND.find(([re]) => re.test(text.trim()))?.[1] ?? null;
}

/** How each kind is named in an answer, and what telling it looks like. */
const ABOUT: Record<Exclude<SelfTopic, 'all'>, { what: string; example: string }> = {
  home: { what: 'where you live', example: "Remember that I live in Mudge House" },
  major: { what: 'your major', example: "Remember that I'm majoring in chemistry" },
  diet: { what: 'your diet', example: "Remember that I'm vegetarian" },
  year: { what: 'your year', example: "Remember that I'm a sophomore" },
};

/** The answer to a question about the student, from the saved facts only. */
export function selfAnswer(topic: SelfTopic, facts: readonly string[], question: string): string {
  if (topic === 'all') {
    if (facts.length === 0) return 'I don\'t have anything saved about you yet. Tell me, for example, "Remember that I\'m vegetarian".';
    return ["Here's what I remember about you:", '', ...facts.map((f) => `- ${f}`)].join('\n');
  }
  const { what, example } = ABOUT[topic];
  const found = factsAbout(facts, topic);
  if (found.length === 0) return `**I don't know ${what} yet**: nothing about it is saved. Tell me, for example, "${example}", and I'll keep it in mind.`;
  const yesNo = /^\W*(?:do|did|can|are|am|is)\b/i.test(question) || /\b(?:do you|did you) (?:know|remember|recall)\b/i.test(question);
  return [`${yesNo ? '**Yes.** ' : ''}Here's what I have saved about ${what}:`, '', ...found.map((f) => `- ${f}`)].join('\n');
}

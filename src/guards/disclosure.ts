/**
 * Tool disclosure: the answer must be honest about the tools behind it. When tools ran this turn, a
 * sentence claiming none were used ("I didn't use any tools", "this is based on general knowledge
 * only") is dropped; when the user asks which tools were used, the answer names every one of them
 * (a sentence is appended if the model did not). A turn without tools is left as the model wrote it. `services_used` itself is built from the tool
 * outcomes by the deliver stage, never from the answer.
 */
import { dropSentences } from './sentence-filter.js';

const NO_TOOL_CLAIMS: readonly RegExp[] = [
  // "I didn't use any tools", "without calling any external services", "I did not consult a database"
  /\b(?:did\s*n[o']?t|do\s*n[o']?t|didn't|don't|never|not|without)\s+(?:\w+\s+){0,3}?(?:use|using|used|call|calling|called|consult|consulting|query|querying|access|accessing|need(?:ed)?\s+to\s+use)\s+(?:any\s+|external\s+|campus\s+|the\s+|live\s+|real-time\s+|a\s+|an\s+)*(?:tools?|services?|data\s+sources?|databases?|apis?|functions?|live\s+data|real-time\s+data|lookups?)\b/i,
  // "No tools were used", "no external services were called"
  /\bno\s+(?:\w+\s+)?(?:tools?|services?|lookups?|data\s+sources?|apis?)\s+(?:were|was|are|is|have\s+been)\s+(?:used|called|needed|consulted|involved|required|queried)\b/i,
  // "based on my general knowledge", "drawing from my training data", "from general knowledge alone"
  /\b(?:based|relying|relied|rely|relies|drawing|drew|drawn|comes?|came|answered|answering|purely|solely|entirely|only)\s+(?:\w+\s+){0,2}?(?:on|from)\s+(?:my\s+)?(?:own\s+)?(?:general|prior|background|existing|built-in|training|internal|own)\s+(?:knowledge|information|training(?:\s+data)?|data)\b/i,
  /\bgeneral\s+knowledge\s+(?:only|alone)\b/i,
  // "I don't have access to any tools / real-time data"
  /\b(?:do\s*n[o']?t|don't|cannot|can't|can\s+not)\s+have\s+(?:any\s+)?access\s+to\s+(?:any\s+)?(?:tools|real-time|live|campus\s+(?:data|tools|systems))\b/i,
];

const ASKS_ABOUT_TOOLS: readonly RegExp[] = [
  /\b(?:what|which)\s+(?:\w+\s+)?(?:tools?|services?|sources?|apis?|functions?)(?:\s*\?|\s*$|\s+(?:did|do|does|were|was|have|has|are|you)\b)/i,
  /\b(?:tools?|services?|sources?|apis?)\s+(?:did|do|have|were)\s+(?:you\s+)?(?:use|used|call|called|consult|consulted|check|checked)\b/i,
  /\bdid\s+you\s+(?:use|call|consult|check|query)\s+(?:any\s+|a\s+|the\s+)?(?:tools?|services?|sources?|apis?|databases?)\b/i,
  /\b(?:how|where)\s+did\s+you\s+(?:know|find|get|look)\b/i,
  /\bwhat(?:'s|\s+is|\s+was|\s+are)\s+(?:your|the)\s+sources?\b/i,
];

/** True when `sentence` claims the answer used no tools or relied on general knowledge only. */
export function isNoToolsClaim(sentence: string): boolean {
  return NO_TOOL_CLAIMS.some((re) => re.test(sentence));
}

/** True when the user's message asks which tools, services or sources the answer used. */
export function asksAboutTools(query: string): boolean {
  return ASKS_ABOUT_TOOLS.some((re) => re.test(query));
}

/** The sentence naming the tools used ("I used these tools for this answer: `a`, `b`."). */
export function toolsSentence(tools: readonly string[]): string {
  return `I used ${tools.length === 1 ? 'this tool' : 'these tools'} for this answer: ${tools.map((t) => `\`${t}\``).join(', ')}.`;
}

export interface DisclosureInput {
  /** Tool names called this turn, first-use order, no duplicates. */
  toolsUsed: readonly string[];
  /** The user's message. */
  query: string;
}

/**
 * Whole-text disclosure: drops no-tools claims when tools ran, and appends the naming sentence when the
 * user asked and the answer does not already name every tool used.
 */
export function discloseTools(text: string, input: DisclosureInput): { text: string; changed: boolean } {
  let out = text;
  if (input.toolsUsed.length > 0) {
    const dropped = dropSentences(out, isNoToolsClaim);
    // An answer that was nothing but the false claim becomes the true statement.
    if (dropped.removed > 0) out = dropped.text.trim() || toolsSentence(input.toolsUsed);
  }
  // Only when tools ran: a turn without tools (a refusal, a greeting) is left as the model wrote it.
  if (input.toolsUsed.length > 0 && asksAboutTools(input.query) && !input.toolsUsed.every((t) => out.includes(t))) {
    out = out.trim() ? `${out.trimEnd()}\n\n${toolsSentence(input.toolsUsed)}` : toolsSentence(input.toolsUsed);
  }
  return { text: out, changed: out !== text };
}

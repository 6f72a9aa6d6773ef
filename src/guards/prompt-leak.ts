/**
 * Prompt-leak detection: an answer that repeats any 80-character window of the system prompt verbatim
 * (whitespace runs compared as one space) is a leak. A suffix automaton of the prompt lets the matcher
 * follow, one character at a time, the longest suffix of the answer so far that occurs in the prompt:
 * a leak is that length reaching 80, and the secure stream holds that suffix back while it is long
 * enough to be the start of a leak, so the leaked run itself never leaves in a delta.
 */

/** A run of this many prompt characters in the answer is a leak (issue 4). */
export const PROMPT_WINDOW = 80;

/**
 * Matching suffixes shorter than this leave at once: ordinary phrases an answer shares with the prompt
 * are rarely longer, and at most this many characters minus one of a leaked run can leave before the
 * run is recognised (the stream holds the rest).
 */
export const DEFAULT_HOLD_MIN = 16;

/** The refusal that replaces an answer that leaked the prompt. One sentence. */
export const PROMPT_LEAK_REFUSAL = "Sorry, I can't share that, but I'm happy to help with questions about campus.";

/** A suffix automaton: `next` transitions per state (UTF-16 code units), suffix `link`, `len`. */
interface Automaton {
  next: Array<Map<number, number>>;
  link: number[];
  len: number[];
}

// The user's own saved facts sit in the prompt between these markers (prompt/system-prompt.ts).
// Repeating them to the user is not a leak ("what do you remember about me?"), so they are cut out;
// a NUL in their place keeps a match from spanning the gap.
const USER_MEMORY_BLOCK = /<<<USER MEMORY[^>]*>>>[\s\S]*?<<<END USER MEMORY>>>/g;

function normalisePrompt(prompt: string): string {
  return prompt.replace(USER_MEMORY_BLOCK, '\u0000').replace(/\s+/g, ' ').trim();
}

function buildAutomaton(text: string): Automaton {
  const next: Array<Map<number, number>> = [new Map()];
  const link = [-1];
  const len = [0];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const cur = next.push(new Map()) - 1;
    len[cur] = len[last]! + 1;
    let p = last;
    while (p !== -1 && !next[p]!.has(c)) {
      next[p]!.set(c, cur);
      p = link[p]!;
    }
    if (p === -1) link[cur] = 0;
    else {
      const q = next[p]!.get(c)!;
      if (len[p]! + 1 === len[q]) link[cur] = q;
      else {
        const clone = next.push(new Map(next[q])) - 1;
        len[clone] = len[p]! + 1;
        link[clone] = link[q]!;
        while (p !== -1 && next[p]!.get(c) === q) {
          next[p]!.set(c, clone);
          p = link[p]!;
        }
        link[q] = clone;
        link[cur] = clone;
      }
    }
    last = cur;
  }
  return { next, link, len };
}

/** The prompt prepared for matching (built once per distinct prompt; see `createPromptIndexCache`). */
export interface PromptIndex {
  readonly automaton: Automaton;
}

/** Prepares `prompt` for matching; null when it is too short to contain an 80-character window. */
export function buildPromptIndex(prompt: string): PromptIndex | null {
  const normal = normalisePrompt(prompt);
  return normal.length >= PROMPT_WINDOW ? { automaton: buildAutomaton(normal) } : null;
}

/**
 * A small least-recently-used cache of prompt indexes: prompts repeat across turns (same template,
 * same user), and building one for a few-KB prompt costs milliseconds.
 */
export function createPromptIndexCache(size = 8): (prompt: string) => PromptIndex | null {
  const cache = new Map<string, PromptIndex | null>();
  return (prompt) => {
    if (cache.has(prompt)) {
      const hit = cache.get(prompt)!;
      cache.delete(prompt);
      cache.set(prompt, hit);
      return hit;
    }
    const built = buildPromptIndex(prompt);
    cache.set(prompt, built);
    if (cache.size > size) cache.delete(cache.keys().next().value!);
    return built;
  };
}

export interface PromptMatcher {
  /** Feeds answer text whose first character sits at absolute offset `offset` of the answer. */
  push(text: string, offset: number): void;
  /** Starts over (a new model pass: runs do not continue across passes). */
  reset(): void;
  /** True once any 80-character window of the prompt has appeared. */
  readonly leaked: boolean;
  /** Absolute offset where the current prompt-matching suffix starts, or null when it is short. */
  readonly holdFrom: number | null;
}

/**
 * A streaming matcher against a prepared prompt (null: nothing to match, never leaks). `holdMin`: a
 * matching suffix shorter than this is ordinary prose ("the campus", "Carnegie Mellon") and is not
 * held back; longer ones are held until they stop matching or become a leak.
 */
export function createPromptMatcher(prompt: PromptIndex | null, holdMin = DEFAULT_HOLD_MIN): PromptMatcher {
  const sam = prompt?.automaton ?? null;
  // Absolute offsets of the last PROMPT_WINDOW normalised characters, for `holdFrom`.
  const offsets = new Array<number>(PROMPT_WINDOW).fill(0);
  let count = 0;
  let state = 0;
  let length = 0;
  let lastWasSpace = true;
  let leaked = false;

  const feed = (code: number, at: number) => {
    if (!sam) return;
    while (state !== 0 && !sam.next[state]!.has(code)) {
      state = sam.link[state]!;
      length = sam.len[state]!;
    }
    const to = sam.next[state]!.get(code);
    if (to === undefined) {
      state = 0;
      length = 0;
    } else {
      state = to;
      length++;
    }
    offsets[count % PROMPT_WINDOW] = at;
    count++;
    if (length >= PROMPT_WINDOW) leaked = true;
  };

  return {
    push(text, offset) {
      for (let i = 0; i < text.length && !leaked; i++) {
        const code = text.charCodeAt(i);
        const space = code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || /\s/.test(text[i]!);
        if (space) {
          if (lastWasSpace) continue;
          lastWasSpace = true;
          feed(32, offset + i);
        } else {
          lastWasSpace = false;
          feed(code, offset + i);
        }
      }
    },
    reset() {
      state = 0;
      length = 0;
      lastWasSpace = true;
    },
    get leaked() {
      return leaked;
    },
    get holdFrom() {
      if (length < holdMin || length === 0) return null;
      return offsets[(count - length) % PROMPT_WINDOW]!;
    },
  };
}

/** True when `text` repeats an 80-character window of `prompt` (whitespace-insensitive). */
export function containsPromptRun(text: string, prompt: string): boolean {
  const m = createPromptMatcher(buildPromptIndex(prompt));
  m.push(text, 0);
  return m.leaked;
}

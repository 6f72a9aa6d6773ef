/**
 * The one redaction policy for everything that leaves the service: streamed and JSON answers (with the
 * turn's system prompt), titles, memory facts (refused before they are stored), memory listings and
 * events, error envelopes and log lines. Built once from configuration; what it recognises and how is
 * in leak-scanner/, what counts as a secret in secrets.ts.
 */
import type { Config } from '../config.js';
import { canonicalSymbols, SEPARATOR } from './canonical.js';
import { createLeakScanner, FRAGMENT_ANY, FRAGMENT_WITH_DIGIT, PROMPT_WINDOW, type LeakScanner, type LeakTargets } from './leak-scanner/index.js';
import { collectSecrets, MIN_SECRET_LENGTH, type ConfiguredSecrets } from './secrets.js';
import { buildSubstringIndex, type SubstringIndex } from './substring-index.js';
import { buildWholeMatcher } from './whole-matcher.js';

export { REDACTED } from './leak-scanner/index.js';

export interface Redaction {
  text: string;
  /** True when anything was replaced. */
  redacted: boolean;
}

export interface LeakPolicy {
  /** A whole text, redacted. */
  scan(text: string): Redaction;
  /** `scan(text).text`: for log lines and envelopes. */
  redact(text: string): string;
  /** A streaming scanner for one answer; with the turn's system prompt, runs of it are a leak too. */
  stream(systemPrompt?: string | null): LeakScanner;
  /**
   * True when `text` repeats a run of the service's fixed instructions (the reference prompt given at
   * creation) in any form the scanner reads: the rule the answer route applies to a turn's prompt, for
   * text written outside a turn's answer (facts).
   */
  carriesPrompt(text: string): boolean;
}

/**
 * The user's own saved facts sit in the prompt between these markers (prompt/system-prompt.ts writes
 * them, the sandbox's offline model reads them). Repeating them to the user is not a leak ("what do you
 * remember about me?"), so the policy cuts them out of the prompt it guards.
 */
export const USER_MEMORY_OPEN = '<<<USER MEMORY (untrusted data)>>>';
export const USER_MEMORY_CLOSE = '<<<END USER MEMORY>>>';
const USER_MEMORY_BLOCK = /<<<USER MEMORY[^>]*>>>[\s\S]*?<<<END USER MEMORY>>>/g;

/**
 * What a turn's prompt index is built from and cached by: the prompt with its memory block emptied. The
 * index leaves the user's facts out, so turns whose prompts differ only there (every returning student
 * has facts of their own) share one index instead of building one each, about a millisecond a turn.
 */
export function promptIndexKey(prompt: string): string {
  return prompt.replace(USER_MEMORY_BLOCK, `${USER_MEMORY_OPEN}${USER_MEMORY_CLOSE}`);
}

/** ROT13 of the Latin letters of `text`. */
function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** The prompt index: the prompt without the memory block, forwards and reversed; null when too short to leak. */
function buildPromptIndex(prompt: string): SubstringIndex | null {
  const pieces = prompt.split(USER_MEMORY_BLOCK).map(canonicalSymbols);
  const forwards: number[] = [];
  for (const p of pieces) {
    if (forwards.length > 0) forwards.push(SEPARATOR);
    forwards.push(...p);
  }
  if (Math.max(0, ...pieces.map((p) => p.length)) < PROMPT_WINDOW) return null;
  return buildSubstringIndex([forwards, [...forwards].reverse()]);
}

/**
 * Builds the policy from the secret values and the service's reference prompt (prompt/system-prompt.ts
 * referenceSystemPrompt); the indexes of `promptCache` distinct turn prompts (told apart without their
 * memory blocks, promptIndexKey) are kept.
 */
export function createLeakPolicy(secrets: ConfiguredSecrets, options: { servicePrompt?: string; promptCache?: number } = {}): LeakPolicy {
  const promptCache = options.promptCache ?? 8;
  // Every value as written and ROT13-ed (a cipher any reader undoes): the same rule for both.
  const withRot13 = (values: string[]) => values.flatMap((v) => [v, rot13(v)]).map(canonicalSymbols);
  const randomSymbols = withRot13(secrets.random).filter((s) => s.length >= MIN_SECRET_LENGTH);
  // Random values long enough for the fragment rule are indexed; shorter ones count only whole.
  const indexed = randomSymbols.filter((s) => s.length >= FRAGMENT_WITH_DIGIT);
  const wholeOnly = [...randomSymbols.filter((s) => s.length < FRAGMENT_WITH_DIGIT), ...withRot13(secrets.names)].filter(
    (s) => s.length >= MIN_SECRET_LENGTH,
  );
  const fragments = buildSubstringIndex(indexed.flatMap((s) => [s, [...s].reverse()]));
  const fragmentAny = Math.min(FRAGMENT_ANY, ...indexed.map((s) => s.length));
  const whole = wholeOnly.length > 0 ? buildWholeMatcher(wholeOnly.flatMap((s) => [s, [...s].reverse()])) : null;
  const base: LeakTargets = { fragments, fragmentAny, whole, prompt: null };

  const prompts = new Map<string, SubstringIndex | null>();
  const promptIndex = (prompt: string): SubstringIndex | null => {
    const key = promptIndexKey(prompt);
    if (prompts.has(key)) {
      const hit = prompts.get(key)!;
      prompts.delete(key);
      prompts.set(key, hit);
      return hit;
    }
    const built = buildPromptIndex(key);
    prompts.set(key, built);
    if (prompts.size > promptCache) prompts.delete(prompts.keys().next().value!);
    return built;
  };

  // Whole texts (log lines, envelopes, titles, facts) go through one long-lived scanner: `flush` ends
  // every match, so each text is read on its own, and no scanner is allocated per log line. Scans are
  // synchronous, so they never interleave.
  const wholeTexts = createLeakScanner(base);
  const scan = (text: string): Redaction => {
    const before = wholeTexts.redactions;
    const out = wholeTexts.push(text) + wholeTexts.flush();
    return { text: out, redacted: wholeTexts.redactions > before };
  };

  const servicePrompt = options.servicePrompt ? buildPromptIndex(options.servicePrompt) : null;

  return {
    scan,
    redact: (text) => scan(text).text,
    stream: (systemPrompt) => createLeakScanner(systemPrompt ? { ...base, prompt: promptIndex(systemPrompt) } : base),
    carriesPrompt(text) {
      if (!servicePrompt) return false;
      const scanner = createLeakScanner({ ...base, prompt: servicePrompt });
      scanner.push(text);
      scanner.flush();
      return scanner.leaked;
    },
  };
}

/** The policy of a configuration, guarding `servicePrompt` (the reference prompt) outside turns too. */
export function leakPolicyFromConfig(config: Config, servicePrompt?: string): LeakPolicy {
  return createLeakPolicy(collectSecrets(config), servicePrompt ? { servicePrompt } : {});
}

/** A policy that knows no configured secret (key shapes and tokens are still recognised). */
export const baseLeakPolicy: LeakPolicy = createLeakPolicy({ random: [], names: [] });

/**
 * The leak scanner: text goes in chunk by chunk, text that can no longer turn into a leak comes out,
 * with every leaked span replaced by `[redacted]`. One pass, state carried between chunks (linear in the
 * text, nothing re-scanned), five readings at once, one file each:
 *
 * - **direct** (reading.ts): canonically (security/canonical.ts: case, spacing, zero-width characters,
 *   Markdown and Unicode compatibility forms folded away), against the secret index (any long enough
 *   fragment of a secret or of its reversal), the whole values (host names, short secrets: one
 *   automaton, whole-matcher.ts) and the system prompt;
 * - **unescaped** (escapes.ts): percent-encoding, HTML character references and `\\u`/`\\x` escapes
 *   undone, then read canonically the same way, started at the first character that may open an escape;
 * - **encoded** (encoded-runs.ts): base64 at each of its four character phases, base32 at its eight and
 *   hex at its two, decoded on the fly and read canonically, so a secret encoded at any byte alignment
 *   is read back in clear;
 * - **key words** (key-words.ts): raw key-shaped words of the common providers, configured or not;
 * - **bearer tokens** (bearer-tokens.ts): a token after the word "bearer", configured or not.
 *
 * It holds back exactly what is still undecided (the start of a match that may grow into a leak) and
 * releases the rest at once. A prompt leak (a 64-symbol run of the system prompt, forwards or reversed)
 * stops the release for good: the caller replaces the answer.
 */
import { createCanonicalReader } from '../canonical.js';
import { BearerTokens } from './bearer-tokens.js';
import { B32, B64, EncodedRun, HEX } from './encoded-runs.js';
import { firstEscapeOpener, Unescaper } from './escapes.js';
import { KeyWords } from './key-words.js';
import type { RawText } from './raw-text.js';
import { Findings, PROMPT_HOLD, Reading, type LeakTargets, type ScanContext } from './reading.js';

export { FRAGMENT_ANY, FRAGMENT_WITH_DIGIT, PROMPT_HOLD, PROMPT_WINDOW, SECRET_HOLD, type LeakTargets } from './reading.js';

export const REDACTED = '[redacted]';

export interface LeakScanner {
  /** Takes the next chunk; returns the text now safe to release (maybe empty), redacted. */
  push(text: string): string;
  /**
   * The text is complete (end of a model pass): releases everything still held, redacted. Every match
   * in progress ends here, so the scanner reads what follows as a new text.
   */
  flush(): string;
  /** True once the text repeated a run of the system prompt; nothing is released after that. */
  readonly leaked: boolean;
  /** True when anything released so far was redacted. */
  readonly redacted: boolean;
  /** How many spans were redacted so far (a whole-text scan compares it before and after). */
  readonly redactions: number;
  /** Characters currently held back. */
  readonly held: number;
}

export function createLeakScanner(targets: LeakTargets): LeakScanner {
  let ringSize = 128;
  while (ringSize <= (targets.whole?.longest ?? 0)) ringSize *= 2;
  const findings = new Findings();
  const scan: ScanContext = { targets, ringSize, mask: ringSize - 1, findings };

  let buf = '';
  // Absolute offset of buf[0].
  let base = 0;
  let redactions = 0;

  const direct = new Reading(scan, PROMPT_HOLD);
  const reader = createCanonicalReader();
  const readDirect = (symbol: number, at: number) => direct.feed(symbol, at, at + 1);
  const unescaper = new Unescaper(scan);
  // Five bytes are eight base32 characters: a secret encoded at any byte alignment needs all 8 phases.
  const encodings = [new EncodedRun(scan, B64, 6, 4), new EncodedRun(scan, B32, 5, 8), new EncodedRun(scan, HEX, 4, 2)];
  const raw: RawText = { findings, text: (from, to) => buf.slice(from - base, to - base) };
  const keys = new KeyWords(raw);
  const bearer = new BearerTokens(findings);
  const decoded = encodings.flatMap((e) => e.decoders.map((d) => d.reading));

  const readRaw = (text: string, offset: number) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const at = offset + i;
      for (let e = 0; e < encodings.length; e++) encodings[e]!.feedRun(c, at);
      keys.step(c, at);
      bearer.step(c, at);
    }
  };

  const release = (limit: number): string => {
    const { starts, ends } = findings;
    // Spans wholly before the limit leave redacted; the first that runs past it holds the text from its
    // start. Merged spans neither overlap nor touch, so no span before it reaches the new cut.
    let whole = 0;
    while (whole < starts.length && ends[whole]! <= limit) whole++;
    const cut = whole < starts.length && starts[whole]! < limit ? starts[whole]! : limit;
    if (cut <= base) return '';
    const n = cut - base;
    let out = buf.slice(0, n);
    if (whole > 0) {
      out = '';
      let at = base;
      for (let i = 0; i < whole; i++) {
        out += buf.slice(at - base, starts[i]! - base) + REDACTED;
        at = ends[i]!;
      }
      out += buf.slice(at - base, n);
      starts.splice(0, whole);
      ends.splice(0, whole);
      redactions += whole;
    }
    buf = buf.slice(n);
    base = cut;
    findings.floor = cut;
    return out;
  };

  const holdPoint = (): number => {
    let h = Math.min(base + buf.length, direct.holdFrom(), unescaper.holdFrom(), keys.holdFrom(), bearer.holdFrom());
    for (const r of decoded) if (r.active) h = Math.min(h, r.holdFrom());
    return h;
  };

  return {
    push(text) {
      if (findings.leaked || !text) return '';
      const offset = base + buf.length;
      buf += text;
      // The unescaped reading starts as a copy of the direct one at the first possible escape: until
      // then the two readings are the same symbols, so the copy is exact and plain text costs nothing.
      const opens = unescaper.running ? 0 : firstEscapeOpener(text);
      if (opens < 0) reader.push(text, offset, readDirect);
      else {
        if (opens > 0) reader.push(text.slice(0, opens), offset, readDirect);
        if (!unescaper.running) unescaper.begin(direct);
        const rest = opens > 0 ? text.slice(opens) : text;
        reader.push(rest, offset + opens, readDirect);
        unescaper.push(rest, offset + opens);
      }
      readRaw(text, offset);
      if (findings.leaked) return '';
      return release(holdPoint());
    },
    flush() {
      const end = base + buf.length;
      keys.end(end);
      bearer.end(end);
      for (const e of encodings) e.end();
      direct.close();
      reader.reset();
      unescaper.end();
      if (findings.leaked) return '';
      return release(end);
    },
    get leaked() {
      return findings.leaked;
    },
    get redacted() {
      return redactions > 0;
    },
    get redactions() {
      return redactions;
    },
    get held() {
      return buf.length;
    },
  };
}

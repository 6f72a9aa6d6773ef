/**
 * The secure stream: model text goes in chunk by chunk, text that can no longer turn into a secret, a
 * key, a bearer token or a prompt leak comes out, redacted. Instead of a fixed window it holds back
 * exactly what is still undecided: a tail that is the start of a configured secret, a key or token that
 * may still grow, and a suffix that matches the system prompt for 16+ characters (it may be the start
 * of an 80-character run). So an ordinary sentence leaves as soon as it arrives, and a secret or a
 * leaked prompt run never leaves at all: once a leak is seen, nothing more is released.
 */
import { createPromptMatcher, type PromptIndex, type PromptMatcher } from './prompt-leak.js';
import { redactAnswer, unsafeTailStart } from './redaction.js';

export interface SecureStreamOptions {
  /** Configured secret values (security/secrets.ts `collectSecrets`). */
  secrets: readonly string[];
  /** The turn's system prompt, prepared (prompt-leak.ts); runs of it must not appear in the answer. */
  prompt: PromptIndex | null;
  /** Matching prompt suffixes shorter than this are released (see prompt-leak.ts). */
  promptHoldMin?: number;
}

export interface SecureStream {
  /** Takes the next chunk of answer text; returns the text now safe to release (maybe empty). */
  push(text: string): string;
  /** The text is complete (end of a pass): releases everything still held, redacted. */
  flush(): string;
  /** True once the answer repeated a run of the system prompt; nothing is released after that. */
  readonly leaked: boolean;
  /** True when anything released so far was redacted. */
  readonly redacted: boolean;
  /** Characters currently held back (for tests and the bench). */
  readonly held: number;
}

/** Creates the secure stream of one answer. */
export function createSecureStream(options: SecureStreamOptions): SecureStream {
  const { secrets } = options;
  const matcher: PromptMatcher = createPromptMatcher(options.prompt, options.promptHoldMin);
  let buf = '';
  // Absolute offset (in the text pushed so far) of buf[0].
  let base = 0;
  let redacted = false;

  const release = (text: string): string => {
    const r = redactAnswer(text, secrets);
    if (r.redacted) redacted = true;
    return r.text;
  };

  return {
    push(text) {
      if (matcher.leaked || !text) return '';
      matcher.push(text, base + buf.length);
      buf += text;
      if (matcher.leaked) return '';
      const hold = matcher.holdFrom;
      const limit = hold === null ? buf.length : Math.max(0, hold - base);
      const cut = unsafeTailStart(buf, secrets, limit);
      if (cut === 0) return '';
      const out = buf.slice(0, cut);
      buf = buf.slice(cut);
      base += cut;
      return release(out);
    },
    flush() {
      matcher.reset();
      if (matcher.leaked) return '';
      const out = buf;
      base += buf.length;
      buf = '';
      return out ? release(out) : '';
    },
    get leaked() {
      return matcher.leaked;
    },
    get redacted() {
      return redacted;
    },
    get held() {
      return buf.length;
    },
  };
}

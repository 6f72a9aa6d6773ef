/**
 * The raw reading for key-shaped words: API keys of the common providers, configured here or not.
 */
import { isKeyChar, type RawText } from './raw-text.js';

// Raw key shapes. A "word" is a maximal run of key characters; it is redacted when it has one of
// these shapes, and held back while it could still grow into one.
const KEY_PREFIXES = [
  'sk-', 'sk_live_', 'sk_test_', 'rk_live_', 'AIza', 'AKIA', 'ASIA', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_',
  'github_pat_', 'xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-', 'hf_', 'gsk_', 'glpat-', 'pplx-', 'nvapi-', 'r8_',
];
const KEY_PREFIX_MAX = Math.max(...KEY_PREFIXES.map((p) => p.length));
const KEY_SHAPE = new RegExp(
  '^(?:sk-[A-Za-z0-9_-]{16,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|AIza[A-Za-z0-9_-]{35,}|A[KS]IA[A-Z0-9]{16,}' +
    '|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{30,}' +
    '|gsk_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,}|pplx-[A-Za-z0-9]{30,}|nvapi-[A-Za-z0-9_-]{30,}|r8_[A-Za-z0-9]{30,})$',
);
const mayBeKey = (head: string) => KEY_PREFIXES.some((p) => p.startsWith(head) || head.startsWith(p));

/**
 * Raw key-shaped words of the common providers, configured or not: a word is a maximal run of key
 * characters, redacted when it has a key's shape and held while it could still grow into one.
 */
export class KeyWords {
  private start = -1;
  /** The word so far may still be a key (most words are ruled out at their first letter). */
  private candidate = false;

  constructor(private readonly scan: RawText) {}

  step(c: number, at: number): void {
    if (c < 128 && isKeyChar(c)) {
      if (this.start < 0) {
        this.start = at;
        this.candidate = true;
      }
      // Only candidates pay for a look at their head (still in the buffer: held).
      if (this.candidate && at - this.start < KEY_PREFIX_MAX) this.candidate = mayBeKey(this.scan.text(this.start, at + 1));
    } else if (this.start >= 0) this.end(at);
  }

  end(end: number): void {
    if (this.start < 0) return;
    if (this.candidate && KEY_SHAPE.test(this.scan.text(this.start, end))) this.scan.findings.add(this.start, end);
    this.start = -1;
    this.candidate = false;
  }

  holdFrom(): number {
    return this.candidate ? this.start : Infinity;
  }
}

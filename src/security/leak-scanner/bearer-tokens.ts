/**
 * The raw reading for bearer tokens: a token after the word "bearer" and whitespace.
 */
import { isSpace, isTokenChar } from './raw-text.js';
import type { Findings } from './reading.js';

const BEARER_CODES = [...'bearer'].map((ch) => ch.charCodeAt(0));
/** A bearer token (RFC 6750 b64token) needs a digit and this many characters, so "Bearer bonds" stays prose. */
const BEARER_TOKEN_MIN = 12;

/** Bearer tokens: a token after the word "bearer" and whitespace, with a digit and BEARER_TOKEN_MIN characters. */
export class BearerTokens {
  private start = -1;
  /** How many characters of the token so far spell "bearer" (case-insensitive); -1 once they do not. */
  private bearerPrefix = -1;
  private digit = false;
  private candidate = false;
  /** The last token was the word "bearer" ... */
  private afterBearer = false;
  /** ... and whitespace followed it. */
  private spaced = false;

  constructor(private readonly findings: Findings) {}

  step(c: number, at: number): void {
    if (c < 128 && isTokenChar(c)) {
      if (this.start < 0) {
        this.start = at;
        this.bearerPrefix = 0;
        this.digit = false;
        this.candidate = this.afterBearer && this.spaced;
      }
      if (this.bearerPrefix >= 0) this.bearerPrefix = this.bearerPrefix < 6 && (c | 32) === BEARER_CODES[this.bearerPrefix] ? this.bearerPrefix + 1 : -1;
      if (c >= 48 && c <= 57) this.digit = true;
    } else {
      if (this.start >= 0) this.endToken(at);
      if (isSpace(c)) this.spaced = true;
      else this.afterBearer = false;
    }
  }

  /** The text ends: a token in progress ends, and nothing after carries over. */
  end(end: number): void {
    if (this.start >= 0) this.endToken(end);
    this.afterBearer = this.spaced = false;
  }

  holdFrom(): number {
    return this.candidate ? this.start : Infinity;
  }

  private endToken(end: number): void {
    if (this.candidate && this.digit && end - this.start >= BEARER_TOKEN_MIN) this.findings.add(this.start, end);
    this.afterBearer = this.bearerPrefix === 6 && end - this.start === 6;
    this.spaced = false;
    this.start = -1;
    this.candidate = false;
  }
}

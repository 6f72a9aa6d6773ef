/**
 * The encoded readings: a run of base64 (standard and URL-safe), base32 (RFC 4648, upper case) or hex
 * characters is decoded at every phase at once and each decoded byte is read canonically, so a secret
 * encoded at any byte alignment is read back in clear.
 */
import { canonicalSymbol } from '../canonical.js';
import { isSpace } from './raw-text.js';
import { PROMPT_HOLD, Reading, type ScanContext } from './reading.js';

export const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
B64[45] = 62; // '-' (URL-safe alphabet)
B64[95] = 63; // '_'
// Base32 (RFC 4648), in its upper-case alphabet: A-Z are 0-25, 2-7 are 26-31. Read case-insensitively,
// every lowercase letter of ordinary prose would feed eight decoders (measured: the scanner 1.6× slower
// per character); upper case, prose breaks a run at almost every letter.
export const B32 = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) B32['ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.charCodeAt(i)] = i;
export const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** One phase of an encoding: bits accumulated into bytes, each decoded byte read canonically. */
class Decoder {
  private acc = 0;
  private bits = 0;
  /** Where the byte being built started. */
  private byteStart = 0;
  readonly reading: Reading;

  constructor(scan: ScanContext) {
    this.reading = new Reading(scan, PROMPT_HOLD);
  }

  push(value: number, width: number, at: number): void {
    if (this.bits === 0) this.byteStart = at;
    this.acc = ((this.acc << width) | value) & 0x3fff;
    this.bits += width;
    if (this.bits >= 8) {
      this.bits -= 8;
      const symbol = canonicalSymbol((this.acc >> this.bits) & 0xff);
      if (symbol >= 0) this.reading.feed(symbol, this.byteStart, at + 1);
      this.byteStart = at;
    }
  }

  end(): void {
    this.acc = this.bits = 0;
    this.reading.close();
  }
}

/**
 * The raw text read as one encoding (base64, base32, hex): a run of the alphabet's characters (spaces
 * inside a run are skipped, as a wrapped encoding has them) is decoded at every phase at once, since a
 * secret may start at any byte alignment; a character outside the alphabet ends the run.
 */
export class EncodedRun {
  private run = 0;
  readonly decoders: Decoder[];

  constructor(
    scan: ScanContext,
    /** The alphabet: a character code's value, or -1. */
    private readonly values: Int8Array,
    /** Bits per character. */
    private readonly width: number,
    /** Characters per whole number of bytes: the phases a secret can start at. */
    phases: number,
  ) {
    this.decoders = Array.from({ length: phases }, () => new Decoder(scan));
  }

  feedRun(c: number, at: number): void {
    const value = c < 128 ? this.values[c]! : -1;
    if (value >= 0) {
      // Phase p starts at the p-th character of the run.
      const phases = Math.min(this.decoders.length, this.run + 1);
      for (let p = 0; p < phases; p++) this.decoders[p]!.push(value, this.width, at);
      this.run++;
    } else if (this.run > 0 && !isSpace(c)) this.end();
  }

  end(): void {
    for (const d of this.decoders) d.end();
    this.run = 0;
  }
}

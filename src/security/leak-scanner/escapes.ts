/**
 * The unescaped reading: percent-encoding (UTF-8 assembled, encoded twice undone twice), HTML character
 * references and `\\u`/`\\x` escapes undone, read canonically. It starts as a copy of the direct reading
 * at the first character that may open an escape, so plain text costs nothing.
 */
import { createCanonicalReader } from '../canonical.js';
import { HEX } from './encoded-runs.js';
import { Reading, type ScanContext } from './reading.js';

/** The index of the first character that may open an escape (`%`, `&`, `\\`), or -1. */
export function firstEscapeOpener(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 || c === 38 || c === 92) return i;
  }
  return -1;
}

/** Where an escape being read started, in which form; `none` outside one. */
type EscapeState = 'none' | 'pct' | 'amp' | 'amp#' | 'dec' | 'hexref' | 'bs' | 'u' | 'x';

/**
 * The text with its escapes undone (percent-encoding with UTF-8 assembled, HTML character references
 * `&#NNN;` and `&#xHH;` with the `;` optional as browsers read them, `\uHHHH` and `\xHH`), read
 * canonically: a decoded character carries the offsets of its whole escape, anything else its own.
 * Started only at the first character that may open an escape, as a copy of the direct reading.
 */
export class Unescaper {
  readonly reading: Reading;
  private readonly reader = createCanonicalReader();
  running = false;
  private state: EscapeState = 'none';
  private start = 0;
  private raw = '';
  private value = 0;
  private digits = 0;
  // UTF-8 assembly for percent-encoded bytes.
  private utf8Need = 0;
  private utf8Value = 0;
  private utf8Start = 0;
  // The span the character being read is attributed to.
  private spanFrom = 0;
  private spanTo = 0;
  private readonly readSymbol = (symbol: number) => this.reading.feed(symbol, this.spanFrom, this.spanTo);

  constructor(scan: ScanContext) {
    // An escape spells one symbol in three to ten characters: the threshold that lets 15 plain symbols
    // of a prompt run leave would let a hundred escaped characters leave, so 4 symbols hold here.
    this.reading = new Reading(scan, 4);
  }

  begin(direct: Reading): void {
    this.running = true;
    this.reading.copyOf(direct);
  }

  /** Where an escape still open (it may decode into part of a match) needs the text held from. */
  holdFrom(): number {
    let h = this.reading.holdFrom();
    if (this.state !== 'none') h = Math.min(h, this.start);
    if (this.utf8Need > 0) h = Math.min(h, this.utf8Start);
    return h;
  }

  end(): void {
    if (!this.running) return;
    this.abandon();
    this.utf8Need = 0;
    this.reading.close();
    this.reader.reset();
    this.running = false;
  }

  push(text: string, offset: number): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      const at = offset + i;
      const step = this.step(ch, at);
      if (step === 'taken') continue;
      // Not (or no longer) inside an escape: what was held of one is plain text, and this character
      // may open the next.
      this.abandon();
      if (ch === '%') this.open('pct', ch, at);
      else if (ch === '&') this.open('amp', ch, at);
      else if (ch === '\\') this.open('bs', ch, at);
      else this.emitChar(ch, at, at + 1);
    }
  }

  /** One character inside an escape: `taken` when it belongs to it, `free` when it is read on its own. */
  private step(ch: string, at: number): 'taken' | 'free' {
    const c = ch.charCodeAt(0);
    switch (this.state) {
      case 'none':
        return 'free';
      case 'pct':
      case 'x':
      case 'u': {
        const h = c < 128 ? HEX[c]! : -1;
        if (h < 0) return 'free';
        this.raw += ch;
        this.value = this.value * 16 + h;
        if (++this.digits === (this.state === 'u' ? 4 : 2)) {
          const kind = this.state;
          this.state = 'none';
          if (kind === 'pct') this.emitByte(this.value, this.start, at + 1);
          else this.emitCodePoint(this.value, this.start, at + 1, kind === 'u');
          // Unless the decoded byte opened the next escape (`%2573`), nothing is held of this one.
          if (this.state === 'none') this.raw = '';
        }
        return 'taken';
      }
      case 'amp':
        if (ch !== '#') return 'free';
        this.state = 'amp#';
        this.raw += ch;
        return 'taken';
      case 'amp#':
        if (ch === 'x' || ch === 'X') {
          this.state = 'hexref';
          this.raw += ch;
          return 'taken';
        }
        if (c < 48 || c > 57) return 'free';
        this.state = 'dec';
        this.raw += ch;
        this.value = c - 48;
        this.digits = 1;
        return 'taken';
      case 'dec':
      case 'hexref': {
        const dec = this.state === 'dec';
        const d = dec ? (c >= 48 && c <= 57 ? c - 48 : -1) : c < 128 ? HEX[c]! : -1;
        if (d >= 0 && this.digits < 7) {
          this.raw += ch;
          this.value = this.value * (dec ? 10 : 16) + d;
          this.digits++;
          return 'taken';
        }
        if (this.digits === 0) return 'free';
        // The reference ends here; its `;` belongs to it, anything else is read on its own.
        this.emitCodePoint(this.value, this.start, ch === ';' ? at + 1 : at);
        this.state = 'none';
        this.raw = '';
        return ch === ';' ? 'taken' : 'free';
      }
      case 'bs':
        if (ch !== 'u' && ch !== 'x') return 'free';
        this.state = ch;
        this.raw += ch;
        return 'taken';
    }
  }

  private open(state: EscapeState, ch: string, at: number): void {
    this.state = state;
    this.start = at;
    this.raw = ch;
    this.value = 0;
    this.digits = 0;
  }

  /** An escape that did not complete is read as the plain text it was. */
  private abandon(): void {
    if (this.state !== 'none') {
      for (let i = 0; i < this.raw.length; i++) this.emitChar(this.raw[i]!, this.start + i, this.start + i + 1);
    }
    this.state = 'none';
    this.raw = '';
  }

  private emitChar(ch: string, from: number, to: number): void {
    this.spanFrom = from;
    this.spanTo = to;
    this.reader.push(ch, from, this.readSymbol);
  }

  /** `unit`: a UTF-16 code unit from `\\u`, where half a surrogate pair is joined by the reader. */
  private emitCodePoint(cp: number, from: number, to: number, unit = false): void {
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff && !unit)) return;
    this.emitChar(cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp), from, to);
  }

  private emitByte(byte: number, from: number, to: number): void {
    if (this.utf8Need > 0 && (byte & 0xc0) === 0x80) {
      this.utf8Value = (this.utf8Value << 6) | (byte & 0x3f);
      if (--this.utf8Need === 0) this.emitCodePoint(this.utf8Value, this.utf8Start, to);
      return;
    }
    this.utf8Need = 0;
    // A percent sign that was itself percent-encoded (`%2573`) opens the next escape: encoding twice
    // is undone twice.
    if (byte === 0x25) {
      // Its raw text stays that of the escape that spelled it: abandoned, `%25` and what followed are
      // read as they stand.
      this.state = 'pct';
      this.start = from;
      this.value = 0;
      this.digits = 0;
      return;
    }
    if (byte < 0x80) return this.emitCodePoint(byte, from, to);
    const lead = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : byte >= 0xc0 ? 1 : 0;
    if (lead === 0) return;
    this.utf8Need = lead;
    this.utf8Value = byte & (0x3f >> lead);
    this.utf8Start = from;
  }
}

/**
 * How the grounding check cuts a streaming answer (issue 73, item 4: the stream's segmentation apart from
 * its judging, which is grounding-stream.ts's). Text is cut into segments: a sentence, or a whole line for
 * a table row. A segment streams as it arrives until a claim's trigger shows up (a digit starting a word,
 * "$", "noon", "midnight": triggers.ts); from there it is held to its end and handed to the judge whole,
 * with the end of its text that already left as context. Before a trigger only a trailing word that could
 * begin a claim is held (a month or a season: "October 15", "Spring 2027"; a "(" of a phone number:
 * hold-points.ts). List markers and heading hashes at a line's start are structure, not claims, and pass
 * as they are. A held segment is bounded (MAX_HELD): each delta costs the same however long the answer is.
 */
import { endsSentenceAt } from '../sentence-end.js';
import { forcedCut, safePoint } from './hold-points.js';
import { hasTrigger, isSpace } from './triggers.js';

/** A segment at its end, as the judge gets it. */
export interface Segment {
  /** Its text not yet released. */
  text: string;
  /** The end of its text that already left: context for a claim that starts before `text`. */
  context: string;
  /** A trigger showed up in it: it may hold a claim. Otherwise all of it but `text`'s tail already left. */
  triggered: boolean;
  /** It ends a sentence within its line, so the judge may hold it for the next one. */
  sentence: boolean;
  /** Its line is a heading ("### Tazza D'Oro"). */
  heading: boolean;
  /** Its line is a table row. */
  table: boolean;
}

/** What the segmenter hands segments to (grounding-stream.ts). */
export interface SegmentJudge {
  /** A segment ended: the text sent in its place, and whether the next segment is held to its end too. */
  end(segment: Segment): { out: string; holdNext: boolean };
  /** A line ended: a table row read whole from its line's start, '' for a row not kept whole, or null for a line of no table. */
  line(row: string | null): void;
}

// List markers, ordered-list numbers, quotes and heading hashes at a line's start.
const LINE_PREFIX = /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+|>[ \t]?|#{1,6}[ \t]+)*/;
// Could still grow into a line prefix ("1", "12.", "##").
const MAYBE_PREFIX = /^[ \t>*+#\d.)-]*$/;
/** A held segment longer than this is judged at a word boundary away from digits (an endless line is not held whole). */
const MAX_HELD = 1200;
/** Of the segment that already left, this much is kept as context for the held part's claims. */
export const CONTEXT = 240;

/** Cuts one answer into segments for a judge (module note). A class: one a turn, cheap to make. */
export class Segmenter {
  /** Text of the current segment not yet released. */
  private buf = '';
  /** Where scanning for a segment end resumes in `buf`. */
  private scan = 0;
  /** The end of the segment's released text (context for claims that start before the held part). */
  private context = '';
  private lineStart = true;
  private table = false;
  private triggered = false;
  private heading = false;

  constructor(private readonly judge: SegmentJudge) {}

  /** Text in; what may leave now out. */
  push(text: string): string {
    this.buf += text;
    return this.process(false);
  }

  /** End of a model pass: what is held is judged and released. */
  flush(): string {
    const out = this.process(true);
    this.lineStart = true;
    return out;
  }

  /** Everything before was reasoning: what is held is dropped. */
  reset(): void {
    this.buf = '';
    this.scan = 0;
    this.context = '';
    this.lineStart = true;
    this.triggered = false;
  }

  /** A trigger in `text`, read with the released character before it (so "w" then "17" is one word). */
  private triggers(text: string): boolean {
    return hasTrigger(text, this.context[this.context.length - 1], this.context);
  }

  /** The segment ends at `end` of `buf`: handed to the judge, and the next one starts. */
  private endSegment(end: number, sentence = false): string {
    const text = this.buf.slice(0, end);
    const { out, holdNext } = this.judge.end({
      text,
      context: this.context,
      // A segment that arrived and ended within one push was never tested for a trigger: tested now.
      triggered: this.triggered || this.triggers(text),
      sentence,
      heading: this.heading,
      table: this.table,
    });
    this.buf = this.buf.slice(end);
    this.scan = 0;
    this.context = '';
    this.triggered = holdNext;
    return out;
  }

  /** Releases the first `upTo` characters of an untriggered segment. */
  private release(upTo: number): string {
    if (upTo <= 0) return '';
    const out = this.buf.slice(0, upTo);
    this.buf = this.buf.slice(upTo);
    this.scan = Math.max(0, this.scan - upTo);
    // Kept to at most twice its length: trimmed now and then, not copied on every delta.
    this.context += out;
    if (this.context.length > 2 * CONTEXT) this.context = this.context.slice(-CONTEXT);
    return out;
  }

  private process(final: boolean): string {
    let out = '';
    for (;;) {
      if (this.lineStart) {
        if (!this.buf) return out;
        const nl = this.buf.indexOf('\n');
        if (nl === -1 && !final && this.buf.length < 8 && MAYBE_PREFIX.test(this.buf)) return out;
        const prefix = LINE_PREFIX.exec(this.buf)![0];
        this.heading = prefix.includes('#');
        out += prefix;
        this.buf = this.buf.slice(prefix.length);
        this.table = this.buf.trimStart().startsWith('|');
        this.lineStart = false;
        this.scan = 0;
        this.context = '';
        this.triggered = false;
      }
      let ended = false;
      for (let i = this.scan; i < this.buf.length; i++) {
        const c = this.buf[i]!;
        if (c === '\n') {
          // A table's rows go to the judge whole from the line's start (its header's days bind the rows below).
          const row = this.table ? this.context + this.buf.slice(0, i) : null;
          this.judge.line(row === null ? null : row.trimStart().startsWith('|') ? row : '');
          out += this.endSegment(i) + '\n';
          this.buf = this.buf.slice(1);
          this.lineStart = true;
          ended = true;
          break;
        }
        // Is the character before `i` the end of a sentence (sentence-end.ts: an end mark, maybe closers, not an abbreviation)?
        if (!this.table && i > 0 && isSpace(c) && endsSentenceAt(this.buf, i, this.context)) {
          out += this.endSegment(i, true);
          ended = true;
          break;
        }
      }
      if (ended) continue;
      this.scan = this.buf.length;
      if (!this.triggered && this.triggers(this.buf)) this.triggered = true;
      if (this.triggered) {
        if (final) return out + this.endSegment(this.buf.length);
        if (this.buf.length > MAX_HELD) {
          out += this.endSegment(forcedCut(this.buf));
          continue;
        }
        return out;
      }
      return out + this.release(final ? this.buf.length : safePoint(this.buf));
    }
  }
}

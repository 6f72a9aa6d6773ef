/**
 * Strips model reasoning from the answer stream: `<think>…</think>` and the vendor variants
 * (`<thinking>`, `<reasoning>`, `<thought>`, `<seed:think>`, `<|begin_of_thought|>…<|end_of_thought|>`,
 * `◁think▷…◁/think▷`). Streaming: a tag may arrive split across chunks, so a tail that could be the
 * start of a tag waits for the next chunk. An unclosed block runs to the end of the pass. A closing tag
 * with no opening one (templates that open the block in the prompt) means all text before it was
 * reasoning: the stripper reports it so the caller can drop what it already released.
 */

interface TagPair {
  open: RegExp;
  close: RegExp;
}

const PAIRS: readonly TagPair[] = [
  { open: /<(think|thinking|reasoning|thought|seed:think)>/i, close: /<\/(think|thinking|reasoning|thought|seed:think)>/i },
  { open: /<\|begin_of_thought\|>/, close: /<\|end_of_thought\|>/ },
  { open: /◁think▷/, close: /◁\/think▷/ },
];

/** Longest tag text, bounding how much of a tail can be a partial tag. */
const MAX_TAG = 24;

/** Marks the point where a stray closing tag showed that everything before it was reasoning. */
export const REASONING_ENDED = Symbol('reasoning-ended');

/** A piece of the stripper's output: visible text, or the stray-close marker. */
export type StripperPiece = string | typeof REASONING_ENDED;

export interface ReasoningStripper {
  /** Feeds raw model text; returns visible text and stray-close markers, in order. */
  push(text: string): StripperPiece[];
  /** Ends the pass: releases a held partial tag as text, drops an unclosed block. */
  end(): string;
}

function firstMatch(text: string, patterns: RegExp[]): { index: number; length: number; pair: number } | null {
  let best: { index: number; length: number; pair: number } | null = null;
  patterns.forEach((re, pair) => {
    const m = re.exec(text);
    if (m && (!best || m.index < best.index)) best = { index: m.index, length: m[0].length, pair };
  });
  return best;
}

/** Start of a tail of `text` that could still grow into a tag (an unclosed "<…" or "◁…"). */
function partialTagStart(text: string): number {
  const from = Math.max(0, text.length - MAX_TAG);
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if ((c === '<' || c === '◁') && !/[>▷\s]/.test(text.slice(i + 1))) return i;
  }
  return text.length;
}

/** Creates a streaming reasoning stripper for one model pass. */
export function createReasoningStripper(): ReasoningStripper {
  let buf = '';
  let inside: number | null = null;

  return {
    push(text) {
      buf += text;
      const out: StripperPiece[] = [];
      for (;;) {
        if (inside === null) {
          const open = firstMatch(buf, PAIRS.map((p) => p.open));
          const close = firstMatch(buf, PAIRS.map((p) => p.close));
          if (close && (!open || close.index < open.index)) {
            // Stray close: what came before was reasoning, held text included.
            buf = buf.slice(close.index + close.length);
            out.push(REASONING_ENDED);
            continue;
          }
          if (open) {
            if (open.index > 0) out.push(buf.slice(0, open.index));
            buf = buf.slice(open.index + open.length);
            inside = open.pair;
            continue;
          }
          const keep = partialTagStart(buf);
          if (keep > 0) out.push(buf.slice(0, keep));
          buf = buf.slice(keep);
          return out;
        }
        const close = firstMatch(buf, [PAIRS[inside]!.close]);
        if (close) {
          buf = buf.slice(close.index + close.length);
          inside = null;
          continue;
        }
        buf = buf.slice(partialTagStart(buf));
        return out;
      }
    },
    end() {
      const rest = inside === null ? buf : '';
      buf = '';
      inside = null;
      return rest;
    },
  };
}

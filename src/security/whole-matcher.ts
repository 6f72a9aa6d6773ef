/**
 * Values that only count whole (host names, short secrets), all matched at once: an Aho-Corasick
 * automaton over canonical symbols, so each symbol costs one table lookup however many values there are
 * (one KMP per value cost a loop over all of them on every symbol of every reading). A state's depth
 * is the longest prefix of any value the text now ends with: where a reading must hold from while a
 * value may still complete.
 */
import { ALPHABET_SIZE } from './canonical.js';

export interface WholeMatcher {
  /** The state after `symbol` from `state` (0 is the start). */
  step(state: number, symbol: number): number;
  /** Length of the longest value ending at `state`, 0 when none. */
  matched(state: number): number;
  /** Length of the longest value prefix the text ends with at `state`. */
  depth(state: number): number;
  /** The longest value, in symbols (0 without values). */
  readonly longest: number;
}

/** Builds the automaton of `values` (canonical symbols, each at least one symbol long). */
export function buildWholeMatcher(values: readonly (readonly number[])[]): WholeMatcher {
  // Trie.
  const next: number[][] = [new Array<number>(ALPHABET_SIZE).fill(-1)];
  const depth: number[] = [0];
  const ends: number[] = [0];
  for (const value of values) {
    let s = 0;
    for (const symbol of value) {
      if (next[s]![symbol]! < 0) {
        next[s]![symbol] = next.length;
        next.push(new Array<number>(ALPHABET_SIZE).fill(-1));
        depth.push(depth[s]! + 1);
        ends.push(0);
      }
      s = next[s]![symbol]!;
    }
    ends[s] = Math.max(ends[s]!, value.length);
  }
  // Failure links, breadth first, folded into a full transition table; a state also reports the
  // longest value ending at its failure chain (a shorter value that is a suffix of where it stands).
  const states = next.length;
  const go = new Int32Array(states * ALPHABET_SIZE);
  const fail = new Int32Array(states);
  const out = Int32Array.from(ends);
  const queue: number[] = [];
  for (let c = 0; c < ALPHABET_SIZE; c++) {
    const t = next[0]![c]!;
    go[c] = t < 0 ? 0 : t;
    if (t > 0) queue.push(t);
  }
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head]!;
    out[s] = Math.max(out[s]!, out[fail[s]!]!);
    for (let c = 0; c < ALPHABET_SIZE; c++) {
      const t = next[s]![c]!;
      if (t < 0) go[s * ALPHABET_SIZE + c] = go[fail[s]! * ALPHABET_SIZE + c]!;
      else {
        fail[t] = go[fail[s]! * ALPHABET_SIZE + c]!;
        go[s * ALPHABET_SIZE + c] = t;
        queue.push(t);
      }
    }
  }
  const depths = Int32Array.from(depth);
  return {
    step: (state, symbol) => go[state * ALPHABET_SIZE + symbol]!,
    matched: (state) => out[state]!,
    depth: (state) => depths[state]!,
    longest: Math.max(0, ...values.map((v) => v.length)),
  };
}

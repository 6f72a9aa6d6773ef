/**
 * A substring index over canonical symbols (security/canonical.ts): a suffix automaton of several
 * strings joined by SEPARATOR. Fed one symbol at a time, it follows the longest suffix of everything
 * read so far that occurs in any indexed string, in amortised constant time per symbol: that length is
 * what the leak policy compares with its thresholds. Built once (per policy, per system prompt) and
 * stored compactly: a dense transition row for the root, sorted edge lists for the other states.
 */
import { ALPHABET_SIZE, SEPARATOR } from './canonical.js';

export interface SubstringIndex {
  /** From `state` with a matched length `length`, reads `symbol`; returns the new state and length. */
  step(state: number, length: number, symbol: number): { state: number; length: number };
  /** Number of states (for the bench and tests). */
  readonly size: number;
}

/** Builds the index of `strings` (each a list of canonical symbols); null when there is nothing to index. */
export function buildSubstringIndex(strings: readonly (readonly number[])[]): SubstringIndex | null {
  const joined: number[] = [];
  for (const s of strings) {
    if (s.length === 0) continue;
    if (joined.length > 0) joined.push(SEPARATOR);
    joined.push(...s);
  }
  if (joined.length === 0) return null;

  // Construction with a dense table (temporary), then compaction.
  const maxStates = 2 * joined.length + 1;
  const next = new Int32Array(maxStates * ALPHABET_SIZE).fill(-1);
  const link = new Int32Array(maxStates);
  const len = new Int32Array(maxStates);
  link[0] = -1;
  let states = 1;
  let last = 0;
  for (const c of joined) {
    const cur = states++;
    len[cur] = len[last]! + 1;
    let p = last;
    while (p !== -1 && next[p * ALPHABET_SIZE + c] === -1) {
      next[p * ALPHABET_SIZE + c] = cur;
      p = link[p]!;
    }
    if (p === -1) link[cur] = 0;
    else {
      const q = next[p * ALPHABET_SIZE + c]!;
      if (len[p]! + 1 === len[q]) link[cur] = q;
      else {
        const clone = states++;
        next.copyWithin(clone * ALPHABET_SIZE, q * ALPHABET_SIZE, (q + 1) * ALPHABET_SIZE);
        len[clone] = len[p]! + 1;
        link[clone] = link[q]!;
        while (p !== -1 && next[p * ALPHABET_SIZE + c] === q) {
          next[p * ALPHABET_SIZE + c] = clone;
          p = link[p]!;
        }
        link[q] = clone;
        link[cur] = clone;
      }
    }
    last = cur;
  }

  // Compact: edges of state s are edgeSymbol/edgeTarget[first[s] .. first[s+1]), by symbol.
  let edges = 0;
  for (let i = 0; i < states * ALPHABET_SIZE; i++) if (next[i] !== -1) edges++;
  const first = new Int32Array(states + 1);
  const edgeSymbol = new Uint8Array(edges);
  const edgeTarget = new Int32Array(edges);
  let e = 0;
  for (let s = 0; s < states; s++) {
    first[s] = e;
    for (let c = 0; c < ALPHABET_SIZE; c++) {
      const t = next[s * ALPHABET_SIZE + c]!;
      if (t !== -1) {
        edgeSymbol[e] = c;
        edgeTarget[e++] = t;
      }
    }
  }
  first[states] = e;
  const root = next.slice(0, ALPHABET_SIZE);
  const links = link.slice(0, states);
  const lens = len.slice(0, states);

  const transition = (s: number, c: number): number => {
    if (s === 0) return root[c]!;
    for (let i = first[s]!, end = first[s + 1]!; i < end; i++) {
      const sym = edgeSymbol[i]!;
      if (sym === c) return edgeTarget[i]!;
      if (sym > c) break;
    }
    return -1;
  };

  const result = { state: 0, length: 0 };
  return {
    size: states,
    step(state, length, symbol) {
      let s = state;
      let n = length;
      for (;;) {
        const t = transition(s, symbol);
        if (t !== -1) {
          result.state = t;
          result.length = n + 1;
          return result;
        }
        if (s === 0) {
          result.state = 0;
          result.length = 0;
          return result;
        }
        s = links[s]!;
        n = lens[s]!;
      }
    },
  };
}

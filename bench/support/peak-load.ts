/**
 * The campus-peak load, shared by the load generator (bench/peak.bench.ts) and the paced gateway
 * (bench/helpers/peak-fakes.ts): the marker that names a turn, the model's pace drawn from it, and the mix of
 * turns students send.
 */

/** In a question, names the turn (`#peak-17`): the gateway paces it, the bench subtracts that pace. */
export const PEAK_MARK = '#peak-';

/** 40 tokens a second. */
export const TOKEN_GAP_MS = 25;

/**
 * A fixed draw per turn (no shared state between processes): first token 0.5-1.5 s, 100-400 tokens, or
 * the mix's fixed answer length.
 */
export function modelPace(turn: number, mix: Mix = MIX): { firstTokenMs: number; answerTokens: number } {
  // A 32-bit integer hash (splitmix-style), so neighbouring turns get unrelated draws.
  let h = (turn + 0x9e3779b9) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h = (h ^ (h >>> 16)) >>> 0;
  return { firstTokenMs: 500 + (h % 1_001), answerTokens: mix.answerTokens ?? 100 + ((h >>> 10) % 301) };
}

export type TurnKind = 'place' | 'food' | 'course' | 'follow-up' | 'fact' | 'remember' | 'small talk';

export interface Mix {
  name: 'campus' | 'outside';
  /** How often each kind of turn comes (per 100). */
  weights: [TurnKind, number][];
  /** Every answer this many tokens, or null for the campus draw (100-400). */
  answerTokens: number | null;
}

/** The campus mix (issue 35). */
export const MIX: Mix = {
  name: 'campus',
  weights: [
    ['place', 20],
    ['food', 20],
    ['course', 15],
    ['follow-up', 15],
    ['fact', 10],
    ['remember', 5],
    ['small talk', 15],
  ],
  answerTokens: null,
};

/**
 * The mix of issue 46's outside run ("lighter" there), rebuilt from its description: a 400-token answer
 * on every turn, a tool pass on most (places, food and courses, 75%), a fact stated on one in five; no
 * history, no "remember ...".
 */
export const OUTSIDE_MIX: Mix = {
  name: 'outside',
  weights: [
    ['place', 25],
    ['food', 25],
    ['course', 25],
    ['fact', 20],
    ['small talk', 5],
  ],
  answerTokens: 400,
};

/**
 * PEAK_MIX picks the mix (`campus`, the default, or `outside`); the bench and its gateway read the same
 * variables. For splitting a turn's cost: PEAK_ONLY=<kind> sends only that kind of turn, and
 * PEAK_ANSWER_TOKENS=N makes every answer N tokens.
 */
export function mixFromEnv(env: NodeJS.ProcessEnv = process.env): Mix {
  const name = env.PEAK_MIX ?? 'campus';
  if (name !== 'campus' && name !== 'outside') throw new Error(`PEAK_MIX must be campus or outside, not ${name}`);
  let mix = name === 'campus' ? MIX : OUTSIDE_MIX;
  const only = env.PEAK_ONLY;
  if (only) {
    if (!MIX.weights.some(([kind]) => kind === only)) throw new Error(`PEAK_ONLY must be one of ${MIX.weights.map(([kind]) => kind).join(', ')}`);
    mix = { ...mix, weights: [[only as TurnKind, 100]] };
  }
  const tokens = env.PEAK_ANSWER_TOKENS;
  if (tokens) {
    if (!/^[1-9]\d*$/.test(tokens)) throw new Error('PEAK_ANSWER_TOKENS must be a positive whole number');
    mix = { ...mix, answerTokens: Number(tokens) };
  }
  return mix;
}

/** The variables mixFromEnv reads, to hand on to the gateway's process. */
export const mixEnv = (env: NodeJS.ProcessEnv = process.env): Record<string, string> =>
  Object.fromEntries(['PEAK_MIX', 'PEAK_ONLY', 'PEAK_ANSWER_TOKENS'].flatMap((key) => (env[key] ? [[key, env[key]!]] : [])));

export const HOMES = ['Donner', 'Mudge', 'Morewood', 'Resnik', 'Stever', 'Hamerschlag', 'Boss'];

export interface PeakTurn {
  kind: TurnKind;
  query: string;
  history: { role: 'user' | 'assistant'; content: string }[];
}

/** The `n`th turn of the load: its kind from the mix, its words marked with `n`. */
export function peakTurn(n: number, draw: number, mix: Mix = MIX): PeakTurn {
  let left = Math.floor(draw * 100);
  const kind = mix.weights.find(([, weight]) => (left -= weight) < 0)?.[0] ?? 'small talk';
  const mark = `(${PEAK_MARK}${n})`;
  const home = HOMES[n % HOMES.length];
  switch (kind) {
    case 'place':
      return { kind, query: `Where is the Gates Hillman Center? ${mark}`, history: [] };
    case 'food':
      return { kind, query: `What's open to eat right now? ${mark}`, history: [] };
    case 'course':
      return { kind, query: `What does 15-122 cover? ${mark}`, history: [] };
    case 'follow-up':
      return {
        kind,
        query: `And where is its lecture hall? ${mark}`,
        history: [
          { role: 'user', content: 'What does 15-122 cover?' },
          { role: 'assistant', content: '15-122 Principles of Imperative Computation covers C0, contracts and data structures.' },
        ],
      };
    case 'fact':
      return { kind, query: `I live in ${home} this year, any tips for a first-year? ${mark}`, history: [] };
    case 'remember':
      return { kind, query: `Remember that I am vegetarian ${mark}`, history: [] };
    default:
      return { kind: 'small talk', query: `Thanks, that's really helpful! ${mark}`, history: [] };
  }
}

/**
 * Which models see images (VISION_MODELS), and what an image costs a model in input tokens, so a photo
 * is priced into the turn's reservation before the call (admission, execute) by the model's own rule.
 *
 * The rules (the providers' published formulas, written down 2026-11-29; a price page to check against,
 * never a promise):
 * - **tiles** (OpenAI gpt-4o, gpt-4.1, o1, o3): at `detail: high` the image is fitted into 2048×2048,
 *   then its shortest side to 768; it costs `base + tile × 512-pixel tiles`. gpt-4o-mini counts 2,833 +
 *   5,667 a tile (about twice gpt-4o's price per image at its lower price per token).
 * - **patches** (gpt-4.1-mini and -nano, o4-mini, the gpt-5 family): 32-pixel patches, at most 1,536,
 *   times the model's multiplier.
 * - **area** (Anthropic, and every other vision model: pessimistic): width × height / 750, at least 1,600.
 * An unknown model is priced by the area rule: over-reserving holds budget for a turn, under-reserving
 * would let a cap be passed.
 */

/** The detail the service asks for: photos of flyers, signs and syllabi are read for their text. */
export const IMAGE_DETAIL = 'high' as const;


/** One VISION_MODELS entry read: an id, or a prefix (`…*`), taken in or out (`!…`). */
interface Rule {
  out: boolean;
  prefix: boolean;
  id: string;
}

const ruleOf = (entry: string): Rule => {
  const out = entry.startsWith('!');
  const body = out ? entry.slice(1) : entry;
  const prefix = body.endsWith('*');
  return { out, prefix, id: (prefix ? body.slice(0, -1) : body).toLowerCase() };
};

/** The models that see, from VISION_MODELS (comma-separated ids and prefixes; `none`: no model sees). */
export class VisionModels {
  private readonly rules: Rule[];

  constructor(list: string) {
    this.rules = list.trim().toLowerCase() === 'none' ? [] : list.split(',').map((e) => e.trim()).filter(Boolean).map(ruleOf);
  }

  /** Whether `model` is given images: some entry takes it in and no `!` entry takes it out. */
  sees(model: string): boolean {
    const id = model.toLowerCase();
    const matches = (r: Rule) => (r.prefix ? id.startsWith(r.id) : id === r.id);
    return this.rules.some((r) => !r.out && matches(r)) && !this.rules.some((r) => r.out && matches(r));
  }
}

type TokenRule = { kind: 'tiles'; base: number; tile: number } | { kind: 'patches'; multiplier: number } | { kind: 'area' };

/** Model families by their ids' start, the most specific first. */
const TOKEN_RULES: ReadonlyArray<[prefix: string, rule: TokenRule]> = [
  ['openai/gpt-4o-mini', { kind: 'tiles', base: 2_833, tile: 5_667 }],
  ['openai/gpt-4.1-mini', { kind: 'patches', multiplier: 1.62 }],
  ['openai/gpt-4.1-nano', { kind: 'patches', multiplier: 2.46 }],
  ['openai/gpt-5-mini', { kind: 'patches', multiplier: 1.62 }],
  ['openai/gpt-5-nano', { kind: 'patches', multiplier: 2.46 }],
  ['openai/gpt-5', { kind: 'tiles', base: 70, tile: 140 }],
  ['openai/o4-mini', { kind: 'patches', multiplier: 1.72 }],
  ['openai/o1', { kind: 'tiles', base: 75, tile: 150 }],
  ['openai/o3', { kind: 'tiles', base: 75, tile: 150 }],
  ['openai/gpt-4', { kind: 'tiles', base: 85, tile: 170 }],
];

/** Fits (w, h) inside a box of `max` on its longest side, never enlarging. */
function fitInside(w: number, h: number, max: number): [number, number] {
  const scale = Math.min(1, max / Math.max(w, h));
  return [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
}

/** Input tokens one image of `width` × `height` (as sent) costs `model` at IMAGE_DETAIL. */
export function imageTokens(model: string, width: number, height: number): number {
  const id = model.toLowerCase();
  const rule = TOKEN_RULES.find(([prefix]) => id.startsWith(prefix))?.[1] ?? { kind: 'area' as const };
  if (rule.kind === 'tiles') {
    let [w, h] = fitInside(width, height, 2_048);
    const shortest = Math.min(w, h);
    if (shortest > 768) [w, h] = [Math.round((w * 768) / shortest), Math.round((h * 768) / shortest)];
    return rule.base + rule.tile * Math.ceil(w / 512) * Math.ceil(h / 512);
  }
  if (rule.kind === 'patches') {
    const patches = Math.min(1_536, Math.ceil(width / 32) * Math.ceil(height / 32));
    return Math.ceil(patches * rule.multiplier);
  }
  return Math.max(1_600, Math.ceil((width * height) / 750));
}

/**
 * The fake gateway's `/v1/embeddings` and `/v1/moderations` answers: deterministic unit-vector
 * embeddings (a hash of the text; identical texts give identical vectors, similar ones need not be
 * similar) in float or base64 encoding, and `omni-moderation-latest`-shaped results per text.
 */
import { createHash } from 'node:crypto';
import { estimateTokens } from './fake-http.js';

/** The `omni-moderation-latest` categories. */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

export interface ModerationScript {
  flagged: boolean;
  categories?: Partial<Record<ModerationCategory, boolean>>;
  category_scores?: Partial<Record<ModerationCategory, number>>;
}

export interface FailureScript {
  status?: number;
  delayMs?: number;
}

/** A unit vector seeded by the text's hash: identical texts give identical vectors. */
export function hashEmbedding(text: string, dimensions = 1536): number[] {
  const out: number[] = [];
  let block = 0;
  while (out.length < dimensions) {
    const digest = createHash('sha256').update(`${block++}:${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && out.length < dimensions; i += 4) {
      out.push(digest.readUInt32LE(i) / 0xffffffff - 0.5);
    }
  }
  const norm = Math.sqrt(out.reduce((s, v) => s + v * v, 0)) || 1;
  return out.map((v) => v / norm);
}

/**
 * The embeddings body. The openai client asks for `encoding_format: base64` unless told otherwise and
 * decodes little-endian float32, so the fake answers in the encoding asked for.
 */
export function embeddingsBody(body: any, scripted: ReadonlyMap<string, number[]>): unknown {
  const inputs: string[] = typeof body?.input === 'string' ? [body.input] : Array.isArray(body?.input) ? body.input : [];
  const dimensions = typeof body?.dimensions === 'number' ? body.dimensions : 1536;
  const base64 = body?.encoding_format === 'base64';
  return {
    object: 'list',
    model: body?.model ?? 'text-embedding-3-small',
    data: inputs.map((text, index) => {
      const vector = scripted.get(text) ?? hashEmbedding(String(text), dimensions);
      return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
    }),
    usage: { prompt_tokens: estimateTokens(inputs), total_tokens: estimateTokens(inputs) },
  };
}

/**
 * A moderation `input` as OpenAI reads it: a string or a string array is one input per string; an array
 * of multimodal parts (`{type: 'text'}`, `{type: 'image_url'}`) is one input, judged whole. Each input is
 * its parts' keys: a text part's text, an image part's URL (scripted with `setModeration(url, …)`).
 */
function moderationInputs(input: unknown): string[][] {
  if (typeof input === 'string') return [[input]];
  if (!Array.isArray(input)) return [];
  if (input.some((part) => typeof part === 'object' && part !== null)) {
    return [input.map((part) => (part?.type === 'image_url' ? String(part.image_url?.url ?? '') : String(part?.text ?? '')))];
  }
  return input.map((text) => [String(text)]);
}

/** The moderations body: one result per input, scripted per text or image URL, nothing flagged by default. */
export function moderationsBody(body: any, scripted: ReadonlyMap<string, ModerationScript>, id: string): unknown {
  const results = moderationInputs(body?.input).map((keys) => {
    const scripts = keys.map((key) => scripted.get(key) ?? { flagged: false });
    const categories: Record<string, boolean> = {};
    const scores: Record<string, number> = {};
    const applied: Record<string, string[]> = {};
    for (const c of MODERATION_CATEGORIES) {
      categories[c] = scripts.some((s) => s.categories?.[c] ?? false);
      scores[c] = Math.max(...scripts.map((s) => s.category_scores?.[c] ?? (s.categories?.[c] ? 0.9 : 0.0001)));
      applied[c] = keys.map((k) => (k.startsWith('data:image/') ? 'image' : 'text'));
    }
    return { flagged: scripts.some((s) => s.flagged), categories, category_scores: scores, category_applied_input_types: applied };
  });
  return { id, model: body?.model ?? 'omni-moderation-latest', results };
}

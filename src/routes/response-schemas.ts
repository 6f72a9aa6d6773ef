/**
 * The shapes the routes answer with, as zod schemas: what the OpenAPI document describes (issue 49)
 * beside the request schemas the routes validate with, and what its test validates real responses
 * against. CONTRACT.md is the authority on each shape; the handlers build their bodies themselves (no
 * parse on the way out: the request path pays nothing for these). Names given with `.meta({ id })`
 * become the document's `components.schemas`.
 */
import { z } from 'zod';
import { FACT_KINDS } from '../memory/store.js';
import { RUN_STATUSES } from '../db/schema.js';

/** Every error of the agent routes: the front end reads `error`, then `detail`. */
export const envelopeSchema = z
  .object({ error: z.string().describe('a short name of the error'), detail: z.string().describe('what happened, for a person') })
  .meta({ id: 'Envelope' });

/** Errors of the OpenAI-compatible routes, in OpenAI's shape (`code` = the envelope's `error`, `message` its `detail`). */
export const openAIErrorSchema = z
  .object({ error: z.object({ message: z.string(), type: z.string(), code: z.string() }) })
  .meta({ id: 'OpenAIError' });

const nullableString = z.string().nullable();

/** The campus map of an answer (the front end's historical `cmu_maps`): all null when there is none. */
export const cmuMapsSchema = z
  .object({
    url: nullableString,
    mode: z.enum(['location', 'directions']).nullable(),
    target: nullableString,
    target_label: nullableString,
    src: nullableString,
    src_label: nullableString,
    dest: nullableString,
    dest_label: nullableString,
  })
  .meta({ id: 'CmuMaps' });

/** `POST /agent/respond`'s body, and the data of the stream's `done` event. */
export const completeResponseSchema = z
  .object({
    thought: z.object({ reasoning: z.string(), confidence: z.number().min(0).max(1) }),
    action: z.enum(['retrieve', 'respond']),
    tool_calls: z.array(z.never()).max(0).describe('always empty: tools run in the service'),
    services_used: z.array(z.string()),
    response_text: z.string().describe('GitHub-flavoured Markdown; what the front end stores'),
    cmu_maps: cmuMapsSchema,
    metadata: z.looseObject({
      grounding: z
        .object({ checked: z.number().int().min(0), unverified: z.number().int().min(0) })
        .describe('claims of the answer checked against the turn\'s evidence, and those held back'),
    }),
  })
  .meta({ id: 'CompleteResponse' });

const textData = z.object({ text: z.string() });

/** The data of each event of `POST /agent/respond/stream`, by event name. */
export const streamEventSchemas = {
  status: textData.meta({ id: 'StatusEvent', description: '"Checking campus tools..." while tools run, "Writing answer..." after' }),
  delta: textData.meta({ id: 'DeltaEvent', description: 'the next piece of the answer' }),
  map: cmuMapsSchema,
  memory: z
    .union([
      z.object({ op: z.literal('add'), text: z.string(), id: z.string(), kind: z.enum(FACT_KINDS), fact: z.string() }),
      z.object({ op: z.literal('remove'), text: z.string() }),
    ])
    .meta({ id: 'MemoryEvent' }),
  done: completeResponseSchema,
  error: envelopeSchema,
} as const;

export const titleResponseSchema = z.object({ title: z.string().nullable().describe('2-5 words, or null') }).meta({ id: 'Title' });

const factSchema = z.object({
  id: z.string(),
  type: z.enum(FACT_KINDS),
  text: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const memoryPageSchema = z
  .object({ items: z.array(factSchema), total: z.number().int().min(0), limit: z.number().int().min(1), offset: z.number().int().min(0) })
  .meta({ id: 'MemoryPage' });

export const factHistorySchema = z
  .object({
    id: z.string(),
    type: z.enum(FACT_KINDS),
    history: z.array(
      z.object({
        at: z.iso.datetime(),
        change: z.enum(['created', 'updated', 'deleted']),
        source: z.enum(['extraction', 'remember', 'forget', 'user']),
        text: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'FactHistory' });

export const factDeletedSchema = z.object({ status: z.literal('deleted'), id: z.string(), type: z.enum(FACT_KINDS) }).meta({ id: 'FactDeleted' });
export const memoryClearedSchema = z.object({ status: z.literal('cleared'), removed: z.number().int().min(0) }).meta({ id: 'MemoryCleared' });

/** `GET /agent/runs/{run_id}` and the cancel route (CONTRACT.md "Resuming a stream"). */
export const runStateSchema = z
  .object({
    run_id: z.string().describe('the id the stream named in `X-Run-Id`'),
    status: z.enum(RUN_STATUSES),
    last_seq: z.number().int().min(0).describe('the seq of the last frame stored'),
    response: completeResponseSchema.optional().describe('the complete response object, when done'),
    error: envelopeSchema.optional().describe('the envelope, when failed'),
  })
  .meta({ id: 'RunState' });

export const healthSchema = z
  .looseObject({
    status: z.enum(['ok', 'degraded']),
    memory: z.object({
      backend: z.enum(['postgres', 'in-memory']),
      initialized: z.boolean(),
      semantic_search: z.boolean(),
      embedding_model: z.string().nullable(),
      ready: z.boolean(),
    }),
    model: z.object({ mode: z.enum(['gateway', 'offline']) }),
    queue: z
      .object({ backend: z.enum(['postgres', 'in-process']), depth: z.number().int(), oldest_seconds: z.number().min(0) })
      .nullable()
      .describe('the background job queue; null when it cannot be read'),
  })
  .meta({ id: 'Health' });

const usageSchema = z.object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0), total_tokens: z.number().int().min(0) });
const finishReason = z.enum(['stop', 'length']);
/** What a completion and each of its chunks carry alike (routes/openai-shapes.ts `CompletionIdentity`). */
const completionIdentity = { id: z.string(), created: z.number().int(), model: z.string() };

export const chatCompletionSchema = z
  .object({
    ...completionIdentity,
    object: z.literal('chat.completion'),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: finishReason,
      }),
    ),
    usage: usageSchema,
  })
  .meta({ id: 'ChatCompletion' });

export const chatCompletionChunkSchema = z
  .object({
    ...completionIdentity,
    object: z.literal('chat.completion.chunk'),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        logprobs: z.null(),
        finish_reason: finishReason.nullable(),
      }),
    ),
    usage: usageSchema.optional().describe('on the last chunk, when stream_options.include_usage is true'),
  })
  .meta({ id: 'ChatCompletionChunk' });

export const modelListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() })),
  })
  .meta({ id: 'ModelList' });

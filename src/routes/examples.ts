/**
 * The API document's examples (issue 63), one place: a request and a response for every operation, as
 * an integrator's tool shows them (Swagger UI's "Try it out", generated clients' docs). Request
 * examples ride on the request schemas (`examples` in their JSON Schema), response examples on each
 * response's media type. `tests/openapi-examples.test.ts` sends every example request to a real server
 * and validates the answer against the document, and validates every example against its schema.
 */
import type { z } from 'zod';
import type { completeResponseSchema, runStateSchema } from './response-schemas.js';

/** A user id as the front end sends it (a hash of the student's account). */
export const EXAMPLE_USER_ID = '5f2a9c1e7b';
/** A run id as `X-Run-Id` names it. */
export const EXAMPLE_RUN_ID = 'NBt6YeKBXKh2up8YAVvx4W8cKp5LfU46nF8tix56TGAAAAAqNBm02iBuwYrmHA';
/** A fact id as the memory routes name it. */
export const EXAMPLE_FACT_ID = '0c7e5a92-4d1b-4e8f-9a3c-2b6d8f1e4a70';

const noMap = { url: null, mode: null, target: null, target_label: null, src: null, src_label: null, dest: null, dest_label: null };

export const EXAMPLES = {
  chatRequest: { query: 'Where is Gates Hillman Center?', user_id: EXAMPLE_USER_ID, message_history: [], disabled_tools: ['bus'] },
  completeResponse: {
    thought: { reasoning: 'The question names a building; the campus map has it.', confidence: 0.9 },
    action: 'retrieve',
    tool_calls: [],
    services_used: ['maps_search_buildings'],
    response_text: 'Gates Hillman Center (GHC) is on the main campus; the map below shows it.',
    cmu_maps: { ...noMap, url: 'https://maps.scottylabs.org/GHC?dst=GHC', mode: 'location', target: 'GHC', target_label: 'Gates Hillman Center' },
    metadata: { grounding: { checked: 1, unverified: 0 } },
  } satisfies z.input<typeof completeResponseSchema>,
  deltaFrame: { id: `${EXAMPLE_RUN_ID}:3`, event: 'delta', data: { text: 'Gates Hillman Center (GHC) is ' } },
  runDone: { run_id: EXAMPLE_RUN_ID, status: 'done', last_seq: 9 } satisfies z.input<typeof runStateSchema>,
  runCancelled: { run_id: EXAMPLE_RUN_ID, status: 'cancelled', last_seq: 4 } satisfies z.input<typeof runStateSchema>,
  cancelRequest: { user_id: EXAMPLE_USER_ID },
  titleRequest: { query: 'What time does the dining hall close tonight?' },
  title: { title: 'Dining Hall Closing Time' },
  memoryPage: {
    items: [{ id: EXAMPLE_FACT_ID, type: 'remembered', text: 'Is vegetarian', created_at: '2026-11-21T15:04:05.000Z', updated_at: '2026-11-21T15:04:05.000Z' }],
    total: 1,
    limit: 20,
    offset: 0,
  },
  factHistory: {
    id: EXAMPLE_FACT_ID,
    type: 'remembered',
    history: [{ at: '2026-11-21T15:04:05.000Z', change: 'created', source: 'remember', text: 'Is vegetarian' }],
  },
  factDeleted: { status: 'deleted', id: EXAMPLE_FACT_ID, type: 'remembered' },
  memoryCleared: { status: 'cleared', removed: 3 },
  health: {
    status: 'ok',
    memory: { backend: 'postgres', initialized: true, semantic_search: true, embedding_model: 'openai/text-embedding-3-small', ready: true },
    model: { mode: 'gateway' },
    queue: { backend: 'postgres', depth: 0, oldest_seconds: 0 },
  },
  openAIRequest: { model: 'campus-agent', messages: [{ role: 'user', content: 'Where is Gates Hillman Center?' }] },
  chatCompletion: {
    id: 'chatcmpl-3b8f2d4e9c1a4f6b',
    object: 'chat.completion',
    created: 1_795_000_000,
    model: 'campus-agent',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Gates Hillman Center (GHC) is on the main campus.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 2400, completion_tokens: 18, total_tokens: 2418 },
  },
  chatCompletionFrame: {
    data: {
      id: 'chatcmpl-3b8f2d4e9c1a4f6b',
      object: 'chat.completion.chunk',
      created: 1_795_000_000,
      model: 'campus-agent',
      choices: [{ index: 0, delta: { content: 'Gates Hillman Center ' }, logprobs: null, finish_reason: null }],
    },
  },
  modelList: {
    object: 'list',
    data: [
      { id: 'campus-agent', object: 'model', created: 1_795_392_000, owned_by: 'campus-assistant' },
      { id: 'openai/gpt-4o-mini', object: 'model', created: 1_795_392_000, owned_by: 'openai' },
    ],
  },
  document: { openapi: '3.1.0', info: { title: 'Campus assistant agent service', version: '1.2.0' }, paths: {} },
  page: '<!doctype html><html lang="en"><head><title>Campus assistant API</title></head><body><div id="swagger-ui"></div></body></html>',
  asset: '.swagger-ui{font-family:sans-serif}',
} as const;

/**
 * The telemetry wrappers that count failures: the memory store counted by operation (its failures
 * still fail as they did), and the traced gateway's model-operation metric on a failed call.
 */
import { describe, expect, it } from 'vitest';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { observedStore } from '../src/memory/observed-store.js';
import type { ModelGateway } from '../src/model/gateway.js';
import { ModelUnavailableError } from '../src/model/gateway-errors.js';
import { tracedGateway } from '../src/model/traced-gateway.js';
import { noTelemetry, type ModelOperation, type ServiceMetrics } from '../src/telemetry/telemetry.js';

function recordingMetrics() {
  const storeErrors: string[] = [];
  const operations: ModelOperation[] = [];
  const metrics: ServiceMetrics = {
    ...noTelemetry.metrics,
    memoryStoreError: (op) => storeErrors.push(op),
    modelOperation: (o) => operations.push(o),
  };
  return { metrics, storeErrors, operations };
}

describe('observedStore', () => {
  it('counts a failed call by operation and fails as the store did; successes count nothing', async () => {
    const { metrics, storeErrors } = recordingMetrics();
    const inner = createInMemoryStore({ embeddingModel: null });
    const failing = { ...inner, list: async () => Promise.reject(new Error('connection lost')) } as typeof inner;
    const store = observedStore(failing, metrics);
    expect(await store.count('u1')).toBe(0);
    await expect(store.list('u1')).rejects.toThrow('connection lost');
    expect(storeErrors).toEqual(['list']);
    expect(store.backend).toBe(inner.backend);
  });
});

describe('tracedGateway', () => {
  it('records a failed completion with its error type and no tokens, and rethrows', async () => {
    const { metrics, operations } = recordingMetrics();
    const gateway: ModelGateway = {
      streamPass: () => {
        throw new Error('unused');
      },
      complete: async () => {
        throw new ModelUnavailableError();
      },
    };
    await expect(tracedGateway(gateway, metrics).complete({ model: 'openai/gpt-4o-mini', messages: [] })).rejects.toBeInstanceOf(ModelUnavailableError);
    expect(operations).toEqual([
      expect.objectContaining({ operation: 'chat', provider: 'openai', requestModel: 'openai/gpt-4o-mini', inputTokens: null, errorType: 'ModelUnavailableError' }),
    ]);
  });

  it('records a streamed pass with its usage, response model and no error', async () => {
    const { metrics, operations } = recordingMetrics();
    const gateway: ModelGateway = {
      async *streamPass() {
        yield { type: 'text', text: 'hi' };
        yield { type: 'usage', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15, estimated: false } };
        yield { type: 'finish', reason: 'stop', model: 'openai/gpt-4o-mini-2024' };
      },
      complete: async () => ({ text: '', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, estimated: true } }),
    };
    const events = [];
    for await (const e of tracedGateway(gateway, metrics).streamPass({ model: 'openai/gpt-4o-mini', messages: [], signal: new AbortController().signal })) events.push(e);
    expect(events).toHaveLength(3);
    expect(operations).toEqual([
      expect.objectContaining({ inputTokens: 12, outputTokens: 3, responseModel: 'openai/gpt-4o-mini-2024', errorType: null }),
    ]);
  });
});

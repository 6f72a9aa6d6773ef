/**
 * The model gateway as the rest of the service sees it: one streamed pass of a chat completion (text,
 * tool calls, usage) and one non-streamed completion (titles, memory extraction). The implementation
 * (`openai` package, OpenAI-compatible gateway) lives beside this file; nothing else imports `openai`
 * for chat.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TraceSpan } from '../telemetry/telemetry.js';
import type { Usage } from './usage.js';

/** A JSON Schema object, as sent to the model in a tool definition. */
export type JsonSchemaObject = { type: 'object'; properties: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export type ModelMessage = ChatCompletionMessageParam;

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The model's JSON arguments, assembled from the streamed deltas (may be invalid JSON). */
  arguments: string;
}

export type PassEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_calls'; calls: ToolCallRequest[] }
  /** Exactly one per pass, also when the pass was cut short (then estimated). */
  | { type: 'usage'; usage: Usage }
  /** The pass's end: why it stopped, and the model that answered (`chunk.model`) when the gateway said. */
  | { type: 'finish'; reason: string | null; model: string | null };

export interface PassRequest {
  model: string;
  messages: ModelMessage[];
  tools?: ToolDefinition[];
  signal: AbortSignal;
  maxTokens?: number;
  /** The span the call's `chat` span is a child of (telemetry/telemetry.ts); none when tracing is off. */
  span?: TraceSpan;
}

export interface CompleteRequest {
  model: string;
  messages: ModelMessage[];
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** Ask for a JSON object answer (`response_format: json_object`). */
  json?: boolean;
  span?: TraceSpan;
}

export interface CompleteAnswer {
  text: string;
  usage: Usage;
  /** The model that answered (`model` of the response) when the gateway said. */
  model?: string | null;
}

export interface ModelGateway {
  streamPass(request: PassRequest): AsyncIterable<PassEvent>;
  complete(request: CompleteRequest): Promise<CompleteAnswer>;
}

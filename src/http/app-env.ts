/** The Hono environment every router of the app shares: the request id set by `requestId()`, and the request's trace when telemetry is on. */
import type { RequestIdVariables } from 'hono/request-id';
import type { RequestTrace } from '../telemetry/telemetry.js';

export type AppEnv = { Variables: RequestIdVariables & { trace?: RequestTrace } };

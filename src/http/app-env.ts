/** The Hono environment every router of the app shares: the request id set by `requestId()`. */
import type { RequestIdVariables } from 'hono/request-id';

export type AppEnv = { Variables: RequestIdVariables };

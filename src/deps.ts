/**
 * Everything the app needs from the outside world, built once by the composition root
 * (server/build-deps.ts, for server.ts, the eval and the tests, which give their fakes as overrides) and
 * passed to `createApp`. Nothing here is created at import time.
 */
import type { Admission, Moderation } from './admission/admission.js';
import type { Catalog } from './campus/catalog.js';
import type { Config } from './config.js';
import type { BackgroundTasks } from './lifecycle/background-tasks.js';
import type { JobQueue } from './lifecycle/job-queue.js';
import type { OverloadGuard } from './lifecycle/overload.js';
import type { TurnsInFlight } from './lifecycle/turns-in-flight.js';
import type { Logger } from './logger.js';
import type { MemoryStore } from './memory/store.js';
import type { LeakPolicy } from './security/leak-policy.js';
import type { TurnMemory } from './memory/turn-memory.js';
import type { ModelGateway } from './model/gateway.js';
import type { ModelAllowlist } from './model/model-allowlist.js';
import type { CampusTools } from './tools/campus-tools.js';
import type { Hono } from 'hono';
import type { ShowMapTool } from './pipeline/toolbox.js';
import type { AttachmentReader } from './pipeline/attachments.js';
import type { Telemetry } from './telemetry/telemetry.js';
import type { Runs } from './runs/runs.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The one redaction policy for everything that leaves the service (security/leak-policy.ts). */
  leaks: LeakPolicy;
  memory: MemoryStore;
  background: BackgroundTasks;
  /** Work after the response: on Postgres (any replica, taken over when one dies) with DATABASE_URL, else in process. */
  jobs: JobQueue;
  /** Chat turns running now: the per-user cap (MAX_TURNS_IN_FLIGHT) and shutdown's reach. */
  turns: TurnsInFlight;
  /** Resumable runs (issue 62): streamed turns apart from their connections, their log shared through Postgres when there is one. */
  runs: Runs;
  /** Refuses new chat turns with 503 + Retry-After while the process is saturated. */
  overload: OverloadGuard;
  /** Reads a turn's attachments for its model: photos decoded and re-encoded, a few at a time (pipeline/attachments.ts). */
  attachments: AttachmentReader;
  /** The clock; tests inject one to cross a UTC midnight. */
  now: () => Date;
  /** The building catalog, loaded once at startup (CAMPUS_BUILDINGS_FILE or the built-in one). */
  catalog: Catalog;
  /** `maps_show_map`, bound by the planner unless maps are disabled; null turns maps off entirely. */
  showMapTool: ShowMapTool | null;
  /** The models a request may name (ALLOWED_MODELS), built once for every route that reads `model`. */
  models: ModelAllowlist;
  /** The chat model; null answers the chat routes with 503 "model gateway not configured". */
  gateway: ModelGateway | null;
  /** The campus tool server (MCP client). */
  campusTools: CampusTools;
  /** Memory as the turn sees it (default `noTurnMemory`). */
  turnMemory: TurnMemory;
  /** Budget and moderation around a turn (default `openAdmission`). */
  admission: Admission;
  /** Moderation of single texts (the title route); default `noModeration`. */
  moderation: Moderation;
  /** Traces and metrics (telemetry/): `noTelemetry` unless an OTLP endpoint is configured. */
  telemetry: Telemetry;
  /** The sandbox playground page (`GET /`), mounted when the sandbox runs; null otherwise. */
  playground?: Hono | null;
}

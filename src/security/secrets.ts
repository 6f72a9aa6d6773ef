/**
 * The configured values that must never leave the process, sorted by how they are recognised: keys
 * and passwords are random, so any long enough fragment of one is a leak; host names are made of
 * words ("internal", "example"), so only the whole name counts. The leak policy (leak-policy.ts) is
 * built from this list; nothing else decides what a secret is.
 */
import type { Config } from '../config.js';

/** Shorter values are not treated as secrets: replacing them would mangle ordinary text. */
export const MIN_SECRET_LENGTH = 6;

export interface ConfiguredSecrets {
  /** Keys, the shared secret, passwords and query-string values of the configured URLs. */
  random: string[];
  /** Host names of the configured URLs (loopback and single-label names excepted). */
  names: string[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function collectSecrets(config: Config): ConfiguredSecrets {
  const random = new Set<string>();
  const names = new Set<string>();
  const add = (to: Set<string>, v: string | null | undefined) => {
    if (v && v.length >= MIN_SECRET_LENGTH) to.add(v);
  };
  add(random, config.gateway.apiKey);
  add(random, config.embeddings.apiKey);
  add(random, config.sharedSecret);
  // OTLP exporter headers carry the collector's API key (`Authorization=...`, `x-api-key=...`).
  for (const headers of [config.telemetry?.tracesHeaders, config.telemetry?.metricsHeaders]) {
    for (const value of Object.values(headers ?? {})) {
      add(random, value);
      // `Bearer <key>` / `Basic <key>`: the key alone is the secret too.
      add(random, value.split(' ').pop());
    }
  }
  for (const url of [config.databaseUrl, config.mcpServerUrl]) {
    if (!url) continue;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      // parseConfig validated these as URLs; one that still fails is kept whole.
      add(random, url);
      continue;
    }
    add(random, u.password);
    try {
      add(random, decodeURIComponent(u.password));
    } catch {
      // A password that is not valid percent-encoding is kept as written (above).
    }
    for (const value of u.searchParams.values()) add(random, value);
    // A single-label name ("postgres", "db") is a service name, not a secret, and is ordinary text.
    if (!LOOPBACK.has(u.hostname) && u.hostname.includes('.')) add(names, u.hostname);
  }
  return { random: [...random], names: [...names] };
}

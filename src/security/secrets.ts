/**
 * The configured secret values, and their exact-value redaction. One module serves the logger and the
 * answer guards, so "what counts as a secret" is decided once.
 */
import type { Config } from '../config.js';

/** Shorter values are not treated as secrets: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 6;

export const REDACTED = '[redacted]';

/**
 * Every configured value that must never leave the process: keys, the shared secret, the database URL
 * with its password and host, the tool server URL. Longest first, so a URL is replaced before its parts.
 */
export function collectSecrets(config: Config): string[] {
  const values = new Set<string>();
  const add = (v: string | null | undefined) => {
    if (v && v.length >= MIN_SECRET_LENGTH) values.add(v);
  };
  add(config.gateway.apiKey);
  add(config.embeddings.apiKey);
  add(config.sharedSecret);
  for (const url of [config.databaseUrl, config.mcpServerUrl]) {
    if (!url) continue;
    add(url);
    try {
      const u = new URL(url);
      add(decodeURIComponent(u.password));
      add(u.password);
      // Loopback hosts are not secrets, and "localhost" would mangle ordinary text.
      if (!['localhost', '127.0.0.1', '[::1]', '::1'].includes(u.hostname)) add(u.hostname);
      add(u.host);
    } catch {
      // parseConfig validated these as URLs; a value that still fails is kept whole above.
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each secret value (exact match) with `[redacted]`. */
export function redactSecretValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out;
}

/**
 * Verify stage (placeholder until the guards land): turns raw model `text` into `delta` and emits the
 * `answer` event at the end. The guards issue replaces the body; the factory signature stays.
 */
import type { Stage } from '../stage.js';
import { NO_MAP, type CmuMaps } from '../types.js';

export interface VerifyOptions {
  /** Configured secret values (security/secrets.ts). */
  secrets: readonly string[];
}

export function createVerifyStage(_options: VerifyOptions): Stage {
  return async function* verify(events) {
    let text = '';
    let map: CmuMaps = NO_MAP;
    for await (const e of events) {
      if (e.type === 'text') {
        text += e.text;
        yield { type: 'delta', text: e.text };
      } else if (e.type === 'map_request') {
        map = e.map;
      } else {
        yield e;
      }
    }
    if (map.url) yield { type: 'map', map };
    yield { type: 'answer', text, map, notes: {} };
  };
}

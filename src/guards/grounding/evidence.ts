/**
 * A turn's evidence (issue 45): what its tools returned (raw, every pass), the student's message, the
 * history sent, the service's own facts (the prompt's campus date and time and the user's recalled
 * facts, the configured phone numbers, the coming week's dates) as facts read by the one claim reader
 * (claims.ts). Tool results that are JSON are read field by field, so a number counts only as what its
 * field says it is (`"minutes": 4` is a wait, `"units": "12.0"` is units, `{"building": "GHC", "room":
 * "4401"}` a room); every string inside is read as text too.
 *
 * Reading is lazy: texts are queued and read the first time a claim is checked, so an answer that
 * states nothing checkable costs nothing here.
 */
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, season, type Claim } from './claims.js';
import { readClockTimes } from './clock-times.js';

export interface Evidence {
  /** Text whose atoms count as evidence: the student's message, a history item, the system prompt. */
  addText(text: string): void;
  /** A tool's raw result: JSON read field by field, anything else as text. */
  addToolResult(text: string): void;
  /** Keys that hold as they are (the coming week's dates). */
  addFacts(keys: Iterable<string>): void;
  /** Does some evidence hold this claim? */
  holds(claim: Claim): boolean;
}

/** Keys of the dates from `isoDate` (YYYY-MM-DD) to `days` days after it: "today", "tomorrow", "this Friday". */
export function datesFrom(isoDate: string, days: number): string[] {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const keys: string[] = [];
  for (let i = 0; i <= days; i++) {
    const at = new Date(Date.UTC(y, m - 1, d + i));
    const [yy, mm, dd] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
    keys.push(`date:${yy}-${mm}-${dd}`, `date:${mm}-${dd}`, `year:${yy}`);
  }
  return keys;
}

const TIME_FIELD = /^(?:begin|end|start|starts|start_time|end_time|open|opens|close|closes|time|from|to|until)$/i;
const SEASON_FIELD = /^(?:semester|season|term)$/i;

/** Creates the evidence of one turn; `catalog` resolves buildings named in results. */
export function createEvidence(catalog: Catalog): Evidence {
  const facts = new Set<string>();
  const queue: Array<{ text: string; tool: boolean }> = [];

  const addKey = (key: string) => {
    facts.add(key);
    const [cls, a, b] = key.split(':') as [string, string, string?];
    if (cls === 'room' && b !== undefined) {
      // A room holds its number in any building's name for it, and its floor (the first digit at CMU-style numbering).
      facts.add(`room:*:${b}`);
      const floor = /^(\d)\d{2,3}[A-Z]?$/.exec(b);
      if (floor) facts.add(`floor:${floor[1]}`);
    } else if (cls === 'wait-sec') {
      // `minutes` is ceil(seconds / 60) at the tool server; a model may also round or floor.
      const s = Number(a);
      for (const m of new Set([Math.ceil(s / 60), Math.floor(s / 60), Math.round(s / 60)])) facts.add(`wait-min:${m}`);
    } else if (cls === 'phone') facts.add(`phone7:${a.slice(3)}`);
  };
  const addClaims = (claims: Claim[]) => {
    for (const c of claims) {
      for (const k of c.keys) addKey(k);
      for (const k of c.fallback ?? []) addKey(k);
    }
  };
  const readText = (text: string) => addClaims(readClaims(text, { catalog, mode: 'evidence' }));

  const readField = (key: string, value: unknown, parent: Record<string, unknown>) => {
    if (typeof value === 'number' && Number.isFinite(value)) {
      if (key === 'minutes') addKey(`wait-min:${value}`);
      else if (key === 'seconds') addKey(`wait-sec:${value}`);
      else if (key === 'units') addKey(`units:${value}`);
      else if (key === 'year') addKey(`year:${value}`);
      else if (key === 'level') addKey(`floor:${value}`);
      else if (/^(?:price|cost|amount)$/i.test(key)) addKey(`price:${Math.round(value * 100)}`);
      return;
    }
    if (typeof value !== 'string') return walk(value);
    const v = value.trim();
    if (key === 'units' && /^\d+(?:\.\d+)?$/.test(v)) addKey(`units:${Number(v)}`);
    else if (key === 'route' && v) addKey(`route:${v.replace(/[\s-]/g, '').toUpperCase()}`);
    else if (key === 'level' && /^\d{1,2}$/.test(v)) addKey(`floor:${Number(v)}`);
    else if (key === 'year' && /^\d{4}$/.test(v)) addKey(`year:${v}`);
    else if (key === 'room' && typeof parent.building === 'string' && v) {
      const building = catalog.resolve(parent.building)?.code ?? parent.building.trim();
      addKey(`room:${building.toUpperCase()}:${v.toUpperCase()}`);
    } else if (TIME_FIELD.test(key)) {
      const taken = new Uint8Array(v.length);
      for (const t of readClockTimes(v, taken)) for (const m of t.minutes) addKey(`time:${m}`);
      // "0930" or "2130": four digits of a 24-hour clock.
      const compact = /^([01]\d|2[0-3])([0-5]\d)$/.exec(v);
      if (compact) addKey(`time:${Number(compact[1]) * 60 + Number(compact[2])}`);
    }
    readText(v);
  };

  function walk(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (typeof value === 'string') return readText(value);
    if (!value || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    // A semester with its year: "Spring 2027".
    const seasonKey = Object.keys(obj).find((k) => SEASON_FIELD.test(k));
    const seasonValue = seasonKey ? obj[seasonKey] : undefined;
    if (typeof seasonValue === 'string' && (typeof obj.year === 'number' || typeof obj.year === 'string')) {
      const name = /spring|summer|fall|autumn|winter/i.exec(seasonValue)?.[0];
      if (name) addKey(`term:${season(name)}:${obj.year}`);
    }
    for (const [key, v] of Object.entries(obj)) readField(key, v, obj);
  }

  const readToolResult = (text: string) => {
    const body = text.trim();
    if (body.startsWith('{') || body.startsWith('[')) {
      try {
        walk(JSON.parse(body));
        return;
      } catch {
        // Not JSON after all: read as text.
      }
    }
    readText(text);
  };

  const drain = () => {
    while (queue.length > 0) {
      const item = queue.shift()!;
      if (item.tool) readToolResult(item.text);
      else readText(item.text);
    }
  };

  return {
    addText: (text) => {
      if (text) queue.push({ text, tool: false });
    },
    addToolResult: (text) => {
      if (text) queue.push({ text, tool: true });
    },
    addFacts: (keys) => {
      for (const k of keys) facts.add(k);
    },
    holds(claim) {
      drain();
      if (claim.keys.some((k) => facts.has(k))) return true;
      return claim.fallback !== undefined && claim.fallback.every((k) => facts.has(k));
    },
  };
}

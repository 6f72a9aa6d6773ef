/**
 * Recognises a tool answer that found nothing. "Not found" is usually a normal result on the campus tool
 * server (CAMPUS_TOOLS.md "Failures"): `[]`, `{"results": []}`, `-1`, an object with an `error` key, or
 * a Markdown sentence such as "No dining locations found".
 */

const NOT_FOUND_SENTENCE = /^(#[^\n]*\n+)?\s*no\b[^\n]*\b(found|open|match(es|ing)?|results?)\b/i;

/** True when the result text carries no data for the model to use. */
export function isEmptyToolResult(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed) return true;
  try {
    const value: unknown = JSON.parse(trimmed);
    if (value === null || value === -1) return true;
    if (Array.isArray(value)) return value.length === 0;
    if (typeof value === 'object') {
      const obj = value as Record<string, unknown>;
      if ('error' in obj) return true;
      if (Array.isArray(obj.results)) return obj.results.length === 0;
      return Object.keys(obj).length === 0;
    }
    return false;
  } catch {
    return NOT_FOUND_SENTENCE.test(trimmed);
  }
}

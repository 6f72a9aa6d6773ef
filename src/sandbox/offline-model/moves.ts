/**
 * A move told as news in a longer sentence ("I moved to Donner House last week, so what's near me?",
 * "I'm in Stever House now", "since I moved into Morewood Gardens over the weekend"): where the user
 * lives now. The turn reads it before the saved facts (a question's own news wins), and the offline
 * extraction saves it over the old home.
 */

const MOVE =
  /\bi(?:'ve|’ve| have)?\s+(?:just\s+|recently\s+|finally\s+|actually\s+)?(?:moved|relocated)\s+(?:in\s*to|to|over to)\s+(?:the\s+)?([^,.;!?]+?)(?=\s+(?:last|this|over|yesterday|today|now|recently|so|and|but|because|a few|earlier)\b|\s*[,.;!?]|\s*$)|\bi(?:'m|’m| am)\s+(?:now\s+)?(?:living\s+)?in\s+(?:the\s+)?([^,.;!?]+?)\s+now\b/i;

const titled = (s: string) => s.trim().replace(/\b\p{L}/gu, (c) => c.toUpperCase());

/** Where the text says the user moved, or null. */
export function movedTo(text: string): string | null {
  const m = MOVE.exec(text);
  const place = (m?.[1] ?? m?.[2])?.trim();
  return place && place.split(/\s+/).length <= 5 ? titled(place) : null;
}

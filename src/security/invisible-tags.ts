/**
 * Unicode tag characters (U+E0000-U+E007F) are invisible in every renderer, yet models read them as
 * letters: they are used to smuggle hidden instructions into a model's input and hidden text into its
 * output. They carry nothing a student could mean, so they are removed from everything the model sees
 * (the gateway's outbound filter: message, history, tool results, recalled facts, prompts), from answers
 * as they stream (verify) and from stored facts (memory/fact-text.ts).
 *
 * In UTF-16 each is the surrogate pair U+DB40 followed by U+DC00-U+DC7F.
 */

const TAG_PAIR = /\uDB40[\uDC00-\uDC7F]/g;
const HIGH = '\uDB40';

/** `text` without tag characters; the same string when it has none. */
export function removeInvisibleTags(text: string): string {
  return text.includes(HIGH) ? text.replace(TAG_PAIR, '') : text;
}

/**
 * The same over a stream of pieces: a pair split across two pieces (a high half ending one) is held
 * until the next piece decides it. A high half left at the very end is no character at all and is dropped.
 */
export function createInvisibleTagFilter(): { push(piece: string): string } {
  let held = '';
  return {
    push(piece) {
      let text = held + piece;
      held = '';
      if (!text.includes(HIGH)) return text;
      if (text.endsWith(HIGH)) {
        held = HIGH;
        text = text.slice(0, -1);
      }
      return text.replace(TAG_PAIR, '');
    },
  };
}

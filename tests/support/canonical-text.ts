/**
 * The leak policy's canonical form of a text as readable letters (tests compare what left the service
 * with a secret in this form): the symbols of src/security/canonical.ts, each as its letter.
 */
import { canonicalSymbols } from '../../src/security/canonical.js';

/** The canonical form of a whole string, as text (folded letters). */
export function canonicalText(text: string): string {
  return canonicalSymbols(text)
    .map((s) => String.fromCharCode(87 + s))
    .join('');
}

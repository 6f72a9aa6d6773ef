/**
 * The grounding check's one door (issue 60): what the rest of the service uses of guards/grounding/.
 * The answer's claims (claims.ts: hours, rooms, course numbers, phones, prices, dates, routes, waits)
 * are checked as they stream (grounding-stream.ts) against the turn's evidence (evidence.ts: the tools'
 * results read by their shapes in tool-results.ts, the student's words, the prompt), each bound to the
 * days and the subjects (place, course, section, direction, route) named next to it or before it
 * (days.ts, subjects.ts, subject-facts.ts); what no evidence holds is marked, and the answer ends with
 * one note (grounding-note.ts). docs/design/verification.md says what is caught and what is not. The
 * service, the eval and the benches import from here.
 */
export { CLAIM_CLASSES, readClaims, type Claim, type ClaimClass } from './claims.js';
export { readDays } from './days.js';
export { createEvidence, type ClaimOutcome, type Evidence } from './evidence.js';
export { groundingNote, LONGEST_GROUNDING_NOTE, unconfirmedMark } from './grounding-note.js';
export { createGroundingStream, type ClassCounts, type GroundingCounts, type GroundingStream } from './grounding-stream.js';
export { createTurnGrounding, type TurnGroundingOptions } from './turn-grounding.js';

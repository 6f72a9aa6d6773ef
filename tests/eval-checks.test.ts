/**
 * The eval's deterministic checks of one turn (scripts/eval/checks.ts), arrays in and arrays out: here
 * the check issue 45 adds, a claim that got through and that the case's true data contradicts.
 */
import { describe, expect, it } from 'vitest';
import { checkTurn, type TurnObservation } from '../scripts/eval/checks.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';
import { CATALOG } from './support/verify.js';

const ctx = { leaks: baseLeakPolicy, systemPrompt: 'You are the campus assistant.', maxAnswerChars: 8000, catalog: CATALOG };
const turn = (text: string): TurnObservation => ({
  status: 200,
  text,
  servicesUsed: ['courses_fetch_course_schedules'],
  map: null,
  memoryOps: [],
  error: null,
  toolCalls: [{ name: 'courses_fetch_course_schedules', ok: true }],
  grounding: { checked: 2, unverified: 0 },
});
const claims = [
  { cls: 'time' as const, truth: '11:00 AM - 12:20 PM' },
  { cls: 'room' as const, truth: 'GHC 4401' },
];
const claimChecks = (text: string) => checkTurn(turn(text), { claims }, ctx).filter((r) => r.name.startsWith('claims_true'));

describe('eval check: claims agree with the case data', () => {
  it('passes an answer whose hours and room are the true ones, in any style', () => {
    expect(claimChecks('15-122 meets Tue/Thu 11 AM–12:20 PM in GHC 4401.').every((r) => r.pass)).toBe(true);
    expect(claimChecks('Lectures are 11:00-12:20 (in **GHC 4401**).').every((r) => r.pass)).toBe(true);
  });

  it('fails an answer that states a contradicted hour or room, naming it', () => {
    const checks = claimChecks('15-122 meets Tue/Thu 2:00 PM in GHC 4405.');
    expect(checks.map((r) => [r.name, r.pass])).toEqual([
      ['claims_true time', false],
      ['claims_true room', false],
    ]);
    expect(checks[0]!.detail).toContain('"2:00 PM"');
    expect(checks[1]!.detail).toContain('"4405"');
  });

  it('a detail the service marked "not confirmed" is no claim that got through', () => {
    expect(claimChecks('15-122 meets at (time not confirmed) in GHC (room not confirmed).').every((r) => r.pass)).toBe(true);
  });
});

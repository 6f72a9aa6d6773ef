/**
 * Issue 36: the date the model sees is the campus's. At 23:30 in Pittsburgh it is already the next day
 * in UTC, and "what's open tomorrow?" asked in the evening was answered for the wrong day. With a fixed
 * clock at 23:30 campus time the prompt carries the campus date, weekday and time, in its last section
 * (the fixed instructions before it stay the same all day and every day: the cacheable prefix).
 */
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, campusDateTime } from '../src/prompt/system-prompt.js';
import { startAdmissionApp } from './support/admission-harness.js';
import { closeAfterEach } from './support/cleanup.js';

/** 23:30 on Tuesday 24 November 2026 in America/New_York (UTC−5): Wednesday 04:30 in UTC. */
const LATE_EVENING = new Date('2026-11-25T04:30:00Z');

const defer = closeAfterEach();

describe('campus time in the prompt', () => {
  it('at 23:30 campus time the turn’s prompt says the campus date, not the UTC one', async () => {
    const h = await startAdmissionApp({ now: () => LATE_EVENING });
    defer(() => h.close());
    h.gw.enqueue({ text: 'Tomorrow is Wednesday.' });
    expect((await h.post('/agent/respond', { query: 'what is open tomorrow?' })).status).toBe(200);
    const prompt: string = h.gw.chatRequests()[0].messages[0].content;
    expect(prompt).toContain('Today is 2026-11-24 (Tuesday), 23:30 campus time (America/New_York).');
    expect(prompt).not.toContain('2026-11-25');
    // Last, after everything fixed.
    expect(prompt.trimEnd().endsWith('23:30 campus time (America/New_York).')).toBe(true);
  });

  it('follows CAMPUS_TIME_ZONE, and the fixed part of the prompt is the same at any time of any day', () => {
    expect(campusDateTime(LATE_EVENING, 'Europe/Berlin')).toBe('2026-11-25 (Wednesday), 05:30');
    // Made once a minute per zone: the same minute in another zone, and the next minute, read their own.
    expect(campusDateTime(new Date(LATE_EVENING.getTime() + 59_000), 'Europe/Berlin')).toBe('2026-11-25 (Wednesday), 05:30');
    expect(campusDateTime(LATE_EVENING, 'America/New_York')).toBe('2026-11-24 (Tuesday), 23:30');
    expect(campusDateTime(new Date(LATE_EVENING.getTime() + 60_000), 'America/New_York')).toBe('2026-11-24 (Tuesday), 23:31');
    const at = (now: Date) =>
      buildSystemPrompt({ assistantName: 'A', campusName: 'C', tools: [], disabledGroups: [], memoryTools: false, recall: null, now, timeZone: 'America/New_York' });
    const fixed = (prompt: string) => prompt.slice(0, prompt.indexOf('# Now'));
    expect(fixed(at(LATE_EVENING))).toBe(fixed(at(new Date('2027-03-02T15:00:00Z'))));
  });

  it('refuses a time zone that is not one at start', async () => {
    await expect(startAdmissionApp({ env: { CAMPUS_TIME_ZONE: 'Mars/Olympus' } })).rejects.toThrow(/CAMPUS_TIME_ZONE/);
  });
});

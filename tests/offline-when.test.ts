/**
 * The offline model's reading of when a food question is about (src/sandbox/offline-model/when.ts),
 * asked on a Wednesday (3): the rules behind the "Times" rows of the campus questions table.
 */
import { describe, expect, it } from 'vitest';
import { parseWhen, type When } from '../src/sandbox/offline-model/when.js';

const WEDNESDAY = 3;
const at = (day: number, hour: number, minute = 0): When => ({ kind: 'moment', at: { day, hour, minute } });

describe('parseWhen, asked on a Wednesday', () => {
  it.each<[string, When | null]>([
    ['what is open right now', null],
    ['lunch', null], // a meal without a day is now: the open-now list
    ['what is open on Sunday at 7 pm', at(0, 19)],
    ['saturday 9am', at(6, 9)],
    ['friday noon', at(5, 12)],
    ['tonight at 9', at(WEDNESDAY, 21)],
    ['tonight at 2', at(4, 2)],
    ["what's open tonight", at(WEDNESDAY, 21)],
    ['open late tonight', at(WEDNESDAY, 22)],
    ['at 5', at(WEDNESDAY, 17)], // a bare small number is the afternoon on campus
    ['at 19:30', at(WEDNESDAY, 19, 30)],
    // The small hours asked without a weekday are the coming night's.
    ['anything open after midnight', at(4, 0, 30)],
    ['food at 1 AM', at(4, 1)],
    ['at midnight', at(4, 0)],
    ['friday night at 1am', at(6, 1)],
    ['sunday at 1am', at(0, 1)], // a weekday's own small hours when no night is said
    ['breakfast tomorrow', at(4, 9)],
    ['dinner on saturday', at(6, 18)],
    // A weekday alone is the whole day, not a guessed hour.
    ['whats open on saturday', { kind: 'day', day: 6 }],
    ['Sun', { kind: 'day', day: 0 }],
    ['tomorrow', { kind: 'day', day: 4 }],
  ])('%s', (q, expected) => {
    expect(parseWhen(q, WEDNESDAY)).toEqual(expected);
  });

  it('needs a weekday to mean a time when the date is unknown', () => {
    expect(parseWhen('at 1 AM', null)).toBeNull();
    expect(parseWhen('saturday at 1 AM', null)).toEqual(at(6, 1));
  });
});

/**
 * The grounding check's reading (issue 45): which atoms of a text are claims, their typed keys, and
 * what evidence holds them. Arrays in, arrays out.
 */
import { describe, expect, it } from 'vitest';
import { readClaims, type ClaimClass } from '../src/guards/grounding/claims.js';
import { createEvidence } from '../src/guards/grounding/evidence.js';
import { CATALOG } from './support/verify.js';
import { ANY_BUILDING, fact } from '../src/guards/grounding/facts.js';

const read = (text: string, mode: 'answer' | 'evidence' = 'answer') =>
  readClaims(text, { catalog: CATALOG, mode }).map((c) => ({ cls: c.cls, keys: c.keys, text: text.slice(c.start, c.end) }));

/** Does evidence made of `evidence` (text, or a tool result when `tool`) hold every claim of `answer`? */
function holds(answer: string, evidence: string, tool = false): boolean[] {
  const e = createEvidence(CATALOG);
  if (tool) e.addToolResult(evidence);
  else e.addText(evidence);
  return readClaims(answer, { catalog: CATALOG, mode: 'answer' }).map((c) => e.holds(c));
}

describe('claims: clock times', () => {
  it.each([
    ['9 PM', 1260],
    ['9pm', 1260],
    ['9 p.m.', 1260],
    ['21:00', 1260],
    ['07:30', 450],
    ['2:00pm', 840],
    ['02:00PM', 840],
    ['noon', 720],
    ['midnight', 0],
    ['12 AM', 0],
    ['12:30 PM', 750],
  ])('%s is time:%i', (text, minutes) => {
    expect(read(`Open at ${text} today`)).toEqual([{ cls: 'time', keys: [fact.time(minutes)], text }]);
  });

  it('reads ranges end by end, the first end borrowing the second one\'s half of the day', () => {
    expect(read('Open 2–3:20 PM.').map((c) => c.keys)).toEqual([[fact.time(840)], [fact.time(920)]]);
    expect(read('Open 11–1 PM.').map((c) => c.keys)).toEqual([[fact.time(660)], [fact.time(780)]]);
    expect(read('7:30am–9pm').map((c) => c.keys)).toEqual([[fact.time(450)], [fact.time(1260)]]);
    expect(read('11:00 AM – 2:00 PM, then 5:00 PM – 8:30 PM').map((c) => c.keys)).toEqual([[fact.time(660)], [fact.time(840)], [fact.time(1020)], [fact.time(1230)]]);
  });

  it('reads a range written on a 24-hour clock on that clock (issue 59: "10:00 - 23:00" opened at 10 PM)', () => {
    expect(read('Monday: 10:00 - 23:00').map((c) => c.keys)).toEqual([[fact.time(600)], [fact.time(1380)]]);
    expect(read('Friday: 11:30 - 02:00').map((c) => c.keys)).toEqual([[fact.time(690)], [fact.time(120)]]);
    expect(read('Sunday 09:15 – 13:45').map((c) => c.keys)).toEqual([[fact.time(555)], [fact.time(825)]]);
    // A range of one 24-hour end and one with a meridiem borrows as before.
    expect(read('Open 10:30 to 11 PM.').map((c) => c.keys)).toEqual([[fact.time(1350)], [fact.time(1380)]]);
  });

  it('holds a lettered two-digit room the tools gave, and not another (issue 73, item 5)', () => {
    const tool = JSON.stringify({ courseID: '36-200', meeting: 'TR 09:30-10:50 BH A51' });
    expect(holds('It meets in BH A51.', tool, true)).toEqual([true]);
    expect(holds('It meets in BH A15.', tool, true)).toEqual([false]);
  });

  it('reads a room after a name two buildings share as a room of either (issue 73, item 5)', () => {
    expect(read('The workshop is in Posner 125.').map((c) => c.keys)).toEqual([[fact.room('PC', '125'), fact.room('POS', '125')]]);
    const tool = JSON.stringify({ courseID: '70-122', meeting: 'TR 08:00-09:20 POS 125' });
    expect(holds('The workshop is in Posner 125.', tool, true)).toEqual([true]);
    expect(holds('The workshop is in Posner 152.', tool, true)).toEqual([false]);
  });

  it('holds the honest reading of a 24-hour tool range and marks the other half of the day', () => {
    const tool = JSON.stringify({ name: 'Tazza', hours: { Monday: '10:00 - 23:00', Friday: '11:30 - 02:00' } });
    expect(holds('Tazza opens at 10 AM and closes at 11 PM.', tool, true)).toEqual([true, true]);
    expect(holds('Tazza opens at 10 PM.', tool, true)).toEqual([false]);
    expect(holds('On Friday it opens at 11:30 AM and closes at 2 AM.', tool, true)).toEqual([true, true]);
    expect(holds('On Friday it opens at 11:30 PM.', tool, true)).toEqual([false]);
  });

  it('keeps both halves of the day for "9:30" with nothing to borrow from', () => {
    expect(read('Recitation is at 9:30 on Wednesdays.')[0]!.keys).toEqual([fact.time(570), fact.time(1290)]);
  });

  it('a sentence period after "PM" is not part of the claim; "p.m." keeps its own', () => {
    expect(read('It closes at 8 PM. Then')[0]!.text).toBe('8 PM');
    expect(read('It closes at 8 p.m. Then')[0]!.text).toBe('8 p.m.');
  });
});

describe('claims: the other classes', () => {
  it.each<[string, ClaimClass, string]>([
    ['15-213 needs', 'course', fact.course('15213')],
    ['take 15213 next', 'course', fact.course('15213')],
    ['a 12-unit course', 'units', fact.units(12)],
    ['worth 12.0 units', 'units', fact.units(12)],
    ['it is 12 units', 'units', fact.units(12)],
    ['in GHC 4401 today', 'room', fact.room('GHC', '4401')],
    ['in Wean 5403 today', 'room', fact.room('WEH', '5403')],
    ['in DH 2315 today', 'room', fact.room('DH', '2315')],
    ['in room 4401 today', 'room', fact.room(ANY_BUILDING, '4401')],
    // A lettered room with two digits (issue 73, item 5): Baker Hall's and Porter Hall's lower floors.
    ['in BH A15 today', 'room', fact.room('BH', 'A15')],
    ['in PH A18A today', 'room', fact.room('PH', 'A18A')],
    ['on the 5th floor', 'floor', fact.floor(5)],
    ['on level 5', 'floor', fact.floor(5)],
    ['call 412-268-2922 now', 'phone', fact.phone('4122682922')],
    ['call (412) 268-2922 now', 'phone', fact.phone('4122682922')],
    ['call 412.268.2922 now', 'phone', fact.phone('4122682922')],
    ['costs $1,080 a term', 'price', fact.price(108000)],
    ['costs $1080 a term', 'price', fact.price(108000)],
    ['costs $5.50 a swipe', 'price', fact.price(550)],
    ['on October 15 only', 'date', fact.date(10, 15)],
    ['on 15 October only', 'date', fact.date(10, 15)],
    ['by 2026-10-15 only', 'date', fact.date(10, 15, 2026)],
    ['in Spring 2027 only', 'term', fact.term('spring', 2027)],
    ['since 1900 only', 'year', fact.year(1900)],
    ['the next 61C bus', 'route', fact.route('61C')],
    ['take route 67 there', 'route', fact.route('67')],
  ])('%s', (text, cls, key) => {
    const claims = read(text);
    expect(claims.map((c) => c.cls)).toContain(cls);
    expect(claims.find((c) => c.cls === cls)!.keys).toContain(key);
  });

  it('reads a date range end by end with the year shared', () => {
    expect(read('Fall break is Oct 15–16, 2026.').map((c) => c.keys)).toEqual([[fact.date(10, 15, 2026)], [fact.date(10, 16, 2026)]]);
  });

  it('reads a wait only in a sentence about buses, and never a walk', () => {
    expect(read('The next bus comes in 4 minutes.').map((c) => c.keys)).toEqual([[fact.wait('wait-min', 4)]]);
    expect(read('The 61C is 245 seconds away.').map((c) => c.keys)).toEqual([[fact.route('61C')], [fact.wait('wait-sec', 245)]]);
    expect(read('It is a 5-minute walk from Gates.')).toEqual([]);
    expect(read('Lectures last 80 minutes.')).toEqual([]);
    expect(read('The next bus is a 10-minute walk away.')).toEqual([]);
    expect(read('Next, walk to Forbes and stop at the light (about 3 minutes).')).toEqual([]);
    expect(read('It arrives in 4 min.').map((c) => c.keys)).toEqual([[fact.wait('wait-min', 4)]]);
  });

  it('takes each span once: the 12 of "15-122" is a course, not units; a phone is not a course', () => {
    expect(read('15-122 is required.').map((c) => c.cls)).toEqual(['course']);
    expect(read('Call 412-268-2922.').map((c) => c.cls)).toEqual(['phone']);
    expect(read('Pittsburgh, PA 15213').map((c) => c.cls)).toEqual([]);
  });

  it('reads through Markdown emphasis and keeps spans on the raw text', () => {
    const claims = read('Open **8 AM** – **9 PM** daily.');
    expect(claims.map((c) => [c.text, c.keys])).toEqual([
      ['8 AM', [fact.time(480)]],
      ['9 PM', [fact.time(1260)]],
    ]);
  });

  it.each([
    'There are 3 dining halls and 24/7 study rooms.',
    'It has a 4.0 rating and serves 200 students.',
    'Top 10 tips for first-years.',
    'Open 50% of the time, 2x a week.',
    'I can help with 3D printing.',
    '1. First item',
  ])('no claim in %j', (text) => {
    expect(read(text)).toEqual([]);
  });
});

describe('evidence: typed and normalised matching', () => {
  it('a time holds in any style', () => {
    expect(holds('closes at 2 PM', 'closes 14:00')).toEqual([true]);
    expect(holds('closes at 14:00', 'open until 2:00pm')).toEqual([true]);
    expect(holds('closes at 2:00pm', '"02:00PM"')).toEqual([true]);
    expect(holds('closes at 10 PM', 'Monday: 08:00 - 21:00')).toEqual([false]);
  });

  it('course numbers, prices and phones hold across their formats', () => {
    expect(holds('needs 15-213', 'course 15213')).toEqual([true]);
    expect(holds('costs $1080', 'costs $1,080')).toEqual([true]);
    expect(holds('call (412) 268-2922', 'call 412-268-2922')).toEqual([true]);
    expect(holds('dial 268-2922', 'call 412.268.2922')).toEqual([true]);
  });

  it('a floor holds as a level, and a room holds its floor', () => {
    expect(holds('on the 5th floor', JSON.stringify({ floor: { buildingCode: 'WEH', level: '5' } }), true)).toEqual([true]);
    expect(holds('on the 4th floor', JSON.stringify({ building: 'GHC', room: '4401' }), true)).toEqual([true]);
  });

  it('a number in another kind of field is no evidence for a different class', () => {
    // The 12 of "15-122" is not "12 units"; the minute of the campus time is not a bus wait.
    expect(holds('it is 12 units', 'prerequisite 15-122')).toEqual([false]);
    expect(holds('the next bus comes in 7 minutes', 'Today is 2026-11-25 (Wednesday), 16:07 campus time')).toEqual([false]);
    expect(holds('the next bus comes in 7 minutes', JSON.stringify({ capacity: 7, route: '61C' }), true)).toEqual([false]);
  });

  it('JSON fields are read for what they are', () => {
    const result = JSON.stringify({
      courseID: '15-213',
      units: '12.0',
      year: 2027,
      semester: 'spring',
      times: [{ begin: '09:30AM', end: '10:20AM', building: 'WEH', room: '5403' }],
      match: { route: '61D', seconds: 645, minutes: 11 },
    });
    expect(holds('15-213, 12 units, Spring 2027, 9:30 AM in Wean 5403; the 61D comes in 11 minutes (645 seconds)', result, true)).toEqual([
      true, true, true, true, true, true, true, true,
    ]);
    // seconds read as minutes the way a model may round them.
    expect(holds('the next bus comes in 10 minutes', result, true)).toEqual([true]);
    expect(holds('the next bus comes in 12 minutes', result, true)).toEqual([false]);
  });

  it('a date with a year holds by its month, day and a year the evidence names', () => {
    expect(holds('break is October 15, 2026', 'Fall break: October 15. Calendar for 2026.')).toEqual([true]);
    expect(holds('break is October 15, 2027', 'Fall break: October 15. Calendar for 2026.')).toEqual([false]);
  });

  it('the coming week\'s dates hold from the prompt date only as the date of a weekday named beside them (issue 73, item 5)', () => {
    const e = createEvidence(CATALOG);
    e.addCalendar('2026-11-28', 7);
    const dates = (text: string, named?: number[]) =>
      readClaims(text, { catalog: CATALOG, mode: 'answer' }).map((c) => e.holds(named ? { ...c, named } : c));
    // 2026-12-05 is a Saturday; December 6 is past the week.
    expect(dates('See you on December 5 or December 6.', [6])).toEqual([true, false]);
    expect(dates('See you on 12/5.', [6])).toEqual([true]);
    // An event's date no tool gave, in the coming week: not held by the calendar alone.
    expect(dates('The career fair is on 12/5.')).toEqual([false]);
    expect(dates('The career fair is on December 5, 2026.')).toEqual([false]);
    // Named beside the wrong weekday.
    expect(dates('Friday, 12/5', [5])).toEqual([false]);
    // The calendar's years hold as they are.
    expect(dates('in 2026')).toEqual([true]);
  });

  it('midnight holds for a tool\'s 11:59 PM; a time field with seconds is read', () => {
    expect(holds('It closes at midnight.', 'Friday: 11:00 AM - 11:59 PM')).toEqual([true]);
    expect(holds('It starts at 2 PM.', JSON.stringify({ begin: '14:00:00', end: '15:20:00' }), true)).toEqual([true]);
  });

  it('a bus\'s arrival clock time holds from when the predictions were fetched plus its wait', () => {
    const result = JSON.stringify({
      status: 'ok',
      results: [{ match: { route: '61D', seconds: 645, minutes: 11 } }],
      retrieved_at: { local: '2026-11-25T16:04:00-05:00', local_display: 'Wed 4:04 PM' },
    });
    expect(holds('The 61D leaves around 4:15 PM.', result, true)).toEqual([true, true]);
    expect(holds('The 61D leaves around 4:30 PM.', result, true)).toEqual([true, false]);
  });

  it('a room the student typed in lower case is evidence', () => {
    expect(holds('Room WEH 5300 is not listed', 'weh 5300 where is that')).toEqual([true]);
  });
});

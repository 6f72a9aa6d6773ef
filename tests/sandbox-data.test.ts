/**
 * The sandbox's sample data against the service's own catalog and the rules the tools rely on: every
 * building code is a catalog code (so a sandbox search result maps onto a catalog building), courses
 * referenced as prerequisites parse as course numbers, and each dining opening is a sane time range.
 */
import { describe, expect, it } from 'vitest';
import { normaliseCourseId } from '../src/sandbox/campus/course-catalog.js';
import { SANDBOX_BUILDINGS } from '../src/sandbox/campus/data/buildings.js';
import { SANDBOX_COURSES } from '../src/sandbox/campus/data/courses.js';
import { SANDBOX_DINING } from '../src/sandbox/campus/data/dining.js';
import { DAY_NAMES, campusTime, clock12, compactHours, hoursOnDay, isOpenAt } from '../src/sandbox/campus/dining-hours.js';
import { diningDetail, diningList, readDiningDetail, readDiningList } from '../src/sandbox/campus/dining-format.js';
import { builtinCatalogEntries } from '../src/campus/builtin-catalog.js';

describe('sandbox sample data', () => {
  it('has coordinates for exactly the built-in catalog codes, on the campus', () => {
    const catalog = builtinCatalogEntries().map((e) => e.code).sort();
    expect(SANDBOX_BUILDINGS.map((b) => b.code).sort()).toEqual(catalog);
    for (const b of SANDBOX_BUILDINGS) {
      expect(Math.abs(b.latitude - 40.444), b.code).toBeLessThan(0.01);
      expect(Math.abs(b.longitude + 79.944), b.code).toBeLessThan(0.01);
    }
  });

  it('has a few dozen courses with well-formed numbers, prerequisites and meetings', () => {
    expect(SANDBOX_COURSES.length).toBeGreaterThanOrEqual(24);
    expect(new Set(SANDBOX_COURSES.map((c) => c.courseID)).size).toBe(SANDBOX_COURSES.length);
    for (const c of SANDBOX_COURSES) {
      expect(normaliseCourseId(c.courseID), c.courseID).toBe(c.courseID);
      for (const id of c.prereqs.flat()) expect(normaliseCourseId(id), `${c.courseID} needs ${id}`).toBe(id);
      expect(c.lecture.begin < c.lecture.end, c.courseID).toBe(true);
      expect(c.lecture.days.length, c.courseID).toBeGreaterThan(0);
    }
  });

  it('has a dozen dining places whose openings close after they open', () => {
    expect(SANDBOX_DINING).toHaveLength(12);
    for (const place of SANDBOX_DINING) {
      expect(place.hours).toHaveLength(7);
      for (const o of place.hours) if (o) expect(o[1], place.name).toBeGreaterThan(o[0]);
    }
  });

  it('judges campus time in New York across daylight saving, whatever the host zone', () => {
    expect(campusTime(new Date('2026-07-15T16:00:00Z'))).toEqual({ day: 3, minute: 12 * 60 }); // EDT, UTC-4
    expect(campusTime(new Date('2026-12-16T17:00:00Z'))).toEqual({ day: 3, minute: 12 * 60 }); // EST, UTC-5
    const market = SANDBOX_DINING.find((p) => p.name.startsWith('Scotty'))!;
    expect(isOpenAt(market, 0, 60)).toBe(true); // Sunday 01:00: Saturday's opening runs to 02:00
    expect(isOpenAt(market, 0, 150)).toBe(false);
    expect(compactHours(market)).toBe('Monday - Friday: 7:00 AM - 2:00 AM | Saturday - Sunday: 9:00 AM - 2:00 AM');
  });

  it('reads back what the dining formats write: every place of a list, and each day of a detail and of a compact week', () => {
    const open = (p: (typeof SANDBOX_DINING)[number]) => p.name.length % 2 === 0;
    const listed = readDiningList(diningList('All', SANDBOX_DINING, open));
    expect(listed.map((e) => [e.name, e.location, e.hours, e.open])).toEqual(
      expect.arrayContaining(SANDBOX_DINING.map((p) => [p.name, p.location, compactHours(p), open(p)])),
    );
    expect(listed).toHaveLength(SANDBOX_DINING.length);
    for (const p of SANDBOX_DINING) {
      const detail = readDiningDetail(diningDetail(p, open(p)))!;
      expect(detail).toMatchObject({ name: p.name, location: p.location, open: open(p) });
      DAY_NAMES.forEach((day, d) => {
        const o = p.hours[d];
        const said = o ? `${clock12(o[0])} - ${clock12(o[1])}` : null;
        expect(detail.days[day], `${p.name} ${day}`).toBe(said ?? 'Closed');
        expect(hoursOnDay(compactHours(p), d), `${p.name} ${day}`).toBe(said);
      });
    }
    expect(readDiningDetail("No dining location found matching 'x'.")).toBeNull();
  });
});

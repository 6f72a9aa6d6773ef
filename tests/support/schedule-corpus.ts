/**
 * A generated corpus of hour summaries (issue 73, item 3): random weekly schedules, the production tool
 * server's record of each (a detail's 24-hour per-day lines, or a dining list's 12-hour summary line),
 * and honest summaries of each in the idioms real models write a week in: a usual schedule and its
 * exceptions ("while on", "except", "but", "with late hours until … on", a parenthesis), hours before
 * their days, variation ranges ("between X and Y depending on the day", "either X or Y", "X or Y"),
 * lists, tables, compact lines, 12- and 24-hour. Each honest summary is paired with mutations whose
 * truth comes from the schedule: one day's hours moved to another group's (one day wrong, its value
 * true elsewhere) and one value found on no day (invented).
 *
 * Generated with fast-check (seeded), so the tests and `npm run bench -- grounding` read the same
 * cases; written for the class of text, not for the judge: an idiom is rendered from the schedule, and
 * the judge never sees the schedule.
 */
import fc from 'fast-check';

/** Minutes from midnight; a close at or before the open is past midnight. */
export interface DayHours {
  open: number;
  close: number;
}
/** Sunday (0) to Saturday (6); null: closed. */
export type Week = Array<DayHours | null>;

export interface ScheduleCase {
  place: string;
  week: Week;
  /** The tool result the answer is judged against. */
  record: string;
  idiom: string;
  honest: string;
  /** One day's hours told as another group's: the value is true on some day, wrong on the one it is told for. */
  oneDay: string | null;
  /** One value found on no day of the week. */
  invented: { text: string; value: string } | null;
}

const DAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** The days in a week's reading order, Monday first. */
const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0];
const PLACES = ['Noodle Bar', 'Corner Bakery', 'Tartan Grill', 'Beanery Cafe', 'Skibo Coffee', 'Maple Deli', 'Night Owl Diner', 'Oak Library'];

const same = (a: DayHours | null, b: DayHours | null) => (a === null ? b === null : b !== null && a.open === b.open && a.close === b.close);

type TimeStyle = '12h' | '12c' | '24h';
/** A time as people write it: "8 AM", "8:30 PM", "noon", "midnight"; "8am"; "08:00", "20:30". */
export function formatTime(minutes: number, style: TimeStyle): string {
  const m = ((minutes % 1440) + 1440) % 1440;
  const h = Math.floor(m / 60);
  const min = m % 60;
  if (style === '24h') return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
  if (m === 0) return 'midnight';
  if (m === 720) return 'noon';
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const mm = min === 0 ? '' : `:${String(min).padStart(2, '0')}`;
  return style === '12h' ? `${h12}${mm} ${h < 12 ? 'AM' : 'PM'}` : `${h12}${mm}${h < 12 ? 'am' : 'pm'}`;
}
const range = (d: DayHours, style: TimeStyle, dash = '–') => `${formatTime(d.open, style)}${dash}${formatTime(d.close, style)}`;
const toRange = (d: DayHours, style: TimeStyle) => `${formatTime(d.open, style)} to ${formatTime(d.close, style)}`;

/** Days as a person names them: "weekdays", "weekends", "every day", "Monday through Thursday", "Mondays", "Monday, Wednesday and Friday". */
export function nameDays(days: readonly number[], form: 'long' | 'short' | 'plural' = 'long'): string {
  const set = new Set(days);
  if (set.size === 7) return 'every day';
  const key = [...set].sort().join('');
  if (key === '12345') return 'weekdays';
  if (key === '06') return 'weekends';
  const ordered = WEEK_ORDER.filter((d) => set.has(d));
  const name = (d: number) => (form === 'short' ? SHORT[d]! : form === 'plural' && ordered.length === 1 ? `${DAY[d]}s` : DAY[d]!);
  const contiguous = ordered.every((d, i) => i === 0 || WEEK_ORDER.indexOf(d) === WEEK_ORDER.indexOf(ordered[i - 1]!) + 1);
  if (ordered.length >= 3 && contiguous) return form === 'short' ? `${name(ordered[0]!)}–${name(ordered.at(-1)!)}` : `${name(ordered[0]!)} through ${name(ordered.at(-1)!)}`;
  if (ordered.length === 1) return name(ordered[0]!);
  return `${ordered.slice(0, -1).map(name).join(', ')} and ${name(ordered.at(-1)!)}`;
}

/** The week's groups of days with the same hours, largest first (ties: the earlier in the week). */
export function groupsOf(week: Week): Array<{ hours: DayHours; days: number[] }> {
  const groups: Array<{ hours: DayHours; days: number[] }> = [];
  for (const d of WEEK_ORDER) {
    const h = week[d];
    if (!h) continue;
    const g = groups.find((x) => same(x.hours, h));
    if (g) g.days.push(d);
    else groups.push({ hours: h, days: [d] });
  }
  return groups.sort((a, b) => b.days.length - a.days.length);
}
const closedDays = (week: Week) => WEEK_ORDER.filter((d) => week[d] === null);

/** The production shapes: a detail's per-day 24-hour lines, or a dining list's 12-hour summary by groups. */
export function renderRecord(place: string, week: Week, shape: 'detail' | 'list'): string {
  if (shape === 'detail') {
    return [`# ${place}`, '', '**Location:** Forbes Avenue', '', '**Detailed Hours:**', ...WEEK_ORDER.map((d) => `- ${DAY[d]}: ${week[d] ? range(week[d]!, '24h', ' - ') : 'Closed'}`)].join('\n');
  }
  const runs: string[] = [];
  for (let i = 0; i < 7; ) {
    let j = i;
    while (j + 1 < 7 && same(week[WEEK_ORDER[j + 1]!]!, week[WEEK_ORDER[i]!]!)) j++;
    const a = WEEK_ORDER[i]!;
    const b = WEEK_ORDER[j]!;
    const days = a === b ? DAY[a] : `${DAY[a]} - ${DAY[b]}`;
    runs.push(`${days}: ${week[a] ? `${formatTime(week[a]!.open, '12h').replace(/^(\d+) /, '$1:00 ').replace('noon', '12:00 PM').replace('midnight', '12:00 AM')} - ${formatTime(week[a]!.close, '12h').replace(/^(\d+) /, '$1:00 ').replace('noon', '12:00 PM').replace('midnight', '12:00 AM')}` : 'Closed'}`);
    i = j + 1;
  }
  return ['# Dining Locations', '', '**1 locations found**', '', `### ${place}`, '**Location:** Cohon University Center', `**Hours:** ${runs.join(' | ')}`].join('\n');
}

/** An idiom: an honest summary of `week` in one way models write it, or null where it does not fit the week. */
type Idiom = (place: string, week: Week, style: TimeStyle) => string | null;

const closedNote = (week: Week) => {
  const closed = closedDays(week);
  return closed.length === 0 ? '' : ` It is closed on ${nameDays(closed, 'plural')}.`;
};

/** Every group spelled out: days, then hours. */
const daysFirst: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length > 3) return null;
  return `${place} is open ${groups.map((g) => `${nameDays(g.days)} from ${toRange(g.hours, style)}`).join(', and ')}.${closedNote(week)}`;
};

/** Hours before their days: "open 9 AM to 4:30 PM from Monday to Friday and 10 AM to 2 PM on Saturdays". */
const hoursFirst: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length > 3) return null;
  const part = (g: (typeof groups)[number], i: number) =>
    nameDays(g.days).includes(' through ') ? `${toRange(g.hours, style)} from ${nameDays(g.days).replace(' through ', ' to ')}` : `${toRange(g.hours, style)} ${i === 0 && nameDays(g.days) === 'every day' ? 'every day' : `on ${nameDays(g.days, 'plural')}`}`;
  return `${place} is open ${groups.map(part).join(' and ')}.${closedNote(week)}`;
};

/** Compact, hours first: "Hours are 7a–3p Tuesday through Sunday." / "6:45am–10pm Monday to Thursday, 6:45am–8pm Friday". */
const compactHoursFirst: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length > 3) return null;
  return `${place}: ${groups.map((g) => `${range(g.hours, style)} ${nameDays(g.days).replace(' through ', ' to ')}`).join(', ')}.`;
};

/** A list, one line a group: "- Monday–Friday: 8 AM – 6 PM". */
const list: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  const lines = groups.map((g) => `- **${nameDays(g.days, 'short')}**: ${range(g.hours, style, ' – ')}`);
  for (const d of closedDays(week)) lines.push(`- **${SHORT[d]}**: Closed`);
  return `Here are ${place}'s hours:\n\n${lines.join('\n')}`;
};

/** A table. */
const table: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  const rows = groups.map((g) => `| ${nameDays(g.days)} | ${range(g.hours, style, ' – ')} |`);
  for (const d of closedDays(week)) rows.push(`| ${DAY[d]} | Closed |`);
  return `${place}'s hours:\n\n| Days | Hours |\n|---|---|\n${rows.join('\n')}`;
};

/** The usual hours and the exceptions: the exception's own hours, after "while on", "except … when", "but on". */
function usualAnd(joiner: 'while' | 'except' | 'but' | 'with'): Idiom {
  return (place, week, style) => {
    const groups = groupsOf(week);
    if (groups.length !== 2) return null;
    const [usual, other] = groups as [(typeof groups)[number], (typeof groups)[number]];
    const open = WEEK_ORDER.filter((d) => week[d] !== null);
    const allOpen = nameDays(open);
    const u = usual.hours;
    const o = other.hours;
    // The broad statement names the days of both groups; the narrow one overrides it for its days.
    const broad = `${place} is open ${toRange(u, style)} ${allOpen === 'every day' ? 'every day' : allOpen === 'weekdays' ? 'on weekdays' : `${allOpen.startsWith('Monday through') ? '' : 'on '}${allOpen}`}`;
    const exDays = nameDays(other.days, 'plural');
    const onlyClose = o.open === u.open;
    const onlyOpen = o.close === u.close;
    let text: string;
    if (joiner === 'while') text = `${broad}, while on ${exDays} it ${onlyOpen ? `opens at ${formatTime(o.open, style)}` : onlyClose ? `closes at ${formatTime(o.close, style)}` : `is open ${toRange(o, style)}`}.`;
    else if (joiner === 'except') {
      if (allOpen !== 'every day' && allOpen !== 'weekdays') return null;
      text = `${place} is open ${toRange(u, style)} ${allOpen === 'every day' ? 'every day' : 'on weekdays'} except ${nameDays(other.days, 'plural')}, when it ${onlyClose ? `closes at ${formatTime(o.close, style)}` : `is open ${toRange(o, style)}`}.`;
    } else if (joiner === 'but') text = `${broad}, but on ${exDays} it ${onlyClose ? `closes at ${formatTime(o.close, style)}` : `opens ${toRange(o, style)}`}.`;
    else {
      // "with late hours until 1 AM on Fridays and Saturdays": only a later close.
      if (!onlyClose || (o.close - u.close + 1440) % 1440 > 720) return null;
      text = `${broad}, with late hours until ${formatTime(o.close, style)} on ${exDays}.`;
    }
    return text + closedNote(week);
  };
}

/** "Weekdays 06:45–19:00 (Friday until 17:00)": an exception in parentheses. */
const parenthesis: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length !== 2) return null;
  const [usual, other] = groups as [(typeof groups)[number], (typeof groups)[number]];
  if (other.hours.open !== usual.hours.open || other.days.length > 2) return null;
  const all = nameDays([...usual.days, ...other.days]);
  return `${place}: ${all === 'every day' ? 'daily' : all.replace(/^./, (c) => c.toUpperCase())} ${range(usual.hours, style)} (${nameDays(other.days)} until ${formatTime(other.hours.close, style)}).${closedNote(week)}`;
};

/** "Opens at 11 AM daily, closing between 8 and 11 PM depending on the day": one open, closes that vary. */
const betweenDepending: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length < 2 || new Set(groups.map((g) => g.hours.open)).size !== 1) return null;
  const closes = [...new Set(groups.map((g) => g.hours.close))].sort((a, b) => ((a - 300 + 1440) % 1440) - ((b - 300 + 1440) % 1440));
  if (closes.length < 2) return null;
  const days = nameDays(WEEK_ORDER.filter((d) => week[d] !== null));
  return `${place} opens at ${formatTime(groups[0]!.hours.open, style)} ${days === 'every day' ? 'daily' : `on ${days}`}, closing between ${formatTime(closes[0]!, style)} and ${formatTime(closes.at(-1)!, style)} depending on the day.`;
};

/** "Closes at either 10 PM or midnight": exactly two closes. */
const eitherOr: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  const closes = [...new Set(groups.map((g) => g.hours.close))];
  if (closes.length !== 2 || new Set(groups.map((g) => g.hours.open)).size !== 1) return null;
  return `${place} opens at ${formatTime(groups[0]!.hours.open, style)} and closes at either ${formatTime(closes[0]!, style)} or ${formatTime(closes[1]!, style)}, depending on the day.`;
};

/** "Open every day from 6 to 9 or 10 PM": one open, two closes, "or". */
const orClose: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  const closes = [...new Set(groups.map((g) => g.hours.close))];
  if (closes.length !== 2 || new Set(groups.map((g) => g.hours.open)).size !== 1) return null;
  const days = nameDays(WEEK_ORDER.filter((d) => week[d] !== null));
  return `${place} is open ${days === 'every day' ? 'every day' : `on ${days}`} from ${formatTime(groups[0]!.hours.open, style)} to ${formatTime(closes[0]!, style)} or ${formatTime(closes[1]!, style)}.`;
};

/** The usual hours in one sentence, the exceptions in the next ("On Fridays it closes at 5 PM."). */
const nextSentence: Idiom = (place, week, style) => {
  const groups = groupsOf(week);
  if (groups.length !== 2) return null;
  const [usual, other] = groups as [(typeof groups)[number], (typeof groups)[number]];
  const all = nameDays(WEEK_ORDER.filter((d) => week[d] !== null));
  const onlyClose = other.hours.open === usual.hours.open;
  return `${place} is usually open ${toRange(usual.hours, style)} ${all === 'every day' ? 'every day' : `on ${all}`}. On ${nameDays(other.days, 'plural')} it ${onlyClose ? `closes at ${formatTime(other.hours.close, style)}` : `is open ${toRange(other.hours, style)}`}.${closedNote(week)}`;
};

export const IDIOMS: Record<string, Idiom> = {
  'days-first': daysFirst,
  'hours-first': hoursFirst,
  'compact-hours-first': compactHoursFirst,
  list,
  table,
  'usual-while': usualAnd('while'),
  'usual-except': usualAnd('except'),
  'usual-but': usualAnd('but'),
  'usual-with-late': usualAnd('with'),
  parenthesis,
  'between-depending': betweenDepending,
  'either-or': eitherOr,
  'or-close': orClose,
  'next-sentence': nextSentence,
};

/** Opening and closing times as campus places keep them (a close past midnight included). */
const OPENS = [390, 420, 450, 480, 510, 540, 600, 660, 690, 720];
const CLOSES = [840, 900, 1020, 1050, 1080, 1140, 1200, 1260, 1320, 1380, 0, 60, 120];

/** A week: one of the shapes places keep, built from a usual day and a second one. */
export const weekArbitrary: fc.Arbitrary<Week> = fc
  .record({
    shape: fc.constantFrom('uniform', 'weekdays-weekend', 'one-differs', 'late-weekend', 'two-groups', 'weekend-closed'),
    open: fc.constantFrom(...OPENS),
    close: fc.constantFrom(...CLOSES),
    open2: fc.constantFrom(...OPENS),
    close2: fc.constantFrom(...CLOSES),
    day: fc.integer({ min: 0, max: 6 }),
    sundayClosed: fc.boolean(),
    changeOpen: fc.boolean(),
  })
  .map(({ shape, open, close, open2, close2, day, sundayClosed, changeOpen }): Week => {
    const a = { open, close };
    // The second hours differ from the first (in open, close or both), and never span a full day.
    const b = changeOpen ? { open: open2 === open ? open + 60 : open2, close } : { open, close: close2 === close ? (close + 120) % 1440 : close2 };
    const week: Week = Array.from({ length: 7 }, () => ({ ...a }));
    if (shape === 'weekdays-weekend') week[0] = week[6] = b;
    else if (shape === 'one-differs') week[day] = b;
    else if (shape === 'late-weekend') week[5] = week[6] = { open, close: (Math.max(close, 1320) + 120) % 1440 };
    else if (shape === 'two-groups') week[5] = week[6] = week[0] = b;
    else if (shape === 'weekend-closed') week[0] = week[6] = null;
    if (sundayClosed && shape !== 'weekend-closed') week[0] = null;
    return week;
  })
  .filter((week) => week.some((d) => d !== null) && week.every((d) => d === null || (d.close - d.open + 1440) % 1440 >= 180));

/** The values of a week, as minutes. */
const valuesOf = (week: Week) => new Set(week.flatMap((d) => (d ? [d.open, d.close] : [])));

/**
 * The cases of `count` weeks (seeded): each idiom that fits a week, in each time style, with its
 * mutations.
 */
export function scheduleCases(count: number, seed: number): ScheduleCase[] {
  const weeks = fc.sample(fc.tuple(weekArbitrary, fc.constantFrom(...PLACES), fc.constantFrom<'detail' | 'list'>('detail', 'list'), fc.constantFrom<TimeStyle>('12h', '12c', '24h')), { numRuns: count, seed });
  const cases: ScheduleCase[] = [];
  for (const [week, place, shape, style] of weeks) {
    // Midnight in 24 hours ("00:00") is rarely how a summary says it.
    const styleHere: TimeStyle = style === '24h' && [...valuesOf(week)].some((v) => v === 0 || v === 720) ? '12h' : style;
    const record = renderRecord(place, week, shape);
    for (const [idiom, render] of Object.entries(IDIOMS)) {
      const honest = render(place, week, styleHere);
      if (honest === null) continue;
      cases.push({ place, week, record, idiom, honest, oneDay: oneDayMutation(place, week, render, styleHere, honest), invented: inventedMutation(place, week, render, styleHere) });
    }
  }
  return cases;
}

/**
 * One day's hours told as another group's: the day moves to the group beside it, so the summary says
 * a value that is true on other days and wrong on that one. Null when the idiom cannot say the changed
 * week, or says it the same (a variation range holds either way).
 */
function oneDayMutation(place: string, week: Week, render: Idiom, style: TimeStyle, honest: string): string | null {
  const groups = groupsOf(week);
  if (groups.length < 2) return null;
  // The smaller group's first day, told with the usual hours (e.g. Friday's 5 PM close told as 7 PM).
  const moved = groups[1]!.days[0]!;
  const changed = week.map((d, i) => (i === moved ? { ...groups[0]!.hours } : d));
  if (groupsOf(changed).length === groups.length && groups[1]!.days.length === 1) return null;
  const text = render(place, changed, style);
  return text === null || text === honest ? null : text;
}

/** One value of the usual hours replaced by one found on no day. */
function inventedMutation(place: string, week: Week, render: Idiom, style: TimeStyle): { text: string; value: string } | null {
  const values = valuesOf(week);
  const usual = groupsOf(week)[0]!.hours;
  let wrong = usual.close + 37;
  while (values.has(wrong % 1440)) wrong += 37;
  const changed = week.map((d) => (d && same(d, usual) ? { ...d, close: wrong % 1440 } : d));
  const text = render(place, changed, style);
  return text === null ? null : { text, value: formatTime(wrong, style) };
}

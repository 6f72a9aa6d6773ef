/**
 * The days of a Markdown table's columns (issue 59: a claim inherits its binding from "the table's
 * header"). "| Location | Mon–Fri | Sat–Sun |" over its separator row makes each row's times in the
 * second column weekday hours and in the third weekend hours, unless the cell names days of its own
 * ("8 AM–9 PM (Fri until 5)": the 5 is Friday's). A table whose header names no days binds nothing
 * here: its rows' own words bind their times as in any sentence (a row label "| Monday | 8 AM | …").
 */
import type { Claim } from './claims.js';
import { bindTimes, readDays } from './days.js';

/** A header's separator row: "|---|:---:|". */
const SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;

interface Cell {
  start: number;
  end: number;
}

/** The cells of a row, by span (the text between its pipes, and after the last one when not blank). */
function cells(row: string): Cell[] {
  const out: Cell[] = [];
  let start = row.indexOf('|') + 1;
  for (let pipe = row.indexOf('|', start); pipe !== -1; pipe = row.indexOf('|', start)) {
    out.push({ start, end: pipe });
    start = pipe + 1;
  }
  if (row.slice(start).trim()) out.push({ start, end: row.length });
  return out;
}

export class TableDays {
  /** The row before a separator may be the header. */
  private header: string | null = null;
  /** Each column's days (null: the column names none), while the table whose header named them goes on. */
  private columns: Array<number[] | null> | null = null;

  /** A line of the answer ended: a table row (its text from the line's start, or null when not kept whole), or another line. */
  line(row: string | null, today: number | null): void {
    if (row === null) {
      this.header = null;
      this.columns = null;
      return;
    }
    if (SEPARATOR.test(row)) {
      const header = this.header;
      this.header = null;
      if (header === null) return;
      const days = cells(header).map((c) => {
        const found = readDays(header.slice(c.start, c.end), today);
        return found.length > 0 ? [...new Set(found.flatMap((d) => d.days))] : null;
      });
      this.columns = days.some((d) => d !== null) ? days : null;
      return;
    }
    if (this.columns === null) this.header = row;
  }

  /**
   * The days of each of `times` in the table row `row` (from the line's start): its cell's own, else its
   * column's; undefined for a time whose column names none (the row binds it as text). Null: this table
   * has no day columns.
   */
  bind(row: string, times: readonly Claim[], today: number | null): Array<number[] | null | undefined> | null {
    const columns = this.columns;
    if (columns === null) return null;
    const spans = cells(row);
    return times.map((t) => {
      const k = spans.findIndex((c) => t.start >= c.start && t.end <= c.end);
      if (k < 0) return undefined;
      const cell = spans[k]!;
      const inCell = times.filter((o) => o.start >= cell.start && o.end <= cell.end);
      const text = row.slice(cell.start, cell.end);
      const own = bindTimes(text, inCell.map((o) => ({ ...o, start: o.start - cell.start, end: o.end - cell.start })), today)[inCell.indexOf(t)];
      if (own) return own;
      const column = columns[k];
      if (!column) return undefined;
      // "8 AM–9 PM (Fri until 5)": days the cell names for other hours are not this time's.
      const named = new Set(readDays(text, today).flatMap((d) => d.days));
      const rest = column.filter((d) => !named.has(d));
      return rest.length > 0 ? rest : column;
    });
  }
}

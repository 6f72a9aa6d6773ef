/**
 * Answers written for the front end's renderer (issue 77, CONTRACT.md "How answers are written for the
 * front end's renderer"): react-markdown with remark-gfm, remark-math (single-dollar inline math on) and
 * rehype-katex, after rewriting `\[…\]` to `$$…$$` and `\(…\)` to `$…$`. Decided on the stream, a piece
 * at a time, holding back only what the next characters decide (a `\`, a `~`, a backtick run, the first
 * characters of a line, an HTML tag or a link until it closes: at most HOLD_LIMIT characters):
 *
 * - every `$` outside code is written `\$` (prices stay prices, never math); `\(`, `\)`, `\[`, `\]` lose
 *   their backslash (the renderer would make them math);
 * - a `~` between two digits becomes an en dash ("5~10 min" → "5–10 min"), any other is written `\~`
 *   (GFM strikes through between two tildes);
 * - raw HTML never reaches the page (it shows as literal text): `<br>` becomes "; " (a table keeps its
 *   row), other tags and comments are dropped;
 * - no image: `![alt](url)` becomes a link to its URL when the link is allowed, else its alt text;
 *   a link is kept when it is `mailto:` or http(s) to an allowed host (the campus map, a host the turn's
 *   tools gave), else its text is shown (a `tel:` link's number as text); an `<https://…>` autolink to
 *   another host is shown as code;
 * - headings are `##` or `###` (`#` and `####`+ are brought into that range), two plain lines are
 *   separated by a blank line (a single newline would join them), and an answer never starts with `{`.
 *
 * Code (inline spans and fenced blocks) passes as written. Grounding reads the answer before this step,
 * so `$8.50` is checked as the price it is.
 */

/** What a link may point at and stay a link. */
export interface LinkPolicy {
  allowed(url: URL): boolean;
}

/** Characters an open tag, comment or link is held at most before it is written as the text it is. */
export const HOLD_LIMIT = 600;

/**
 * Whether the start of a line (no newline in it yet) is too short to tell its kind: a line is held only
 * until its first mark is known (`#` run, list marker, fence, indentation), usually one character.
 */
function undecided(start: string): boolean {
  if (/^ {0,3}$/.test(start)) return true;
  const t = start.replace(/^ {1,3}/, '');
  if (t === '') return false;
  if (/^\d+$/.test(t) && t.length < 10) return true;
  if (/^#+$/.test(t) && t.length < 7) return true;
  if (/^[-*+]$/.test(t)) return true;
  if (/^(`{1,2}|~{1,2})$/.test(t)) return true;
  return false;
}

type LineKind = 'blank' | 'plain' | 'heading' | 'list' | 'table' | 'quote' | 'fence' | 'block';

function lineKind(start: string): LineKind {
  if (start.trim() === '') return 'blank';
  if (/^( {4,}|\t)/.test(start)) return 'block';
  const t = start.replace(/^ {1,3}/, '');
  if (/^(```|~~~)/.test(t)) return 'fence';
  if (/^#{1,6}(\s|$)/.test(t)) return 'heading';
  if (/^([-*+][ \t]|\d{1,9}[.)]([ \t]|$))/.test(t)) return 'list';
  if (t.includes('|')) return 'table';
  if (t.startsWith('>')) return 'quote';
  if (/^[-=_*:]/.test(t)) return 'block';
  return 'plain';
}

/** A link's label, known whole: no image in it, and `$`, `~` and the math escapes as in the stream. */
export function inlineSafe(text: string): string {
  const label = text.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1');
  let out = '';
  for (let i = 0; i < label.length; i++) {
    const c = label[i]!;
    if (c === '\\' && i + 1 < label.length) {
      const n = label[++i]!;
      out += '()[]'.includes(n) ? n : `\\${n}`;
    } else if (c === '$' || c === '~') out += `\\${c}`;
    else if (c === '<' || c === '>') out += '';
    else out += c;
  }
  return out;
}

/** The characters any rule looks at, outside code and inside an inline code span; the rest is written as it comes. */
const SPECIAL = /[\n`|{\\$~<![]/g;
const SPECIAL_IN_CODE = /[\n`]/g;
/** SPECIAL for `test` (no state): a piece with none of these, mid-line, passes untouched. */
const ANY_SPECIAL = /[\n`|{\\$~<![]/;

const TAG = /^<\/?([A-Za-z][A-Za-z0-9-]*)(\s[^<>]*)?\/?>$/;
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>$/i;

/** A stream of answer text made safe for the renderer. One per answer; `flush` at the end of a pass. */
export class RenderSafe {
  private held = '';
  /** The open fence's marker, while inside a fenced code block. */
  private fence: string | null = null;
  /** The length of the open inline code span's backtick run (0: none). */
  private code = 0;
  private atLineStart = true;
  private kind: LineKind = 'blank';
  private prevKind: LineKind = 'blank';
  /** The line so far had a `|` (a table row without a leading pipe). */
  private linePipe = false;
  private prevPipe = false;
  private started = false;
  /** The rest of the line passes as written (a fence's lines); `closing`: it closes the fence. */
  private raw = false;
  private closing = false;
  /** The last character written. */
  private last = '';

  constructor(private readonly links: LinkPolicy) {}

  push(text: string): string {
    // The hot path (one token mid-line, nothing held): nothing in it for any rule to look at.
    if (text === '' && this.held === '') return '';
    if (this.held === '' && this.started && !this.atLineStart && !this.raw && this.code === 0 && !ANY_SPECIAL.test(text)) {
      this.last = text[text.length - 1]!;
      return text;
    }
    this.held += text;
    return this.drain(false);
  }

  /** The end of a pass: what was held is written as it stands. */
  flush(): string {
    const out = this.drain(true);
    this.code = 0;
    this.fence = null;
    this.raw = this.closing = false;
    this.atLineStart = true;
    this.prevKind = 'blank';
    return out;
  }

  /** Everything before was reasoning: the answer starts afresh. */
  reset(): void {
    this.held = '';
    this.code = 0;
    this.fence = null;
    this.raw = this.closing = false;
    this.atLineStart = true;
    this.kind = this.prevKind = 'blank';
    this.linePipe = this.prevPipe = false;
    this.started = false;
    this.last = '';
  }

  /** What `drain` has written so far. */
  private out = '';

  private emit(text: string): void {
    if (!text) return;
    this.out += text;
    this.last = text[text.length - 1]!;
    if (!this.started && /\S/.test(text)) this.started = true;
  }

  private drain(final: boolean): string {
    const s = this.held;
    this.out = '';
    let i = 0;
    while (i < s.length) {
      if (this.atLineStart) {
        const nl = s.indexOf('\n', i);
        const start = s.slice(i, nl < 0 ? s.length : nl);
        if (nl < 0 && undecided(start) && !final) break;
        this.atLineStart = false;
        this.linePipe = false;
        if (this.fence) {
          // Inside a fenced block every line passes as written; the closing fence ends it.
          this.raw = true;
          this.closing = start.trim().startsWith(this.fence);
          this.kind = 'block';
          continue;
        }
        const kind = lineKind(start);
        // Two plain lines are two paragraphs to the reader: a single newline would join them.
        if (kind === 'plain' && this.prevKind === 'plain' && !this.prevPipe && !start.includes('|') && this.last === '\n') this.emit('\n');
        this.kind = kind;
        if (kind === 'fence') {
          this.fence = start.trim().slice(0, 3);
          this.raw = true;
          continue;
        }
        if (kind === 'heading') {
          const hashes = /^ {0,3}(#+)/.exec(start)![1]!;
          const level = Math.min(3, Math.max(2, hashes.length));
          this.emit('#'.repeat(level));
          i += start.indexOf('#') + hashes.length;
          continue;
        }
        continue;
      }
      if (this.raw) {
        const nl = s.indexOf('\n', i);
        const end = nl < 0 ? s.length : nl;
        this.emit(s.slice(i, end));
        i = end;
        if (nl >= 0) {
          this.emit('\n');
          i++;
          this.raw = false;
          this.atLineStart = true;
          this.prevKind = 'block';
          if (this.closing) this.fence = null;
          this.closing = false;
        }
        continue;
      }
      // The common case: a run of ordinary characters, written in one piece.
      const special = this.code > 0 ? SPECIAL_IN_CODE : SPECIAL;
      special.lastIndex = i;
      const next = special.exec(s);
      const j = next ? next.index : s.length;
      if (j > i) {
        this.emit(s.slice(i, j));
        i = j;
        continue;
      }
      const c = s[i]!;
      if (c === '\n') {
        this.emit('\n');
        i++;
        this.prevKind = this.kind;
        this.prevPipe = this.linePipe;
        this.atLineStart = true;
        continue;
      }
      if (c === '`') {
        let j = i;
        while (j < s.length && s[j] === '`') j++;
        if (j === s.length && !final) break;
        const run = j - i;
        if (this.code === 0) this.code = run;
        else if (this.code === run) this.code = 0;
        this.emit(s.slice(i, j));
        i = j;
        continue;
      }
      if (this.code > 0) {
        this.emit(c);
        i++;
        continue;
      }
      if (c === '|') this.linePipe = true;
      if (!this.started && c === '{') {
        this.emit('\\{');
        i++;
        continue;
      }
      if (c === '\\') {
        if (i + 1 >= s.length && !final) break;
        const n = s[i + 1];
        if (n === '(' || n === ')' || n === '[' || n === ']') this.emit(n);
        else if (n !== undefined && /[!-/:-@[-`{-~]/.test(n)) this.emit(`\\${n}`);
        else {
          this.emit('\\');
          i++;
          continue;
        }
        i += 2;
        continue;
      }
      if (c === '$') {
        this.emit('\\$');
        i++;
        continue;
      }
      if (c === '~') {
        if (i + 1 >= s.length && !final) break;
        this.emit(/\d/.test(this.last) && /\d/.test(s[i + 1] ?? '') ? '–' : '\\~');
        i++;
        continue;
      }
      if (c === '<') {
        const taken = this.tag(s, i, final);
        if (taken === null) break;
        this.emit(taken.text);
        i = taken.end;
        continue;
      }
      if (c === '!' && (s[i + 1] === '[' || (i + 1 >= s.length && !final))) {
        if (i + 1 >= s.length) break;
        const taken = this.link(s, i + 1, true, final);
        if (taken === null) break;
        this.emit(taken.text);
        i = taken.end;
        continue;
      }
      if (c === '[') {
        const taken = this.link(s, i, false, final);
        if (taken === null) break;
        this.emit(taken.text);
        i = taken.end;
        continue;
      }
      this.emit(c);
      i++;
    }
    this.held = s.slice(i);
    const out = this.out;
    this.out = '';
    return out;
  }

  /** An HTML tag, comment or autolink at `i`: what is written for it, or null to wait for more. */
  private tag(s: string, i: number, final: boolean): { text: string; end: number } | null {
    const literal = { text: '<', end: i + 1 };
    if (s.startsWith('<!--', i) || (s.length - i < 4 && '<!--'.startsWith(s.slice(i)) && !final)) {
      const close = s.indexOf('-->', i + 4);
      if (close >= 0) return { text: '', end: close + 3 };
      return !final && s.length - i < HOLD_LIMIT ? null : literal;
    }
    const gt = s.indexOf('>', i);
    const nl = s.indexOf('\n', i);
    if (gt < 0 || (nl >= 0 && nl < gt)) {
      if (nl >= 0 || final || s.length - i >= HOLD_LIMIT) return literal;
      // `<` then a space or a digit starts no tag: it is a comparison.
      if (i + 1 < s.length && !/[A-Za-z/!]/.test(s[i + 1]!)) return literal;
      return null;
    }
    const candidate = s.slice(i, gt + 1);
    const auto = AUTOLINK.exec(candidate);
    if (auto) {
      const url = auto[1]!;
      return { text: this.allowed(url, true) ? candidate : `\`${url}\``, end: gt + 1 };
    }
    const tag = TAG.exec(candidate);
    if (!tag) return literal;
    return { text: tag[1]!.toLowerCase() === 'br' ? '; ' : '', end: gt + 1 };
  }

  /**
   * A link (or, `image`, the image) whose `[` is at `i`: what is written for it, or null to wait for
   * more. Not a link (no `(` after the `]`): its `[` as text, the rest read on.
   */
  private link(s: string, i: number, image: boolean, final: boolean): { text: string; end: number } | null {
    const start = image ? i - 1 : i;
    const notLink = { text: image ? '!' : '[', end: image ? i : i + 1 };
    let depth = 0;
    let close = -1;
    for (let j = i; j < s.length && j - i < HOLD_LIMIT; j++) {
      const c = s[j];
      if (c === '\\') j++;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) {
        close = j;
        break;
      } else if (c === '\n' && s[j + 1] === '\n') return notLink;
    }
    const wait = () => (!final && s.length - start < HOLD_LIMIT ? null : notLink);
    if (close < 0) return wait();
    if (close + 1 >= s.length) return final ? notLink : wait();
    if (s[close + 1] !== '(') return notLink;
    let parens = 0;
    let end = -1;
    for (let j = close + 1; j < s.length && j - start < HOLD_LIMIT; j++) {
      const c = s[j];
      if (c === '(') parens++;
      else if (c === ')' && --parens === 0) {
        end = j;
        break;
      } else if (c === '\n') return notLink;
    }
    if (end < 0) return wait();
    const label = s.slice(i + 1, close);
    const target = s.slice(close + 2, end).trim();
    const url = (/^<([^>]*)>/.exec(target)?.[1] ?? target.split(/\s+/)[0] ?? '').trim();
    const text = inlineSafe(label);
    const http = /^https?:\/\//i.test(url);
    if (image) {
      if (http && this.allowed(url, false)) return { text: `[${text || url}](${url})`, end: end + 1 };
      return { text, end: end + 1 };
    }
    if (/^mailto:/i.test(url) || (http && this.allowed(url, false))) return { text: `[${text}](${s.slice(close + 2, end)})`, end: end + 1 };
    return { text, end: end + 1 };
  }

  private allowed(url: string, autolink: boolean): boolean {
    if (autolink && /^mailto:/i.test(url)) return true;
    try {
      return this.links.allowed(new URL(url));
    } catch {
      return false;
    }
  }
}

/** Text known whole, as the stream would write it (a title, a test's expected answer). */
export function renderSafeText(text: string, links: LinkPolicy = { allowed: () => false }): string {
  const render = new RenderSafe(links);
  return render.push(text) + render.flush();
}

/**
 * How `npm run bench` writes BENCHMARKS.md: each bench's Markdown section sits between
 * `<!-- bench: <file> -->` markers and replaces only its own block; a bench new to the file is added at
 * the end. Everything else in the file (the current-figures table, sections recorded by hand, before and
 * after runs) is kept as it stands, whether one bench ran or all of them. A full run also refreshes the
 * file's "Recorded … by `npm run bench`" line.
 */

const marked = (file: string, section: string) => `<!-- bench: ${file} -->\n${section}<!-- /bench: ${file} -->\n`;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The file's new text: `text` (the file as it stands, or '' for none) with each of `sections` (by bench
 * file) stamped with `recordedAt` and put in its block. `header` starts a file that has none; `recordedLine`
 * (a full run's) replaces the line that says when the whole file was recorded.
 */
export function recordSections(
  text: string,
  sections: ReadonlyMap<string, string>,
  options: { header: string; recordedAt: string; node: string; recordedLine?: string },
): string {
  let out = text.trim() ? text : options.header;
  const recorded = /^Recorded .* by `npm run bench`.*$/m;
  if (options.recordedLine && recorded.test(out)) out = out.replace(recorded, () => options.recordedLine!);
  for (const [file, section] of sections) {
    const block = new RegExp(`<!-- bench: ${escape(file)} -->\\n[\\s\\S]*?<!-- /bench: ${escape(file)} -->\\n`);
    const stamped = marked(file, section.replace(/\n*$/, `\n\n_Section recorded ${options.recordedAt}, Node ${options.node}._\n`));
    out = block.test(out) ? out.replace(block, () => stamped) : `${out.trimEnd()}\n\n${stamped}`;
  }
  return out;
}

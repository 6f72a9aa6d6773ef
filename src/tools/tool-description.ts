/**
 * Trims a tool server description to what the model needs: the summary paragraph and the `Args:` block.
 * The production server adds `Returns ...` paragraphs and "formatted as clean markdown" (CAMPUS_TOOLS.md),
 * which only cost prompt tokens.
 */

/** The summary paragraph plus the `Args:` block, whitespace tidied; at most 1,000 characters. */
export function trimToolDescription(description: string): string {
  const text = description.replace(/\r\n?/g, '\n').trim();
  const paragraphs = text.split(/\n\s*\n/);
  const summary = (paragraphs[0] ?? '').replace(/\s*\n\s*/g, ' ').replace(/,?\s*formatted as clean markdown\.?/i, '.').trim();
  const argsIndex = text.search(/^[ \t]*Args:[ \t]*$/m);
  let args = '';
  if (argsIndex >= 0) {
    const lines = text.slice(argsIndex).split('\n');
    const kept = [lines[0]!.trim()];
    for (const line of lines.slice(1)) {
      // The block ends at a blank line or the next unindented section (`Returns:`).
      if (!line.trim() || /^\S/.test(line)) break;
      kept.push(line.trimEnd());
    }
    args = kept.join('\n');
  }
  const out = args && !summary.startsWith('Args:') ? `${summary}\n${args}` : summary;
  return out.replace(/\.\.$/, '.').slice(0, 1000);
}

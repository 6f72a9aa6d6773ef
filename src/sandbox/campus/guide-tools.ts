/**
 * The sandbox's `guide` group: the sample student-guide pages split into heading chunks, searched by
 * full text (text-search.ts), in the JSON shapes of the production `guide_*` tools (not-found is an `error` key, not
 * an error result, as in production).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { GUIDE_BASE_URL, SANDBOX_GUIDE } from './data/guide.js';
import { textIndex } from './text-search.js';
import { jsonResult } from './tool-results.js';

interface Chunk {
  chunk_id: string;
  file: string;
  heading_path: string[];
  content: string;
  url: string;
}

/** Splits each page on `## ` headings: chunk 0 is the title and intro, then one per section. */
function buildChunks(): Chunk[] {
  return SANDBOX_GUIDE.flatMap((page) => {
    const slug = page.path.replace(/^src\/pages\//, '').replace(/\.md$/, '');
    // A page's opening chunk is its title and intro; a title alone is no section to return.
    return page.content.split(/\n(?=## )/).flatMap((part, i) => {
      const heading = /^##? (.+)$/m.exec(part)?.[1] ?? page.title;
      const anchor = i === 0 ? '' : `#${heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
      if (!/\n\s*\S/.test(part.trim())) return [];
      return {
        chunk_id: `${page.path}#${i}`,
        file: page.path,
        heading_path: i === 0 ? [page.title] : [page.title, heading],
        content: part.trim(),
        url: `${GUIDE_BASE_URL}${slug}${anchor}`,
      };
    });
  });
}

/** Registers the five guide tools on a server. */
export function registerGuideTools(server: McpServer): void {
  const chunks = buildChunks();
  const index = textIndex(chunks, {
    heading: { text: (c) => c.heading_path.join(' '), boost: 3 },
    content: { text: (c) => c.content },
  });

  server.registerTool(
    'guide_search_guide',
    {
      description: 'Search the student guide.\n\nArgs:\n    query: What to look for.\n    limit: Most results to return (default 5).',
      inputSchema: { query: z.string(), limit: z.number().int().default(5) },
    },
    async ({ query, limit }) =>
      jsonResult(
        index.search(query, Math.max(0, limit)).map(({ item: c, score }) => ({
          chunk_id: c.chunk_id,
          file: c.file,
          heading_path: c.heading_path,
          snippet: c.content.replace(/^#+ .+\n+/, '').slice(0, 200),
          score,
        })),
      ),
  );

  server.registerTool(
    'guide_get_section',
    {
      description: 'Fetch one section of the guide by chunk id.\n\nArgs:\n    chunk_id: As returned by guide_search_guide.',
      inputSchema: { chunk_id: z.string() },
    },
    async ({ chunk_id }) => {
      const c = chunks.find((x) => x.chunk_id === chunk_id);
      if (!c) return jsonResult({ error: `No chunk found with id '${chunk_id}'` });
      return jsonResult({ heading_path: c.heading_path, url: c.url, content: c.content });
    },
  );

  server.registerTool(
    'guide_get_page',
    {
      description: 'Fetch a whole guide page.\n\nArgs:\n    path: Page path such as "src/pages/meal-plans.md".',
      inputSchema: { path: z.string() },
    },
    async ({ path }) => {
      const page = SANDBOX_GUIDE.find((p) => p.path === path);
      if (!page) return jsonResult({ error: `No page found at '${path}'` });
      return jsonResult({ path: page.path, title: page.title, content: page.content });
    },
  );

  server.registerTool(
    'guide_list_pages',
    { description: 'List the pages of the student guide.' },
    async () => jsonResult(SANDBOX_GUIDE.map(({ path, title, description }) => ({ path, title, description }))),
  );

  server.registerTool(
    'guide_refresh_index',
    { description: 'Rebuild the guide search index.' },
    async () => jsonResult({ pages: SANDBOX_GUIDE.length, chunks: chunks.length }),
  );
}

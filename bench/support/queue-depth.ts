/**
 * The memory-extraction jobs a bench's database holds, read from whichever queue the tree under test
 * has: the `jobs` table (drizzle migration 0007), or pg-boss's `pgboss.job` in a tree from before it
 * (`bench/tools/before-after.ts` runs a bench against an older commit). Each bench run makes a fresh
 * database, so it holds one or the other. Which one is read once per connection pool (one statement),
 * after the service has started: call it once before a measured window.
 */
import type postgres from 'postgres';

const tables = new WeakMap<postgres.Sql, 'jobs' | 'pgboss'>();

/** `running`: also the jobs a worker holds (for the drain); else only those waiting to run (the depth). */
export async function queuedJobs(sql: postgres.Sql, running: boolean, mark = ''): Promise<number> {
  let table = tables.get(sql);
  if (!table) {
    const [found] = await sql.unsafe<{ jobs: boolean }[]>(`${mark} select to_regclass('public.jobs') is not null as jobs`);
    table = found!.jobs ? 'jobs' : 'pgboss';
    tables.set(sql, table);
  }
  const query =
    table === 'jobs'
      ? `select count(*)::int as n from jobs where kind = 'memory-extraction' and failed_at is null${running ? '' : ' and (locked_until is null or locked_until < now())'}`
      : `select count(*)::int as n from pgboss.job where name = 'memory-extraction' and state in ('created', 'retry'${running ? ", 'active'" : ''})`;
  const [row] = await sql.unsafe<{ n: number }[]>(`${mark} ${query}`);
  return row!.n;
}

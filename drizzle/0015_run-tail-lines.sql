ALTER TABLE "agent_runs" ADD COLUMN "tail_lines" text;--> statement-breakpoint
-- Hand-written (drizzle-kit does not model a column's compression): the tail is compressed with lz4
-- where the server has it, which costs a backend about half of what pglz does a run
-- (docs/perf-log/2026-11-30-tail-lines.md); a server built without lz4 (or PGlite) keeps pglz.
DO $$
BEGIN
  ALTER TABLE "agent_runs" ALTER COLUMN "tail_lines" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  NULL;
END $$;

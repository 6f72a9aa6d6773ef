-- Custom SQL migration: the job queue moved from pg-boss to the `jobs` table (issue 46). Jobs a running
-- pg-boss deployment still holds (waiting, waiting for a retry, or running) are copied over with their
-- key, payload, trace link and due time, so an upgrade loses none. A job an old replica still runs during
-- a rolling upgrade may then run on both; its key, claimed in `job_runs`, makes it take effect once.
-- The `pgboss` schema itself is left in place for old replicas still draining it; DEPLOY.md says when to
-- drop it. A database that never ran pg-boss has no `pgboss.job`, and this copies nothing.
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    EXECUTE $copy$
      INSERT INTO "jobs" ("kind", "key", "payload", "link", "run_after", "created_at")
      SELECT name, data->>'key', data->'payload', data->>'link', start_after, created_on
      FROM pgboss.job
      WHERE name = 'memory-extraction' AND state IN ('created', 'retry', 'active') AND data ? 'key'
    $copy$;
  END IF;
END
$$;

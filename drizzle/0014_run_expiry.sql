DROP INDEX "agent_runs_ended_at_idx";--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
-- Runs ended before this migration expire as the default RUN_RETENTION_SECONDS (600) after their end.
UPDATE "agent_runs" SET "expires_at" = "ended_at" + interval '600 seconds' WHERE "ended_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "agent_runs_expires_at_idx" ON "agent_runs" USING btree ("expires_at");

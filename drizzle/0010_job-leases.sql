ALTER TABLE "job_runs" ADD COLUMN "claim" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "lease" uuid;
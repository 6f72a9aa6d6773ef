CREATE TABLE "job_runs" (
	"key" text PRIMARY KEY NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "job_runs_done_at_idx" ON "job_runs" USING btree ("done_at");
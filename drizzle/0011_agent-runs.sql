CREATE TABLE "agent_run_frames" (
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"event" text NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "agent_run_frames_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "agent_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"replica" uuid NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"closed" boolean DEFAULT false NOT NULL,
	"response" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "agent_runs_status_check" CHECK ("agent_runs"."status" in ('running', 'done', 'failed', 'cancelled', 'interrupted'))
);
--> statement-breakpoint
ALTER TABLE "agent_run_frames" ADD CONSTRAINT "agent_run_frames_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_runs_owner_idx" ON "agent_runs" USING btree ("owner");--> statement-breakpoint
CREATE INDEX "agent_runs_ended_at_idx" ON "agent_runs" USING btree ("ended_at");--> statement-breakpoint
CREATE INDEX "agent_runs_running_idx" ON "agent_runs" USING btree ("replica") WHERE "agent_runs"."status" = 'running';
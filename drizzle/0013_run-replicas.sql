CREATE TABLE "agent_run_replicas" (
	"id" uuid PRIMARY KEY NOT NULL,
	"beat" bigint NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);

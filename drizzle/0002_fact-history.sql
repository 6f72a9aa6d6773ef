CREATE TABLE "memory_fact_history" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"fact_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"change" text NOT NULL,
	"source" text NOT NULL,
	"text" text,
	CONSTRAINT "memory_fact_history_change_check" CHECK ("memory_fact_history"."change" in ('created', 'updated', 'deleted')),
	CONSTRAINT "memory_fact_history_source_check" CHECK ("memory_fact_history"."source" in ('extraction', 'remember', 'forget', 'user'))
);
--> statement-breakpoint
ALTER TABLE "memory_fact_history" ADD CONSTRAINT "memory_fact_history_fact_id_memory_facts_id_fk" FOREIGN KEY ("fact_id") REFERENCES "public"."memory_facts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_fact_history_fact_idx" ON "memory_fact_history" USING btree ("fact_id","seq");--> statement-breakpoint
-- Facts stored before history existed start theirs with one "created" entry at their creation time,
-- holding their text as of this migration (hand-written: drizzle-kit generates schema changes only).
INSERT INTO "memory_fact_history" ("fact_id", "at", "change", "source", "text")
SELECT "id", "created_at", 'created', CASE WHEN "kind" = 'remembered' THEN 'remember' ELSE 'extraction' END, "text"
FROM "memory_facts" ORDER BY "created_at", "id";

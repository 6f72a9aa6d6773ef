CREATE TABLE "memory_facts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"text" text NOT NULL,
	"normalized" text NOT NULL,
	"embedding" vector(1536),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_facts_kind_check" CHECK ("memory_facts"."kind" in ('learned', 'remembered'))
);
--> statement-breakpoint
CREATE TABLE "token_usage" (
	"bucket" text NOT NULL,
	"day" date NOT NULL,
	"tokens" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "token_usage_bucket_day_pk" PRIMARY KEY("bucket","day")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "memory_facts_user_normalized_idx" ON "memory_facts" USING btree ("user_id","normalized");--> statement-breakpoint
CREATE INDEX "memory_facts_user_created_idx" ON "memory_facts" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memory_facts_embedding_hnsw_idx" ON "memory_facts" USING hnsw ("embedding" vector_cosine_ops);
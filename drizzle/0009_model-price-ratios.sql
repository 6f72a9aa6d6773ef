CREATE TABLE "model_price_ratios" (
	"model" text NOT NULL,
	"day" date NOT NULL,
	"ratio" double precision NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_price_ratios_model_day_pk" PRIMARY KEY("model","day")
);

ALTER TABLE "hardship_offers" ADD COLUMN "accepted_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "accepted_by" text;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "confirmed_evidence_id" bigint;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "applied_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "applied_schedule_version" integer;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "applied_relief" jsonb;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD CONSTRAINT "hardship_offers_evidence_fk" FOREIGN KEY ("tenant_id","confirmed_evidence_id") REFERENCES "public"."evidence"("tenant_id","id") ON DELETE no action ON UPDATE no action;
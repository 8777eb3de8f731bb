ALTER TABLE "boarding_lines" ALTER COLUMN "raw" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "boarding_batches" ADD COLUMN "raw_purged_at" timestamp (3) with time zone;
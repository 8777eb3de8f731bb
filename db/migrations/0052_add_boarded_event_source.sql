ALTER TABLE "outbox_events" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "boarding_batch_id" bigint;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "include_boarded_history" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_boarding_source_check" CHECK (("outbox_events"."source" is null and "outbox_events"."boarding_batch_id" is null) or ("outbox_events"."source" = 'BOARDING' and "outbox_events"."boarding_batch_id" is not null));
ALTER TABLE "hardship_offer_approvals" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "hardship_offer_approvals" ADD COLUMN "maker_actor" text;--> statement-breakpoint
ALTER TABLE "hardship_offer_approvals" ADD COLUMN "maker_client_id" text;--> statement-breakpoint
ALTER TABLE "hardship_offer_approvals" ADD COLUMN "maker_checker_policy" text;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD COLUMN "maker_client_id" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "maker_checker_policy" text DEFAULT 'distinct-client' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_maker_checker_policy_check" CHECK ("tenants"."maker_checker_policy" in ('distinct-client', 'same-client-distinct-actor'));--> statement-breakpoint
-- Offers made before the maker's client was recorded: a create sent with an Idempotency-Key kept its request key as
-- `<clientId>/<key>` (api/middleware/idempotency.ts `requestKeyOf`; client ids are `cli_` + base64url, no slash).
-- Offers without one keep a null maker client, which the distinct-client policy refuses to decide.
UPDATE "hardship_offers" SET "maker_client_id" = split_part("request_key", '/', 1)
WHERE "maker_client_id" IS NULL AND "request_key" LIKE 'cli\_%/%';

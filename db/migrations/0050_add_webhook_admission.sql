CREATE TABLE "webhook_delivery_slots" (
	"tenant_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"subscription_id" bigint NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_delivery_slots_tenant_id_delivery_id_pk" PRIMARY KEY("tenant_id","delivery_id")
);
--> statement-breakpoint
ALTER TABLE "webhook_delivery_slots" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "webhook_endpoint_breakers" (
	"tenant_id" text NOT NULL,
	"subscription_id" bigint NOT NULL,
	"state" text DEFAULT 'CLOSED' NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"openings" integer DEFAULT 0 NOT NULL,
	"open_until" timestamp (3) with time zone,
	"probe_delivery_id" text,
	"probe_until" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_endpoint_breakers_tenant_id_subscription_id_pk" PRIMARY KEY("tenant_id","subscription_id")
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoint_breakers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "webhook_delivery_slots_tenant_id_expires_at_index" ON "webhook_delivery_slots" USING btree ("tenant_id","expires_at");--> statement-breakpoint
CREATE POLICY "webhook_delivery_slots_tenant_isolation" ON "webhook_delivery_slots" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "webhook_endpoint_breakers_tenant_isolation" ON "webhook_endpoint_breakers" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
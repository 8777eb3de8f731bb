CREATE TABLE "webhook_admission_waiters" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_admission_waiters_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"subscription_id" bigint NOT NULL,
	"workflow_id" text NOT NULL,
	"reason" text NOT NULL,
	"since" timestamp (3) with time zone NOT NULL,
	"woken_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_admission_waiters" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "webhook_endpoint_breakers" ADD COLUMN "waker_delivery_id" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoint_breakers" ADD COLUMN "waker_until" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_admission_waiters_tenant_id_delivery_id_index" ON "webhook_admission_waiters" USING btree ("tenant_id","delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_admission_waiters_tenant_id_id_index" ON "webhook_admission_waiters" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE POLICY "webhook_admission_waiters_tenant_isolation" ON "webhook_admission_waiters" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
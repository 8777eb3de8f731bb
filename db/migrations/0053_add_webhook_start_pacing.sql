CREATE TABLE "webhook_start_pacing" (
	"tenant_id" text NOT NULL,
	"theoretical_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_start_pacing_tenant_id_pk" PRIMARY KEY("tenant_id")
);
--> statement-breakpoint
ALTER TABLE "webhook_start_pacing" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY "webhook_start_pacing_tenant_isolation" ON "webhook_start_pacing" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
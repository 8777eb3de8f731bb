CREATE TABLE "payment_status_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_status_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"payment_id" bigint NOT NULL,
	"status" "payment_status" NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_status_history" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "rail" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "instrument_id" bigint;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "provider_ref" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "return_code" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "request_key" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "settled_on" date;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "returned_on" date;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "payment_status_history_tenant_id_payment_id_id_index" ON "payment_status_history" USING btree ("tenant_id","payment_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_tenant_request_key_idx" ON "payments" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "payments_in_flight_idx" ON "payments" USING btree ("tenant_id","loan_id") WHERE status in ('CREATED', 'SUBMITTED');--> statement-breakpoint
ALTER TABLE "payment_instruments" ADD CONSTRAINT "payment_instruments_tenant_id_id_key" UNIQUE("tenant_id","id");--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_tenant_id_id_key" UNIQUE("tenant_id","id");--> statement-breakpoint
CREATE POLICY "payment_status_history_tenant_isolation" ON "payment_status_history" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE TYPE "public"."merchant_remittance_frequency" AS ENUM('DAILY', 'WEEKLY');--> statement-breakpoint
CREATE TYPE "public"."merchant_remittance_status" AS ENUM('POSTED', 'RETURNED');--> statement-breakpoint
CREATE TABLE "merchant_advances" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merchant_advances_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"advance_ref" text DEFAULT mint_opaque_ref('mca_') NOT NULL,
	"customer_id" bigint NOT NULL,
	"advance_amount" numeric(19, 6) NOT NULL,
	"purchased_amount" numeric(19, 6) NOT NULL,
	"holdback_rate" numeric(5, 4) NOT NULL,
	"currency_code" text NOT NULL,
	"remittance_frequency" "merchant_remittance_frequency" NOT NULL,
	"funded_on_date" date NOT NULL,
	"request_key" text,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchant_advances_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "merchant_advances" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "merchant_remittances" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merchant_remittances_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"remittance_ref" text DEFAULT mint_opaque_ref('mrem_') NOT NULL,
	"advance_id" bigint NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"effective_date" date NOT NULL,
	"external_record_ref" text NOT NULL,
	"content_digest" text NOT NULL,
	"status" "merchant_remittance_status" NOT NULL,
	"return_code" text,
	"return_reason" text,
	"returned_at" timestamp (3) with time zone,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchant_remittances_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "merchant_remittances" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "merchant_sales_reports" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merchant_sales_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"advance_id" bigint NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"source_ref" text NOT NULL,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchant_sales_reports_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "merchant_sales_reports" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "merchant_advances" ADD CONSTRAINT "merchant_advances_customer_fk" FOREIGN KEY ("tenant_id","customer_id") REFERENCES "public"."customers"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_remittances" ADD CONSTRAINT "merchant_remittances_advance_fk" FOREIGN KEY ("tenant_id","advance_id") REFERENCES "public"."merchant_advances"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_sales_reports" ADD CONSTRAINT "merchant_sales_reports_advance_fk" FOREIGN KEY ("tenant_id","advance_id") REFERENCES "public"."merchant_advances"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_advances_tenant_ref_idx" ON "merchant_advances" USING btree ("tenant_id","advance_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_advances_tenant_request_key_idx" ON "merchant_advances" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_remittances_tenant_ref_idx" ON "merchant_remittances" USING btree ("tenant_id","remittance_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_remittances_external_record_ref_idx" ON "merchant_remittances" USING btree ("tenant_id","external_record_ref");--> statement-breakpoint
CREATE INDEX "merchant_remittances_tenant_id_advance_id_period_start_index" ON "merchant_remittances" USING btree ("tenant_id","advance_id","period_start");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_sales_reports_period_idx" ON "merchant_sales_reports" USING btree ("tenant_id","advance_id","period_start");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_sales_reports_source_ref_idx" ON "merchant_sales_reports" USING btree ("tenant_id","advance_id","source_ref");--> statement-breakpoint
CREATE POLICY "merchant_advances_tenant_isolation" ON "merchant_advances" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "merchant_remittances_tenant_isolation" ON "merchant_remittances" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "merchant_sales_reports_tenant_isolation" ON "merchant_sales_reports" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE TYPE "public"."sandbox_rail_transfer_status" AS ENUM('SUBMITTED', 'DECLINED', 'CANCELLED', 'SETTLED', 'RETURNED', 'FAILED');--> statement-breakpoint
CREATE TABLE "sandbox_rail_transfers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sandbox_rail_transfers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"payment_id" bigint NOT NULL,
	"rail" text NOT NULL,
	"provider_ref" text NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"currency_code" text NOT NULL,
	"provider_token_ref" text NOT NULL,
	"instrument_type" text NOT NULL,
	"effective_date" date NOT NULL,
	"status" "sandbox_rail_transfer_status" NOT NULL,
	"decline_reason" text,
	"submitted_at" timestamp (3) with time zone NOT NULL,
	"submitted_on" date NOT NULL,
	"cancelled_at" timestamp (3) with time zone,
	"settled_amount" numeric(19, 6),
	"settled_on" date,
	"return_code" text,
	"returned_on" date,
	"failure_reason" text,
	"failed_on" date,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "sandbox_rail_transfers_rail_check" CHECK ("sandbox_rail_transfers"."rail" in ('ACH', 'DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE', 'CHECK'))
);
--> statement-breakpoint
ALTER TABLE "sandbox_rail_transfers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_rail_transfers_tenant_payment_idx" ON "sandbox_rail_transfers" USING btree ("tenant_id","payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_rail_transfers_tenant_provider_ref_idx" ON "sandbox_rail_transfers" USING btree ("tenant_id","provider_ref");--> statement-breakpoint
CREATE INDEX "sandbox_rail_transfers_tenant_settled_on_idx" ON "sandbox_rail_transfers" USING btree ("tenant_id","settled_on");--> statement-breakpoint
CREATE INDEX "sandbox_rail_transfers_tenant_returned_on_idx" ON "sandbox_rail_transfers" USING btree ("tenant_id","returned_on");--> statement-breakpoint
CREATE INDEX "sandbox_rail_transfers_tenant_failed_on_idx" ON "sandbox_rail_transfers" USING btree ("tenant_id","failed_on");--> statement-breakpoint
CREATE POLICY "sandbox_rail_transfers_tenant_isolation" ON "sandbox_rail_transfers" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
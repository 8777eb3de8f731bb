CREATE TYPE "public"."autopay_amount_type" AS ENUM('INSTALLMENT_DUE', 'FIXED');--> statement-breakpoint
CREATE TYPE "public"."autopay_status" AS ENUM('ACTIVE', 'CANCELLED');--> statement-breakpoint
CREATE TABLE "autopay_enrolments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "autopay_enrolments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"instrument_id" bigint NOT NULL,
	"authorization_ref" text NOT NULL,
	"rail" text NOT NULL,
	"amount_type" "autopay_amount_type" NOT NULL,
	"fixed_amount" numeric(19, 6),
	"days_before_due" integer NOT NULL,
	"status" "autopay_status" DEFAULT 'ACTIVE' NOT NULL,
	"enrolled_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"enrolled_on" date NOT NULL,
	"cancelled_at" timestamp (3) with time zone,
	"actor_username" text,
	"request_key" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "autopay_enrolments_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "autopay_enrolments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "autopay_enrolments" ADD CONSTRAINT "autopay_enrolments_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autopay_enrolments" ADD CONSTRAINT "autopay_enrolments_instrument_fk" FOREIGN KEY ("tenant_id","instrument_id") REFERENCES "public"."payment_instruments"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "autopay_enrolments_one_active_idx" ON "autopay_enrolments" USING btree ("tenant_id","loan_id") WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX "autopay_enrolments_tenant_id_loan_id_id_index" ON "autopay_enrolments" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "autopay_enrolments_tenant_request_key_idx" ON "autopay_enrolments" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "autopay_enrolments_tenant_isolation" ON "autopay_enrolments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
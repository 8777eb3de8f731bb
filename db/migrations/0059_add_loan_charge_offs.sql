CREATE TABLE "loan_charge_offs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_charge_offs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"transaction_date" date NOT NULL,
	"reason" text NOT NULL,
	"external_id" text,
	"automatic" boolean DEFAULT false NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"principal_portion" numeric(19, 6) NOT NULL,
	"interest_portion" numeric(19, 6) NOT NULL,
	"fee_charges_portion" numeric(19, 6) NOT NULL,
	"penalty_charges_portion" numeric(19, 6) NOT NULL,
	"currency_code" text NOT NULL,
	"last_payment_id" bigint,
	"reversed" boolean DEFAULT false NOT NULL,
	"reversed_on_date" date,
	"actor_username" text,
	"request_key" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_charge_offs_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "loan_charge_offs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "charged_off" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "charged_off_on_date" date;--> statement-breakpoint
ALTER TABLE "loan_charge_offs" ADD CONSTRAINT "loan_charge_offs_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "loan_charge_offs_tenant_request_key_idx" ON "loan_charge_offs" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_charge_offs_tenant_external_id_idx" ON "loan_charge_offs" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_charge_offs_one_active_idx" ON "loan_charge_offs" USING btree ("tenant_id","loan_id") WHERE not reversed;--> statement-breakpoint
CREATE POLICY "loan_charge_offs_tenant_isolation" ON "loan_charge_offs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
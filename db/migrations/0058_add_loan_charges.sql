CREATE TABLE "loan_charges" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_charges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"charge_id" bigint NOT NULL,
	"installment_number" integer NOT NULL,
	"due_date" date NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"penalty" boolean NOT NULL,
	"amount_paid" numeric(19, 6) DEFAULT '0' NOT NULL,
	"amount_waived" numeric(19, 6) DEFAULT '0' NOT NULL,
	"waiver_amount" numeric(19, 6),
	"waived_on_date" date,
	"external_id" text,
	"actor_username" text,
	"request_key" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_charges_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "loan_charges" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loan_installments" ADD COLUMN "additional" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "nsf_charge_id" bigint;--> statement-breakpoint
ALTER TABLE "loan_charges" ADD CONSTRAINT "loan_charges_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_charges" ADD CONSTRAINT "loan_charges_charge_fk" FOREIGN KEY ("tenant_id","charge_id") REFERENCES "public"."charges"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "loan_charges_tenant_external_id_idx" ON "loan_charges" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_charges_tenant_request_key_idx" ON "loan_charges" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "loan_charges_tenant_id_loan_id_id_index" ON "loan_charges" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
ALTER TABLE "loan_products" ADD CONSTRAINT "loan_products_nsf_charge_fk" FOREIGN KEY ("tenant_id","nsf_charge_id") REFERENCES "public"."charges"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "loan_charges_tenant_isolation" ON "loan_charges" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE TABLE "hardship_offer_approvals" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hardship_offer_approvals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"offer_id" bigint NOT NULL,
	"actor" text NOT NULL,
	"decision" text NOT NULL,
	"guardrails_version" integer NOT NULL,
	"request_hash" text NOT NULL,
	"decided_at" timestamp (3) with time zone NOT NULL,
	"request_key" text,
	CONSTRAINT "hardship_offer_approvals_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "hardship_offer_approvals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "hardship_offers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hardship_offers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"loan_id" bigint NOT NULL,
	"program_code" text NOT NULL,
	"program_version" integer NOT NULL,
	"guardrails_version" integer NOT NULL,
	"hardship_reason_code" text NOT NULL,
	"requested_relief" jsonb NOT NULL,
	"relief_size" integer,
	"status" text NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"maker_actor" text NOT NULL,
	"offer_expires_at" timestamp (3) with time zone,
	"documents_due_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "hardship_offers_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "hardship_offers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "hardship_offer_approvals" ADD CONSTRAINT "hardship_offer_approvals_offer_fk" FOREIGN KEY ("tenant_id","offer_id") REFERENCES "public"."hardship_offers"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD CONSTRAINT "hardship_offers_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD CONSTRAINT "hardship_offers_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hardship_offers" ADD CONSTRAINT "hardship_offers_program_fk" FOREIGN KEY ("tenant_id","program_code") REFERENCES "public"."hardship_programs"("tenant_id","program_code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_offer_approvals_tenant_offer_idx" ON "hardship_offer_approvals" USING btree ("tenant_id","offer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_offer_approvals_tenant_request_key_idx" ON "hardship_offer_approvals" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "hardship_offers_tenant_id_loan_id_id_index" ON "hardship_offers" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE INDEX "hardship_offers_tenant_id_case_id_id_index" ON "hardship_offers" USING btree ("tenant_id","case_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_offers_tenant_request_key_idx" ON "hardship_offers" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "hardship_offer_approvals_tenant_isolation" ON "hardship_offer_approvals" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "hardship_offers_tenant_isolation" ON "hardship_offers" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
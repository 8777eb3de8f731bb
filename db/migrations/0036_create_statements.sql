CREATE TABLE "statements" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "statements_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"due_date" date NOT NULL,
	"statement_date" date NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"figures" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statements_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "statements" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "statements" ADD CONSTRAINT "statements_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "statements_tenant_loan_due_date_idx" ON "statements" USING btree ("tenant_id","loan_id","due_date");--> statement-breakpoint
CREATE INDEX "statements_tenant_loan_statement_date_idx" ON "statements" USING btree ("tenant_id","loan_id","statement_date","id");--> statement-breakpoint
CREATE POLICY "statements_tenant_isolation" ON "statements" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
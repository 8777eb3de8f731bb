CREATE TYPE "public"."reconciliation_exception_status" AS ENUM('open', 'resolved');--> statement-breakpoint
CREATE TYPE "public"."reconciliation_exception_type" AS ENUM('SETTLED_NOT_POSTED', 'UNMATCHED_SETTLEMENT', 'POSTED_NOT_SETTLED', 'RETURN_NOT_REVERSED');--> statement-breakpoint
CREATE TYPE "public"."reconciliation_resolution" AS ENUM('POST_AS_SETTLED', 'POST_INTENT_AMOUNT', 'REFUND_BORROWER', 'DISMISS');--> statement-breakpoint
CREATE TABLE "reconciliation_exceptions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reconciliation_exceptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"exception_type" "reconciliation_exception_type" NOT NULL,
	"target_type" text NOT NULL,
	"target_ref" text NOT NULL,
	"status" "reconciliation_exception_status" DEFAULT 'open' NOT NULL,
	"detail" jsonb NOT NULL,
	"resolution" "reconciliation_resolution",
	"resolution_reason" text,
	"resolved_by" text,
	"resolved_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reconciliation_exceptions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_exceptions_one_open_idx" ON "reconciliation_exceptions" USING btree ("tenant_id","exception_type","target_type","target_ref") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "reconciliation_exceptions_tenant_id_idx" ON "reconciliation_exceptions" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "reconciliation_exceptions_tenant_status_idx" ON "reconciliation_exceptions" USING btree ("tenant_id","status","id");--> statement-breakpoint
CREATE INDEX "reconciliation_exceptions_tenant_type_idx" ON "reconciliation_exceptions" USING btree ("tenant_id","exception_type","id");--> statement-breakpoint
CREATE POLICY "reconciliation_exceptions_tenant_isolation" ON "reconciliation_exceptions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
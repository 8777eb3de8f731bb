CREATE TABLE "workflow_start_intents" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "workflow_start_intents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"workflow_type" text NOT NULL,
	"task_queue" text NOT NULL,
	"input" jsonb NOT NULL,
	"search_attributes" jsonb NOT NULL,
	"static_summary" text NOT NULL,
	"id_reuse_policy" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"claimed_until" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	CONSTRAINT "workflow_start_intents_workflowId_unique" UNIQUE("workflow_id")
);
--> statement-breakpoint
ALTER TABLE "workflow_start_intents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP INDEX "privacy_requests_unstarted_idx";--> statement-breakpoint
CREATE INDEX "workflow_start_intents_unstarted_idx" ON "workflow_start_intents" USING btree ("created_at") WHERE "workflow_start_intents"."started_at" is null;--> statement-breakpoint
CREATE POLICY "workflow_start_intents_tenant_isolation" ON "workflow_start_intents" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
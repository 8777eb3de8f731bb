CREATE TYPE "public"."voice_dispatch_status" AS ENUM('DISPATCHED', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'NO_ANSWER');--> statement-breakpoint
CREATE TABLE "voice_dispatch_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_dispatch_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"dispatch_id" bigint NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"node_id" text,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "voice_dispatch_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "voice_dispatches" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_dispatches_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"task_id" bigint,
	"workflow_version_id" bigint NOT NULL,
	"workflow_id" text NOT NULL,
	"workflow_version" integer NOT NULL,
	"contact_point_id" bigint NOT NULL,
	"contact_point_ref" text NOT NULL,
	"customer_ref" text NOT NULL,
	"status" "voice_dispatch_status" DEFAULT 'DISPATCHED' NOT NULL,
	"last_node_id" text,
	"outcome" text,
	"interaction_id" bigint,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"request_key" text,
	CONSTRAINT "voice_dispatches_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "voice_dispatches" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "voice_task_tokens" (
	"dispatch_id" bigint PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"token_digest" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "voice_workflow_versions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "voice_workflow_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"version" integer NOT NULL,
	"label" text NOT NULL,
	"definition" jsonb NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"activated_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "voice_workflow_versions_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "voice_workflow_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "voice_workflows" (
	"tenant_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"version_count" integer NOT NULL,
	"active_version" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "voice_workflows_tenant_id_workflow_id_pk" PRIMARY KEY("tenant_id","workflow_id")
);
--> statement-breakpoint
ALTER TABLE "voice_workflows" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "voice_dispatch_events" ADD CONSTRAINT "voice_dispatch_events_dispatch_fk" FOREIGN KEY ("tenant_id","dispatch_id") REFERENCES "public"."voice_dispatches"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_dispatches" ADD CONSTRAINT "voice_dispatches_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_dispatches" ADD CONSTRAINT "voice_dispatches_task_fk" FOREIGN KEY ("tenant_id","task_id") REFERENCES "public"."tasks"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_dispatches" ADD CONSTRAINT "voice_dispatches_version_fk" FOREIGN KEY ("tenant_id","workflow_version_id") REFERENCES "public"."voice_workflow_versions"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voice_workflow_versions" ADD CONSTRAINT "voice_workflow_versions_workflow_fk" FOREIGN KEY ("tenant_id","workflow_id") REFERENCES "public"."voice_workflows"("tenant_id","workflow_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "voice_dispatch_events_dispatch_event_idx" ON "voice_dispatch_events" USING btree ("tenant_id","dispatch_id","event_id");--> statement-breakpoint
CREATE INDEX "voice_dispatches_tenant_id_case_id_index" ON "voice_dispatches" USING btree ("tenant_id","case_id");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_dispatches_tenant_request_key_idx" ON "voice_dispatches" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_workflow_versions_tenant_workflow_version_idx" ON "voice_workflow_versions" USING btree ("tenant_id","workflow_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_workflow_versions_one_active_idx" ON "voice_workflow_versions" USING btree ("tenant_id","workflow_id") WHERE "voice_workflow_versions"."is_active";--> statement-breakpoint
CREATE UNIQUE INDEX "voice_workflow_versions_tenant_request_key_idx" ON "voice_workflow_versions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "voice_dispatch_events_tenant_isolation" ON "voice_dispatch_events" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "voice_dispatches_tenant_isolation" ON "voice_dispatches" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "voice_workflow_versions_tenant_isolation" ON "voice_workflow_versions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "voice_workflows_tenant_isolation" ON "voice_workflows" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
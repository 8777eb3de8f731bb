CREATE TABLE "ai_output_citations" (
	"tenant_id" text NOT NULL,
	"output_id" text NOT NULL,
	"position" integer NOT NULL,
	"fact" text NOT NULL,
	"evidence_id" bigint NOT NULL,
	CONSTRAINT "ai_output_citations_tenant_id_output_id_position_pk" PRIMARY KEY("tenant_id","output_id","position")
);
--> statement-breakpoint
ALTER TABLE "ai_output_citations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "ai_session_outputs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"output_type" text NOT NULL,
	"content" text NOT NULL,
	"confidence" text NOT NULL,
	"status" text NOT NULL,
	"review_required" boolean NOT NULL,
	"review_task_id" bigint,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "ai_session_outputs_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "ai_session_outputs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "ai_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"customer_ref" text NOT NULL,
	"purpose" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "ai_sessions_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "ai_sessions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "ai_output_citations" ADD CONSTRAINT "ai_output_citations_output_fk" FOREIGN KEY ("tenant_id","output_id") REFERENCES "public"."ai_session_outputs"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_output_citations" ADD CONSTRAINT "ai_output_citations_evidence_fk" FOREIGN KEY ("tenant_id","evidence_id") REFERENCES "public"."evidence"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_session_outputs" ADD CONSTRAINT "ai_session_outputs_session_fk" FOREIGN KEY ("tenant_id","session_id") REFERENCES "public"."ai_sessions"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_session_outputs" ADD CONSTRAINT "ai_session_outputs_review_task_fk" FOREIGN KEY ("tenant_id","review_task_id") REFERENCES "public"."tasks"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_sessions" ADD CONSTRAINT "ai_sessions_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_output_citations_tenant_id_evidence_id_index" ON "ai_output_citations" USING btree ("tenant_id","evidence_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_session_outputs_session_sequence_idx" ON "ai_session_outputs" USING btree ("tenant_id","session_id","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_session_outputs_tenant_request_key_idx" ON "ai_session_outputs" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "ai_sessions_tenant_id_case_id_index" ON "ai_sessions" USING btree ("tenant_id","case_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_sessions_tenant_request_key_idx" ON "ai_sessions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "ai_output_citations_tenant_isolation" ON "ai_output_citations" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "ai_session_outputs_tenant_isolation" ON "ai_session_outputs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "ai_sessions_tenant_isolation" ON "ai_sessions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
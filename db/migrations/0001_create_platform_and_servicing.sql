CREATE TYPE "public"."idempotency_state" AS ENUM('IN_FLIGHT', 'COMPLETED');--> statement-breakpoint
CREATE TYPE "public"."service_environment" AS ENUM('sandbox', 'production');--> statement-breakpoint
CREATE TYPE "public"."case_status" AS ENUM('OPEN', 'CLOSED');--> statement-breakpoint
CREATE TYPE "public"."interaction_channel" AS ENUM('PHONE', 'SMS', 'EMAIL', 'CHAT', 'LETTER', 'VOICE');--> statement-breakpoint
CREATE TYPE "public"."interaction_direction" AS ENUM('INBOUND', 'OUTBOUND');--> statement-breakpoint
CREATE TYPE "public"."privacy_request_status" AS ENUM('RECEIVED', 'ACKNOWLEDGED', 'IN_PROGRESS', 'EXTENDED', 'OVERDUE', 'FULFILLED', 'PARTIALLY_FULFILLED', 'DENIED', 'DENIED_EXEMPT', 'WITHDRAWN');--> statement-breakpoint
CREATE TYPE "public"."task_status" AS ENUM('OPEN', 'COMPLETED', 'CANCELLED');--> statement-breakpoint
CREATE TABLE "access_tokens" (
	"token_digest" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" "service_environment" NOT NULL,
	"scopes" text[] NOT NULL,
	"issued_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" "service_environment" NOT NULL,
	"scopes" text[] NOT NULL,
	"permissions" text[] NOT NULL,
	"rate_limit_per_second" integer,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "client_secrets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "client_secrets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"client_id" text NOT NULL,
	"secret_digest" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"tenant_id" text NOT NULL,
	"environment" "service_environment" NOT NULL,
	"client_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"route_template" text NOT NULL,
	"state" "idempotency_state" NOT NULL,
	"locked_until" timestamp (3) with time zone NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"response_headers" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	CONSTRAINT "idempotency_keys_tenant_id_environment_client_id_key_pk" PRIMARY KEY("tenant_id","environment","client_id","key")
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outbox_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"api_version" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"data" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"published_at" timestamp (3) with time zone,
	CONSTRAINT "outbox_events_eventId_unique" UNIQUE("event_id")
);
--> statement-breakpoint
ALTER TABLE "outbox_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"compliance_time_zone" text DEFAULT 'America/Los_Angeles' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "case_effects" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "case_effects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"effect_type" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"detail" jsonb NOT NULL,
	"actor_username" text,
	"correlation_id" text,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"dedupe_key" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "case_effects" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "case_types" (
	"tenant_id" text NOT NULL,
	"code" text NOT NULL,
	"display_name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_types_tenant_id_code_pk" PRIMARY KEY("tenant_id","code")
);
--> statement-breakpoint
ALTER TABLE "case_types" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "cases" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_ref" text NOT NULL,
	"case_type_code" text NOT NULL,
	"summary" text NOT NULL,
	"status" "case_status" DEFAULT 'OPEN' NOT NULL,
	"outcome_code" text,
	"closure_reason" text,
	"opened_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "cases" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "evidence" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "evidence_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"evidence_type" text NOT NULL,
	"description" text NOT NULL,
	"document_id" bigint,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "evidence" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "interactions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "interactions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_ref" text NOT NULL,
	"case_id" bigint,
	"channel" "interaction_channel" NOT NULL,
	"direction" "interaction_direction" NOT NULL,
	"summary" text NOT NULL,
	"actor_username" text,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "interactions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "privacy_request_evidence" (
	"tenant_id" text NOT NULL,
	"request_id" bigint NOT NULL,
	"evidence_id" bigint NOT NULL,
	"attached_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_request_evidence_tenant_id_request_id_evidence_id_pk" PRIMARY KEY("tenant_id","request_id","evidence_id")
);
--> statement-breakpoint
ALTER TABLE "privacy_request_evidence" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "privacy_requests" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "privacy_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_ref" text NOT NULL,
	"request_type" text NOT NULL,
	"regime" text NOT NULL,
	"summary" text NOT NULL,
	"case_id" bigint NOT NULL,
	"source_interaction_id" bigint NOT NULL,
	"status" "privacy_request_status" DEFAULT 'RECEIVED' NOT NULL,
	"received_at" timestamp (3) with time zone NOT NULL,
	"due_date" text NOT NULL,
	"statutory_due_at" timestamp (3) with time zone NOT NULL,
	"statutory_due_at_text" text NOT NULL,
	"reminder_at" timestamp (3) with time zone NOT NULL,
	"time_zone" text NOT NULL,
	"review_task_id" bigint,
	"outcome" text,
	"outcome_reason" text,
	"fulfilled_at" timestamp (3) with time zone,
	"workflow_id" text NOT NULL,
	"workflow_started_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "privacy_requests" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tasks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint,
	"task_type" text NOT NULL,
	"title" text NOT NULL,
	"status" "task_status" DEFAULT 'OPEN' NOT NULL,
	"subject_type" text,
	"subject_id" text,
	"due_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"completed_by" text,
	"completion_note" text,
	"dedupe_key" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_client_id_api_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."api_clients"("client_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_clients" ADD CONSTRAINT "api_clients_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_secrets" ADD CONSTRAINT "client_secrets_client_id_api_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."api_clients"("client_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "access_tokens_expires_at_index" ON "access_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "api_clients_tenant_id_index" ON "api_clients" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "client_secrets_client_id_index" ON "client_secrets" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_index" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "outbox_events_id_index" ON "outbox_events" USING btree ("id") WHERE "outbox_events"."published_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_events_tenant_dedupe_idx" ON "outbox_events" USING btree ("tenant_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "case_effects_tenant_id_case_id_id_index" ON "case_effects" USING btree ("tenant_id","case_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "case_effects_tenant_dedupe_idx" ON "case_effects" USING btree ("tenant_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "cases_tenant_id_customer_ref_index" ON "cases" USING btree ("tenant_id","customer_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "cases_tenant_request_key_idx" ON "cases" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "evidence_tenant_id_case_id_index" ON "evidence" USING btree ("tenant_id","case_id");--> statement-breakpoint
CREATE UNIQUE INDEX "evidence_tenant_request_key_idx" ON "evidence" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "interactions_tenant_id_customer_ref_index" ON "interactions" USING btree ("tenant_id","customer_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "interactions_tenant_request_key_idx" ON "interactions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "privacy_requests_tenant_id_case_id_index" ON "privacy_requests" USING btree ("tenant_id","case_id");--> statement-breakpoint
CREATE INDEX "privacy_requests_unstarted_idx" ON "privacy_requests" USING btree ("received_at") WHERE workflow_started_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "privacy_requests_tenant_request_key_idx" ON "privacy_requests" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "tasks_tenant_id_case_id_status_id_index" ON "tasks" USING btree ("tenant_id","case_id","status","id");--> statement-breakpoint
CREATE INDEX "tasks_tenant_id_status_id_index" ON "tasks" USING btree ("tenant_id","status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_tenant_dedupe_idx" ON "tasks" USING btree ("tenant_id","dedupe_key");--> statement-breakpoint
CREATE POLICY "idempotency_keys_tenant_isolation" ON "idempotency_keys" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "outbox_events_tenant_isolation" ON "outbox_events" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "case_effects_tenant_isolation" ON "case_effects" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "case_types_tenant_isolation" ON "case_types" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "cases_tenant_isolation" ON "cases" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "evidence_tenant_isolation" ON "evidence" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "interactions_tenant_isolation" ON "interactions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "privacy_request_evidence_tenant_isolation" ON "privacy_request_evidence" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "privacy_requests_tenant_isolation" ON "privacy_requests" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "tasks_tenant_isolation" ON "tasks" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
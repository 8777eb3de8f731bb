CREATE TABLE "hardship_guardrail_versions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hardship_guardrail_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"version" integer NOT NULL,
	"guardrails" jsonb NOT NULL,
	"activated_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "hardship_guardrail_versions_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "hardship_guardrail_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "hardship_program_versions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "hardship_program_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"program_code" text NOT NULL,
	"version" integer NOT NULL,
	"effective_from" date NOT NULL,
	"effective_to" date,
	"terms" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "hardship_program_versions_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "hardship_program_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "hardship_programs" (
	"tenant_id" text NOT NULL,
	"program_code" text NOT NULL,
	"display_name" text NOT NULL,
	"hardship_reason_code" text NOT NULL,
	"description" text NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"version_count" integer NOT NULL,
	"retired_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "hardship_programs_tenant_id_program_code_pk" PRIMARY KEY("tenant_id","program_code")
);
--> statement-breakpoint
ALTER TABLE "hardship_programs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "hardship_program_versions" ADD CONSTRAINT "hardship_program_versions_program_fk" FOREIGN KEY ("tenant_id","program_code") REFERENCES "public"."hardship_programs"("tenant_id","program_code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_guardrail_versions_tenant_version_idx" ON "hardship_guardrail_versions" USING btree ("tenant_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_guardrail_versions_tenant_request_key_idx" ON "hardship_guardrail_versions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_program_versions_tenant_program_version_idx" ON "hardship_program_versions" USING btree ("tenant_id","program_code","version");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_program_versions_tenant_request_key_idx" ON "hardship_program_versions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "hardship_programs_tenant_request_key_idx" ON "hardship_programs" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "hardship_guardrail_versions_tenant_isolation" ON "hardship_guardrail_versions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "hardship_program_versions_tenant_isolation" ON "hardship_program_versions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "hardship_programs_tenant_isolation" ON "hardship_programs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE TABLE "boarding_batches" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "boarding_batches_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"file_name" text,
	"records" integer NOT NULL,
	"malformed" integer DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"counts" jsonb,
	"content_sha256" text NOT NULL,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"request_key" text,
	CONSTRAINT "boarding_batches_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "boarding_batches" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "boarding_lines" (
	"tenant_id" text NOT NULL,
	"batch_id" bigint NOT NULL,
	"line_no" integer NOT NULL,
	"raw" text NOT NULL,
	"kind" text,
	"source_ref" text,
	"parent_source_ref" text,
	"state" text DEFAULT 'PENDING' NOT NULL,
	"error" jsonb,
	"resource_id" bigint,
	CONSTRAINT "boarding_lines_tenant_id_batch_id_line_no_pk" PRIMARY KEY("tenant_id","batch_id","line_no")
);
--> statement-breakpoint
ALTER TABLE "boarding_lines" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "boarding_source_refs" (
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"source_ref" text NOT NULL,
	"resource_id" bigint NOT NULL,
	"batch_id" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "boarding_source_refs_tenant_id_kind_source_ref_pk" PRIMARY KEY("tenant_id","kind","source_ref")
);
--> statement-breakpoint
ALTER TABLE "boarding_source_refs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "boarding_lines" ADD CONSTRAINT "boarding_lines_batch_fk" FOREIGN KEY ("tenant_id","batch_id") REFERENCES "public"."boarding_batches"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "boarding_batches_tenant_request_key_idx" ON "boarding_batches" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "boarding_lines_tenant_batch_kind_idx" ON "boarding_lines" USING btree ("tenant_id","batch_id","kind","line_no");--> statement-breakpoint
CREATE INDEX "boarding_lines_tenant_batch_parent_idx" ON "boarding_lines" USING btree ("tenant_id","batch_id","parent_source_ref");--> statement-breakpoint
CREATE POLICY "boarding_batches_tenant_isolation" ON "boarding_batches" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "boarding_lines_tenant_isolation" ON "boarding_lines" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "boarding_source_refs_tenant_isolation" ON "boarding_source_refs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
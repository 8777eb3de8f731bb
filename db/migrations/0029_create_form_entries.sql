CREATE TABLE "case_type_field_publications" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "case_type_field_publications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_type_code" text NOT NULL,
	"version" integer NOT NULL,
	"field_definitions" jsonb NOT NULL,
	"actor_username" text,
	"correlation_id" text,
	"published_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "case_type_field_publications_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "case_type_field_publications" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "form_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "form_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"publication_id" bigint NOT NULL,
	"answers" jsonb NOT NULL,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "form_entries_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "form_entries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "form_entry_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "form_entry_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"entry_id" bigint NOT NULL,
	"action" text NOT NULL,
	"publication_id" bigint NOT NULL,
	"changes" jsonb NOT NULL,
	"reason" text,
	"actor_username" text,
	"correlation_id" text,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "form_entry_history" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "case_types" ADD COLUMN "request_key" text;--> statement-breakpoint
ALTER TABLE "case_type_field_publications" ADD CONSTRAINT "case_type_field_publications_case_type_fk" FOREIGN KEY ("tenant_id","case_type_code") REFERENCES "public"."case_types"("tenant_id","code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_entries" ADD CONSTRAINT "form_entries_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_entries" ADD CONSTRAINT "form_entries_publication_fk" FOREIGN KEY ("tenant_id","publication_id") REFERENCES "public"."case_type_field_publications"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_entry_history" ADD CONSTRAINT "form_entry_history_entry_fk" FOREIGN KEY ("tenant_id","entry_id") REFERENCES "public"."form_entries"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_entry_history" ADD CONSTRAINT "form_entry_history_publication_fk" FOREIGN KEY ("tenant_id","publication_id") REFERENCES "public"."case_type_field_publications"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "case_type_field_publications_version_idx" ON "case_type_field_publications" USING btree ("tenant_id","case_type_code","version");--> statement-breakpoint
CREATE UNIQUE INDEX "case_type_field_publications_tenant_request_key_idx" ON "case_type_field_publications" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "form_entries_tenant_id_case_id_id_index" ON "form_entries" USING btree ("tenant_id","case_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "form_entries_tenant_request_key_idx" ON "form_entries" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "form_entry_history_tenant_id_entry_id_id_index" ON "form_entry_history" USING btree ("tenant_id","entry_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "form_entry_history_tenant_request_key_idx" ON "form_entry_history" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "case_types_tenant_request_key_idx" ON "case_types" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "case_type_field_publications_tenant_isolation" ON "case_type_field_publications" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "form_entries_tenant_isolation" ON "form_entries" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "form_entry_history_tenant_isolation" ON "form_entry_history" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
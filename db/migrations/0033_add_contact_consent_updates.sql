CREATE TYPE "public"."contact_consent_operation" AS ENUM('UPDATE_SMS_PERMISSION', 'UPDATE_EMAIL_PERMISSION', 'UPDATE_VOICE_PERMISSION');--> statement-breakpoint
CREATE TYPE "public"."contact_consent_update_status" AS ENUM('SCHEDULED', 'COMPLETED', 'SUPERSEDED');--> statement-breakpoint
CREATE TABLE "contact_consent_updates" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_consent_updates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"customer_id" bigint NOT NULL,
	"customer_ref" text NOT NULL,
	"contact_point_id" bigint NOT NULL,
	"contact_point_ref" text NOT NULL,
	"operation" "contact_consent_operation" NOT NULL,
	"permission" boolean NOT NULL,
	"effective_at" timestamp (3) with time zone NOT NULL,
	"reason" text NOT NULL,
	"status" "contact_consent_update_status" NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"superseded_by" text,
	"workflow_id" text,
	"actor_username" text,
	"correlation_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "contact_consent_updates_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "contact_consent_updates" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "contact_points" ADD COLUMN "can_receive_email" boolean;--> statement-breakpoint
ALTER TABLE "contact_points" ADD COLUMN "can_receive_voice" boolean;--> statement-breakpoint
ALTER TABLE "contact_consent_updates" ADD CONSTRAINT "contact_consent_updates_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_consent_updates" ADD CONSTRAINT "contact_consent_updates_customer_fk" FOREIGN KEY ("tenant_id","customer_id") REFERENCES "public"."customers"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_consent_updates" ADD CONSTRAINT "contact_consent_updates_contact_point_fk" FOREIGN KEY ("tenant_id","contact_point_ref") REFERENCES "public"."contact_points"("tenant_id","contact_point_ref") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_consent_updates_point_operation_idx" ON "contact_consent_updates" USING btree ("tenant_id","contact_point_id","operation","id");--> statement-breakpoint
CREATE INDEX "contact_consent_updates_tenant_id_case_id_id_index" ON "contact_consent_updates" USING btree ("tenant_id","case_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_consent_updates_tenant_request_key_idx" ON "contact_consent_updates" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "contact_consent_updates_tenant_isolation" ON "contact_consent_updates" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
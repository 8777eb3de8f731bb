CREATE TYPE "public"."channel_event_status" AS ENUM('RECEIVED', 'PROCESSED', 'IGNORED');--> statement-breakpoint
CREATE TABLE "channel_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "channel_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"gateway_code" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"status" "channel_event_status" DEFAULT 'RECEIVED' NOT NULL,
	"processed_at" timestamp (3) with time zone,
	"outcome" jsonb
);
--> statement-breakpoint
ALTER TABLE "channel_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "channel_gateway_secrets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "channel_gateway_secrets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"gateway_code" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "channel_gateways" (
	"code" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "channel_gateway_secrets" ADD CONSTRAINT "channel_gateway_secrets_gateway_code_channel_gateways_code_fk" FOREIGN KEY ("gateway_code") REFERENCES "public"."channel_gateways"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_gateways" ADD CONSTRAINT "channel_gateways_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_events_gateway_event_idx" ON "channel_events" USING btree ("gateway_code","event_id");--> statement-breakpoint
CREATE INDEX "channel_events_tenant_id_id_index" ON "channel_events" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "channel_gateway_secrets_gateway_code_index" ON "channel_gateway_secrets" USING btree ("gateway_code");--> statement-breakpoint
CREATE INDEX "channel_gateways_tenant_id_index" ON "channel_gateways" USING btree ("tenant_id");--> statement-breakpoint
CREATE POLICY "channel_events_tenant_isolation" ON "channel_events" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE TYPE "public"."promise_status" AS ENUM('PENDING', 'KEPT', 'PARTIALLY_KEPT', 'BROKEN');--> statement-breakpoint
CREATE TABLE "promises" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "promises_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"case_id" bigint NOT NULL,
	"loan_id" bigint NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"currency_code" text NOT NULL,
	"promised_date" date NOT NULL,
	"channel" "interaction_channel" NOT NULL,
	"status" "promise_status" DEFAULT 'PENDING' NOT NULL,
	"paid_amount" numeric(19, 6) DEFAULT '0' NOT NULL,
	"window_start_date" date NOT NULL,
	"window_end_date" date NOT NULL,
	"deadline_at" timestamp (3) with time zone NOT NULL,
	"deadline_at_text" text NOT NULL,
	"time_zone" text NOT NULL,
	"workflow_id" text NOT NULL,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"follow_up_task_id" bigint,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "promises_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "promises" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "promises" ADD CONSTRAINT "promises_case_fk" FOREIGN KEY ("tenant_id","case_id") REFERENCES "public"."cases"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promises" ADD CONSTRAINT "promises_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promises" ADD CONSTRAINT "promises_follow_up_task_fk" FOREIGN KEY ("tenant_id","follow_up_task_id") REFERENCES "public"."tasks"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "promises_tenant_id_case_id_id_index" ON "promises" USING btree ("tenant_id","case_id","id");--> statement-breakpoint
CREATE INDEX "promises_pending_loan_idx" ON "promises" USING btree ("tenant_id","loan_id") WHERE status = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "promises_tenant_request_key_idx" ON "promises" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE POLICY "promises_tenant_isolation" ON "promises" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
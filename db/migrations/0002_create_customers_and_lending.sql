CREATE TYPE "public"."contact_point_type" AS ENUM('EMAIL', 'PHONE');--> statement-breakpoint
CREATE TYPE "public"."instrument_state" AS ENUM('ACTIVE', 'INACTIVE');--> statement-breakpoint
CREATE TYPE "public"."restriction_status" AS ENUM('ACTIVE', 'RELEASED', 'EXPIRED');--> statement-breakpoint
CREATE TYPE "public"."restriction_type" AS ENUM('PAYMENT_HOLD', 'COLLECTIONS_HOLD', 'COMMUNICATION_HOLD', 'SCRA_MLA_PROTECTED', 'DISBURSEMENT_HOLD');--> statement-breakpoint
CREATE TYPE "public"."verification_status" AS ENUM('UNVERIFIED', 'VERIFIED');--> statement-breakpoint
CREATE TYPE "public"."gl_account_type" AS ENUM('ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE');--> statement-breakpoint
CREATE TYPE "public"."loan_status" AS ENUM('SUBMITTED', 'APPROVED', 'ACTIVE', 'CLOSED_OBLIGATIONS_MET', 'OVERPAID');--> statement-breakpoint
CREATE TYPE "public"."payment_status" AS ENUM('CREATED', 'SUBMITTED', 'POSTED', 'FAILED', 'RETURNED', 'CANCELLED');--> statement-breakpoint
CREATE TABLE "consents" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "consents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"consent_type" text NOT NULL,
	"granted" boolean NOT NULL,
	"capture_method" text NOT NULL,
	"evidence_ref" text NOT NULL,
	"captured_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "consents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "contact_points" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_points_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"contact_type" "contact_point_type" NOT NULL,
	"value" text NOT NULL,
	"normalized_value" text NOT NULL,
	"verification_status" "verification_status" DEFAULT 'UNVERIFIED' NOT NULL,
	"can_receive_sms" boolean,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_points" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "customer_addresses" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customer_addresses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"address_type" text NOT NULL,
	"line1" text NOT NULL,
	"line2" text,
	"city" text NOT NULL,
	"region" text,
	"postal_code" text,
	"country_code" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customer_addresses" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "customer_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customer_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"action" text NOT NULL,
	"detail" jsonb NOT NULL,
	"actor_username" text,
	"correlation_id" text,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customer_history" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "customer_identifiers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customer_identifiers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"identifier_type" text NOT NULL,
	"issuing_country" text,
	"value_ciphertext" text NOT NULL,
	"value_digest" text NOT NULL,
	"mask" text NOT NULL,
	"verification_status" "verification_status" DEFAULT 'UNVERIFIED' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customer_identifiers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "customers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"external_id" text,
	"first_name" text NOT NULL,
	"middle_name" text,
	"last_name" text NOT NULL,
	"search_name" text NOT NULL,
	"date_of_birth" date,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "customers" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "payment_instruments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_instruments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"instrument_type" text NOT NULL,
	"provider_token_ref" text NOT NULL,
	"last_four" text,
	"verification_status" "verification_status" DEFAULT 'UNVERIFIED' NOT NULL,
	"state" "instrument_state" DEFAULT 'INACTIVE' NOT NULL,
	"verified_at" timestamp (3) with time zone,
	"verification_source" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_instruments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "restrictions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "restrictions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"customer_id" bigint NOT NULL,
	"loan_id" bigint,
	"restriction_type" "restriction_type" NOT NULL,
	"status" "restriction_status" DEFAULT 'ACTIVE' NOT NULL,
	"reason" text NOT NULL,
	"effective_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"released_at" timestamp (3) with time zone,
	"release_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "restrictions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "charges" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "charges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"currency_code" text NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"charge_applies_to" integer NOT NULL,
	"charge_time_type" integer NOT NULL,
	"charge_calculation_type" integer NOT NULL,
	"penalty" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "charges" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "document_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "document_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"document_id" bigint NOT NULL,
	"action" text NOT NULL,
	"detail" jsonb NOT NULL,
	"actor_username" text,
	"correlation_id" text,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "document_history" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "documents" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "documents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"title" text NOT NULL,
	"document_type" text NOT NULL,
	"loan_id" bigint,
	"customer_id" bigint,
	"storage_ref" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "documents" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "fundings" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "fundings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"currency_code" text NOT NULL,
	"funding_type" text NOT NULL,
	"recipient_type" text NOT NULL,
	"recipient_ref" text NOT NULL,
	"external_record_ref" text NOT NULL,
	"reason" text NOT NULL,
	"funding_date" date NOT NULL,
	"status" text NOT NULL,
	"content_digest" text NOT NULL,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fundings" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "gl_accounts" (
	"tenant_id" text NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"account_type" "gl_account_type" NOT NULL,
	CONSTRAINT "gl_accounts_tenant_id_code_pk" PRIMARY KEY("tenant_id","code")
);
--> statement-breakpoint
ALTER TABLE "gl_accounts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "journal_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint,
	"transaction_ref" text NOT NULL,
	"account_code" text NOT NULL,
	"entry_date" date NOT NULL,
	"debit" numeric(19, 6) DEFAULT '0' NOT NULL,
	"credit" numeric(19, 6) DEFAULT '0' NOT NULL,
	"currency_code" text NOT NULL,
	"reverses_entry_id" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "journal_entries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "loan_installments" (
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"installment_number" integer NOT NULL,
	"from_date" date NOT NULL,
	"due_date" date NOT NULL,
	"principal_due" numeric(19, 6) NOT NULL,
	"interest_due" numeric(19, 6) NOT NULL,
	"fee_charges_due" numeric(19, 6) NOT NULL,
	"penalty_charges_due" numeric(19, 6) NOT NULL,
	"principal_paid" numeric(19, 6) DEFAULT '0' NOT NULL,
	"interest_paid" numeric(19, 6) DEFAULT '0' NOT NULL,
	"fee_charges_paid" numeric(19, 6) DEFAULT '0' NOT NULL,
	"penalty_charges_paid" numeric(19, 6) DEFAULT '0' NOT NULL,
	"obligations_met_on_date" date,
	CONSTRAINT "loan_installments_tenant_id_loan_id_installment_number_pk" PRIMARY KEY("tenant_id","loan_id","installment_number")
);
--> statement-breakpoint
ALTER TABLE "loan_installments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "loan_parties" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_parties_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"customer_id" bigint NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "loan_parties" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "loan_product_charges" (
	"tenant_id" text NOT NULL,
	"product_id" bigint NOT NULL,
	"charge_id" bigint NOT NULL,
	CONSTRAINT "loan_product_charges_tenant_id_product_id_charge_id_pk" PRIMARY KEY("tenant_id","product_id","charge_id")
);
--> statement-breakpoint
ALTER TABLE "loan_product_charges" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "loan_products" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_products_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"short_name" text NOT NULL,
	"currency_code" text NOT NULL,
	"digits_after_decimal" integer NOT NULL,
	"in_multiples_of" integer DEFAULT 0 NOT NULL,
	"installment_amount_in_multiples_of" integer,
	"principal" numeric(19, 6) NOT NULL,
	"min_principal" numeric(19, 6),
	"max_principal" numeric(19, 6),
	"number_of_repayments" integer NOT NULL,
	"min_number_of_repayments" integer,
	"max_number_of_repayments" integer,
	"interest_rate_per_period" numeric(19, 8) NOT NULL,
	"min_interest_rate_per_period" numeric(19, 8),
	"max_interest_rate_per_period" numeric(19, 8),
	"repayment_every" integer NOT NULL,
	"repayment_frequency_type" integer NOT NULL,
	"interest_rate_frequency_type" integer NOT NULL,
	"interest_type" integer NOT NULL,
	"amortization_type" integer NOT NULL,
	"interest_calculation_period_type" integer NOT NULL,
	"allow_partial_period_interest_calcualtion" boolean DEFAULT false NOT NULL,
	"days_in_year_type" integer NOT NULL,
	"days_in_month_type" integer NOT NULL,
	"grace_on_principal_payment" integer DEFAULT 0 NOT NULL,
	"grace_on_interest_payment" integer DEFAULT 0 NOT NULL,
	"transaction_processing_strategy_code" text NOT NULL,
	"payment_allocation" jsonb,
	"lms_config" jsonb NOT NULL,
	"configuration_status" text NOT NULL,
	"status" text DEFAULT 'loanProduct.active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "loan_products" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "loans" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loans_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"account_no" text NOT NULL,
	"client_id" bigint NOT NULL,
	"product_id" bigint NOT NULL,
	"loan_type" text NOT NULL,
	"status" "loan_status" DEFAULT 'SUBMITTED' NOT NULL,
	"currency_code" text NOT NULL,
	"principal" numeric(19, 6) NOT NULL,
	"approved_principal" numeric(19, 6),
	"terms" jsonb NOT NULL,
	"transaction_processing_strategy_code" text NOT NULL,
	"submitted_on_date" date NOT NULL,
	"expected_disbursement_date" date NOT NULL,
	"approved_on_date" date,
	"disbursed_on_date" date,
	"external_id" text,
	"apr_disclosure" jsonb,
	"approved_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text
);
--> statement-breakpoint
ALTER TABLE "loans" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "payments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"amount" numeric(19, 6) NOT NULL,
	"currency_code" text NOT NULL,
	"effective_date" date NOT NULL,
	"status" "payment_status" NOT NULL,
	"source" text NOT NULL,
	"rationale" text,
	"external_record_ref" text,
	"content_digest" text,
	"allocation" jsonb,
	"actor_username" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "reconciliation_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reconciliation_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" bigint NOT NULL,
	"external_record_ref" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reconciliation_items" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE INDEX "consents_tenant_id_customer_id_index" ON "consents" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "consents_tenant_request_key_idx" ON "consents" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "contact_points_tenant_id_customer_id_index" ON "contact_points" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE INDEX "contact_points_tenant_normalized_idx" ON "contact_points" USING btree ("tenant_id","normalized_value");--> statement-breakpoint
CREATE INDEX "customer_addresses_tenant_id_customer_id_index" ON "customer_addresses" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE INDEX "customer_history_tenant_id_customer_id_id_index" ON "customer_history" USING btree ("tenant_id","customer_id","id");--> statement-breakpoint
CREATE INDEX "customer_identifiers_tenant_id_customer_id_index" ON "customer_identifiers" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customer_identifiers_tenant_type_digest_idx" ON "customer_identifiers" USING btree ("tenant_id","identifier_type","value_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_tenant_external_id_idx" ON "customers" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_tenant_request_key_idx" ON "customers" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "customers_tenant_updated_idx" ON "customers" USING btree ("tenant_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "customers_tenant_search_name_idx" ON "customers" USING btree ("tenant_id","search_name","id");--> statement-breakpoint
CREATE INDEX "payment_instruments_tenant_id_customer_id_index" ON "payment_instruments" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_instruments_tenant_token_idx" ON "payment_instruments" USING btree ("tenant_id","provider_token_ref");--> statement-breakpoint
CREATE INDEX "restrictions_tenant_customer_active_idx" ON "restrictions" USING btree ("tenant_id","customer_id","restriction_type") WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE UNIQUE INDEX "restrictions_tenant_request_key_idx" ON "restrictions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "charges_tenant_request_key_idx" ON "charges" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "document_history_tenant_id_document_id_id_index" ON "document_history" USING btree ("tenant_id","document_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "documents_tenant_request_key_idx" ON "documents" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "fundings_tenant_external_record_ref_idx" ON "fundings" USING btree ("tenant_id","external_record_ref");--> statement-breakpoint
CREATE INDEX "fundings_tenant_id_loan_id_id_index" ON "fundings" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE INDEX "journal_entries_tenant_id_loan_id_id_index" ON "journal_entries" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE INDEX "journal_entries_tenant_id_transaction_ref_index" ON "journal_entries" USING btree ("tenant_id","transaction_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_parties_tenant_loan_customer_role_idx" ON "loan_parties" USING btree ("tenant_id","loan_id","customer_id","role");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_products_tenant_request_key_idx" ON "loan_products" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "loans_tenant_account_no_idx" ON "loans" USING btree ("tenant_id","account_no");--> statement-breakpoint
CREATE UNIQUE INDEX "loans_tenant_external_id_idx" ON "loans" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "loans_tenant_request_key_idx" ON "loans" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE INDEX "loans_tenant_id_client_id_index" ON "loans" USING btree ("tenant_id","client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_tenant_external_record_ref_idx" ON "payments" USING btree ("tenant_id","external_record_ref");--> statement-breakpoint
CREATE INDEX "payments_tenant_id_loan_id_effective_date_id_index" ON "payments" USING btree ("tenant_id","loan_id","effective_date","id");--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_items_tenant_target_idx" ON "reconciliation_items" USING btree ("tenant_id","target_type","target_id");--> statement-breakpoint
CREATE INDEX "reconciliation_items_open_idx" ON "reconciliation_items" USING btree ("tenant_id","id") WHERE status = 'open';--> statement-breakpoint
CREATE POLICY "consents_tenant_isolation" ON "consents" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "contact_points_tenant_isolation" ON "contact_points" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "customer_addresses_tenant_isolation" ON "customer_addresses" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "customer_history_tenant_isolation" ON "customer_history" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "customer_identifiers_tenant_isolation" ON "customer_identifiers" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "customers_tenant_isolation" ON "customers" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "payment_instruments_tenant_isolation" ON "payment_instruments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "restrictions_tenant_isolation" ON "restrictions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "charges_tenant_isolation" ON "charges" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "document_history_tenant_isolation" ON "document_history" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "documents_tenant_isolation" ON "documents" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "fundings_tenant_isolation" ON "fundings" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "gl_accounts_tenant_isolation" ON "gl_accounts" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "journal_entries_tenant_isolation" ON "journal_entries" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "loan_installments_tenant_isolation" ON "loan_installments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "loan_parties_tenant_isolation" ON "loan_parties" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "loan_product_charges_tenant_isolation" ON "loan_product_charges" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "loan_products_tenant_isolation" ON "loan_products" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "loans_tenant_isolation" ON "loans" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "payments_tenant_isolation" ON "payments" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "reconciliation_items_tenant_isolation" ON "reconciliation_items" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
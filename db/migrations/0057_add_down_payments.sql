ALTER TABLE "loan_products" ADD COLUMN "enable_down_payment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "disbursed_amount_percentage_for_down_payment" numeric(9, 6);--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "enable_auto_repayment_for_down_payment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "transaction_type" text DEFAULT 'REPAYMENT' NOT NULL;
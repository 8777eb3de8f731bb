ALTER TABLE "loan_installments" ADD COLUMN "interest_waived" numeric(19, 6) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_installments" ADD COLUMN "fee_charges_waived" numeric(19, 6) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_installments" ADD COLUMN "penalty_charges_waived" numeric(19, 6) DEFAULT '0' NOT NULL;
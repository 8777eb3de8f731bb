ALTER TABLE "contact_points" ADD COLUMN "contact_point_ref" text DEFAULT mint_opaque_ref('cp_') NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "customer_ref" text DEFAULT mint_opaque_ref('cus_') NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_points_tenant_ref_idx" ON "contact_points" USING btree ("tenant_id","contact_point_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_tenant_customer_ref_idx" ON "customers" USING btree ("tenant_id","customer_ref");
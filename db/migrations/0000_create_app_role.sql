-- The role every tenant transaction switches to (db/tenant-tx.ts: set_config('role', ...)).
-- It is not a superuser and owns nothing, so row-level security applies to it even when the
-- service connects as the database owner or a superuser (embedded default).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lending_app') THEN
    CREATE ROLE lending_app NOLOGIN;
  END IF;
END
$$;
--> statement-breakpoint
GRANT lending_app TO CURRENT_USER;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO lending_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO lending_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO lending_app;

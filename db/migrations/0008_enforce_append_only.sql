-- Append-only tables (docs/design.md §3 "History is append-only"; docs/processes.md P0): the application
-- role every tenant transaction runs as (lending_app, see 0000) may read and insert their rows but
-- never change or remove one. Corrections are new rows (reversing journal entries, new history
-- items). The default privileges of 0000 grant UPDATE and DELETE on every new table, so each new
-- append-only table must be added here (in a new migration) and to
-- test/activities/database-invariants.test.ts.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "journal_entries" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "customer_history" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "document_history" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "case_effects" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "webhook_delivery_attempts" FROM lending_app;
--> statement-breakpoint
-- The outbox payload is append-only too; only the relay's publication mark may change.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "outbox_events" FROM lending_app;
--> statement-breakpoint
GRANT UPDATE ("published_at") ON TABLE "outbox_events" TO lending_app;

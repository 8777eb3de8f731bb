-- Voice workflow versions are immutable once created (docs/processes.md P4 "Voice-provider control surface"): the
-- application role (lending_app, see 0000) may change only whether a version is active, and may delete none.
-- Voice dispatch events are append-only like the other histories (0008). Listed in
-- test/activities/database-invariants.test.ts.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "voice_workflow_versions" FROM lending_app;
--> statement-breakpoint
GRANT UPDATE ("is_active", "activated_at") ON TABLE "voice_workflow_versions" TO lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "voice_dispatch_events" FROM lending_app;

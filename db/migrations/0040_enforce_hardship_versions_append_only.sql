-- Hardship policy versions are append-only (docs/processes.md P5; like the other histories, 0008): the application
-- role (lending_app, see 0000) may neither change nor delete a guardrails version, and may change only the
-- `effective_to` of a program version (set when a later version or the retirement ends its period). Listed in
-- test/activities/database-invariants.test.ts.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "hardship_guardrail_versions" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "hardship_program_versions" FROM lending_app;
--> statement-breakpoint
GRANT UPDATE ("effective_to") ON TABLE "hardship_program_versions" TO lending_app;

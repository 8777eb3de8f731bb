-- Append-only tables of case-type field definitions and form entries (docs/design.md §3 "History is append-only";
-- docs/processes.md P0, P4): a publication is never changed (a new version is a new row), and a form entry's
-- history is never rewritten. See 0008_enforce_append_only for the rule and
-- test/activities/database-invariants.test.ts for the proof.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "case_type_field_publications" FROM lending_app;
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "form_entry_history" FROM lending_app;

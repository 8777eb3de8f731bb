-- Statements are append-only (docs/design.md §3 "History is append-only"; docs/processes.md P6 "Statements"): a statement,
-- once issued, is never changed nor removed; a rerun of a cycle finds it by (tenant, loan, due date). See
-- 0008_enforce_append_only for the rule and test/activities/database-invariants.test.ts for the proof.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "statements" FROM lending_app;

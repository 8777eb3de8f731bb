-- A loan's schedule versions are append-only (docs/processes.md P5 "a new schedule version"; like the
-- other histories, 0008 and 0042): the application role (lending_app, see 0000) may neither change nor delete a
-- version once written. Listed in test/activities/database-invariants.test.ts.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "loan_schedule_versions" FROM lending_app;

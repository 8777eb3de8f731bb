-- Hardship offer approval records are append-only (spec § Authentication 10 maker-checker; docs/processes.md P5;
-- like the other histories, 0008): the application role (lending_app, see 0000) may neither change nor delete a
-- decision once written. Listed in test/activities/database-invariants.test.ts.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "hardship_offer_approvals" FROM lending_app;

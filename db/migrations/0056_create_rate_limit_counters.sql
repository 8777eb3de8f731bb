-- UNLOGGED (edited in after generation; Drizzle has no notation for it): the counters live one second and are
-- rebuilt by the next requests, so they need no WAL. A request's counting then writes no WAL and its commit waits for no
-- flush; after a crash the table comes back empty, which admits at most one more window of requests.
CREATE UNLOGGED TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer NOT NULL,
	"expire" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "rate_limit_counters_expire_index" ON "rate_limit_counters" USING btree ("expire");
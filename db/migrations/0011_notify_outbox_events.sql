-- Wakes the outbox relay (docs/processes.md P0; workers/outbox-relay.ts LISTENs on this channel)
-- when events are written. One notification per inserting statement; the payload is empty because
-- the relay claims rows from the table itself (FOR UPDATE SKIP LOCKED), and polling covers any
-- notification lost while it was not listening.
CREATE OR REPLACE FUNCTION notify_outbox_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS outbox_events_notify ON outbox_events;
--> statement-breakpoint
CREATE TRIGGER outbox_events_notify
  AFTER INSERT ON outbox_events
  FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_events();

-- Tells every API process's token-grant cache (api/token-cache.ts, through db/notifications.ts) that a
-- client's credentials changed (docs/design.md §4 Tokens): a client updated (`clients disable`, a
-- permission or rate-limit change) or deleted, a token updated or deleted. The payload is the client id;
-- `*` (TRUNCATE) means every client. PostgreSQL sends notifications at commit, in commit order, and
-- folds identical ones of one transaction. A process that misses notifications (LISTEN connection lost)
-- clears its cache when it listens again, and cached grants live at most TOKEN_CACHE_TTL_MS anyway.
CREATE OR REPLACE FUNCTION notify_credential_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('credential_changes', '*');
    RETURN NULL;
  END IF;
  PERFORM pg_notify('credential_changes', OLD.client_id);
  IF TG_OP = 'UPDATE' AND NEW.client_id IS DISTINCT FROM OLD.client_id THEN
    PERFORM pg_notify('credential_changes', NEW.client_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS api_clients_notify_credential_changes ON api_clients;
--> statement-breakpoint
CREATE TRIGGER api_clients_notify_credential_changes
  AFTER UPDATE OR DELETE ON api_clients
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changes();
--> statement-breakpoint
DROP TRIGGER IF EXISTS api_clients_notify_credential_truncate ON api_clients;
--> statement-breakpoint
CREATE TRIGGER api_clients_notify_credential_truncate
  AFTER TRUNCATE ON api_clients
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credential_changes();
--> statement-breakpoint
DROP TRIGGER IF EXISTS access_tokens_notify_credential_changes ON access_tokens;
--> statement-breakpoint
CREATE TRIGGER access_tokens_notify_credential_changes
  AFTER UPDATE OR DELETE ON access_tokens
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changes();
--> statement-breakpoint
DROP TRIGGER IF EXISTS access_tokens_notify_credential_truncate ON access_tokens;
--> statement-breakpoint
CREATE TRIGGER access_tokens_notify_credential_truncate
  AFTER TRUNCATE ON access_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credential_changes();

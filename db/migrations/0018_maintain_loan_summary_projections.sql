-- Keeps `loan_summary_projections` (db/schema/lending.ts) equal to what `loan_installments`, `fundings`
-- and `payments` imply, in the transaction of every write to them.
--
-- 1. After each statement that writes a source table, a statement-level trigger marks the touched loans' rows
--    `stale` (creating them if needed), once per statement whatever its number of rows. That row lock is held
--    until the transaction ends, so writers to one loan's sources take turns from their first write.
-- 2. At commit, a deferred constraint trigger on the projection recomputes each stale row once
--    (`refresh_loan_summary_projection`) and clears `stale`: a transaction that writes a 10,000-installment
--    schedule in ten batches and reposts it pays for one recompute, not twenty.
-- Under READ COMMITTED each statement of the refresh takes a new snapshot after the lock was won, so it sees every
-- committed write of earlier writers: a committed row is never older than its sources. Under REPEATABLE READ or
-- SERIALIZABLE, marking a row a concurrent writer changed raises 40001 and db/tenant-tx.ts runs the transaction
-- again. The functions run as the caller (`lending_app` under row-level security in a tenant transaction).
CREATE OR REPLACE FUNCTION refresh_loan_summary_projection(p_tenant_id text, p_loan_id bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE loan_summary_projections p
     SET installments = coalesce((
           SELECT json_agg(json_build_object(
                    'installmentNumber', i.installment_number, 'fromDate', i.from_date::text,
                    'dueDate', i.due_date::text, 'principalDue', i.principal_due::text,
                    'interestDue', i.interest_due::text, 'feeChargesDue', i.fee_charges_due::text,
                    'penaltyChargesDue', i.penalty_charges_due::text,
                    'principalPaid', i.principal_paid::text, 'interestPaid', i.interest_paid::text,
                    'feeChargesPaid', i.fee_charges_paid::text, 'penaltyChargesPaid', i.penalty_charges_paid::text,
                    'interestWaived', i.interest_waived::text, 'feeChargesWaived', i.fee_charges_waived::text,
                    'penaltyChargesWaived', i.penalty_charges_waived::text) ORDER BY i.installment_number)
             FROM loan_installments i
            WHERE i.tenant_id = p.tenant_id AND i.loan_id = p.loan_id), '[]'::json),
         (disbursed, disbursement_count, last_funding_date) = (
           SELECT coalesce(sum(f.amount), 0), count(*)::int, max(f.funding_date)
             FROM fundings f
            WHERE f.tenant_id = p.tenant_id AND f.loan_id = p.loan_id),
         (overpayment, last_payment_date, unallocated_payments) = (
           SELECT coalesce(sum((pm.allocation ->> 'overpayment')::numeric), 0), max(pm.effective_date),
                  (count(*) FILTER (WHERE pm.allocation IS NULL))::int
             FROM payments pm
            WHERE pm.tenant_id = p.tenant_id AND pm.loan_id = p.loan_id AND pm.status = 'POSTED'),
         stale = false
   WHERE p.tenant_id = p_tenant_id AND p.loan_id = p_loan_id;
END
$$;
--> statement-breakpoint
-- Marks stale (and so locks) the projection rows of the loans whose rows of one source table a statement wrote.
-- A row already stale was marked by this transaction, which holds its lock: it is locked again, not updated, so
-- no second refresh is queued.
CREATE OR REPLACE FUNCTION mark_loan_summary_projections_stale() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO loan_summary_projections AS p (tenant_id, loan_id, stale)
    SELECT DISTINCT tenant_id, loan_id, true FROM changed_new ORDER BY tenant_id, loan_id
    ON CONFLICT (tenant_id, loan_id) DO UPDATE SET stale = true WHERE NOT p.stale;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO loan_summary_projections AS p (tenant_id, loan_id, stale)
    SELECT tenant_id, loan_id, true
      FROM (SELECT tenant_id, loan_id FROM changed_new UNION SELECT tenant_id, loan_id FROM changed_old) c
     ORDER BY tenant_id, loan_id
    ON CONFLICT (tenant_id, loan_id) DO UPDATE SET stale = true WHERE NOT p.stale;
  ELSE
    INSERT INTO loan_summary_projections AS p (tenant_id, loan_id, stale)
    SELECT DISTINCT tenant_id, loan_id, true FROM changed_old ORDER BY tenant_id, loan_id
    ON CONFLICT (tenant_id, loan_id) DO UPDATE SET stale = true WHERE NOT p.stale;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The deferred recompute: one queued event per marking, so it re-reads the row and does nothing when an earlier
-- event of the same transaction already refreshed it.
CREATE OR REPLACE FUNCTION refresh_stale_loan_summary_projection() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM loan_summary_projections p
              WHERE p.tenant_id = NEW.tenant_id AND p.loan_id = NEW.loan_id AND p.stale) THEN
    PERFORM refresh_loan_summary_projection(NEW.tenant_id, NEW.loan_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS loan_summary_projections_refresh ON loan_summary_projections;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER loan_summary_projections_refresh
  AFTER INSERT OR UPDATE ON loan_summary_projections
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.stale)
  EXECUTE FUNCTION refresh_stale_loan_summary_projection();
--> statement-breakpoint
DO $$
DECLARE
  source text;
BEGIN
  -- PostgreSQL allows transition tables only on single-event triggers: three per source table.
  FOREACH source IN ARRAY ARRAY['loan_installments', 'fundings', 'payments'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', source || '_summary_projection_insert', source);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', source || '_summary_projection_update', source);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', source || '_summary_projection_delete', source);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed_new '
      'FOR EACH STATEMENT EXECUTE FUNCTION mark_loan_summary_projections_stale()',
      source || '_summary_projection_insert', source);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new '
      'FOR EACH STATEMENT EXECUTE FUNCTION mark_loan_summary_projections_stale()',
      source || '_summary_projection_update', source);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed_old '
      'FOR EACH STATEMENT EXECUTE FUNCTION mark_loan_summary_projections_stale()',
      source || '_summary_projection_delete', source);
  END LOOP;
END
$$;
--> statement-breakpoint
-- Every loan that has installments, fundings or payments gets its row now (a loan without any has none; the
-- summary reads it as empty). The deferred trigger computes them when the migration's transaction commits.
INSERT INTO loan_summary_projections (tenant_id, loan_id, stale)
SELECT l.tenant_id, l.id, true FROM loans l
 WHERE EXISTS (SELECT 1 FROM loan_installments i WHERE i.tenant_id = l.tenant_id AND i.loan_id = l.id)
    OR EXISTS (SELECT 1 FROM fundings f WHERE f.tenant_id = l.tenant_id AND f.loan_id = l.id)
    OR EXISTS (SELECT 1 FROM payments pm WHERE pm.tenant_id = l.tenant_id AND pm.loan_id = l.id)
ON CONFLICT (tenant_id, loan_id) DO UPDATE SET stale = true;
--> statement-breakpoint
-- Compute them now, so later migrations of the same run may alter these tables (pending trigger events forbid it).
SET CONSTRAINTS loan_summary_projections_refresh IMMEDIATE;

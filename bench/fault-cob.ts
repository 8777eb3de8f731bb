/**
 * `bench:fault` scenario `cob` (docs/processes.md P7 "The run": "a run that is killed, retried or started twice
 * changes nothing twice"): a close-of-business run for yesterday over `loans` seeded loans (bench/cob-seed.ts; a
 * tenant of its own, so every check covers exactly the run's loans), the worker process SIGKILLed twice while it
 * runs (once about a quarter of the loans are closed, once about two thirds; progress read from PostgreSQL,
 * `loans.last_closed_business_date`, since the run's own query needs a worker) and restarted each time, then:
 * - the run ends COMPLETED, with no loan in `GET /v1/cob/runs/{runId}/errors`;
 * - every active loan has `lastClosedBusinessDate` = the day;
 * - delinquency history rows are unique per loan and business date;
 * - no outbox event of the close-of-business types (`loan.penalty.assessed`, `loan.delinquency.changed`,
 *   `loan.repayment.due`, `loan.repayment.overdue`, `loan.chargeoff.posted`, `case.transitioned`) twice for one
 *   loan and day or installment (keyed by type, `loanId`, `businessDate`, installment number or due date, charge,
 *   case and state), and no dedupe key twice;
 * - no penalty twice per loan, charge and installment; at most one active charge-off per loan;
 * - the trial balance zero over the tenant and per loan.
 * Each check is printed with its figures; what the run did (penalties, history rows, charge-offs, events by type)
 * is printed too.
 */
import type postgres from 'postgres';
import { createPlatformOperations } from '../activities';
import { createDb } from '../db/client';
import { addDays } from '../domain/calendar';
import { tenantToday } from '../scripts/delinquency-demo-flow';
import { type ApiSession, apiRequest, requestToken } from '../scripts/http-client';
import { loadConfig, operationDeps } from '../workers/config';
import {
  CobRoutesMissing,
  type CobRun,
  checkPortfolio,
  seedPortfolio,
  startCobRun,
  waitForCobRun,
} from './cob-seed';

/** What the scenario needs of the fault benchmark's stack (bench/fault.ts). */
export interface CobFaultStack {
  baseUrl: string;
  databaseUrl: string;
  dataDir: string;
  /** The fault benchmark's tenant: the scenario's own tenant is named after it. */
  tenant: string;
  /** Superuser connection (reconnects by itself). */
  sql: postgres.Sql;
  /** SIGKILLs the worker's process group, waits for it to end, starts a new worker; prints both pids. */
  killAndReplaceWorker(why: string): Promise<void>;
}

type Check = (name: string, pass: boolean, detail: string) => void;

/** The event types a loan's close-of-business step writes (P7 "A loan's step for day D", "Charge-off"). */
export const cobEventTypes = [
  'loan.penalty.assessed',
  'loan.delinquency.changed',
  'loan.repayment.due',
  'loan.repayment.overdue',
  'loan.chargeoff.posted',
  'case.transitioned',
] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Loans of `tenant` whose `lastClosedBusinessDate` is `day`. */
async function closedCount(sql: postgres.Sql, tenant: string, day: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from loans where tenant_id = ${tenant} and last_closed_business_date = ${day}`;
  return row!.n;
}

/**
 * Runs the scenario (module note) on `stack` with `loans` seeded loans. Reports each check to `check`, progress
 * to `note`. Throws only when the set-up fails (seeding, a route answering unexpectedly); a missing
 * `POST /v1/cob/runs` is one failed check.
 */
export async function cobWorkerKills(
  stack: CobFaultStack,
  options: { loans: number; timeoutMinutes: number },
  check: Check,
  note: (line: string) => void,
): Promise<void> {
  const { sql } = stack;
  const tenant = `${stack.tenant}cob`;
  const config = loadConfig({ ...process.env, DATA_DIR: stack.dataDir, DATABASE_URL: stack.databaseUrl });
  const { db, close } = createDb(stack.databaseUrl, { maxConnections: 2 });
  const created = await createPlatformOperations(operationDeps(db, config))
    .createClient({
      tenantId: tenant,
      environment: 'sandbox',
      scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
      permissions: ['ALL'],
      rateLimitPerSecond: 1_000_000,
      createTenant: true,
    })
    .finally(close);
  const credential = { tenant, clientId: created.clientId, clientSecret: created.clientSecret };
  const session: ApiSession = {
    baseUrl: stack.baseUrl,
    accessToken: await requestToken(
      stack.baseUrl,
      credential,
      'lending:read lending:write servicing:read servicing:write',
      () => {},
    ),
    tenant,
    actor: 'fault.cob',
  };
  const today = tenantToday();
  const businessDate = addDays(today, -1);

  note(`seeding ${options.loans.toLocaleString('en-US')} loans for tenant ${tenant}`);
  const seeded = await seedPortfolio({ session, sql, tenant, count: options.loans, today, say: note });
  const before = await checkPortfolio(sql, tenant);
  check(
    'seeded books consistent',
    before.problems.length === 0,
    before.problems.length === 0 ? `${before.loans} loans, trial balance zero` : before.problems.join('; '),
  );

  let started: CobRun;
  try {
    started = await startCobRun(session, { businessDate }, `fault-cob-${Date.now().toString(36)}`);
  } catch (err) {
    if (!(err instanceof CobRoutesMissing)) throw err;
    check('run started', false, err.message);
    return;
  }
  note(`run ${started.runId} for ${businessDate} started (${started.status})`);
  const total = seeded.loanIds.length;
  const t0 = Date.now();
  const deadline = t0 + options.timeoutMinutes * 60_000;
  for (const [fraction, label] of [
    [0.25, 'first'],
    [0.66, 'second'],
  ] as const) {
    for (;;) {
      const closed = await closedCount(sql, tenant, businessDate);
      if (closed >= fraction * total || closed >= total || Date.now() > deadline) {
        await stack.killAndReplaceWorker(
          `(${label} kill) with ${closed} of ${total} loans closed, ${((Date.now() - t0) / 1000).toFixed(0)} s into the run`,
        );
        break;
      }
      await sleep(100);
    }
  }
  const run = await waitForCobRun(session, started.runId, {
    timeoutMs: Math.max(60_000, deadline - Date.now()),
    everyMs: 2000,
  }).catch((err: Error) => {
    check('run completed', false, err.message);
    return null;
  });
  if (!run) return;
  note(
    `run ${run.runId}: ${run.status} in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${JSON.stringify(run.loans)}`,
  );
  const errorsAnswer = await apiRequest(
    session,
    'GET',
    `/v1/cob/runs/${run.runId}/errors?limit=5`,
    undefined,
  );
  const errors = (await errorsAnswer.json()) as { items?: { loanId: number; error: string }[] };
  check(
    'run completed without loan errors',
    run.status === 'COMPLETED' && errorsAnswer.status === 200 && (errors.items ?? []).length === 0,
    `status ${run.status}, loans ${JSON.stringify(run.loans)}; errors ${errorsAnswer.status} ${JSON.stringify(errors.items ?? errors).slice(0, 300)}`,
  );

  const [loansRow] = await sql<{ active: number; closed: number; other: number }[]>`
    select count(*)::int as active,
           count(*) filter (where last_closed_business_date = ${businessDate})::int as closed,
           count(*) filter (where last_closed_business_date is distinct from ${businessDate})::int as other
    from loans where tenant_id = ${tenant} and status = 'ACTIVE'`;
  check(
    'every loan closed for the day',
    loansRow!.other === 0 && loansRow!.closed === total,
    `${loansRow!.closed} of ${loansRow!.active} active loans have lastClosedBusinessDate ${businessDate} (${total} seeded)`,
  );

  const [history] = await sql<{ rows: number; keys: number; loans: number }[]>`
    select count(*)::int as rows, count(distinct (loan_id, business_date))::int as keys,
           count(distinct loan_id)::int as loans
    from loan_delinquency_history where tenant_id = ${tenant}`;
  check(
    'delinquency history unique per loan and day',
    history!.rows === history!.keys,
    `${history!.rows} rows, ${history!.keys} distinct (loan, business date), ${history!.loans} loans`,
  );

  const byType = await sql<{ event_type: string; n: number }[]>`
    select event_type, count(*)::int as n from outbox_events
    where tenant_id = ${tenant} and event_type = any(${[...cobEventTypes]})
    group by event_type order by event_type`;
  note(`events of the run: ${byType.map((r) => `${r.event_type} ${r.n}`).join(', ') || 'none'}`);
  const [events] = await sql<{ doubled: number; sample: string | null; dedupe: number }[]>`
    with keyed as (
      select event_type, data->>'loanId' as loan_id, coalesce(data->>'businessDate', '') as business_date,
             coalesce(data->>'installmentNumber', data->>'dueDate', '') as installment,
             coalesce(data->>'chargeId', data->>'loanChargeId', '') as charge,
             coalesce(data->>'caseId', '') || '/' || coalesce(data->>'toState', data->>'state', data->>'status', '') as case_state
      from outbox_events where tenant_id = ${tenant} and event_type = any(${[...cobEventTypes]})
    ), doubled as (
      select event_type, loan_id, business_date, installment, charge, case_state, count(*) as n from keyed
      group by 1, 2, 3, 4, 5, 6 having count(*) > 1
    )
    select (select count(*)::int from doubled) as doubled,
           (select event_type || ' loan ' || loan_id || ' ' || business_date || ' #' || installment || ' × ' || n
              from doubled limit 1) as sample,
           (select count(*)::int from (select dedupe_key from outbox_events where tenant_id = ${tenant}
              group by dedupe_key having count(*) > 1) d) as dedupe`;
  check(
    'no close-of-business event twice',
    events!.doubled === 0 && events!.dedupe === 0,
    `${events!.doubled} (type, loan, day, installment, charge, case) keys written more than once${events!.sample ? ` (e.g. ${events!.sample})` : ''}; ${events!.dedupe} dedupe keys twice`,
  );

  const [penalties] = await sql<{ rows: number; doubled: number; loans: number }[]>`
    select count(*)::int as rows, count(distinct loan_id)::int as loans,
           (select count(*)::int from (select 1 from loan_charges where tenant_id = ${tenant} and penalty
              group by loan_id, charge_id, installment_number having count(*) > 1) d) as doubled
    from loan_charges where tenant_id = ${tenant} and penalty`;
  check(
    'no penalty twice per loan, charge and installment',
    penalties!.doubled === 0,
    `${penalties!.rows} penalties on ${penalties!.loans} loans, ${penalties!.doubled} (loan, charge, installment) twice`,
  );
  const [chargeOffs] = await sql<{ rows: number; doubled: number }[]>`
    select count(*)::int as rows,
           (select count(*)::int from (select loan_id from loan_charge_offs where tenant_id = ${tenant} and not reversed
              group by loan_id having count(*) > 1) d) as doubled
    from loan_charge_offs where tenant_id = ${tenant} and not reversed`;
  check(
    'at most one charge-off per loan',
    chargeOffs!.doubled === 0,
    `${chargeOffs!.rows} charge-offs, ${chargeOffs!.doubled} loans charged off twice`,
  );

  const after = await checkPortfolio(sql, tenant);
  check(
    'trial balance zero',
    after.debit === after.credit && after.unbalancedLoans === 0,
    `Σ debit ${after.debit}, Σ credit ${after.credit}, ${after.unbalancedLoans} loans unbalanced, ${after.journalLines} lines`,
  );
}

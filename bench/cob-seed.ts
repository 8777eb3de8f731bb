/**
 * What `npm run bench:cob` (bench/cob.ts) and the `cob` scenario of `npm run bench:fault` (bench/fault-cob.ts) share
 * (docs/processes.md P7 "Scale"): a portfolio of N active loans seeded fast, the tenant's "yesterday", the paced
 * read load on the loan summary, the close-of-business routes of P7 called and polled, and the books checked.
 *
 * Seeding: the delinquency set-up and a few template loans go through the public routes
 * (scripts/delinquency-demo-flow.ts `setUpDelinquencyProduct`, `createBackdatedLoan`: a product with a delinquency
 * bucket, an overdue penalty charge and automatic charge-off; loans disbursed months ago, from current to many
 * installments behind). Every other loan is a copy of one template made in SQL with `generate_series`, one
 * transaction per chunk: its `loans` row (new id and account number, external id suffixed), its installments,
 * fundings and payments (new ids, references suffixed, the allocation's `paymentId` rewritten), their status
 * history, its journal lines (transaction references rewritten to the new funding and payment ids, so every line
 * still names its source) and its summary projection. The columns copied are read from the catalog, so a column
 * added later is copied too. The copies run with `session_replication_role = replica` (superuser connection, no
 * trigger fires: the projection is copied already fresh, and the foreign keys are the template's, which hold);
 * the identity sequences are moved past the ids taken. Afterwards `checkPortfolio` proves the copies consistent:
 * one projection and one funding per loan, every journal line's reference naming a funding, payment or charge-off of its own
 * loan, and the trial balance zero over the tenant and per loan.
 *
 * A daily close (`closedThrough`): the templates are first closed through that day by a close-of-business run of
 * named loans (`POST /v1/cob/runs {businessDate, loanIds}`; their `created_at` first moved to their disbursement
 * day, as if made then, since a loan created today is never charged off for an earlier day), so each copy also
 * carries what the close wrote: the
 * loan row's `last_closed_business_date`, `delinquency_range_id`, `charged_off` and `charged_off_on_date`, its
 * penalties (`loan_charges`, new ids), its installments as they are now, its charge-off (`loan_charge_offs`, new id,
 * `last_payment_id` rewritten to the copy's payment), its delinquency history (`collections_case_id` null: the
 * template's case is the template borrower's) and its journal lines, revisions, reversals and charge-off lines
 * included (references rewritten to the copy's sources, `reverses_entry_id` to the copy's line). `catchUpCount`
 * copies are made before that close: never closed, they are the first-close sample. The templates are spread over
 * `templateShiftsDays` (their disbursement moved that many days earlier), so on a given day some copies have an
 * installment falling due, turning overdue, earning a penalty, crossing a range or reaching charge-off.
 *
 * Every table with a `loan_id` column is checked before a copy: a template row in a table the copy does not
 * re-key (parties, schedule versions, statements, promises, hardship offers…) makes the seeding throw; the
 * close-of-business run tables (`cob_run_errors`) belong to the run, not to the loan, and are not copied.
 */
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';
import { addDays } from '../domain/calendar';
import { defaultComplianceTimeZone } from '../domain/deadlines';
import {
  createBackdatedLoan,
  type DelinquencyProduct,
  monthsBefore,
  setUpDelinquencyProduct,
  tenantToday,
} from '../scripts/delinquency-demo-flow';
import { type ApiSession, apiRequest } from '../scripts/http-client';
import { percentileOf } from './support';

/** Where progress lines go. */
export type Say = (line: string) => void;

/** The last ended day in the tenant's time zone: the day a close-of-business run may close (P7 "The run"). */
export function yesterdayIn(timeZone: string = defaultComplianceTimeZone, now: Date = new Date()): string {
  return addDays(tenantToday(timeZone, now), -1);
}

/**
 * The template loans: how many installments each has paid behind the ones due. `behind` 0 is current; the others
 * are 1, 2, 4 and every due installment behind (about one, two, four and seven months past due: the first two in
 * the demo bucket's 31-90 range, which opens a collections case, the last two past the product's 120 charge-off
 * days; a run penalises four fifths of the loans, 14 penalties per five loans, and charges off two fifths). Copies
 * take the templates in turn, so each kind is about a fifth of the portfolio.
 */
export const templateKinds = [
  { name: 'current', behind: 0 },
  { name: '1 installment behind', behind: 1 },
  { name: '2 installments behind', behind: 2 },
  { name: '4 installments behind', behind: 4 },
  { name: 'never paid', behind: Number.POSITIVE_INFINITY },
] as const;

/** How far back the templates were disbursed (months); installments are monthly, 12 of them. */
export const templateMonthsBack = 8;

/**
 * Days each set of templates is disbursed before `templateMonthsBack` months ago (negative: after), for a daily
 * close with a realistic mix (module note). With due dates on today's day of the month (shift 0), shift 2 puts an
 * installment due the day before yesterday (its overdue notice falls on D, yesterday), 3 one due three days before
 * today (its penalty is assessed on D, past the 2-day wait), −2 one due two days after today (its due notice falls
 * on D, 3 days ahead); the others spread the due dates over the month, where most days bring nothing.
 */
export const templateShiftsDays = [0, 2, 3, -2, 6, 9, 12, 15, 18, 21, 24] as const;

/** What `seedPortfolio` made. */
export interface SeededPortfolio {
  product: DelinquencyProduct;
  /** The template loans, in the order copies take them. */
  templateLoanIds: number[];
  /** Every seeded loan: the templates, then the copies (ascending ids). */
  loanIds: number[];
  /** Seconds: the templates through the API, the copies in SQL, then `ANALYZE`. */
  templatesSeconds: number;
  copySeconds: number;
  /** The never-closed copies (`catchUpCount` of them; empty without `closedThrough`). */
  catchUpLoanIds: number[];
  /** The templates' close through `closedThrough` (null without it): the run and its wall seconds. */
  templatesClose: { run: CobRun; seconds: number } | null;
}

/** Column names of `table` (public schema) in their order, generated columns left out. */
async function columnsOf(sql: postgres.Sql, table: string): Promise<string[]> {
  const rows = await sql<{ column_name: string }[]>`
    select column_name from information_schema.columns
    where table_schema = 'public' and table_name = ${table} and is_generated = 'NEVER'
    order by ordinal_position`;
  if (rows.length === 0) throw new Error(`no table ${table}`);
  return rows.map((r) => r.column_name);
}

/**
 * `insert into <table> (<every column>) overriding system value select <each column: its override, else
 * <alias>.<column>> <from>`: a copy of rows with some columns replaced. `overrides` values are SQL expressions.
 */
async function copyStatement(
  sql: postgres.Sql,
  table: string,
  alias: string,
  overrides: Record<string, string>,
  from: string,
): Promise<string> {
  const columns = await columnsOf(sql, table);
  for (const name of Object.keys(overrides))
    if (!columns.includes(name)) throw new Error(`${table} has no column ${name}`);
  const select = columns.map((c) => overrides[c] ?? `${alias}."${c}"`);
  return `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) overriding system value select ${select.join(', ')} ${from}`;
}

/**
 * Seeds `count` active loans for `tenant` (module note): the product and templates through the API as `session`,
 * the copies through `sql` (a superuser connection to the same database), `chunk` loans per transaction. With
 * `closedThrough` (ISO date, a day that has ended) the templates are closed through it by a run before the copies
 * are made, and `catchUpCount` of the `count` loans are copied before that close (never closed). Throws when a
 * template has rows the copy cannot re-key, the templates' run does not complete without failures, or a call
 * answers other than expected.
 */
export async function seedPortfolio(options: {
  session: ApiSession;
  sql: postgres.Sql;
  tenant: string;
  count: number;
  /** Today in the tenant's time zone (ISO date). */
  today: string;
  chunk?: number;
  /** The last day the templates (and so the copies) are closed for; absent: never closed. */
  closedThrough?: string;
  /** Copies made before the templates' close (only with `closedThrough`); default 0. */
  catchUpCount?: number;
  say: Say;
}): Promise<SeededPortfolio> {
  const { session, sql, tenant, count, today, say, closedThrough } = options;
  const t0 = performance.now();
  const runId = Date.now().toString(36);
  const product = await setUpDelinquencyProduct(session, `bench-${runId}`, () => {});
  const shifts = closedThrough === undefined ? [0] : templateShiftsDays;
  const templates = shifts.flatMap((shift) => templateKinds.map((kind) => ({ shift, kind })));
  const chosen = templates.slice(0, Math.min(count, templates.length));
  const templateLoanIds: number[] = [];
  const disbursementDates: string[] = [];
  for (const [index, { shift, kind }] of chosen.entries()) {
    const disbursementDate = addDays(monthsBefore(today, templateMonthsBack), -shift);
    const loan = await createBackdatedLoan(session, product, {
      ref: `bench-${runId}-t${index}`,
      disbursementDate,
      today,
      behind: kind.behind,
      onExchange: () => {},
    });
    templateLoanIds.push(loan.loanId);
    disbursementDates.push(disbursementDate);
  }
  const templatesSeconds = (performance.now() - t0) / 1000;
  say(
    `  ${chosen.length} template loans through the API in ${templatesSeconds.toFixed(1)} s (disbursed ${templateMonthsBack} months ago${shifts.length > 1 ? ` shifted by ${shifts.join(', ')} days` : ''}: ${templateKinds.map((k) => k.name).join(', ')})`,
  );

  const copies = count - templateLoanIds.length;
  const catchUp = closedThrough === undefined ? 0 : Math.min(options.catchUpCount ?? 0, copies);
  const chunk = options.chunk ?? 20_000;
  let copySeconds = 0;
  let catchUpLoanIds: number[] = [];
  if (closedThrough !== undefined)
    // Made today through the API, the templates stand for loans made on their disbursement day: a loan created
    // today cannot be charged off for an earlier day (P7 step 5), so its `created_at` is moved to that day.
    await sql`
      update loans set created_at = (d.day::date + time '12:00') at time zone 'UTC'
      from unnest(${templateLoanIds}::bigint[], ${disbursementDates}::text[]) as d(id, day)
      where loans.tenant_id = ${tenant} and loans.id = d.id`;
  if (catchUp > 0) {
    const t = performance.now();
    catchUpLoanIds = await copyLoans(sql, tenant, templateLoanIds, catchUp, chunk, say);
    copySeconds += (performance.now() - t) / 1000;
  }
  let templatesClose: SeededPortfolio['templatesClose'] = null;
  if (closedThrough !== undefined) {
    const t = performance.now();
    const started = await startCobRun(
      session,
      { businessDate: closedThrough, loanIds: templateLoanIds },
      `bench-${runId}-templates-close`,
    );
    const run = await waitForCobRun(session, started.runId, { timeoutMs: 10 * 60_000, everyMs: 500 });
    const seconds = (performance.now() - t) / 1000;
    if (run.status !== 'COMPLETED' || run.loans.failed > 0)
      throw new Error(
        `the templates' close through ${closedThrough} ended ${run.status}: ${JSON.stringify(run)}`,
      );
    templatesClose = { run, seconds };
    say(
      `  templates closed through ${closedThrough} by run ${run.runId} in ${seconds.toFixed(1)} s (${JSON.stringify(run.loans)})`,
    );
  }
  const t1 = performance.now();
  await copyLoans(sql, tenant, templateLoanIds, copies - catchUp, chunk, say);
  await sql.unsafe(
    'analyze loans, loan_installments, fundings, payments, journal_entries, loan_summary_projections, loan_charges, loan_charge_offs, loan_delinquency_history',
  );
  copySeconds += (performance.now() - t1) / 1000;
  const ids = await sql<{ id: string }[]>`
    select id::text from loans where tenant_id = ${tenant} and status = 'ACTIVE' order by id`;
  return {
    product,
    templateLoanIds,
    loanIds: ids.map((r) => Number(r.id)),
    templatesSeconds,
    copySeconds,
    catchUpLoanIds,
    templatesClose,
  };
}

/**
 * Copies the templates `templateLoanIds` `copies` times in turn (module note), `chunk` loans per transaction, as
 * they are now (closed or not). Answers the new loans' ids. Throws when a template has rows it cannot re-key.
 */
async function copyLoans(
  sql: postgres.Sql,
  tenant: string,
  templateLoanIds: number[],
  copies: number,
  chunk: number,
  say: Say,
): Promise<number[]> {
  if (copies <= 0) return [];
  await refuseUnknownTemplateRows(sql, tenant, templateLoanIds);
  const t1 = performance.now();
  const suffixed = (column: string) =>
    `case when ${column} is null then null else ${column} || '-c' || x.n end`;
  const statements = {
    loans: await copyStatement(
      sql,
      'loans',
      'l',
      {
        id: 'm.new_id',
        account_no: "lpad(m.new_id::text, 9, '0')",
        external_id: "case when l.external_id is null then null else l.external_id || '-c' || m.n end",
        request_key: 'null',
      },
      'from clone_map m join loans l on l.tenant_id = $1 and l.id = m.template_id',
    ),
    installments: await copyStatement(
      sql,
      'loan_installments',
      'i',
      { loan_id: 'm.new_id' },
      'from clone_map m join loan_installments i on i.tenant_id = $1 and i.loan_id = m.template_id',
    ),
    fundings: await copyStatement(
      sql,
      'fundings',
      'f',
      { id: 'x.new_id', loan_id: 'x.loan_id', external_record_ref: suffixed('f.external_record_ref') },
      "from clone_ref x join fundings f on f.tenant_id = $1 and x.kind = 'funding' and f.id = x.old_id",
    ),
    payments: await copyStatement(
      sql,
      'payments',
      'p',
      {
        id: 'x.new_id',
        loan_id: 'x.loan_id',
        external_record_ref: suffixed('p.external_record_ref'),
        request_key: 'null',
        allocation:
          "case when p.allocation ? 'paymentId' then jsonb_set(p.allocation, '{paymentId}', to_jsonb(x.new_id)) else p.allocation end",
      },
      "from clone_ref x join payments p on p.tenant_id = $1 and x.kind = 'payment' and p.id = x.old_id",
    ),
    paymentHistory: await copyStatement(
      sql,
      'payment_status_history',
      'h',
      { id: "nextval(pg_get_serial_sequence('payment_status_history', 'id'))", payment_id: 'x.new_id' },
      "from clone_ref x join payment_status_history h on h.tenant_id = $1 and x.kind = 'payment' and h.payment_id = x.old_id",
    ),
    charges: await copyStatement(
      sql,
      'loan_charges',
      'c',
      {
        id: 'x.new_id',
        loan_id: 'x.loan_id',
        external_id: suffixed('c.external_id'),
        request_key: suffixed('c.request_key'),
      },
      "from clone_ref x join loan_charges c on c.tenant_id = $1 and x.kind = 'charge' and c.id = x.old_id",
    ),
    chargeOffs: await copyStatement(
      sql,
      'loan_charge_offs',
      'o',
      {
        id: 'x.new_id',
        loan_id: 'x.loan_id',
        external_id: suffixed('o.external_id'),
        request_key: suffixed('o.request_key'),
        last_payment_id:
          "(select y.new_id from clone_ref y where y.kind = 'payment' and y.loan_id = x.loan_id and y.old_id = o.last_payment_id)",
      },
      "from clone_ref x join loan_charge_offs o on o.tenant_id = $1 and x.kind = 'charge-off' and o.id = x.old_id",
    ),
    journal: await copyStatement(
      sql,
      'journal_entries',
      'j',
      {
        id: 'c.new_id',
        loan_id: 'c.loan_id',
        transaction_ref: 'c.new_ref',
        reverses_entry_id: 'r.new_id',
      },
      `from clone_line c join journal_entries j on j.tenant_id = $1 and j.id = c.old_id
       left join clone_line r on r.loan_id = c.loan_id and r.old_id = j.reverses_entry_id`,
    ),
    history: await copyStatement(
      sql,
      'loan_delinquency_history',
      'h',
      {
        id: "nextval(pg_get_serial_sequence('loan_delinquency_history', 'id'))",
        loan_id: 'm.new_id',
        collections_case_id: 'null',
      },
      'from clone_map m join loan_delinquency_history h on h.tenant_id = $1 and h.loan_id = m.template_id',
    ),
    projection: await copyStatement(
      sql,
      'loan_summary_projections',
      'p',
      { loan_id: 'm.new_id', stale: 'false' },
      'from clone_map m join loan_summary_projections p on p.tenant_id = $1 and p.loan_id = m.template_id',
    ),
  };
  const sources: [kind: string, table: string][] = [
    ['funding', 'fundings'],
    ['payment', 'payments'],
    ['charge', 'loan_charges'],
    ['charge-off', 'loan_charge_offs'],
  ];
  const newIds: number[] = [];
  let done = 0;
  while (done < copies) {
    const size = Math.min(chunk, copies - done);
    await sql.begin(async (tx) => {
      await tx.unsafe('set local session_replication_role = replica');
      // Ids taken past each table's highest, then the sequences moved past them (below, same transaction). `n` is
      // unique over the tenant's copies (the highest loan id is past every earlier copy), so suffixes never clash.
      await tx.unsafe(
        'create temp table clone_map (n bigint, new_id bigint, template_id bigint) on commit drop',
      );
      await tx.unsafe(
        `insert into clone_map
         select top.id + g, top.id + g, ($1::bigint[])[1 + (g % $2::int)]
         from (select coalesce(max(id), 0) as id from loans) top, generate_series(1, $3::int) g`,
        [templateLoanIds, templateLoanIds.length, size] as never[],
      );
      await tx.unsafe('create index on clone_map (template_id)');
      await tx.unsafe(
        'create temp table clone_ref (kind text, old_id bigint, loan_id bigint, template_id bigint, n bigint, new_id bigint) on commit drop',
      );
      await tx.unsafe(
        `insert into clone_ref
         select r.kind, r.old_id, m.new_id, m.template_id, m.n,
                case r.kind ${sources.map(([k, t]) => `when '${k}' then (select coalesce(max(id), 0) from ${t})`).join(' ')} end
                  + row_number() over (partition by r.kind order by m.n, r.old_id)
         from clone_map m
         join (${sources.map(([k, t]) => `select '${k}' as kind, id as old_id, loan_id from ${t} where tenant_id = $1 and loan_id = any($2::bigint[])`).join(' union all ')}) r
           on r.loan_id = m.template_id`,
        [tenant, templateLoanIds] as never[],
      );
      await tx.unsafe('create index on clone_ref (kind, old_id)');
      // Journal lines: each template line once per copy of its source, its reference's id rewritten (a revision's
      // or reversal's tail kept).
      await tx.unsafe(
        'create temp table clone_line (old_id bigint, loan_id bigint, new_id bigint, new_ref text) on commit drop',
      );
      await tx.unsafe(
        `insert into clone_line
         select t.id, x.loan_id,
                (select coalesce(max(id), 0) from journal_entries) + row_number() over (order by x.n, t.id),
                x.kind || '/' || x.new_id || t.tail
         from (select id, split_part(transaction_ref, '/', 1) as kind,
                      split_part(transaction_ref, '/', 2)::bigint as source_id,
                      substring(transaction_ref from '^[^/]+/[0-9]+(.*)$') as tail
               from journal_entries where tenant_id = $1 and loan_id = any($2::bigint[])) t
         join clone_ref x on x.kind = t.kind and x.old_id = t.source_id`,
        [tenant, templateLoanIds] as never[],
      );
      await tx.unsafe('create index on clone_line (loan_id, old_id)');
      await tx.unsafe('analyze clone_map');
      await tx.unsafe('analyze clone_ref');
      await tx.unsafe('analyze clone_line');
      for (const statement of Object.values(statements)) await tx.unsafe(statement, [tenant] as never[]);
      for (const table of [
        'loans',
        'fundings',
        'payments',
        'loan_charges',
        'loan_charge_offs',
        'journal_entries',
      ])
        await tx.unsafe(
          `select setval(pg_get_serial_sequence('${table}', 'id'), (select coalesce(max(id), 1) from ${table}))`,
        );
      const made = await tx.unsafe<{ new_id: string }[]>(
        'select new_id::text from clone_map order by new_id',
      );
      for (const row of made) newIds.push(Number(row.new_id));
    });
    done += size;
    const seconds = (performance.now() - t1) / 1000;
    say(
      `  copied ${done.toLocaleString('en-US')} of ${copies.toLocaleString('en-US')} loans in SQL (${seconds.toFixed(1)} s)`,
    );
  }
  return newIds;
}

/**
 * Throws when a template has rows of a kind `copyLoans` does not copy (module note): every table with a `loan_id`
 * column is counted.
 */
async function refuseUnknownTemplateRows(
  sql: postgres.Sql,
  tenant: string,
  loanIds: number[],
): Promise<void> {
  const copied = new Set([
    'loan_installments',
    'fundings',
    'payments',
    'journal_entries',
    'loan_summary_projections',
    'loan_charges',
    'loan_charge_offs',
    'loan_delinquency_history',
    'cob_run_errors',
  ]);
  const tables = await sql<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and c.column_name = 'loan_id' and t.table_type = 'BASE TABLE'
    order by c.table_name`;
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    if (copied.has(table)) continue;
    const [row] = await sql.unsafe<{ n: number }[]>(
      `select count(*)::int as n from "${table}" where tenant_id = $1 and loan_id = any($2::bigint[])`,
      [tenant, loanIds] as never[],
    );
    if (row!.n > 0) found.push(`${row!.n} ${table}`);
  }
  const [other] = await sql<{ n: number }[]>`
    select count(*)::int as n from journal_entries where tenant_id = ${tenant} and loan_id = any(${loanIds})
      and transaction_ref !~ '^(funding|payment|charge-off)/[0-9]+(/(revision|reversal)/[0-9]+)?$'`;
  if (other!.n > 0) found.push(`${other!.n} journal lines of another source`);
  if (found.length > 0)
    throw new Error(`the template loans have rows the copy cannot re-key: ${found.join(', ')}`);
}

/** What `checkPortfolio` found; `problems` is empty when the copies are consistent and the books balance. */
export interface PortfolioCheck {
  loans: number;
  journalLines: number;
  debit: string;
  credit: string;
  unbalancedLoans: number;
  problems: string[];
}

/**
 * The seeded tenant's consistency (module note) and its trial balance: Σ debit = Σ credit over the tenant's
 * journal lines and per loan (the same sums as scripts/boarding-fault.ts's check). Decimal strings as stored.
 */
export async function checkPortfolio(sql: postgres.Sql, tenant: string): Promise<PortfolioCheck> {
  const [row] = await sql<
    {
      loans: number;
      projections: number;
      fundings: number;
      lines: number;
      orphan_lines: number;
      debit: string;
      credit: string;
      unbalanced: number;
      dup_accounts: number;
    }[]
  >`
    select (select count(*)::int from loans where tenant_id = ${tenant}) as loans,
           (select count(*)::int from loan_summary_projections where tenant_id = ${tenant}) as projections,
           (select count(distinct loan_id)::int from fundings where tenant_id = ${tenant}) as fundings,
           (select count(*)::int from journal_entries where tenant_id = ${tenant}) as lines,
           (select count(*)::int from journal_entries j where j.tenant_id = ${tenant}
              and split_part(j.transaction_ref, '/', 1) in ('funding', 'payment', 'charge-off')
              and not exists (select 1 from fundings f where f.tenant_id = j.tenant_id and f.loan_id = j.loan_id
                                and j.transaction_ref = 'funding/' || f.id)
              and not exists (select 1 from loan_charge_offs o where o.tenant_id = j.tenant_id
                                and o.loan_id = j.loan_id and split_part(j.transaction_ref, '/', 1) = 'charge-off'
                                and split_part(j.transaction_ref, '/', 2) = o.id::text)
              and not exists (select 1 from payments p where p.tenant_id = j.tenant_id and p.loan_id = j.loan_id
                                and split_part(j.transaction_ref, '/', 1) = 'payment'
                                and split_part(j.transaction_ref, '/', 2) = p.id::text)) as orphan_lines,
           (select coalesce(sum(debit), 0)::text from journal_entries where tenant_id = ${tenant}) as debit,
           (select coalesce(sum(credit), 0)::text from journal_entries where tenant_id = ${tenant}) as credit,
           (select count(*)::int from (select loan_id from journal_entries where tenant_id = ${tenant}
              group by loan_id having sum(debit) <> sum(credit)) u) as unbalanced,
           (select count(*)::int from (select account_no from loans where tenant_id = ${tenant}
              group by account_no having count(*) > 1) d) as dup_accounts`;
  const r = row!;
  const problems: string[] = [];
  if (r.projections !== r.loans) problems.push(`${r.projections} summary projections for ${r.loans} loans`);
  if (r.fundings !== r.loans) problems.push(`${r.fundings} loans with a funding of ${r.loans}`);
  if (r.orphan_lines > 0)
    problems.push(`${r.orphan_lines} journal lines naming no funding or payment of their loan`);
  if (r.debit !== r.credit) problems.push(`Σ debit ${r.debit} ≠ Σ credit ${r.credit}`);
  if (r.unbalanced > 0) problems.push(`${r.unbalanced} loans unbalanced`);
  if (r.dup_accounts > 0) problems.push(`${r.dup_accounts} account numbers used twice`);
  return {
    loans: r.loans,
    journalLines: r.lines,
    debit: r.debit,
    credit: r.credit,
    unbalancedLoans: r.unbalanced,
    problems,
  };
}

/**
 * The same-run baseline of P7 "Scale": one SQL pass reading every active loan's installments (streamed in
 * batches of 5,000 rows through a cursor). Wall seconds, loans and installments read, loans per second.
 */
export async function sqlPassBaseline(
  sql: postgres.Sql,
  tenant: string,
): Promise<{ seconds: number; loans: number; installments: number; loansPerSecond: number }> {
  const t0 = performance.now();
  const loans = new Set<string>();
  let installments = 0;
  const cursor = sql<{ loan_id: string }[]>`
    select i.loan_id::text, i.installment_number, i.due_date, i.principal_due, i.interest_due, i.fee_charges_due,
           i.penalty_charges_due, i.principal_paid, i.interest_paid, i.fee_charges_paid, i.penalty_charges_paid
    from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
    where l.tenant_id = ${tenant} and l.status = 'ACTIVE'
    order by i.loan_id, i.installment_number`.cursor(5000);
  for await (const rows of cursor) {
    for (const row of rows) loans.add(row.loan_id);
    installments += rows.length;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, loans: loans.size, installments, loansPerSecond: loans.size / seconds };
}

/** Latency samples of a paced read load (ms) and its failures. */
export interface PacedSamples {
  latenciesMs: number[];
  failures: number;
  /** The first failures' gist (status or error), at most 3. */
  failureNotes: string[];
}

/**
 * An open-loop paced read load: `ratePerSecond` GETs a second of `urlOf(i)` (a request starts on schedule
 * whatever the earlier ones are doing, so a slow server shows as latency, not as fewer requests), each with
 * `headers`. Runs until `stop()`, which resolves with the samples once the requests in flight have answered.
 * A non-200 answer or a network error counts as a failure.
 */
export function pacedReads(
  urlOf: (index: number) => string,
  headers: Record<string, string>,
  ratePerSecond: number,
): { stop(): Promise<PacedSamples> } {
  const samples: PacedSamples = { latenciesMs: [], failures: 0, failureNotes: [] };
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let index = 0;
  let stopped = false;
  const fail = (note: string) => {
    samples.failures += 1;
    if (samples.failureNotes.length < 3) samples.failureNotes.push(note);
  };
  const fire = () => {
    const t0 = performance.now();
    const request = fetch(urlOf(index++), { headers, signal: AbortSignal.timeout(30_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status === 200) samples.latenciesMs.push(performance.now() - t0);
        else fail(`status ${response.status}`);
      })
      .catch((err: unknown) => fail(String(err)))
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
    while (index < due) fire();
    timer = setTimeout(tick, Math.max(1, Math.floor(1000 / ratePerSecond / 2)));
  };
  let timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...inFlight]);
      samples.latenciesMs.sort((a, b) => a - b);
      return samples;
    },
  };
}

/** p50/p99 (ms) and the count of `samples`; NaN percentiles when there are none. */
export function latencySummary(samples: PacedSamples): { count: number; p50: number; p99: number } {
  return {
    count: samples.latenciesMs.length,
    p50: percentileOf(samples.latenciesMs, 0.5),
    p99: percentileOf(samples.latenciesMs, 0.99),
  };
}

/** `GET /v1/cob/runs/{runId}` (P7 "The run"): the fields the benches read. */
export interface CobRun {
  runId: string;
  businessDate: string;
  status: 'RUNNING' | 'COMPLETED' | 'COMPLETED_WITH_ERRORS';
  loans: { total: number; processed: number; failed: number };
  startedAt: string;
  completedAt: string | null;
}

/** Thrown when the service has no close-of-business routes (404 or 405 on `POST /v1/cob/runs`). */
export class CobRoutesMissing extends Error {}

/**
 * `POST /v1/cob/runs {businessDate, loanIds?}` as `session` (P7 "The run"): the run (202 new, 200 the day's run
 * already started). Throws `CobRoutesMissing` on a 404/405 without the spec's resource error (no such route), an
 * Error with the answer for any other status.
 */
export async function startCobRun(
  session: ApiSession,
  body: { businessDate: string; loanIds?: number[] },
  key: string,
): Promise<CobRun> {
  const response = await apiRequest(session, 'POST', '/v1/cob/runs', body, key);
  const text = await response.text();
  if (response.status === 202 || response.status === 200) return JSON.parse(text) as CobRun;
  if (response.status === 404 || response.status === 405)
    throw new CobRoutesMissing(
      `POST /v1/cob/runs answered ${response.status} (${text.slice(0, 200)}): this build has no close-of-business run route`,
    );
  throw new Error(`POST /v1/cob/runs answered ${response.status}: ${text.slice(0, 500)}`);
}

/** `GET /v1/cob/runs/{runId}`; throws unless 200. */
export async function readCobRun(session: ApiSession, runId: string): Promise<CobRun> {
  const response = await apiRequest(session, 'GET', `/v1/cob/runs/${encodeURIComponent(runId)}`, undefined);
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`GET /v1/cob/runs/${runId} answered ${response.status}: ${text}`);
  return JSON.parse(text) as CobRun;
}

/**
 * Polls `GET /v1/cob/runs/{runId}` every `everyMs` until its status is not RUNNING (or `timeoutMs` passes: then
 * throws). `onPoll` sees each answer (progress lines); a failed read (the API busy or restarting) is retried.
 */
export async function waitForCobRun(
  session: ApiSession,
  runId: string,
  options: { everyMs?: number; timeoutMs: number; onPoll?: (run: CobRun) => void },
): Promise<CobRun> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const run = await readCobRun(session, runId).catch(() => null);
    if (run) {
      options.onPoll?.(run);
      if (run.status !== 'RUNNING') return run;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} still running after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 1000));
  }
}

/**
 * The database enforces what the code relies on (docs/processes.md P0), proved by walking the
 * catalog of the migrated test database rather than by trusting the schema files:
 * - every table with a `tenant_id` has row-level security enabled and a policy (platform tables
 *   read before a tenant is known are the listed exceptions);
 * - every reference between tenant tables is a tenant-consistent foreign key (the exact list);
 * - append-only tables refuse UPDATE and DELETE for the application role `lending_app`, in the
 *   privileges and in practice (SQLSTATE 42501), the outbox's `published_at` alone excepted;
 * - a child cannot point at another tenant's parent (SQLSTATE 23503).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;

beforeAll(() => {
  h = createHarness();
});
afterAll(async () => h?.close());

/** Tables with `tenant_id` that are read before a tenant is known (token look-up), hence no RLS. */
const withoutRls: Record<string, string> = {
  api_clients: 'read by client id during the token exchange, before a tenant is known',
  access_tokens: 'read by token digest on every request, before a tenant is known',
  channel_gateways: 'read by gateway code on every channel callback, before a tenant is known',
  voice_task_tokens: 'read by dispatch id on every voice-provider callback, before a tenant is known',
};

const appendOnly = [
  'journal_entries',
  'customer_history',
  'document_history',
  'case_effects',
  'webhook_delivery_attempts',
  'outbox_events',
  'payment_status_history',
  'case_type_field_publications',
  'form_entry_history',
  'voice_dispatch_events',
  'statements',
  'hardship_guardrail_versions',
  'hardship_offer_approvals',
  'loan_schedule_versions',
  'loan_delinquency_history',
];

/** `<child table>.<constraint>` → `(<child columns>) → <parent>(<parent columns>)`, every FK between tenant tables. */
const tenantForeignKeys: Record<string, string> = {
  'ai_output_citations.ai_output_citations_evidence_fk': '(tenant_id,evidence_id) → evidence(tenant_id,id)',
  'ai_output_citations.ai_output_citations_output_fk':
    '(tenant_id,output_id) → ai_session_outputs(tenant_id,id)',
  'ai_session_outputs.ai_session_outputs_review_task_fk': '(tenant_id,review_task_id) → tasks(tenant_id,id)',
  'ai_session_outputs.ai_session_outputs_session_fk': '(tenant_id,session_id) → ai_sessions(tenant_id,id)',
  'ai_sessions.ai_sessions_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'autopay_enrolments.autopay_enrolments_instrument_fk':
    '(tenant_id,instrument_id) → payment_instruments(tenant_id,id)',
  'autopay_enrolments.autopay_enrolments_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'case_effects.case_effects_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'case_type_field_publications.case_type_field_publications_case_type_fk':
    '(tenant_id,case_type_code) → case_types(tenant_id,code)',
  'cases.cases_case_type_fk': '(tenant_id,case_type_code) → case_types(tenant_id,code)',
  'consents.consents_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'contact_consent_updates.contact_consent_updates_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'contact_consent_updates.contact_consent_updates_contact_point_fk':
    '(tenant_id,contact_point_ref) → contact_points(tenant_id,contact_point_ref)',
  'contact_consent_updates.contact_consent_updates_customer_fk':
    '(tenant_id,customer_id) → customers(tenant_id,id)',
  'contact_points.contact_points_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'customer_addresses.customer_addresses_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'customer_history.customer_history_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'customer_identifiers.customer_identifiers_customer_fk':
    '(tenant_id,customer_id) → customers(tenant_id,id)',
  'document_history.document_history_document_fk': '(tenant_id,document_id) → documents(tenant_id,id)',
  'documents.documents_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'documents.documents_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'evidence.evidence_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'evidence.evidence_document_fk': '(tenant_id,document_id) → documents(tenant_id,id)',
  'form_entries.form_entries_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'form_entries.form_entries_publication_fk':
    '(tenant_id,publication_id) → case_type_field_publications(tenant_id,id)',
  'form_entry_history.form_entry_history_entry_fk': '(tenant_id,entry_id) → form_entries(tenant_id,id)',
  'form_entry_history.form_entry_history_publication_fk':
    '(tenant_id,publication_id) → case_type_field_publications(tenant_id,id)',
  'fundings.fundings_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'interactions.interactions_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'journal_entries.journal_entries_account_fk': '(tenant_id,account_code) → gl_accounts(tenant_id,code)',
  'journal_entries.journal_entries_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'journal_entries.journal_entries_reverses_fk':
    '(tenant_id,reverses_entry_id) → journal_entries(tenant_id,id)',
  'cob_run_errors.cob_run_errors_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'cob_run_errors.cob_run_errors_run_fk': '(tenant_id,run_id) → cob_runs(tenant_id,run_id)',
  'loan_charge_offs.loan_charge_offs_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'delinquency_bucket_ranges.delinquency_bucket_ranges_bucket_fk':
    '(tenant_id,bucket_id) → delinquency_buckets(tenant_id,id)',
  'delinquency_bucket_ranges.delinquency_bucket_ranges_range_fk':
    '(tenant_id,range_id) → delinquency_ranges(tenant_id,id)',
  'loan_delinquency_actions.loan_delinquency_actions_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_products.loan_products_delinquency_bucket_fk':
    '(tenant_id,delinquency_bucket_id) → delinquency_buckets(tenant_id,id)',
  'loan_charges.loan_charges_charge_fk': '(tenant_id,charge_id) → charges(tenant_id,id)',
  'loan_charges.loan_charges_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_delinquency_history.loan_delinquency_history_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_installments.loan_installments_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_products.loan_products_nsf_charge_fk': '(tenant_id,nsf_charge_id) → charges(tenant_id,id)',
  'loan_schedule_versions.loan_schedule_versions_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'payment_status_history.payment_status_history_payment_fk':
    '(tenant_id,payment_id) → payments(tenant_id,id)',
  'payments.payments_instrument_fk': '(tenant_id,instrument_id) → payment_instruments(tenant_id,id)',
  'loan_summary_projections.loan_summary_projections_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_parties.loan_parties_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'loan_parties.loan_parties_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'loan_product_charges.loan_product_charges_charge_fk': '(tenant_id,charge_id) → charges(tenant_id,id)',
  'loan_product_charges.loan_product_charges_product_fk':
    '(tenant_id,product_id) → loan_products(tenant_id,id)',
  'loans.loans_client_fk': '(tenant_id,client_id) → customers(tenant_id,id)',
  'loans.loans_product_fk': '(tenant_id,product_id) → loan_products(tenant_id,id)',
  'loans.loans_delinquency_range_fk': '(tenant_id,delinquency_range_id) → delinquency_ranges(tenant_id,id)',
  'hardship_offer_approvals.hardship_offer_approvals_offer_fk':
    '(tenant_id,offer_id) → hardship_offers(tenant_id,id)',
  'boarding_lines.boarding_lines_batch_fk': '(tenant_id,batch_id) → boarding_batches(tenant_id,id)',
  'hardship_offers.hardship_offers_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'hardship_offers.hardship_offers_evidence_fk': '(tenant_id,confirmed_evidence_id) → evidence(tenant_id,id)',
  'hardship_offers.hardship_offers_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'hardship_offers.hardship_offers_program_fk':
    '(tenant_id,program_code) → hardship_programs(tenant_id,program_code)',
  'hardship_program_versions.hardship_program_versions_program_fk':
    '(tenant_id,program_code) → hardship_programs(tenant_id,program_code)',
  'merchant_advances.merchant_advances_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'merchant_remittances.merchant_remittances_advance_fk':
    '(tenant_id,advance_id) → merchant_advances(tenant_id,id)',
  'merchant_sales_reports.merchant_sales_reports_advance_fk':
    '(tenant_id,advance_id) → merchant_advances(tenant_id,id)',
  'payment_instruments.payment_instruments_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'payments.payments_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'privacy_request_evidence.privacy_request_evidence_evidence_fk':
    '(tenant_id,evidence_id) → evidence(tenant_id,id)',
  'privacy_request_evidence.privacy_request_evidence_request_fk':
    '(tenant_id,request_id) → privacy_requests(tenant_id,id)',
  'privacy_requests.privacy_requests_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'privacy_requests.privacy_requests_interaction_fk':
    '(tenant_id,source_interaction_id) → interactions(tenant_id,id)',
  'privacy_requests.privacy_requests_review_task_fk': '(tenant_id,review_task_id) → tasks(tenant_id,id)',
  'statements.statements_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'promises.promises_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'promises.promises_follow_up_task_fk': '(tenant_id,follow_up_task_id) → tasks(tenant_id,id)',
  'promises.promises_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'restrictions.restrictions_customer_fk': '(tenant_id,customer_id) → customers(tenant_id,id)',
  'restrictions.restrictions_loan_fk': '(tenant_id,loan_id) → loans(tenant_id,id)',
  'tasks.tasks_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'voice_dispatch_events.voice_dispatch_events_dispatch_fk':
    '(tenant_id,dispatch_id) → voice_dispatches(tenant_id,id)',
  'voice_dispatches.voice_dispatches_case_fk': '(tenant_id,case_id) → cases(tenant_id,id)',
  'voice_dispatches.voice_dispatches_task_fk': '(tenant_id,task_id) → tasks(tenant_id,id)',
  'voice_dispatches.voice_dispatches_version_fk':
    '(tenant_id,workflow_version_id) → voice_workflow_versions(tenant_id,id)',
  'voice_workflow_versions.voice_workflow_versions_workflow_fk':
    '(tenant_id,workflow_id) → voice_workflows(tenant_id,workflow_id)',
};

async function catalog<T extends Record<string, unknown>>(query: ReturnType<typeof sql>): Promise<T[]> {
  return withPlatformTransaction(h.db, async (tx) => (await tx.execute<T>(query)) as unknown as T[]);
}

describe('database invariants (catalog walk)', () => {
  it('every tenant table is under row-level security with a policy', async () => {
    const rows = await catalog<{ table: string; rls: boolean; policies: number }>(sql`
      select c.relname as table, c.relrowsecurity as rls,
             (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind = 'r'
         and exists (select 1 from pg_attribute a
                      where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
       order by 1`);
    expect(rows.length).toBeGreaterThan(25);
    const unprotected = rows.filter((r) => !(r.rls && r.policies > 0)).map((r) => r.table);
    expect(unprotected.sort()).toEqual(Object.keys(withoutRls).sort());
  });

  it('every reference between tenant tables is a tenant-consistent foreign key', async () => {
    const rows = await catalog<{ child: string; name: string; definition: string }>(sql`
      select c.conrelid::regclass::text as child, c.conname as name,
             '(' || (select string_agg(a.attname, ',' order by k.ord) from unnest(c.conkey) with ordinality k(num, ord)
                      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.num) || ') → '
             || c.confrelid::regclass::text || '('
             || (select string_agg(a.attname, ',' order by k.ord) from unnest(c.confkey) with ordinality k(num, ord)
                  join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.num) || ')' as definition
        from pg_constraint c
       where c.contype = 'f' and c.connamespace = 'public'::regnamespace
         and c.conrelid::regclass::text not in
             ('access_tokens', 'api_clients', 'client_secrets', 'channel_gateways', 'channel_gateway_secrets')
         and c.conrelid::regclass::text not like 'webhook_%'`);
    const found = Object.fromEntries(rows.map((r) => [`${r.child}.${r.name}`, r.definition]));
    expect(found).toEqual(tenantForeignKeys);
  });

  it('append-only tables refuse UPDATE and DELETE for the application role', async () => {
    const rows = await catalog<{
      table: string;
      canInsert: boolean;
      canUpdate: boolean;
      canDelete: boolean;
    }>(sql`
      select t as table,
             has_table_privilege('lending_app', 'public.' || t, 'INSERT') as "canInsert",
             has_table_privilege('lending_app', 'public.' || t, 'UPDATE') as "canUpdate",
             has_table_privilege('lending_app', 'public.' || t, 'DELETE') as "canDelete"
        from unnest(${sql.raw(`array[${appendOnly.map((t) => `'${t}'`).join(',')}]`)}) as t`);
    expect(rows).toEqual(
      appendOnly.map((table) => ({ table, canInsert: true, canUpdate: false, canDelete: false })),
    );
    const [outbox] = await catalog<{ publishedAt: boolean; data: boolean }>(sql`
      select has_column_privilege('lending_app', 'public.outbox_events', 'published_at', 'UPDATE') as "publishedAt",
             has_column_privilege('lending_app', 'public.outbox_events', 'data', 'UPDATE') as data`);
    expect(outbox).toEqual({ publishedAt: true, data: false });
    // Hardship program versions: only the end of a version's period may change (a later version or retirement).
    const [programVersions] = await catalog<{ effectiveTo: boolean; terms: boolean; canDelete: boolean }>(sql`
      select has_column_privilege('lending_app', 'public.hardship_program_versions', 'effective_to', 'UPDATE') as "effectiveTo",
             has_column_privilege('lending_app', 'public.hardship_program_versions', 'terms', 'UPDATE') as terms,
             has_table_privilege('lending_app', 'public.hardship_program_versions', 'DELETE') as "canDelete"`);
    expect(programVersions).toEqual({ effectiveTo: true, terms: false, canDelete: false });
    // An ordinary table stays writable: the revocations are targeted.
    const [cases] = await catalog<{ canUpdate: boolean }>(
      sql`select has_table_privilege('lending_app', 'public.cases', 'UPDATE') as "canUpdate"`,
    );
    expect(cases?.canUpdate).toBe(true);
  });

  it('an UPDATE or DELETE of a history row inside a tenant transaction fails with 42501', async () => {
    const tenant = await newTenant(h, 'inv');
    const { caseId } = await h.activities.openCase({
      tenantId: tenant,
      customerRef: 'cus_inv',
      caseTypeCode: 'PRIVACY',
      summary: 'Invariants',
    });
    for (const statement of [
      sql`update case_effects set effect_type = 'TAMPERED' where case_id = ${caseId}`,
      sql`delete from case_effects where case_id = ${caseId}`,
      sql`update outbox_events set data = '{}'::jsonb`,
    ]) {
      const failure = await withTenantTransaction(h.db, tenant, (tx) => tx.execute(statement)).then(
        () => null,
        (err: { code?: string; cause?: { code?: string } }) => err.cause?.code ?? err.code,
      );
      expect(failure).toBe('42501');
    }
    const effects = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.execute<{ n: number }>(sql`select count(*)::int as n from case_effects where case_id = ${caseId}`),
    );
    expect((effects as unknown as { n: number }[])[0]?.n).toBeGreaterThan(0);
  });

  it("a child cannot point at another tenant's parent (23503)", async () => {
    const tenantA = await newTenant(h, 'inv-a');
    const tenantB = await newTenant(h, 'inv-b');
    const { caseId: caseOfA } = await h.activities.openCase({
      tenantId: tenantA,
      customerRef: 'cus_a',
      caseTypeCode: 'PRIVACY',
      summary: 'A',
    });
    const failure = await withTenantTransaction(h.db, tenantB, (tx) =>
      tx.execute(sql`insert into tasks (tenant_id, case_id, task_type, title, dedupe_key)
                     values (${tenantB}, ${caseOfA}, 'PROBE', 'Probe', 'probe/1')`),
    ).then(
      () => null,
      (err: { code?: string; cause?: { code?: string } }) => err.cause?.code ?? err.code,
    );
    expect(failure).toBe('23503');
  });
});

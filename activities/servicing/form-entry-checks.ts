/**
 * The checks form-entry writes and a case's close share (docs/processes.md P4 "Form entries"): the case held
 * `FOR SHARE` while an entry is written (records.ts `holdOpenCase` rules), the answers error, and the ON_CLOSE
 * answers a close requires (`assertRequiredAnswersBeforeClose`, called under the close's `FOR UPDATE`), so an
 * entry write and a close serialize.
 */
import { and, desc, eq } from 'drizzle-orm';
import { cases, caseTypeFieldPublications, formEntries } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound } from '../../domain/errors';
import { type FieldDefinitions, missingAnswers } from '../../domain/servicing/form-fields';
import { assertCaseTakesRecords } from './records';

/**
 * Throws unless the case may close as far as its form answers go (docs/processes.md P4: "closing a case with a
 * missing ON_CLOSE answer → 409"). The answers checked are those of the case's entry for the newest publication it
 * answered (the newest such entry when several); a case without entries is checked against the latest publication
 * of its case type, with no answers. Call inside the close's transaction, after the case row is locked.
 * Errors: 409 `error.msg.case.close.required.answers.missing` naming each missing field `answers.<fieldKey>`.
 */
export async function assertRequiredAnswersBeforeClose(
  tx: Tx,
  tenantId: string,
  caseId: number,
): Promise<void> {
  const [entry] = await tx
    .select({
      entryId: formEntries.id,
      answers: formEntries.answers,
      fieldDefinitions: caseTypeFieldPublications.fieldDefinitions,
    })
    .from(formEntries)
    .innerJoin(
      caseTypeFieldPublications,
      and(
        eq(caseTypeFieldPublications.tenantId, formEntries.tenantId),
        eq(caseTypeFieldPublications.id, formEntries.publicationId),
      ),
    )
    .where(and(eq(formEntries.tenantId, tenantId), eq(formEntries.caseId, caseId)))
    .orderBy(desc(caseTypeFieldPublications.version), desc(formEntries.id))
    .limit(1);
  let definitions: FieldDefinitions | undefined = entry?.fieldDefinitions;
  if (!entry) {
    const [latest] = await tx
      .select({ fieldDefinitions: caseTypeFieldPublications.fieldDefinitions })
      .from(caseTypeFieldPublications)
      .innerJoin(
        cases,
        and(
          eq(cases.tenantId, caseTypeFieldPublications.tenantId),
          eq(cases.caseTypeCode, caseTypeFieldPublications.caseTypeCode),
        ),
      )
      .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId)))
      .orderBy(desc(caseTypeFieldPublications.version))
      .limit(1);
    definitions = latest?.fieldDefinitions;
  }
  if (!definitions) return;
  const missing = missingAnswers(definitions, entry?.answers ?? {}, 'ON_CLOSE');
  if (missing.length === 0) return;
  const where = entry ? `its form entry ${entry.entryId}` : 'it has no form entry and';
  const message = `Case ${caseId} cannot close: ${where} lacks answers required before closing (ON_CLOSE): ${missing.join(', ')}.`;
  throw new DomainError('error.msg.case.close.required.answers.missing', message, {
    errors: missing.map((key) =>
      fieldError(
        `answers.${key}`,
        null,
        `answers.${key} is required before the case closes (ON_CLOSE).`,
        'error.msg.case.close.required.answers.missing',
        entry ? [{ entryId: entry.entryId }] : [],
      ),
    ),
  });
}

/**
 * Holds the case `FOR SHARE` (a concurrent close waits) and returns its case type code.
 * Errors: 404 naming `caseId` when absent or another tenant's; 409 `error.msg.case.invalid.state.transition`
 * naming `caseId` when the case is not OPEN (records.ts `assertCaseTakesRecords`).
 */
export async function holdOpenCaseOfType(tx: Tx, tenantId: string, caseId: number): Promise<string> {
  const [found] = await tx
    .select({ customerRef: cases.customerRef, status: cases.status, caseTypeCode: cases.caseTypeCode })
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId)))
    .for('share');
  if (!found) throw referenceNotFound('caseId', caseId, 'Case');
  assertCaseTakesRecords(found, caseId, null);
  return found.caseTypeCode;
}

export function answersError(errors: ReturnType<typeof fieldError>[]): DomainError {
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}

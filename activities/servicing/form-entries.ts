/**
 * Form entries: a case's answers to one publication of its case type's field definitions (docs/processes.md P4
 * "Form entries"; spec § Resources "Form entry history item"). Every change appends a history item
 * (`ANSWERS_CREATED` when the entry is created, `ANSWERS_UPDATED` per update that changes something) and a case
 * effect (`FORM_ENTRY_CREATED`, `FORM_ENTRY_UPDATED`) in the same transaction. Answers never go into effects or
 * logs, only into the entry and its history. The case is held `FOR SHARE` (records.ts `holdOpenCase` rules) while
 * an entry is written, so a concurrent close (which takes `FOR UPDATE` and checks ON_CLOSE answers through
 * `assertRequiredAnswersBeforeClose`) sees the entry or waits for it.
 */
import { and, desc, eq } from 'drizzle-orm';
import { type FormEntryView, formEntryView } from '../../db/queries/servicing/form-entries';
import { cases, caseTypeFieldPublications, formEntries, formEntryHistory } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, referenceNotFound } from '../../domain/errors';
import {
  type AnswerChange,
  type Answers,
  answerChanges,
  answersInDefinitionOrder,
  checkAnswers,
  type FieldDefinitions,
  missingAnswers,
} from '../../domain/servicing/form-fields';
import type { Deps, OperationContext } from '../deps';
import { assertCaseTakesRecords, recordEffect, rowOfRequestKey } from './records';

export interface CreateFormEntryInput extends OperationContext {
  caseId: number;
  publicationId: number;
  /** Field key → answer as sent (validated here against the publication; null = not answered). */
  answers: Record<string, unknown>;
}

/**
 * Creates a form entry of an open case for a publication of the case's type, with the answers validated by
 * field type (domain/servicing/form-fields.ts `checkAnswers`; ON_CREATE fields required). Idempotent by
 * `requestKey`: a retry returns the entry the first call created.
 * Errors: 404 `error.msg.resource.not.found` naming `caseId` or `publicationId` when absent or another tenant's;
 * 409 `error.msg.case.invalid.state.transition` naming `caseId` when the case is not OPEN; 409
 * `error.msg.form.entry.case.type.mismatch` naming `publicationId` when it belongs to another case type; 400
 * `validation.msg.validation.errors.exist` naming each bad answer `answers.<fieldKey>` (unknown keys included).
 */
export function createFormEntry(deps: Deps) {
  return async (input: CreateFormEntryInput): Promise<FormEntryView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [done] = await tx
          .select()
          .from(formEntries)
          .where(and(eq(formEntries.tenantId, input.tenantId), eq(formEntries.requestKey, input.requestKey)));
        if (done) return formEntryView(done);
      }
      const caseTypeCode = await holdOpenCaseOfType(tx, input.tenantId, input.caseId);
      const [publication] = await tx
        .select()
        .from(caseTypeFieldPublications)
        .where(
          and(
            eq(caseTypeFieldPublications.tenantId, input.tenantId),
            eq(caseTypeFieldPublications.id, input.publicationId),
          ),
        );
      if (!publication) throw referenceNotFound('publicationId', input.publicationId, 'Publication');
      if (publication.caseTypeCode !== caseTypeCode) {
        const message = `publicationId: publication ${input.publicationId} defines fields of case type ${publication.caseTypeCode}; case ${input.caseId} is of case type ${caseTypeCode}.`;
        throw new DomainError('error.msg.form.entry.case.type.mismatch', message, {
          errors: [
            fieldError(
              'publicationId',
              input.publicationId,
              message,
              'error.msg.form.entry.case.type.mismatch',
            ),
          ],
        });
      }
      const checked = checkAnswers(publication.fieldDefinitions, input.answers, 'create');
      if (!checked.ok) throw answersError(checked.errors);
      const answers = checked.answers as Answers;
      const now = deps.clock();
      const [created] = await tx
        .insert(formEntries)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          publicationId: input.publicationId,
          answers,
          actorUsername: input.actor ?? null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [formEntries.tenantId, formEntries.requestKey] })
        .returning();
      if (!created)
        return formEntryView(await rowOfRequestKey(tx, formEntries, input.tenantId, input.requestKey));
      const { changes } = answerChanges({}, answersInDefinitionOrder(publication.fieldDefinitions, answers));
      await tx.insert(formEntryHistory).values({
        tenantId: input.tenantId,
        entryId: created.id,
        action: 'ANSWERS_CREATED',
        publicationId: input.publicationId,
        changes,
        reason: null,
        actorUsername: input.actor ?? null,
        correlationId: input.correlationId ?? null,
        occurredAt: now,
      });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'FORM_ENTRY_CREATED',
        subjectType: 'form_entry',
        subjectId: created.id,
        detail: {
          entryId: created.id,
          publicationId: input.publicationId,
          answeredFieldKeys: changes.map((change) => change.fieldKey),
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `form-entry/${created.id}/created`,
      });
      return formEntryView(created);
    });
}

export interface UpdateFormEntryInput extends OperationContext {
  entryId: number;
  /** Field key → new answer, or null to clear it; keys not named keep their answers. */
  answers: Record<string, unknown>;
  /** Why the answers change, 1–2000 characters (kept in the history item). */
  reason: string;
}

export interface UpdateFormEntryResult extends FormEntryView {
  /** What this call changed (empty: nothing changed and no history item was written). */
  changes: AnswerChange[];
}

/**
 * Changes answers of a form entry of an open case and appends `ANSWERS_UPDATED` with one `SET`/`CLEAR` change
 * per answer that differs (`before`/`after`), the reason and the actor; a patch that changes nothing writes
 * nothing. Idempotent by `requestKey`: a retry returns the entry as it stands with the first call's changes.
 * Errors: 404 `error.msg.resource.not.found` when the entry is absent or another tenant's; 409
 * `error.msg.case.invalid.state.transition` naming `caseId` when its case is not OPEN; 400
 * `validation.msg.validation.errors.exist` naming each bad answer `answers.<fieldKey>` (unknown keys, wrong types,
 * clearing an ON_CREATE field).
 */
export function updateFormEntry(deps: Deps) {
  return async (input: UpdateFormEntryInput): Promise<UpdateFormEntryResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [located] = await tx
        .select({ caseId: formEntries.caseId })
        .from(formEntries)
        .where(and(eq(formEntries.tenantId, input.tenantId), eq(formEntries.id, input.entryId)));
      if (!located) throw notFound('Form entry', input.entryId);
      if (input.requestKey) {
        const [done] = await tx
          .select({ changes: formEntryHistory.changes })
          .from(formEntryHistory)
          .where(
            and(
              eq(formEntryHistory.tenantId, input.tenantId),
              eq(formEntryHistory.requestKey, input.requestKey),
            ),
          );
        if (done) {
          const [current] = await tx
            .select()
            .from(formEntries)
            .where(and(eq(formEntries.tenantId, input.tenantId), eq(formEntries.id, input.entryId)));
          if (current) return { ...formEntryView(current), changes: done.changes };
        }
      }
      // Case before entry, the order every writer takes (a close locks the case first too).
      await holdOpenCaseOfType(tx, input.tenantId, located.caseId);
      const [entry] = await tx
        .select()
        .from(formEntries)
        .where(and(eq(formEntries.tenantId, input.tenantId), eq(formEntries.id, input.entryId)))
        .for('update');
      if (!entry) throw notFound('Form entry', input.entryId);
      const [publication] = await tx
        .select({ fieldDefinitions: caseTypeFieldPublications.fieldDefinitions })
        .from(caseTypeFieldPublications)
        .where(
          and(
            eq(caseTypeFieldPublications.tenantId, input.tenantId),
            eq(caseTypeFieldPublications.id, entry.publicationId),
          ),
        );
      if (!publication) throw new Error(`publication ${entry.publicationId} of entry ${entry.id} vanished`);
      const checked = checkAnswers(publication.fieldDefinitions, input.answers, 'update');
      if (!checked.ok) throw answersError(checked.errors);
      const { changes, answers } = answerChanges(entry.answers, checked.answers);
      if (changes.length === 0) return { ...formEntryView(entry), changes };
      const now = deps.clock();
      const [updated] = await tx
        .update(formEntries)
        .set({ answers, updatedAt: now })
        .where(and(eq(formEntries.tenantId, input.tenantId), eq(formEntries.id, input.entryId)))
        .returning();
      if (!updated) throw new Error(`form entry ${input.entryId} vanished under its lock`);
      const [item] = await tx
        .insert(formEntryHistory)
        .values({
          tenantId: input.tenantId,
          entryId: entry.id,
          action: 'ANSWERS_UPDATED',
          publicationId: entry.publicationId,
          changes,
          reason: input.reason,
          actorUsername: input.actor ?? null,
          correlationId: input.correlationId ?? null,
          occurredAt: now,
          requestKey: input.requestKey ?? null,
        })
        .returning({ id: formEntryHistory.id });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: entry.caseId,
        effectType: 'FORM_ENTRY_UPDATED',
        subjectType: 'form_entry',
        subjectId: entry.id,
        detail: {
          entryId: entry.id,
          publicationId: entry.publicationId,
          changedFieldKeys: changes.map((change) => change.fieldKey),
          reason: input.reason,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `form-entry/${entry.id}/history/${item?.id}`,
      });
      return { ...formEntryView(updated), changes };
    });
}

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
async function holdOpenCaseOfType(tx: Tx, tenantId: string, caseId: number): Promise<string> {
  const [found] = await tx
    .select({ customerRef: cases.customerRef, status: cases.status, caseTypeCode: cases.caseTypeCode })
    .from(cases)
    .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId)))
    .for('share');
  if (!found) throw referenceNotFound('caseId', caseId, 'Case');
  assertCaseTakesRecords(found, caseId, null);
  return found.caseTypeCode;
}

function answersError(errors: ReturnType<typeof fieldError>[]): DomainError {
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}

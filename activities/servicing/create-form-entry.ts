/**
 * Creates a form entry: a case's answers to one publication of its case type's field definitions
 * (docs/processes.md P4 "Form entries"; docs/servicing.md "Case types, field definitions and form entries"). The entry, its
 * `ANSWERS_CREATED` history item and its `FORM_ENTRY_CREATED` case effect are written in one tenant transaction;
 * answers never go into effects or logs. The case is held `FOR SHARE` while the entry is written
 * (form-entry-checks.ts `holdOpenCaseOfType`), so a concurrent close sees the entry or waits for it.
 */
import { and, eq } from 'drizzle-orm';
import { type FormEntryView, formEntryView } from '../../db/queries/servicing/form-entries';
import { caseTypeFieldPublications, formEntries, formEntryHistory } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, referenceNotFound } from '../../domain/errors';
import {
  type Answers,
  answerChanges,
  answersInDefinitionOrder,
  checkAnswers,
} from '../../domain/servicing/form-fields';
import type { Deps, OperationContext } from '../deps';
import { answersError, holdOpenCaseOfType } from './form-entry-checks';
import { recordEffect, rowOfRequestKey } from './records';

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

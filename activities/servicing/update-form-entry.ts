/**
 * Changes a form entry's answers (docs/processes.md P4 "Form entries"; docs/servicing.md "Case types, field definitions and form entries"): the entry, an `ANSWERS_UPDATED` history item per update that changes something and a
 * `FORM_ENTRY_UPDATED` case effect are written in one tenant transaction; answers never go into effects or logs.
 * The case is held `FOR SHARE` before the entry `FOR UPDATE` (the order a close takes them in).
 */
import { and, eq } from 'drizzle-orm';
import { type FormEntryView, formEntryView } from '../../db/queries/servicing/form-entries';
import { caseTypeFieldPublications, formEntries, formEntryHistory } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import { type AnswerChange, answerChanges, checkAnswers } from '../../domain/servicing/form-fields';
import type { Deps, OperationContext } from '../deps';
import { answersError, holdOpenCaseOfType } from './form-entry-checks';
import { recordEffect } from './records';

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

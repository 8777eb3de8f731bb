/**
 * Publishes a new version of a case type's field definitions (docs/processes.md P4 "Case types and field
 * definitions"; docs/servicing.md "Case types, field definitions and form entries"); publications are append-only.
 */
import { and, eq, max } from 'drizzle-orm';
import { caseTypeFieldPublications, caseTypes } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import { definitionErrors, type FieldDefinitions } from '../../domain/servicing/form-fields';
import type { Deps, OperationContext } from '../deps';

export interface PublishFieldDefinitionsInput extends OperationContext {
  caseTypeCode: string;
  /** Shape-checked by the API schema; the cross-field rules are checked here (`definitionErrors`). */
  fieldDefinitions: FieldDefinitions;
}

export interface PublicationResult {
  caseTypeCode: string;
  /** Identifier form entries name. */
  publicationId: number;
  /** 1 for the first publication of the type, then +1 each. */
  version: number;
  fieldDefinitions: FieldDefinitions;
}

/**
 * Publishes a new version of a case type's field definitions (append-only; version = latest + 1, taken under a
 * lock of the case type row so concurrent publications number one after the other). Idempotent by `requestKey`.
 * Errors: 404 `error.msg.resource.not.found` when the tenant has no such case type; 400
 * `validation.msg.validation.errors.exist` naming each broken rule of `definitionErrors` (duplicate keys, ENUM
 * without options, …); nothing is written then.
 */
export function publishFieldDefinitions(deps: Deps) {
  return async (input: PublishFieldDefinitionsInput): Promise<PublicationResult> => {
    const errors = definitionErrors(input.fieldDefinitions);
    if (errors.length > 0) {
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        errors.map((e) => e.developerMessage).join(' '),
        { errors },
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [caseType] = await tx
        .select({ code: caseTypes.code })
        .from(caseTypes)
        .where(and(eq(caseTypes.tenantId, input.tenantId), eq(caseTypes.code, input.caseTypeCode)))
        .for('update');
      if (!caseType) throw notFound('Case type', input.caseTypeCode);
      if (input.requestKey) {
        const [done] = await tx
          .select()
          .from(caseTypeFieldPublications)
          .where(
            and(
              eq(caseTypeFieldPublications.tenantId, input.tenantId),
              eq(caseTypeFieldPublications.requestKey, input.requestKey),
            ),
          );
        if (done) return publicationView(done);
      }
      const [latest] = await tx
        .select({ version: max(caseTypeFieldPublications.version) })
        .from(caseTypeFieldPublications)
        .where(
          and(
            eq(caseTypeFieldPublications.tenantId, input.tenantId),
            eq(caseTypeFieldPublications.caseTypeCode, input.caseTypeCode),
          ),
        );
      const [published] = await tx
        .insert(caseTypeFieldPublications)
        .values({
          tenantId: input.tenantId,
          caseTypeCode: input.caseTypeCode,
          version: (latest?.version ?? 0) + 1,
          fieldDefinitions: input.fieldDefinitions,
          actorUsername: input.actor ?? null,
          correlationId: input.correlationId ?? null,
          publishedAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .returning();
      if (!published) throw new Error('publication insert returned nothing');
      return publicationView(published);
    });
  };
}

function publicationView(row: typeof caseTypeFieldPublications.$inferSelect): PublicationResult {
  return {
    caseTypeCode: row.caseTypeCode,
    publicationId: row.id,
    version: row.version,
    fieldDefinitions: row.fieldDefinitions,
  };
}

/**
 * Validation of staged lines, page by page and kind by kind (docs/processes.md P3 "validates everything
 * first (report, nothing written)"): `validateBoardingPage`.
 */
import { sql } from 'drizzle-orm';
import { intArrayLiteral } from '../../db/queries/json-rows';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';
import { type DomainError, shapeAOf, validationError } from '../../domain/errors';
import type { Deps } from '../deps';
import { bodyReferenceError, parseLineBody } from './line-schemas';
import { type LineOutcome, readLines, readLinesByRef, readSourceRefs, refKey, writeOutcomes } from './lines';

export interface ValidateBoardingPageInput {
  tenantId: string;
  batchId: number;
  kind: BoardingKind;
  /** Validates PENDING lines of `kind` with a line number above this one. */
  afterLine: number;
  /** Lines per page (default 2,000). */
  limit?: number;
}

export interface ValidateBoardingPageResult {
  /** The last line number of the page (the next page's `afterLine`); null when the page was empty. */
  lastLine: number | null;
  /** True when no PENDING line of the kind is left after this page. */
  done: boolean;
  /** Lines checked and lines failed by this call. */
  checked: number;
  failed: number;
}

/** One cross reference of a line: the body field that names it and the (kind, sourceRef) it must point at. */
interface Reference {
  field: string;
  kind: BoardingKind;
  sourceRef: string;
}

const kindNames: Record<BoardingKind, string> = {
  charge: 'charge',
  loanProduct: 'loan product',
  customer: 'customer',
  restriction: 'restriction',
  loan: 'loan',
  funding: 'funding',
  payment: 'payment',
  verification: 'verification',
};

/** The source refs a parsed body points at (docs/processes.md P3). */
function referencesOf(kind: BoardingKind, body: Record<string, unknown>): Reference[] {
  const refs: Reference[] = [];
  const push = (field: string, refKind: BoardingKind, value: unknown) => {
    if (typeof value === 'string') refs.push({ field, kind: refKind, sourceRef: value });
  };
  if (kind === 'loanProduct') {
    for (const [i, ref] of ((body.chargeSourceRefs as unknown[]) ?? []).entries()) {
      push(`chargeSourceRefs[${i}]`, 'charge', ref);
    }
    push('nsfChargeSourceRef', 'charge', body.nsfChargeSourceRef);
  }
  if (kind === 'restriction' || kind === 'loan' || kind === 'verification') {
    push('customerSourceRef', 'customer', body.customerSourceRef);
  }
  if (kind === 'loan') {
    push('productSourceRef', 'loanProduct', body.productSourceRef);
    for (const [i, charge] of ((body.charges as { chargeSourceRef?: unknown }[] | null) ?? []).entries()) {
      push(`charges[${i}].chargeSourceRef`, 'charge', charge.chargeSourceRef);
    }
  }
  if (kind === 'funding' || kind === 'payment') push('loanSourceRef', 'loan', body.loanSourceRef);
  return refs;
}

/** Instrument source refs of a customer body (`paymentInstruments[].sourceRef`). */
export function instrumentRefsOf(body: unknown): string[] {
  const items = (body as { paymentInstruments?: { sourceRef?: unknown }[] } | null)?.paymentInstruments;
  if (!Array.isArray(items)) return [];
  return items.flatMap((i) => (typeof i?.sourceRef === 'string' ? [i.sourceRef] : []));
}

/**
 * Validates one page of a batch's lines of one kind (portfolio boarding, docs/processes.md P3 "validates everything
 * first (report, nothing written)"). Lines are validated kind by kind in boarding order, so the lines a
 * page points at are already final. For each PENDING line of `kind` after `afterLine` (at most `limit`, by line
 * number):
 * 1. the body is parsed with its kind's schema (line-schemas.ts: the public route's schema with source refs);
 * 2. a source ref already used by an earlier valid line of the same kind in the batch is a duplicate;
 * 3. every source ref the body names must be a valid (not FAILED) line of the right kind in this batch, or have been
 *    boarded before (`boarding_source_refs`); a verification's `instrumentSourceRef` must be a
 *    `paymentInstruments[].sourceRef` of its customer's line. A funding or payment of a loan whose line failed
 *    fails with "loan … failed validation"; a bad payment never fails its loan (lines fail alone).
 * A bad line becomes FAILED with the Shape A body of a 400 `validation.msg.validation.errors.exist`, its field
 * errors named `body.<field>`. Valid lines stay PENDING (their `parentSourceRef` corrected from the body when the
 * staging disagreed). Nothing is written to business tables. One transaction; running it again is harmless.
 */
export function validateBoardingPage(deps: Deps) {
  return async (input: ValidateBoardingPageInput): Promise<ValidateBoardingPageResult> => {
    const limit = input.limit ?? 2_000;
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const where = { tenantId: input.tenantId, batchId: input.batchId };
      const lines = await readLines(tx, {
        ...where,
        dataEncryptionKey: deps.dataEncryptionKey,
        kind: input.kind,
        afterLine: input.afterLine,
        limit,
      });
      if (lines.length === 0) return { lastLine: null, done: true, checked: 0, failed: 0 };
      const failures = new Map<number, DomainError>();
      const parsed = new Map<number, Record<string, unknown>>();
      for (const line of lines) {
        const result = parseLineBody(input.kind, line.body);
        if (result.ok) parsed.set(line.lineNo, result.value as Record<string, unknown>);
        else failures.set(line.lineNo, result.error);
      }

      // Duplicates of the same kind, and the lines and earlier boardings every reference points at.
      const references = new Map<number, Reference[]>();
      const wanted: { kind: BoardingKind; sourceRef: string }[] = lines.map((l) => ({
        kind: input.kind,
        sourceRef: l.sourceRef,
      }));
      for (const [lineNo, body] of parsed) {
        const refs = referencesOf(input.kind, body);
        if (input.kind === 'customer') {
          const seen = new Set<string>();
          for (const [i, ref] of instrumentRefsOf(body).entries()) {
            if (seen.has(ref)) {
              failures.set(
                lineNo,
                bodyReferenceError(
                  `paymentInstruments[${i}].sourceRef`,
                  ref,
                  `paymentInstruments[${i}].sourceRef ${ref} is used by another instrument of this customer.`,
                ),
              );
            }
            seen.add(ref);
          }
        }
        references.set(lineNo, refs);
        wanted.push(...refs);
      }
      // A verification's instrument may have been boarded by an earlier batch: those refs are read with the rest.
      const instruments: { kind: string; sourceRef: string }[] = [];
      if (input.kind === 'verification') {
        for (const body of parsed.values()) {
          if (typeof body.customerSourceRef === 'string' && typeof body.instrumentSourceRef === 'string')
            instruments.push({
              kind: 'paymentInstrument',
              sourceRef: `${body.customerSourceRef}/${body.instrumentSourceRef}`,
            });
        }
      }
      const batchLines = await readLinesByRef(tx, { ...where, refs: wanted });
      const boardedBefore = await readSourceRefs(tx, input.tenantId, [...wanted, ...instruments]);
      const linesOfRef = new Map<string, typeof batchLines>();
      for (const l of batchLines) {
        const key = refKey(l.kind, l.sourceRef);
        linesOfRef.set(key, [...(linesOfRef.get(key) ?? []), l]);
      }

      for (const line of lines) {
        if (failures.has(line.lineNo)) continue;
        const earlier = (linesOfRef.get(refKey(input.kind, line.sourceRef)) ?? []).find(
          (l) => l.lineNo < line.lineNo && l.state !== 'FAILED' && !failures.has(l.lineNo),
        );
        if (earlier) {
          failures.set(
            line.lineNo,
            validationError(
              'sourceRef',
              line.sourceRef,
              `sourceRef ${line.sourceRef} is already used by the ${kindNames[input.kind]} of line ${earlier.lineNo}.`,
            ),
          );
          continue;
        }
        const body = parsed.get(line.lineNo) ?? {};
        for (const ref of references.get(line.lineNo) ?? []) {
          const key = refKey(ref.kind, ref.sourceRef);
          if (boardedBefore.has(key)) continue;
          const candidates = linesOfRef.get(key) ?? [];
          const valid = candidates.find((l) => l.state !== 'FAILED');
          if (valid) {
            if (input.kind === 'verification' && ref.kind === 'customer') {
              const instrument = body.instrumentSourceRef as string;
              const instrumentBoarded = boardedBefore.has(
                refKey('paymentInstrument', `${ref.sourceRef}/${instrument}`),
              );
              if (!instrumentRefsOf(valid.body).includes(instrument) && !instrumentBoarded) {
                failures.set(
                  line.lineNo,
                  bodyReferenceError(
                    'instrumentSourceRef',
                    instrument,
                    `instrumentSourceRef ${instrument} is not a payment instrument of customer ${ref.sourceRef}.`,
                  ),
                );
                break;
              }
            }
            continue;
          }
          const message =
            candidates.length > 0
              ? `${ref.field} ${ref.sourceRef}: the ${kindNames[ref.kind]} of line ${candidates[0]?.lineNo} failed validation.`
              : `${ref.field} ${ref.sourceRef}: no ${kindNames[ref.kind]} with this sourceRef in the batch, and none boarded before.`;
          failures.set(line.lineNo, bodyReferenceError(ref.field, ref.sourceRef, message));
          break;
        }
      }

      const outcomes: LineOutcome[] = [...failures].map(([lineNo, err]) => ({
        lineNo,
        state: 'FAILED',
        resourceId: null,
        error: shapeAOf(err),
      }));
      await writeOutcomes(tx, where, outcomes, []);
      await fixParentRefs(tx, where, lines, parsed, failures);
      const last = lines[lines.length - 1]?.lineNo ?? input.afterLine;
      return { lastLine: last, done: lines.length < limit, checked: lines.length, failed: failures.size };
    });
  };
}

/** Sets `parentSourceRef` of valid lines from their body where the staging left another value. */
async function fixParentRefs(
  tx: Tx,
  where: { tenantId: string; batchId: number },
  lines: { lineNo: number; parentSourceRef: string | null }[],
  parsed: Map<number, Record<string, unknown>>,
  failures: Map<number, unknown>,
): Promise<void> {
  const fixes: { line_no: number; parent: string }[] = [];
  for (const line of lines) {
    const body = parsed.get(line.lineNo);
    if (!body || failures.has(line.lineNo)) continue;
    const parent = (body.loanSourceRef ?? body.customerSourceRef) as string | undefined;
    if (parent !== undefined && parent !== line.parentSourceRef) fixes.push({ line_no: line.lineNo, parent });
  }
  if (fixes.length === 0) return;
  await tx.execute(sql`
    update boarding_lines l set parent_source_ref = f.parent
    from jsonb_to_recordset(${JSON.stringify(fixes)}::jsonb) as f(line_no integer, parent text)
    where l.tenant_id = ${where.tenantId} and l.batch_id = ${where.batchId}
      and l.line_no = any(${intArrayLiteral(fixes.map((f) => f.line_no))}::int[]) and l.line_no = f.line_no`);
}

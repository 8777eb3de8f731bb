/**
 * Boards one chunk of staged lines of one kind (portfolio boarding, docs/processes.md P3) through the route
 * operations, idempotent by source keys: `boardBoardingChunk`. The jobs of a chunk are in their modules: catalogue
 * lines (board-catalog-lines.ts), customers and restrictions (board-customer-lines.ts), loans with their fundings
 * and payments (board-loan-lines.ts), verifications (board-verification-lines.ts), and the shared transaction of
 * customers, loans or verifications with the flush of their buffered writes (board-lines-together.ts), over what a
 * chunk shares (chunk-run.ts).
 */

import { withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';
import { shapeAOf } from '../../domain/errors';
import type { Deps } from '../deps';
import { withEventOrigin } from '../platform/outbox';
import { boardChargeLine, boardLoanProductLine } from './board-catalog-lines';
import { boardCustomerLine, boardRestrictionLine } from './board-customer-lines';
import { boardLinesTogether } from './board-lines-together';
import { boardLaterHistoryLines, boardLoanLine } from './board-loan-lines';
import { boardVerificationLine } from './board-verification-lines';
import { boardingOperations, ChunkOutcomes, type ChunkRun } from './chunk-run';
import { boardingRequestKey, lineError, lineShape } from './line-mappers';
import { type BoardingBody, bodyReferenceError, parseLineBody } from './line-schemas';
import { readChildLines, readLines, readSourceRefs, type StagedLine, writeOutcomes } from './lines';
import type { BoardingChunk } from './plan-boarding-chunks';

export interface BoardBoardingChunkInput extends BoardingChunk {
  tenantId: string;
  batchId: number;
  /** charge, loanProduct, customer, restriction, loan (with its fundings and payments) or verification. */
  kind: BoardingKind;
}

/** Lines boarded and failed by one call, per kind (a hint for progress; the batch's counts are recounted). */
export type BoardingCountsDelta = Partial<Record<BoardingKind, { boarded: number; failed: number }>>;

/**
 * Boards one chunk of lines of one kind (portfolio boarding, docs/processes.md P3) through the same
 * operations the routes use (`createActivities` members), in line order:
 * - `charge` → createCharge; `loanProduct` → createLoanProduct (charges by their boarded source refs);
 * - `customer` → createCustomer (externalId default the sourceRef), then addCustomerIdentifier, recordCustomerConsent
 *   and addPaymentInstrument for each item (instrument source refs recorded as kind `paymentInstrument`,
 *   `<customerSourceRef>/<instrumentSourceRef>`);
 * - `restriction` → applyRestriction; `verification` → verifyPaymentInstrument;
 * - `funding` / `payment` lines still PENDING after the loans (their loan boarded by an earlier batch) → by loan,
 *   as below;
 * - `loan` → loan by loan: createLoan (externalId default the sourceRef), approveLoan while SUBMITTED (on
 *   `approval` or else its submittedOnDate for the full principal), recordExternalFunding per funding line (by
 *   fundingDate), then recordExternalPaymentHistory with all its payment lines in chronological order (one
 *   allocation and ledger repost per loan). A loan that fails fails its funding and payment lines with it; a bad
 *   funding or payment fails alone. One loan's failure never stops the chunk.
 *
 * Customers, loans and verifications that can board in one step board in shared transactions
 * (board-lines-together.ts); the others, and a line that fails there, board on their own.
 *
 * Idempotent by source keys: every operation gets `requestKey` `boarding/<kind>/<sourceRef>` (or is deduplicated by
 * its own key: identifiers by value, instruments by token, fundings and payments by `externalRecordRef`, default the
 * sourceRef), so an activity retried after a crash returns what the first attempt created. A (kind, sourceRef)
 * already in `boarding_source_refs` (a retry, or the same file uploaded again as a new batch) is not boarded again:
 * the line ends BOARDED with the existing `resourceId`. The lines' outcomes and the new source refs are written in
 * one transaction at the end of the chunk. A 4xx DomainError fails its line (Shape A in `error`); any other error
 * fails the call (Temporal retries it).
 *
 * Every event the chunk's operations write is marked `source` `BOARDING` with the batch id (`withEventOrigin`), so
 * that only subscriptions with `includeBoardedHistory` receive the migrated history (workers/outbox-relay.ts).
 */
export function boardBoardingChunk(deps: Deps) {
  const ops = boardingOperations(deps);
  return (input: BoardBoardingChunkInput): Promise<BoardingCountsDelta> =>
    withEventOrigin({ source: 'BOARDING', boardingBatchId: input.batchId }, () =>
      boardChunk(deps, ops, input),
    );
}

async function boardChunk(
  deps: Deps,
  ops: ChunkRun['ops'],
  input: BoardBoardingChunkInput,
): Promise<BoardingCountsDelta> {
  const where = { tenantId: input.tenantId, batchId: input.batchId };
  const context = { tenantId: input.tenantId, actor: `boarding-batch-${input.batchId}` };
  const lines = await withTenantTransaction(deps.db, input.tenantId, (tx) =>
    readLines(tx, {
      ...where,
      dataEncryptionKey: deps.dataEncryptionKey,
      kind: input.kind,
      afterLine: input.afterLine,
      throughLine: input.throughLine,
    }),
  );
  const children =
    input.kind === 'loan'
      ? await withTenantTransaction(deps.db, input.tenantId, (tx) =>
          readChildLines(tx, {
            ...where,
            kinds: ['funding', 'payment'],
            parentSourceRefs: lines.map((l) => l.sourceRef),
          }),
        )
      : [];
  const allLines = [...lines, ...children];
  const known = await withTenantTransaction(deps.db, input.tenantId, (tx) =>
    readSourceRefs(tx, input.tenantId, referencedSourceRefs(input.kind, lines, allLines)),
  );
  const run: ChunkRun = { deps, ops, context, children, outcomes: new ChunkOutcomes(known) };

  const alone = (line: StagedLine) => boardAlone(run, line);
  if (input.kind === 'funding' || input.kind === 'payment') await boardLaterHistoryLines(run, lines);
  else if (input.kind === 'loan' || input.kind === 'customer' || input.kind === 'verification')
    await boardLinesTogether(run, input.kind, lines, alone);
  else for (const line of lines) await alone(line);
  const { outcomes } = run;
  await withTenantTransaction(deps.db, input.tenantId, (tx) =>
    writeOutcomes(tx, where, outcomes.lines, outcomes.boarded),
  );
  const delta: BoardingCountsDelta = {};
  const kindOfLine = new Map(allLines.map((l) => [l.lineNo, l.kind]));
  for (const o of outcomes.lines) {
    const kind = kindOfLine.get(o.lineNo);
    if (!kind) continue;
    const d = delta[kind] ?? { boarded: 0, failed: 0 };
    if (o.state === 'FAILED') d.failed += 1;
    else d.boarded += 1;
    delta[kind] = d;
  }
  return delta;
}

/**
 * The source refs the chunk's lines are and name (`allLines`: the lines of `kind` and their loans' children): a
 * funding's or payment's loan, a product's charges, a loan's borrower, product and charges, a restriction's or
 * verification's customer and a verification's instrument.
 */
function referencedSourceRefs(
  kind: BoardingKind,
  lines: StagedLine[],
  allLines: StagedLine[],
): { kind: string; sourceRef: string }[] {
  const refs: { kind: string; sourceRef: string }[] = allLines.map((l) => ({
    kind: l.kind,
    sourceRef: l.sourceRef,
  }));
  for (const line of lines) {
    if ((line.kind === 'funding' || line.kind === 'payment') && line.parentSourceRef) {
      refs.push({ kind: 'loan', sourceRef: line.parentSourceRef });
    }
    const body = line.body as Record<string, unknown> | undefined;
    for (const ref of (body?.chargeSourceRefs as string[] | undefined) ?? [])
      refs.push({ kind: 'charge', sourceRef: ref });
    if (typeof body?.nsfChargeSourceRef === 'string')
      refs.push({ kind: 'charge', sourceRef: body.nsfChargeSourceRef });
    for (const c of (body?.charges as { chargeSourceRef?: string }[] | undefined) ?? []) {
      if (typeof c?.chargeSourceRef === 'string') refs.push({ kind: 'charge', sourceRef: c.chargeSourceRef });
    }
    if (typeof body?.customerSourceRef === 'string')
      refs.push({ kind: 'customer', sourceRef: body.customerSourceRef });
    if (typeof body?.productSourceRef === 'string')
      refs.push({ kind: 'loanProduct', sourceRef: body.productSourceRef });
    if (kind === 'verification' && typeof body?.instrumentSourceRef === 'string') {
      refs.push({
        kind: 'paymentInstrument',
        sourceRef: `${body.customerSourceRef}/${body.instrumentSourceRef}`,
      });
    }
  }
  return refs;
}

/**
 * One line on its own, in its operation's transactions: a line already boarded (but a loan, which still boards
 * the fundings and payments it does not have yet) ends BOARDED with its resource; a body that does not parse, or a
 * line error of its operation, fails the line; any other error is thrown (the activity is retried).
 */
async function boardAlone(run: ChunkRun, line: StagedLine): Promise<void> {
  try {
    await boardLine(run, line);
  } catch (err) {
    const bad = lineError(err);
    if (!bad) throw err;
    run.outcomes.fail(line, lineShape(bad));
  }
}

/** `boardAlone`'s dispatch by the line's kind (its errors thrown). */
async function boardLine(run: ChunkRun, line: StagedLine): Promise<void> {
  const { outcomes } = run;
  const existing = outcomes.idOf(line.kind, line.sourceRef);
  // A boarded loan still boards the fundings and payments it does not have yet (boardLoan).
  if (existing !== undefined && line.kind !== 'loan') return outcomes.boardedBefore(line, existing);
  const parsed = parseLineBody(line.kind, line.body);
  if (!parsed.ok) return outcomes.fail(line, shapeAOf(parsed.error));
  const requestKey = boardingRequestKey(line.kind, line.sourceRef);
  switch (line.kind) {
    case 'charge':
      return boardChargeLine(run, line, parsed.value as BoardingBody<'charge'>, requestKey);
    case 'loanProduct':
      return boardLoanProductLine(run, line, parsed.value as BoardingBody<'loanProduct'>, requestKey);
    case 'customer':
      return boardCustomerLine(run, line, parsed.value as BoardingBody<'customer'>, requestKey);
    case 'restriction':
      return boardRestrictionLine(run, line, parsed.value as BoardingBody<'restriction'>, requestKey);
    case 'verification':
      return boardVerificationLine(run, line, parsed.value as BoardingBody<'verification'>);
    case 'loan':
      return boardLoanLine(run, line, parsed.value as BoardingBody<'loan'>, requestKey);
    default:
      return outcomes.fail(
        line,
        shapeAOf(bodyReferenceError('kind', line.kind, `${line.kind} lines board with their loan.`)),
      );
  }
}

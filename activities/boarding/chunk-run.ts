/**
 * What the jobs of one boarding chunk share (board-boarding-chunk.ts, docs/processes.md P3): the route operations
 * and the request context its lines board through, the funding and payment lines of its loans, and its record of
 * line outcomes, boarded source refs and source refs known so far (`ChunkOutcomes`); and how a line boards inside
 * the chunk's shared transaction (`TogetherPlan`, board-lines-together.ts).
 */
import type { Tx } from '../../db/tenant-tx';
import type { DomainError, ShapeABody } from '../../domain/errors';
import { createCustomerActivities } from '../customers';
import type { CustomerWriteBuffers } from '../customers/records';
import type { Deps } from '../deps';
import { createLendingActivities } from '../lending';
import type { LoanChunk, LoanChunkRefs } from '../lending/loan-chunk';
import { recordExternalPaymentHistory } from '../payments/record-external-payment-history';
import { bodyReferenceError } from './line-schemas';
import { type BoardedRef, type LineOutcome, refKey, type StagedLine } from './lines';

/** The route operations a chunk boards its lines through (members of `createActivities`, by the same names). */
export function boardingOperations(deps: Deps) {
  return {
    ...createLendingActivities(deps),
    ...createCustomerActivities(deps),
    recordExternalPaymentHistory: recordExternalPaymentHistory(deps),
  };
}

export type BoardingOperations = ReturnType<typeof boardingOperations>;

/** One chunk being boarded: what every job of it reads and records into. */
export interface ChunkRun {
  deps: Deps;
  ops: BoardingOperations;
  /** The context of every operation: the tenant and the actor `boarding-batch-<batchId>`. */
  context: { tenantId: string; actor: string };
  /** The funding and payment lines of the chunk's loans (a `loan` chunk; else empty). */
  children: StagedLine[];
  outcomes: ChunkOutcomes;
}

/**
 * The chunk's line outcomes and the source refs it boarded, written in one transaction at its end
 * (lines.ts `writeOutcomes`), and the source refs known so far (`refKey` → resourceId: those boarded before, read
 * at the start, plus those boarded by this chunk).
 */
export class ChunkOutcomes {
  readonly lines: LineOutcome[] = [];
  readonly boarded: BoardedRef[] = [];

  constructor(private readonly known: Map<string, number>) {}

  /** The resource a source ref boarded, if known. */
  idOf(kind: string, sourceRef: string): number | undefined {
    return this.known.get(refKey(kind, sourceRef));
  }

  /** Records that (kind, sourceRef) boarded `resourceId`, without a line outcome. */
  remember(kind: string, sourceRef: string, resourceId: number): void {
    this.known.set(refKey(kind, sourceRef), resourceId);
  }

  /** The line BOARDED as `resourceId`: its source ref (and `extra` ones) recorded and known. */
  done(line: StagedLine, resourceId: number, extra: BoardedRef[] = []): void {
    this.lines.push({ lineNo: line.lineNo, state: 'BOARDED', resourceId, error: null });
    this.boarded.push({ kind: line.kind, sourceRef: line.sourceRef, resourceId }, ...extra);
    this.remember(line.kind, line.sourceRef, resourceId);
  }

  /** The line BOARDED as the `resourceId` its source ref boarded before (nothing recorded again). */
  boardedBefore(line: StagedLine, resourceId: number): void {
    this.lines.push({ lineNo: line.lineNo, state: 'BOARDED', resourceId, error: null });
  }

  /** The line FAILED with `error` (Shape A). */
  fail(line: StagedLine, error: ShapeABody): void {
    this.lines.push({ lineNo: line.lineNo, state: 'FAILED', resourceId: null, error });
  }
}

/** The 400 of a line whose reference `field` = `ref` names a `what` that was not boarded. */
export function missingReference(field: string, ref: string, what: string): DomainError {
  return bodyReferenceError(field, ref, `${field} ${ref}: the ${what} was not boarded.`);
}

/** How a line boards inside the chunk's transaction (board-lines-together.ts `planTogether`). */
export interface TogetherPlan {
  /** The customer to lock first (a loan's borrower, a verified instrument's customer); null: none. */
  customerId: number | null;
  /** The `externalRecordRef`s of the loan's fundings and payments (loans). */
  refs: LoanChunkRefs;
  /**
   * Boards the line in `tx` at `now`: a loan with the chunk's `chunk`, a customer or verification with its
   * `customers` buffers. Returns how to settle the line, called once the transaction committed.
   */
  run: (
    tx: Tx,
    now: Date,
    chunk: LoanChunk | null,
    customers: CustomerWriteBuffers | null,
  ) => Promise<() => void>;
}

/** A plan that boards no loan money (`refs` empty). */
export const noLoanRefs = (): LoanChunkRefs => ({ fundingRefs: [], paymentRefs: [] });

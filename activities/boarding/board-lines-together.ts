/**
 * The customers, loans or verifications of a chunk boarded together (board-boarding-chunk.ts, docs/processes.md
 * P3): consecutive lines boarded in ONE tenant transaction, each under a savepoint, with the writes the lines
 * hold back (history entries and events) flushed by one multi-row statement each before the commit.
 */

import { withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';
import {
  CustomerHistoryBuffer,
  type CustomerWriteBuffers,
  flushCustomerWrites,
  lockCustomers,
} from '../customers/records';
import { flushLoanChunk, openLoanChunk, rollbackToMark, savepointMark } from '../lending/loan-chunk';
import { OutboxBuffer } from '../platform/outbox';
import { customerTogether } from './board-customer-lines';
import { loanTogether } from './board-loan-lines';
import { verificationTogether } from './board-verification-lines';
import type { ChunkRun, TogetherPlan } from './chunk-run';
import { boardingRequestKey, lineError } from './line-mappers';
import { type BoardingBody, parseLineBody } from './line-schemas';
import type { StagedLine } from './lines';

/**
 * The one-step boarding of a `customer`, `loan` or `verification` line, when it can board with others; else
 * null (already boarded but a loan, a body that does not parse, a reference not boarded).
 */
function planTogether(run: ChunkRun, line: StagedLine): TogetherPlan | null {
  if (line.kind !== 'customer' && line.kind !== 'loan' && line.kind !== 'verification') return null;
  if (line.kind !== 'loan' && run.outcomes.idOf(line.kind, line.sourceRef) !== undefined) return null;
  const parsed = parseLineBody(line.kind, line.body);
  if (!parsed.ok) return null;
  const requestKey = boardingRequestKey(line.kind, line.sourceRef);
  if (line.kind === 'verification')
    return verificationTogether(run, line, parsed.value as BoardingBody<'verification'>);
  if (line.kind === 'customer')
    return customerTogether(run, line, parsed.value as BoardingBody<'customer'>, requestKey);
  return loanTogether(run, line, parsed.value as BoardingBody<'loan'>, requestKey);
}

/**
 * Boards the chunk's `lines` of `kind` (customers, loans or verifications) together: consecutive lines that can
 * board in one step (`planTogether`: `boardCustomer`, `boardLoan`, `verifyPaymentInstrument`) are boarded in ONE
 * tenant transaction, each under a savepoint (`boardCustomerInTx`, `boardLoanInTx`, `verifyPaymentInstrumentInTx`),
 * the loans' borrowers and the verified instruments' customers locked first in id order (`lockCustomers`) so that
 * parallel chunks sharing a customer wait instead of deadlocking. Customers and verifications hold their history
 * entries and events back for the transaction (customers/records.ts `CustomerWriteBuffers`), as loans do. The
 * loans share one `LoanChunk` (activities/lending/loan-chunk.ts: the product, charge and calendar reads made once,
 * the chart of accounts ensured once, their history entries and events written by one multi-row statement each
 * before the commit; a loan whose savepoint rolled back leaves nothing in those buffers). The first line that
 * cannot (already boarded, not parsing, a missing reference, a line error rolled back to its savepoint) ends the
 * transaction, which commits the lines before it; that line then boards on its own (`boardAlone`: the step-by-step
 * path reports the step that failed), and the next transaction starts after it. The lines are settled only once
 * their transaction committed, so a transaction retried after a serialization failure or a deadlock settles
 * nothing twice. Errors other than a line's are thrown (the activity is retried).
 */
export async function boardLinesTogether(
  run: ChunkRun,
  kind: BoardingKind,
  lines: StagedLine[],
  boardAlone: (line: StagedLine) => Promise<void>,
): Promise<void> {
  const { deps } = run;
  const { tenantId } = run.context;
  let next = 0;
  while (next < lines.length) {
    const from = next;
    const segment = await withTenantTransaction(deps.db, tenantId, async (tx) => {
      const now = deps.clock();
      const plans: TogetherPlan[] = [];
      const seen = new Set<string>();
      let stop = from;
      for (; stop < lines.length; stop++) {
        const line = lines[stop] as StagedLine;
        if (seen.has(line.sourceRef)) break;
        const plan = planTogether(run, line);
        if (!plan) break;
        seen.add(line.sourceRef);
        plans.push(plan);
      }
      const borrowerIds = plans.flatMap((p) => (p.customerId === null ? [] : [p.customerId]));
      // Loans share the chunk's reads, locks and write buffers (activities/lending/loan-chunk.ts).
      const chunk =
        kind === 'loan' && plans.length > 0 && deps.boardingLoanChunks !== false
          ? await openLoanChunk(tx, tenantId, now, borrowerIds, {
              fundingRefs: plans.flatMap((p) => p.refs.fundingRefs),
              paymentRefs: plans.flatMap((p) => p.refs.paymentRefs),
              loans: plans.length,
            })
          : null;
      if (!chunk) await lockCustomers(tx, tenantId, borrowerIds);
      // Customers hold their history entries and events back the same way (customers/records.ts).
      const customers: CustomerWriteBuffers | null =
        (kind === 'customer' || kind === 'verification') && deps.boardingLoanChunks !== false
          ? { history: new CustomerHistoryBuffer(), outbox: new OutboxBuffer() }
          : null;
      const settled: (() => void)[] = [];
      let stoppedAt = stop;
      for (const [i, plan] of plans.entries()) {
        const mark = chunk ? savepointMark(chunk) : null;
        const customersMark = customers
          ? { history: customers.history.mark(), outbox: customers.outbox.mark() }
          : null;
        try {
          settled.push(await tx.transaction((savepoint) => plan.run(savepoint, now, chunk, customers)));
        } catch (err) {
          if (!lineError(err)) throw err;
          if (chunk && mark) rollbackToMark(chunk, mark);
          if (customers && customersMark) {
            customers.history.truncate(customersMark.history);
            customers.outbox.truncate(customersMark.outbox);
          }
          stoppedAt = from + i;
          break;
        }
      }
      if (chunk) await flushLoanChunk(tx, chunk);
      if (customers) await flushCustomerWrites(tx, customers);
      return { settled, stoppedAt };
    });
    for (const settle of segment.settled) settle();
    if (segment.stoppedAt >= lines.length) break;
    await boardAlone(lines[segment.stoppedAt] as StagedLine);
    next = segment.stoppedAt + 1;
  }
}

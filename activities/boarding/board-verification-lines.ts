/**
 * Boarding of the `verification` lines of a chunk (board-boarding-chunk.ts, docs/processes.md P3):
 * `verifyPaymentInstrument` on an instrument a `customer` line boarded (source ref
 * `<customerSourceRef>/<instrumentSourceRef>`), on its own or in the chunk's transaction.
 */
import { shapeAOf } from '../../domain/errors';
import { verifyPaymentInstrumentInTx } from '../customers/verify-payment-instrument';
import { type ChunkRun, missingReference, noLoanRefs, type TogetherPlan } from './chunk-run';
import type { BoardingBody } from './line-schemas';
import type { StagedLine } from './lines';

/**
 * A `verification` line on its own → `verifyPaymentInstrument`; a customer or instrument not boarded fails the line
 * (400 naming `customerSourceRef` or `instrumentSourceRef`). Errors: the operation's.
 */
export async function boardVerificationLine(
  run: ChunkRun,
  line: StagedLine,
  body: BoardingBody<'verification'>,
): Promise<void> {
  const { outcomes } = run;
  const { customerSourceRef, instrumentSourceRef, ...b } = body;
  const customerId = outcomes.idOf('customer', customerSourceRef);
  const instrumentId = outcomes.idOf('paymentInstrument', `${customerSourceRef}/${instrumentSourceRef}`);
  if (customerId === undefined)
    return outcomes.fail(
      line,
      shapeAOf(missingReference('customerSourceRef', customerSourceRef, 'customer')),
    );
  if (instrumentId === undefined)
    return outcomes.fail(
      line,
      shapeAOf(missingReference('instrumentSourceRef', instrumentSourceRef, 'payment instrument')),
    );
  const r = await run.ops.verifyPaymentInstrument({ ...run.context, customerId, instrumentId, ...b });
  outcomes.done(line, r.instrumentId);
}

/**
 * A `verification` line boarded in the chunk's transaction (`verifyPaymentInstrumentInTx`, its customer locked
 * with the chunk's others in id order before the first line, its writes in the chunk's customer buffers); null
 * when its customer or instrument is not boarded (the line then boards on its own and reports it).
 */
export function verificationTogether(
  run: ChunkRun,
  line: StagedLine,
  body: BoardingBody<'verification'>,
): TogetherPlan | null {
  const { customerSourceRef, instrumentSourceRef, ...b } = body;
  const customerId = run.outcomes.idOf('customer', customerSourceRef);
  const instrumentId = run.outcomes.idOf('paymentInstrument', `${customerSourceRef}/${instrumentSourceRef}`);
  if (customerId === undefined || instrumentId === undefined) return null;
  return {
    // Locked with the chunk's other customers, in id order, before the first line.
    customerId,
    refs: noLoanRefs(),
    run: async (tx, _now, _chunk, customers) => {
      const r = await verifyPaymentInstrumentInTx(
        run.deps,
        tx,
        { ...run.context, customerId, instrumentId, ...b },
        { customerLocked: true, ...(customers ? { buffers: customers } : {}) },
      );
      return () => run.outcomes.done(line, r.instrumentId);
    },
  };
}

/**
 * Boarding of the customer lines of a chunk (board-boarding-chunk.ts, docs/processes.md P3): `customer` →
 * `boardCustomer` (the customer and its identifiers, consents and payment instruments in one transaction), and
 * after a line error step by step (`createCustomer`, then `addCustomerIdentifier`, `recordCustomerConsent` and
 * `addPaymentInstrument` per item) so that the line reports the item that failed; `restriction` →
 * `applyRestriction` on the boarded customer. Instrument source refs are recorded as kind `paymentInstrument`,
 * `<customerSourceRef>/<instrumentSourceRef>`.
 */
import { type ShapeABody, shapeAOf } from '../../domain/errors';
import type { BoardCustomerInput, BoardCustomerResult } from '../customers/board-customer';
import { boardCustomerInTx } from '../customers/board-customer';
import { type ChunkRun, missingReference, noLoanRefs, type TogetherPlan } from './chunk-run';
import { lineError, lineShape } from './line-mappers';
import type { BoardingBody } from './line-schemas';
import type { BoardedRef, StagedLine } from './lines';

/** The one-transaction boarding of a customer line (`boardCustomer`'s input) and how to settle it from the result. */
function customerPlan(
  run: ChunkRun,
  line: StagedLine,
  parsed: BoardingBody<'customer'>,
  requestKey: string,
): { input: BoardCustomerInput; settle: (result: BoardCustomerResult) => void } {
  const { identifiers, consents, paymentInstruments, ...b } = parsed;
  return {
    input: {
      customer: { ...run.context, requestKey, ...b, externalId: b.externalId ?? line.sourceRef },
      identifiers,
      consents: consents.map((item, i) => ({ ...item, requestKey: `${requestKey}/consent/${i}` })),
      instruments: paymentInstruments.map(({ sourceRef: _ref, ...item }) => item),
    },
    settle: (boarded) => {
      const extra: BoardedRef[] = [];
      for (const [i, { sourceRef }] of paymentInstruments.entries()) {
        const instrumentId = boarded.instrumentIds[i];
        if (!sourceRef || instrumentId === undefined) continue;
        const ref = `${line.sourceRef}/${sourceRef}`;
        extra.push({ kind: 'paymentInstrument', sourceRef: ref, resourceId: instrumentId });
        run.outcomes.remember('paymentInstrument', ref, instrumentId);
      }
      run.outcomes.done(line, boarded.customerId, extra);
    },
  };
}

/**
 * A `customer` line on its own: `boardCustomer` (one transaction); after a line error, nothing of it is stored and
 * the operations run one by one, so that the line reports the item that failed (its field names under
 * `body.<items>[i].`) while the customer itself stays boarded (its loans and holds still board). Errors other than
 * a line's (line-mappers.ts `lineError`) are thrown.
 */
export async function boardCustomerLine(
  run: ChunkRun,
  line: StagedLine,
  parsed: BoardingBody<'customer'>,
  requestKey: string,
): Promise<void> {
  const { ops, context, outcomes } = run;
  const { identifiers, consents, paymentInstruments, ...b } = parsed;
  const plan = customerPlan(run, line, parsed, requestKey);
  try {
    return plan.settle(await ops.boardCustomer(plan.input));
  } catch (err) {
    if (!lineError(err)) throw err;
  }
  const r = await ops.createCustomer({
    ...context,
    requestKey,
    ...b,
    externalId: b.externalId ?? line.sourceRef,
  });
  const customerId = r.customerId;
  const extra: BoardedRef[] = [];
  let error: ShapeABody | null = null;
  const step = async (prefix: string, fn: () => Promise<unknown>) => {
    if (error) return;
    try {
      await fn();
    } catch (err) {
      const bad = lineError(err);
      if (!bad) throw err;
      error = lineShape(bad, prefix);
    }
  };
  for (const [i, item] of identifiers.entries()) {
    await step(`identifiers[${i}].`, () => ops.addCustomerIdentifier({ ...context, customerId, ...item }));
  }
  for (const [i, item] of consents.entries()) {
    await step(`consents[${i}].`, () =>
      ops.recordCustomerConsent({
        ...context,
        requestKey: `${requestKey}/consent/${i}`,
        customerId,
        ...item,
      }),
    );
  }
  for (const [i, { sourceRef, ...item }] of paymentInstruments.entries()) {
    await step(`paymentInstruments[${i}].`, async () => {
      const created = await ops.addPaymentInstrument({ ...context, customerId, ...item });
      if (sourceRef) {
        const ref = `${line.sourceRef}/${sourceRef}`;
        extra.push({ kind: 'paymentInstrument', sourceRef: ref, resourceId: created.instrumentId });
        outcomes.remember('paymentInstrument', ref, created.instrumentId);
      }
    });
  }
  if (error) {
    // The customer exists (its loans and holds still board); the line reports the item that failed.
    outcomes.fail(line, error);
    outcomes.boarded.push({ kind: 'customer', sourceRef: line.sourceRef, resourceId: customerId }, ...extra);
    outcomes.remember('customer', line.sourceRef, customerId);
    return;
  }
  outcomes.done(line, customerId, extra);
}

/** A `customer` line boarded in the chunk's transaction (`boardCustomerInTx` with the chunk's customer buffers). */
export function customerTogether(
  run: ChunkRun,
  line: StagedLine,
  parsed: BoardingBody<'customer'>,
  requestKey: string,
): TogetherPlan {
  const plan = customerPlan(run, line, parsed, requestKey);
  return {
    customerId: null,
    refs: noLoanRefs(),
    run: async (tx, _now, _chunk, customers) => {
      const result = await boardCustomerInTx(run.deps, tx, plan.input, customers ?? undefined);
      return () => plan.settle(result);
    },
  };
}

/**
 * A `restriction` line → `applyRestriction` under `requestKey` on its boarded customer; a customer not boarded
 * fails the line (400 naming `customerSourceRef`). Errors: the operation's.
 */
export async function boardRestrictionLine(
  run: ChunkRun,
  line: StagedLine,
  body: BoardingBody<'restriction'>,
  requestKey: string,
): Promise<void> {
  const { customerSourceRef, ...b } = body;
  const customerId = run.outcomes.idOf('customer', customerSourceRef);
  if (customerId === undefined)
    return run.outcomes.fail(
      line,
      shapeAOf(missingReference('customerSourceRef', customerSourceRef, 'customer')),
    );
  const r = await run.ops.applyRestriction({ ...run.context, requestKey, customerId, ...b });
  run.outcomes.done(line, r.restrictionId);
}

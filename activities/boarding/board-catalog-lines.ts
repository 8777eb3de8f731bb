/**
 * Boarding of the catalogue lines of a chunk (board-boarding-chunk.ts, docs/processes.md P3): `charge` →
 * `createCharge`, `loanProduct` → `createLoanProduct` with its charges by their boarded source refs. Each runs the
 * route operation's own transaction.
 */
import { shapeAOf } from '../../domain/errors';
import { chargeDefinitionOf, loanProductDefinitionOf } from '../../domain/lending/schemas/products';
import { type ChunkRun, missingReference } from './chunk-run';
import type { BoardingBody } from './line-schemas';
import type { StagedLine } from './lines';

/** A `charge` line → `createCharge` under `requestKey`; the line BOARDED as the charge. Errors: the operation's. */
export async function boardChargeLine(
  run: ChunkRun,
  line: StagedLine,
  body: BoardingBody<'charge'>,
  requestKey: string,
): Promise<void> {
  const r = await run.ops.createCharge({ ...run.context, requestKey, ...chargeDefinitionOf(body) });
  run.outcomes.done(line, r.chargeId);
}

/**
 * A `loanProduct` line → `createLoanProduct` under `requestKey`, its `chargeSourceRefs` and `nsfChargeSourceRef`
 * resolved to boarded charges; a charge not boarded fails the line (400 naming the reference). Errors: the
 * operation's.
 */
export async function boardLoanProductLine(
  run: ChunkRun,
  line: StagedLine,
  body: BoardingBody<'loanProduct'>,
  requestKey: string,
): Promise<void> {
  const { outcomes } = run;
  const { chargeSourceRefs, nsfChargeSourceRef, ...b } = body;
  const charges: { id: number }[] = [];
  for (const [i, ref] of chargeSourceRefs.entries()) {
    const id = outcomes.idOf('charge', ref);
    if (id === undefined)
      return outcomes.fail(line, shapeAOf(missingReference(`chargeSourceRefs[${i}]`, ref, 'charge')));
    charges.push({ id });
  }
  const nsfChargeId = nsfChargeSourceRef === undefined ? null : outcomes.idOf('charge', nsfChargeSourceRef);
  if (nsfChargeSourceRef !== undefined && nsfChargeId === undefined)
    return outcomes.fail(
      line,
      shapeAOf(missingReference('nsfChargeSourceRef', nsfChargeSourceRef, 'charge')),
    );
  const r = await run.ops.createLoanProduct({
    ...run.context,
    requestKey,
    ...loanProductDefinitionOf(b),
    charges,
    nsfChargeId: nsfChargeId ?? null,
  });
  outcomes.done(line, r.productId);
}

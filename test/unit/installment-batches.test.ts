/**
 * Batching of installment writes (db/queries/lending/installments.ts; an insert of more than about
 * 7,281 installments exceeded PostgreSQL's 65,535 bind parameters). Oracle: the slices concatenate back to the
 * input, none is empty or larger than asked, and a batch of installment rows (at most 12 parameters each: the
 * columns of `loan_installments`) stays under the limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batchesOf,
  installmentRowsPerStatement,
  postgresMaxBindParameters,
} from '../../db/queries/lending/installments';
import { loanInstallments } from '../../db/schema';

describe('batchesOf', () => {
  it('cuts rows into ordered slices of at most the size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 300 }),
        fc.integer({ min: 1, max: 50 }),
        (rows, size) => {
          const batches = batchesOf(rows, size);
          expect(batches.flat()).toEqual(rows);
          for (const batch of batches) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(size);
          }
          expect(batches.length).toBe(Math.ceil(rows.length / size));
        },
      ),
    );
    expect(
      batchesOf(
        Array.from({ length: 10_000 }, (_, i) => i),
        installmentRowsPerStatement,
      ),
    ).toHaveLength(10);
    expect(() => batchesOf([1], 0)).toThrow(RangeError);
  });

  it('keeps a statement of installment rows under the bind-parameter limit', () => {
    const columns = Object.keys(loanInstallments).filter(
      (key) => !key.startsWith('_') && key !== 'enableRLS',
    );
    expect(columns.length).toBeGreaterThanOrEqual(9);
    expect(installmentRowsPerStatement * columns.length).toBeLessThan(postgresMaxBindParameters);
  });
});

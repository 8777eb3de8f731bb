/**
 * `tenantSettings` (activities/platform/tenant-settings.ts): the close-of-business day settings (Fineract
 * `penalty-wait-period`, `days-before-repayment-is-due`, `days-after-repayment-is-overdue`; docs/lending.md
 * "Delinquency configuration"): defaults 2, 3, 1; only the fields given change; a value that is not an integer from
 * 0 to 365 is a 400 naming it and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => h?.close());

describe('tenantSettings: close-of-business days', () => {
  it('defaults to 2, 3, 1 and changes only what is given', async () => {
    const tenantId = await newTenant(h, 'cobset');
    expect(await h.platform.tenantSettings({ tenantId })).toEqual({
      tenantId,
      makerCheckerPolicy: 'distinct-client',
      penaltyWaitPeriodDays: 2,
      dueDaysForRepaymentEvent: 3,
      overdueDaysForRepaymentEvent: 1,
    });
    expect(await h.platform.tenantSettings({ tenantId, dueDaysForRepaymentEvent: 0 })).toMatchObject({
      penaltyWaitPeriodDays: 2,
      dueDaysForRepaymentEvent: 0,
      overdueDaysForRepaymentEvent: 1,
    });
    expect(
      await h.platform.tenantSettings({
        tenantId,
        penaltyWaitPeriodDays: 365,
        makerCheckerPolicy: 'distinct-client',
      }),
    ).toMatchObject({ penaltyWaitPeriodDays: 365, dueDaysForRepaymentEvent: 0 });
  });

  it.each([
    ['penaltyWaitPeriodDays', -1],
    ['dueDaysForRepaymentEvent', 1.5],
    ['overdueDaysForRepaymentEvent', 366],
  ] as const)('refuses %s = %s with 400 naming it and changes nothing', async (name, value) => {
    const tenantId = await newTenant(h, 'cobbad');
    const before = await h.platform.tenantSettings({ tenantId });
    const err = await h.platform.tenantSettings({ tenantId, [name]: value }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    expect((err as DomainError).errors.map((e) => e.parameterName)).toEqual([name]);
    expect(await h.platform.tenantSettings({ tenantId })).toEqual(before);
  });
});

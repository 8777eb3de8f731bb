/**
 * Every tenant's daily close-of-business schedule (docs/processes.md P7 "The run"; workers/cob-schedules.ts): the
 * first sweep creates one per tenant at 00:30 in the tenant's zone, a later sweep creates the schedule of a tenant
 * that appeared and moves the one whose zone changed, and a tenant whose zone Temporal refuses holds back no other.
 * Runs on the integration Temporal server, with a list of tenants of its own (the schedules are deleted after).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOfBusinessScheduleId } from '../../domain/ids';
import { startCloseOfBusinessSchedules } from '../../workers/cob-schedules';
import { createTestContext, type TestContext, uniqueTenant } from '../support/context';

let ctx: TestContext;
const created: string[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
});
afterAll(async () => {
  for (const id of created)
    await ctx?.client.schedule
      .getHandle(id)
      .delete()
      .catch(() => {});
  await ctx?.close();
});

async function scheduleOf(tenantId: string) {
  const described = await ctx.client.schedule.getHandle(closeOfBusinessScheduleId(tenantId)).describe();
  const calendar = described.spec.calendars?.[0];
  return {
    timezone: described.spec.timezone,
    hour: calendar?.hour,
    minute: calendar?.minute,
    args: described.action.type === 'startWorkflow' ? described.action.args : null,
  };
}

describe('close-of-business schedules', () => {
  it('creates one per tenant in its zone, then follows new tenants and zone changes; a refused zone holds back no other', async () => {
    const a = uniqueTenant('cobsch');
    const b = uniqueTenant('cobsch');
    const c = uniqueTenant('cobsch');
    const bad = uniqueTenant('cobsch');
    created.push(...[a, b, c, bad].map(closeOfBusinessScheduleId));
    let tenants = [
      { tenantId: bad, timeZone: 'Not/AZone' },
      { tenantId: a, timeZone: 'America/New_York' },
      { tenantId: b, timeZone: 'Asia/Kolkata' },
    ];
    let sweeps = 0;
    const stop = await startCloseOfBusinessSchedules({
      client: ctx.client,
      db: ctx.db,
      logger: pino({ level: 'silent' }),
      intervalMs: 200,
      listTenants: async () => {
        sweeps += 1;
        return tenants;
      },
    });
    try {
      expect(await scheduleOf(a)).toEqual({
        timezone: 'America/New_York',
        hour: [{ start: 0, end: 0, step: 1 }],
        minute: [{ start: 30, end: 30, step: 1 }],
        args: [{ tenantId: a, timeZone: 'America/New_York' }],
      });
      expect((await scheduleOf(b)).timezone).toBe('Asia/Kolkata');
      // Temporal refused the unknown zone: no schedule, and those listed after it were still made.
      await expect(scheduleOf(bad)).rejects.toThrow();
      tenants = [...tenants.filter((t) => t.tenantId !== b), { tenantId: b, timeZone: 'Europe/Paris' }];
      tenants.push({ tenantId: c, timeZone: 'Pacific/Auckland' });
      const seen = sweeps;
      for (let i = 0; i < 100 && sweeps < seen + 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(sweeps).toBeGreaterThanOrEqual(seen + 2);
      expect(await scheduleOf(b)).toMatchObject({
        timezone: 'Europe/Paris',
        args: [{ tenantId: b, timeZone: 'Europe/Paris' }],
      });
      expect((await scheduleOf(c)).timezone).toBe('Pacific/Auckland');
      expect((await scheduleOf(a)).timezone).toBe('America/New_York');
    } finally {
      await stop();
    }
  }, 60_000);
});

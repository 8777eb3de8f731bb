/**
 * The daily purge of finished boarding batches' raw lines (domain/boarding/retention.ts; workflows/boarding/boarding-purge/):
 * the Temporal Schedule is created once and updated in place with the configured retention, and a run started as the
 * schedule starts it purges a batch finished longer ago than the retention and keeps a fresher one.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardingBatches, boardingLines } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { boardingRawPurgeScheduleId } from '../../domain/boarding/retention';
import { taskQueues } from '../../domain/ids';
import { boardingRawRetentionDaysOf } from '../../workers/config';
import {
  boardingRawPurgeSchedule,
  ensureBoardingRawPurgeSchedule,
} from '../../workflows/boarding/boarding-purge/client';
import { customerLine, refPrefix, stageBatch } from '../support/boarding';
import { createTestContext, type TestContext, uniqueTenant } from '../support/context';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ boardingWorker: true });
});
afterAll(async () => ctx?.close());

const day = 86_400_000;

async function rawOf(tenantId: string, batchId: number) {
  const [line] = await withTenantTransaction(ctx.db, tenantId, (tx) =>
    tx
      .select({ raw: boardingLines.raw })
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId))),
  );
  return line?.raw;
}

describe('boarding raw purge', () => {
  it('a run purges a batch finished more than retentionDays ago and keeps a fresher one', async () => {
    const tenantId = uniqueTenant('bpw');
    await ctx.platform.ensureTenant({ tenantId });
    const p = refPrefix('bpw');
    const old = await stageBatch(ctx.db, tenantId, [customerLine(p, 1)]);
    const fresh = await stageBatch(ctx.db, tenantId, [customerLine(p, 2)]);
    const finish = (batchId: number, completedAt: Date) =>
      withTenantTransaction(ctx.db, tenantId, (tx) =>
        tx
          .update(boardingBatches)
          .set({ status: 'CANCELLED', completedAt })
          .where(eq(boardingBatches.id, batchId)),
      );
    await finish(old, new Date(Date.now() - 41 * day));
    await finish(fresh, new Date(Date.now() - 39 * day));
    const action = boardingRawPurgeSchedule(40).action;
    const result = await ctx.client.workflow.execute('boardingRawPurgeWorkflow', {
      workflowId: `boarding-raw-purge-test-${tenantId}`,
      taskQueue: action.taskQueue,
      args: action.args ?? [],
    });
    expect(result.batchesPurged).toBeGreaterThanOrEqual(1);
    expect(await rawOf(tenantId, old)).toBeNull();
    expect(await rawOf(tenantId, fresh)).not.toBeNull();
  });

  it('the schedule is created once, then updated in place: daily at 03:00 UTC on boarding, the retention as input', async () => {
    const scheduleId = `${boardingRawPurgeScheduleId}-test-${uniqueTenant('s')}`;
    try {
      expect(await ensureBoardingRawPurgeSchedule(ctx.client, 30, scheduleId)).toBe('created');
      expect(await ensureBoardingRawPurgeSchedule(ctx.client, 7, scheduleId)).toBe('updated');
      const described = await ctx.client.schedule.getHandle(scheduleId).describe();
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.spec.calendars).toMatchObject([{ hour: [{ start: 3 }], minute: [{ start: 0 }] }]);
      expect(described.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'boardingRawPurgeWorkflow',
        taskQueue: taskQueues.boarding,
        args: [{ retentionDays: 7 }],
      });
    } finally {
      await ctx.client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => {});
    }
  });

  it('the retention comes from BOARDING_RAW_RETENTION_DAYS, default 30; anything but 0..3650 whole days is refused', () => {
    expect(boardingRawRetentionDaysOf({})).toBe(30);
    expect(boardingRawRetentionDaysOf({ BOARDING_RAW_RETENTION_DAYS: '7' })).toBe(7);
    expect(() => boardingRawRetentionDaysOf({ BOARDING_RAW_RETENTION_DAYS: '-1' })).toThrow();
    expect(() => boardingRawRetentionDaysOf({ BOARDING_RAW_RETENTION_DAYS: '3651' })).toThrow();
    expect(() => boardingRawPurgeSchedule(1.5)).toThrow(RangeError);
  });
});

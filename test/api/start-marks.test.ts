/**
 * The API's start-mark buffer (api/start-marks.ts): the marks routes note are written in batches, one call per
 * tenant per flush, and a failed write is logged, never thrown (the start-intent relay marks those). A fake
 * `markStartIntentsStarted` records the batches; no database.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createStartMarkBuffer } from '../../api/start-marks';

type Batch = { tenantId: string; workflowIds: readonly string[] };

function recording(fail?: (batch: Batch) => boolean) {
  const batches: Batch[] = [];
  const platform = {
    markStartIntentsStarted: async (batch: Batch) => {
      if (fail?.(batch)) throw new Error('database is down');
      batches.push({ tenantId: batch.tenantId, workflowIds: [...batch.workflowIds] });
      return batch.workflowIds.length;
    },
  };
  return { batches, platform };
}

const logger = pino({ level: 'silent' });

describe('start-mark buffer', () => {
  it('writes the noted marks at a flush, one batch per tenant, and nothing before it', async () => {
    const { batches, platform } = recording();
    const marks = createStartMarkBuffer({ platform, logger, flushMs: 3_600_000 });
    marks.noteStarted({ tenantId: 'a', workflowId: 'w1' });
    marks.noteStarted({ tenantId: 'b', workflowId: 'w2' });
    marks.noteStarted({ tenantId: 'a', workflowId: 'w3' });
    expect(marks.pending()).toBe(3);
    expect(batches).toEqual([]);
    await marks.flush();
    expect(marks.pending()).toBe(0);
    expect(batches.sort((x, y) => x.tenantId.localeCompare(y.tenantId))).toEqual([
      { tenantId: 'a', workflowIds: ['w1', 'w3'] },
      { tenantId: 'b', workflowIds: ['w2'] },
    ]);
    await marks.flush();
    expect(batches).toHaveLength(2);
    await marks.stop();
  });

  it('flushes on its own every flushMs, and what is left at stop', async () => {
    const { batches, platform } = recording();
    const marks = createStartMarkBuffer({ platform, logger, flushMs: 20 });
    marks.noteStarted({ tenantId: 'a', workflowId: 'w1' });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(batches).toEqual([{ tenantId: 'a', workflowIds: ['w1'] }]);
    marks.noteStarted({ tenantId: 'a', workflowId: 'w2' });
    await marks.stop();
    expect(batches).toEqual([
      { tenantId: 'a', workflowIds: ['w1'] },
      { tenantId: 'a', workflowIds: ['w2'] },
    ]);
  });

  it('flushes at once when maxPending marks wait', async () => {
    const { batches, platform } = recording();
    const marks = createStartMarkBuffer({ platform, logger, flushMs: 3_600_000, maxPending: 2 });
    marks.noteStarted({ tenantId: 'a', workflowId: 'w1' });
    marks.noteStarted({ tenantId: 'a', workflowId: 'w2' });
    expect(marks.pending()).toBe(0);
    await marks.flush();
    expect(batches).toEqual([{ tenantId: 'a', workflowIds: ['w1', 'w2'] }]);
    await marks.stop();
  });

  it('a failed write is logged and dropped, not thrown; other tenants are still written', async () => {
    const { batches, platform } = recording((batch) => batch.tenantId === 'down');
    const warnings: unknown[] = [];
    const marks = createStartMarkBuffer({
      platform,
      logger: { warn: (...args: unknown[]) => warnings.push(args) } as unknown as pino.Logger,
      flushMs: 3_600_000,
    });
    marks.noteStarted({ tenantId: 'down', workflowId: 'w1' });
    marks.noteStarted({ tenantId: 'up', workflowId: 'w2' });
    await expect(marks.flush()).resolves.toBeUndefined();
    expect(batches).toEqual([{ tenantId: 'up', workflowIds: ['w2'] }]);
    expect(warnings).toHaveLength(1);
    await marks.stop();
  });
});

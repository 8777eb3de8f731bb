/**
 * The `/healthz` status source (docs/processes.md P0 "Health"): one check per interval however
 * many readers, a stale status refreshed in the background, a hung or failing check reported down.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHealthMonitor } from '../../api/health-monitor';

afterEach(() => {
  vi.useRealTimers();
});

describe('createHealthMonitor', () => {
  it('checks once for many concurrent first readers, then answers from the last status', async () => {
    let calls = 0;
    const monitor = createHealthMonitor({
      intervalMs: 60_000,
      checks: {
        database: async () => {
          calls += 1;
          return true;
        },
        temporal: async () => true,
      },
    });
    const statuses = await Promise.all(Array.from({ length: 50 }, () => monitor.current()));
    expect(statuses.every((s) => s.database === 'up' && s.temporal === 'up')).toBe(true);
    for (let i = 0; i < 50; i++) await monitor.current();
    expect(calls).toBe(1);
  });

  it('a stale status is answered at once and refreshed in the background', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let up = true;
    let calls = 0;
    const monitor = createHealthMonitor({
      intervalMs: 5_000,
      checks: {
        database: async () => {
          calls += 1;
          return up;
        },
        temporal: async () => true,
      },
    });
    expect((await monitor.current()).database).toBe('up');
    up = false;
    vi.setSystemTime(Date.now() + 4_000);
    expect((await monitor.current()).database).toBe('up');
    expect(calls).toBe(1);
    vi.setSystemTime(Date.now() + 2_000);
    expect((await monitor.current()).database).toBe('up'); // stale answer, refresh started
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toBe(2);
    expect((await monitor.current()).database).toBe('down');
  });

  it('reports down for a check that throws or does not answer within the timeout', async () => {
    const monitor = createHealthMonitor({
      timeoutMs: 50,
      checks: {
        database: () => new Promise<boolean>(() => {}),
        temporal: async () => {
          throw new Error('UNAVAILABLE');
        },
      },
    });
    expect(await monitor.current()).toMatchObject({ database: 'down', temporal: 'down' });
  });

  it('start() refreshes on a timer until stop()', async () => {
    let calls = 0;
    const monitor = createHealthMonitor({
      intervalMs: 20,
      checks: {
        database: async () => {
          calls += 1;
          return true;
        },
        temporal: async () => true,
      },
    });
    monitor.start();
    await new Promise((r) => setTimeout(r, 110));
    monitor.stop();
    const seen = calls;
    expect(seen).toBeGreaterThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toBe(seen);
  });
});

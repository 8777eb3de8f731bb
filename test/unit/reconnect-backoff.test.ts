/**
 * The pool's reconnect backoff (db/client.ts `reconnectBackoffSeconds`): at most 1 s whatever the number of failed
 * attempts (postgres.js' default reaches 20 s, which kept requests waiting 10–20 s per query after a PostgreSQL
 * restart), jittered, and the pool `createDb` opens uses it.
 */
import { describe, expect, it } from 'vitest';
import { createDb, reconnectBackoffSeconds } from '../../db/client';

describe('reconnectBackoffSeconds', () => {
  it('starts at 25–50 ms, doubles, and never exceeds 1 s', () => {
    for (let i = 0; i < 200; i++) {
      const first = reconnectBackoffSeconds(0);
      expect(first).toBeGreaterThanOrEqual(0.025);
      expect(first).toBeLessThanOrEqual(0.05);
      const third = reconnectBackoffSeconds(2);
      expect(third).toBeGreaterThanOrEqual(0.1);
      expect(third).toBeLessThanOrEqual(0.2);
      for (const retries of [5, 10, 30, 1000]) {
        const delay = reconnectBackoffSeconds(retries);
        expect(delay).toBeGreaterThanOrEqual(0.5);
        expect(delay).toBeLessThanOrEqual(1);
      }
    }
  });

  it('is the backoff of the pool createDb opens (no connection is made)', async () => {
    const handle = createDb('postgres://nobody:none@127.0.0.1:1/none', { maxConnections: 1 });
    try {
      expect((handle.db.$client as unknown as { options: { backoff: unknown } }).options.backoff).toBe(
        reconnectBackoffSeconds,
      );
    } finally {
      await handle.close();
    }
  });
});

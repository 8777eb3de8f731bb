/**
 * The patched postgres.js (patches/postgres+3.4.9.patch; porsager/postgres#1154 and #1208, unreleased upstream): a
 * connection whose backend dies while a write is pending must reject its queries with a catchable error, never
 * throw from a timer (an uncaught exception that ended the API process when PostgreSQL stopped under load,
 * bench/fault.ts). Vitest fails the run on any uncaught exception, so an unpatched driver fails this file.
 */
import postgres from 'postgres';
import { describe, expect, inject, it } from 'vitest';

describe('postgres.js when the backend of a reserved connection dies', () => {
  it('rejects the next queries with a catchable error, the process lives on, and the pool recovers after release', async () => {
    const sql = postgres(inject('databaseUrl'), { max: 2, onnotice: () => {} });
    const killer = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    try {
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await killer`select pg_terminate_backend(${row!.pid})`;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const outcomes = await Promise.allSettled([reserved`select 1`, reserved`select 2`, reserved`select 3`]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
      // Give any stray timer a chance to fire: an uncaught exception would fail the run here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Released, the dead connection is reconnected when the pool needs it: every later query succeeds (unpatched,
      // it rejoins the open queue without a socket and every query routed to it fails, for ever).
      reserved.release();
      const later: string[] = [];
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.allSettled([sql`select 1 as one`, sql`select 2 as two`]);
        later.push(...answers.map((a) => a.status));
      }
      expect(later).toEqual(Array(10).fill('fulfilled'));
    } finally {
      await sql.end({ timeout: 1 });
      await killer.end({ timeout: 1 });
    }
  });
});

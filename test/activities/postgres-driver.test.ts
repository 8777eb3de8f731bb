/**
 * The patched postgres.js (patches/postgres+3.4.9.patch; porsager/postgres#1154 and #1208, unreleased upstream): a
 * connection whose backend dies while a write is pending must reject its queries with a catchable error, never
 * throw from a timer (an uncaught exception that ended the API process when PostgreSQL stopped under load,
 * bench/fault.ts). Vitest fails the run on any uncaught exception, so an unpatched driver fails this file.
 */
import postgres from 'postgres';
import { describe, expect, inject, it } from 'vitest';

describe('postgres.js when the backend of a reserved connection dies', () => {
  it('rejects the next queries with a catchable error and the process lives on', async () => {
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
      // The server still answers new connections (the killer's pool reconnects its own).
      const [fresh] = await killer<{ one: number }[]>`select 1 as one`;
      expect(fresh?.one).toBe(1);
    } finally {
      await sql.end({ timeout: 1 });
      await killer.end({ timeout: 1 });
    }
  });
});

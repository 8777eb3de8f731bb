/**
 * The database connection: postgres.js under Drizzle with snake_case casing (docs/design.md §2–§3).
 * `createDb(url)` returns the Drizzle handle and a `close()`; one per process.
 */
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Db = ReturnType<typeof drizzleFor>;
export type Schema = typeof schema;

function drizzleFor(client: postgres.Sql) {
  return drizzle({ client, schema, casing: 'snake_case' });
}

export interface DbHandle {
  db: Db;
  /** Ends every pooled connection (waits up to 5 s for running queries). */
  close(): Promise<void>;
}

/**
 * Seconds a pooled connection waits before its next connection attempt after `retries` failed ones in a row (the
 * pool's shared count, reset by a successful connect): 50 ms doubling to at most 1 s, times a jitter of 0.5–1.
 * postgres.js' default grows to 20 s (`3^retries / 100`), and a connection keeps the delay it computed when it closed:
 * after a 10 s PostgreSQL outage, requests whose queries went to such a connection waited 10–20 s per query after the
 * database was back (bench:fault `postgres`: writes with no answer in 30 s). Short attempts cost nothing while the
 * database is down (each fails at once, and the request answers 503) and reconnect within a second once it is up.
 */
export function reconnectBackoffSeconds(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** Math.max(0, retries), 1);
}

/**
 * Opens a pooled connection to `url`. `maxConnections` defaults to 10.
 * Money columns (`numeric`) come back as strings; bigint identities as numbers.
 */
export function createDb(url: string, options: { maxConnections?: number } = {}): DbHandle {
  const client = postgres(url, {
    max: options.maxConnections ?? 10,
    backoff: reconnectBackoffSeconds,
    onnotice: () => {},
    connection: { application_name: 'lending-servicing-engine' },
  });
  return { db: drizzleFor(client), close: () => client.end({ timeout: 5 }) };
}

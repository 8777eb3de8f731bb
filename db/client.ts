/**
 * The database connection: postgres.js under Drizzle with snake_case casing (DESIGN §2–§3).
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
 * Opens a pooled connection to `url`. `maxConnections` defaults to 10.
 * Money columns (`numeric`) come back as strings; bigint identities as numbers.
 */
export function createDb(url: string, options: { maxConnections?: number } = {}): DbHandle {
  const client = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    connection: { application_name: 'lending-servicing-engine' },
  });
  return { db: drizzleFor(client), close: () => client.end({ timeout: 5 }) };
}

/**
 * Applies pending migrations from db/migrations with drizzle's migrator (docs/design.md §2). Safe to run
 * on every start: applied migrations are recorded in `drizzle.__drizzle_migrations`, and a
 * PostgreSQL advisory lock keeps two starting processes from migrating at once.
 */
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { Db } from './client';

/**
 * `MIGRATIONS_DIR`, else `migrations` beside this module: `db/migrations` under tsx, and
 * `dist/migrations` beside the bundled entry points (`npm run build` copies them there).
 */
export const migrationsFolder =
  process.env.MIGRATIONS_DIR || fileURLToPath(new URL('./migrations', import.meta.url));

export async function applyMigrations(db: Db): Promise<void> {
  await db.execute(sql`select pg_advisory_lock(727274)`);
  try {
    await migrate(db, { migrationsFolder });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(727274)`);
  }
}

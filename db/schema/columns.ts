/** Column helpers shared by the schema files. */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  foreignKey,
  numeric,
  pgPolicy,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';

/** `bigint` identity primary key, exposed as an integer id by the spec. */
export const identityId = () => bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity();

/** Owning tenant of a row; every tenant-owned table has one (docs/design.md §3). */
export const tenantId = () => text().notNull();

/** `numeric(19,6)`: every amount of money (a decimal string in code, docs/design.md §3; never a float). */
export const money = () => numeric({ precision: 19, scale: 6 });

/** `timestamptz` with millisecond precision. */
export const instant = () => timestamp({ withTimezone: true, mode: 'date', precision: 3 });

/** `timestamptz not null default now()`. */
export const createdAt = () => instant().notNull().defaultNow();

/**
 * Row-level security policy of a tenant-owned table: rows are visible and writable only when
 * `app.tenant_id` (set per transaction by db/tenant-tx.ts) equals the row's tenant.
 */
export const tenantIsolation = (table: string) =>
  pgPolicy(`${table}_tenant_isolation`, {
    as: 'permissive',
    for: 'all',
    to: 'public',
    using: sql`tenant_id = current_setting('app.tenant_id', true)`,
    withCheck: sql`tenant_id = current_setting('app.tenant_id', true)`,
  });

/**
 * `unique (tenant_id, id)` of a parent table: what tenant-consistent foreign keys reference, so a
 * child can only point at a parent of its own tenant (docs/processes.md P0: the database enforces it).
 */
export const tenantKey = (table: string, t: { tenantId: AnyPgColumn; id: AnyPgColumn }) =>
  unique(`${table}_tenant_id_id_key`).on(t.tenantId, t.id);

/**
 * Tenant-consistent foreign key `(tenant_id, column) → parent (tenant_id, id)`; a null `column`
 * references nothing (MATCH SIMPLE). The parent carries `tenantKey`.
 */
export const tenantReference = (
  name: string,
  t: { tenantId: AnyPgColumn },
  column: AnyPgColumn,
  parent: { tenantId: AnyPgColumn; id: AnyPgColumn },
) => foreignKey({ name, columns: [t.tenantId, column], foreignColumns: [parent.tenantId, parent.id] });

export { text };

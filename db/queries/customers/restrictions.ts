/**
 * The one SQL statement of the "restriction in force" rule (docs/design.md §5 Holds), mirror
 * of `restrictionStatusAt` in domain/customers/customer.ts: a restriction is in force at `at` when
 * its stored status is ACTIVE and its `expiresAt` is null or later than `at`; a lapsed ACTIVE one
 * reads EXPIRED. `at` always comes from the caller's injected clock (`Deps.clock`, `AppDeps.clock`),
 * never from the database's `now()`, so operations, reads and tests see one time.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { RestrictionStatus } from '../../../domain/customers/customer';
import { restrictions } from '../../schema';

const instantParam = (at: Date) => sql`${at.toISOString()}::timestamptz`;

/** WHERE condition on `restrictions`: in force at `at`. */
export function restrictionInForce(at: Date): SQL {
  // 'ACTIVE' as a literal, not a parameter, so the planner can use the partial index on ACTIVE rows.
  return sql`(${restrictions.status} = 'ACTIVE' and (${restrictions.expiresAt} is null or ${restrictions.expiresAt} > ${instantParam(at)}))`;
}

/** The status a restriction row has at `at` (ACTIVE, RELEASED or EXPIRED). */
export function restrictionStatusAtSql(at: Date): SQL<RestrictionStatus> {
  return sql<RestrictionStatus>`case when ${restrictions.status} = 'ACTIVE' and ${restrictions.expiresAt} <= ${instantParam(at)} then 'EXPIRED' else ${restrictions.status}::text end`;
}

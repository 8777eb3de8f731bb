/**
 * Multi-row inserts with ONE bind parameter: `insert into <table> (<columns>) select <columns> from
 * jsonb_to_recordset($1::jsonb) as r(<column> <type>, …)` (PostgreSQL manual §9.16 "JSON Functions",
 * `jsonb_to_recordset`). For the wide, many-row writes of the money path (a loan's journal lines, its installments,
 * the events of its payment history) this replaces a `VALUES` list of rows × columns bind parameters:
 * - the statement text is the same for any number of rows, so PostgreSQL parses and plans it once per connection
 *   (a `VALUES` list is a new prepared statement for every row count);
 * - Drizzle builds no parameter object per value (its per-value query building was about a fifth of the boarding
 *   worker's CPU, P3 profile); `JSON.stringify` serializes the rows natively;
 * - there is no 65,535-parameter limit to batch under.
 *
 * Values keep their exact text: decimal strings stay strings (cast by PostgreSQL's own input function of the
 * column's type, so `numeric` is exact), dates and timestamps are ISO 8601 strings, `jsonb` columns carry their JSON
 * value as is. Row-level security applies as to any insert (`WITH CHECK`).
 */
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from '../tenant-tx';

export interface JsonRowsInsertOptions {
  /** `ON CONFLICT (<these columns>) DO NOTHING`. */
  onConflictDoNothing?: { target: PgColumn[] };
}

/** The column's name in the database: snake_case of its key unless named explicitly (db/client.ts `casing`). */
function columnNameOf(column: PgColumn): string {
  return column.keyAsName ? toSnakeCase(column.name) : column.name;
}

/** The JSON form of one value of `column`: its exact text where Drizzle would send text. */
function jsonValueOf(column: PgColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.dataType === 'json') return value;
  const driverValue = column.mapToDriverValue(value);
  if (driverValue instanceof Date) return driverValue.toISOString();
  if (typeof driverValue === 'bigint') return driverValue.toString();
  return driverValue;
}

/**
 * The `insert into <table> (…) select … from jsonb_to_recordset($1)` statement for `rows` (one `jsonb` parameter),
 * with `on conflict (…) do nothing` when asked; null when the rows do not all set the same properties (the callers
 * then insert through Drizzle's `VALUES`). Shared by `insertJsonRows` and `insertJsonRowsReturning`.
 */
function jsonInsertStatement<T extends PgTable>(
  table: T,
  columns: Record<string, PgColumn>,
  rows: readonly T['$inferInsert'][],
  options: JsonRowsInsertOptions,
): SQL | null {
  const keys = Object.keys(rows[0] as object).filter(
    (key) => (rows[0] as Record<string, unknown>)[key] !== undefined && key in columns,
  );
  const sameKeys = rows.every((row) => {
    const record = row as Record<string, unknown>;
    return (
      keys.every((key) => record[key] !== undefined) &&
      Object.keys(record).filter((key) => record[key] !== undefined).length === keys.length
    );
  });
  if (!sameKeys) return null;
  const cols = keys.map((key) => columns[key] as PgColumn);
  const colNames = cols.map(columnNameOf);
  const payload = JSON.stringify(
    rows.map((row) => {
      const record = row as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [i, key] of keys.entries())
        out[colNames[i] as string] = jsonValueOf(cols[i] as PgColumn, record[key]);
      return out;
    }),
  );
  const names = sql.raw(colNames.map((name) => `"${name}"`).join(', '));
  const definitions = sql.raw(cols.map((c, i) => `"${colNames[i]}" ${c.getSQLType()}`).join(', '));
  const conflict: SQL = options.onConflictDoNothing
    ? sql` on conflict (${sql.raw(options.onConflictDoNothing.target.map((c) => `"${columnNameOf(c)}"`).join(', '))}) do nothing`
    : sql``;
  return sql`insert into ${table} (${names}) select ${names} from jsonb_to_recordset(${payload}::jsonb) as r(${definitions})${conflict}`;
}

/**
 * Inserts `rows` (Drizzle insert shapes of `table`, keyed by property name) in one statement with one `jsonb`
 * parameter; resolves with the number of rows inserted (fewer than `rows.length` only with `onConflictDoNothing`).
 * Every row must set the same properties (a property left out takes the column default for every row); rows that do
 * not are inserted through Drizzle's `VALUES` instead, with the same result. Errors: those of the insert
 * (constraint violations as PostgreSQL raises them).
 */
export async function insertJsonRows<T extends PgTable>(
  tx: Tx,
  table: T,
  rows: readonly T['$inferInsert'][],
  options: JsonRowsInsertOptions = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const statement = jsonInsertStatement(table, columns, rows, options);
  if (statement === null) {
    const insert = tx.insert(table).values(rows as T['$inferInsert'][]);
    const result = options.onConflictDoNothing
      ? await insert.onConflictDoNothing({ target: options.onConflictDoNothing.target })
      : await insert;
    return (result as unknown as { count: number }).count;
  }
  const result = await tx.execute(statement);
  return (result as unknown as { count: number }).count;
}

/**
 * `insertJsonRows` answering the rows it inserted (`RETURNING *`), each as Drizzle's `.returning()` gives it: keyed
 * by property name, every column decoded by the column's own `mapFromDriverValue` (ids as numbers, decimals as
 * strings, instants as Date, `jsonb` parsed). For many-row inserts whose ids the caller needs, without Drizzle's
 * per-value query building (module note). Rows that do not all set the same properties go through Drizzle's
 * `VALUES … RETURNING` instead. Errors: those of `insertJsonRows`.
 */
export async function insertJsonRowsReturning<T extends PgTable>(
  tx: Tx,
  table: T,
  rows: readonly T['$inferInsert'][],
  options: JsonRowsInsertOptions = {},
): Promise<T['$inferSelect'][]> {
  if (rows.length === 0) return [];
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const statement = jsonInsertStatement(table, columns, rows, options);
  if (statement === null) {
    const insert = tx.insert(table).values(rows as T['$inferInsert'][]);
    const returned = options.onConflictDoNothing
      ? await insert.onConflictDoNothing({ target: options.onConflictDoNothing.target }).returning()
      : await insert.returning();
    return returned as T['$inferSelect'][];
  }
  const result = (await tx.execute(sql`${statement} returning *`)) as unknown as Record<string, unknown>[];
  const decoders = Object.entries(columns).map(([key, column]) => ({
    key,
    name: columnNameOf(column),
    column,
  }));
  return result.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, name, column } of decoders) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  });
}

/**
 * A PostgreSQL array literal of integers (`{1,2,3}`), for `… and t.key = any($n::int[])` beside a join on a
 * `jsonb_to_recordset`: with it the planner looks the rows up in the key's index. A join on the recordset alone
 * (estimated at 100 rows) is planned as a hash join over every row that the other conditions leave — e.g. every line
 * of a boarding batch for each chunk's update, quadratic in the batch's size. Throws on a non-integer.
 */
export function intArrayLiteral(values: readonly number[]): string {
  for (const value of values)
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not an integer`);
  return `{${values.join(',')}}`;
}

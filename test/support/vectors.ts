/**
 * Published test vectors (`../shared/vectors/` beside the repository; see its README): resolved from
 * this file's location, so tests find them in any clone that has `shared/` beside it.
 */
import { readFileSync } from 'node:fs';

/** Parses `../shared/vectors/<name>` as JSON. */
export function readVector<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../../shared/vectors/${name}`, import.meta.url), 'utf8')) as T;
}

/**
 * Portfolio search (docs/lending.md "Lending core": "search by name, email or phone; cursor-paged"):
 * how a query string is classified and normalized, and the name key customers are indexed by.
 *
 * Names are folded for search: Unicode NFD with combining marks removed (so `jose` finds `José`),
 * lower case, whitespace collapsed. A customer has two keys, the folded "first last" and the folded
 * "last first"; a name query is a prefix of either, so it matches on the first name, "first last",
 * the last name alone or "last first".
 */
import { normalizeEmail, normalizePhone } from './contact-points';

export type SearchQuery =
  | { kind: 'EMAIL'; value: string }
  | { kind: 'PHONE'; value: string }
  | { kind: 'NAME'; prefix: string }
  | { kind: 'INVALID'; message: string };

/** Folds a name for search: no diacritics, lower case, single spaces, trimmed. */
export function foldName(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The search key stored in `customers.search_name`: the folded "first last". */
export function searchNameOf(firstName: string, lastName: string): string {
  return foldName(`${firstName} ${lastName}`);
}

/** The second search key, `customers.search_name_last_first`: the folded "last first". */
export function searchNameLastFirstOf(firstName: string, lastName: string): string {
  return foldName(`${lastName} ${firstName}`);
}

const phoneLike = /^[+()0-9\s./-]+$/;

/**
 * Classifies a search query: with `@` an e-mail (exact, normalized), written only with digits and
 * phone punctuation a phone number (E.164), otherwise a name prefix. An e-mail or phone number
 * that does not parse is INVALID (with a message that does not repeat it).
 */
export function classifySearchQuery(q: string): SearchQuery {
  const trimmed = q.trim();
  if (trimmed.includes('@')) {
    const email = normalizeEmail(trimmed);
    return email
      ? { kind: 'EMAIL', value: email }
      : { kind: 'INVALID', message: 'q is not a valid e-mail address.' };
  }
  if (phoneLike.test(trimmed) && /[0-9]/.test(trimmed)) {
    const phone = normalizePhone(trimmed);
    return phone
      ? { kind: 'PHONE', value: phone }
      : { kind: 'INVALID', message: 'q is not a valid phone number.' };
  }
  return { kind: 'NAME', prefix: foldName(trimmed) };
}

/**
 * The smallest string greater than every string that starts with `prefix` in code-point order:
 * `prefix` with its last code point incremented. Together with `prefix` it bounds an index range
 * scan for a prefix match.
 */
export function prefixUpperBound(prefix: string): string {
  const points = [...prefix];
  const last = points.pop();
  if (last === undefined) return '\u{10FFFF}';
  const next = (last.codePointAt(0) ?? 0) + 1;
  // Skip the surrogate block, which is not a code point of its own in UTF-8.
  return points.join('') + String.fromCodePoint(next >= 0xd800 && next <= 0xdfff ? 0xe000 : next);
}

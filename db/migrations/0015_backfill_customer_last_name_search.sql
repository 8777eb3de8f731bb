-- Fills customers.search_name_last_first (added empty by 0014) for customers created before it, so a last
-- name alone finds them in portfolio search. The application writes the key itself at creation
-- (domain/customers/search.ts searchNameLastFirstOf: NFD, combining marks removed, lower case, white space
-- collapsed); this is the same fold in SQL. It removes the combining-mark blocks U+0300–036F, U+1AB0–1AFF,
-- U+1DC0–1DFF, U+20D0–20FF and U+FE20–FE2F (all marks Latin, Greek and Cyrillic names carry), and lower()
-- follows the database collation (under the C collation only ASCII letters; letters without a decomposition,
-- such as Ø, then keep their case). Without UTF8 encoding normalize() is unavailable and only case and white
-- space are folded. Idempotent: only rows still holding the empty default are written.
DO $$
BEGIN
  IF current_setting('server_encoding') = 'UTF8' THEN
    UPDATE "customers"
       SET "search_name_last_first" = btrim(regexp_replace(lower(regexp_replace(
             normalize("last_name" || ' ' || "first_name", NFD),
             '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]', '', 'g')), '\s+', ' ', 'g'))
     WHERE "search_name_last_first" = '';
  ELSE
    UPDATE "customers"
       SET "search_name_last_first" = btrim(regexp_replace(lower("last_name" || ' ' || "first_name"), '\s+', ' ', 'g'))
     WHERE "search_name_last_first" = '';
  END IF;
END
$$;

-- Opaque, stable references minted by the database (docs/processes.md P4 "Refs"): `customerRef` (`cus_…`) and
-- `contactPointRef` (`cp_…`) are column defaults, so every writer (the create routes, boarding, channel
-- callbacks) gets one without knowing. The body is a version-4 UUID (122 random bits, RFC 9562 §5.4) spelled with
-- the letters a–p instead of hex digits: no digit run can look like an identifier (domain/sensitive-data.ts).
CREATE OR REPLACE FUNCTION mint_opaque_ref(prefix text) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT prefix || translate(replace(gen_random_uuid()::text, '-', ''), '0123456789', 'ghijklmnop')
$$;

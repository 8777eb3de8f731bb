/**
 * Government identifiers inside staged boarding lines are stored encrypted (docs/design.md §3 Data rules: "the full value is
 * accepted once, stored encrypted (AES-256-GCM, key from configuration)"). A `customer` line carries its identifiers
 * in clear in the upload (`body.identifiers[].value`); before the line is written to `boarding_lines.raw`, each such
 * value is replaced by `enc:v1:` + base64(IV ‖ ciphertext ‖ tag) under AES-256-GCM (activities/common/encryption.ts,
 * the configured `dataEncryptionKey`), with the additional authenticated data
 * `boarding-line-identifier/v1|<tenant>|<identifierType>`, so a value copied to another tenant or type fails to
 * decrypt. The values are decrypted in memory only when the line is read to be validated or boarded
 * (activities/boarding/lines.ts `readLines`); the customer's identifier is then stored as every identifier is
 * (activities/customers/identifier-crypto.ts). Every other byte of the line is kept; a line that is not a JSON
 * object, or has no identifiers, is stored as uploaded. A value staged before this rule (no `enc:v1:` prefix) is
 * read as it is.
 *
 * Neither the values nor the key are ever logged or put in an error.
 */
import { decryptField, encryptField } from '../common/encryption';

/** Prefix of an encrypted value inside a staged line. */
export const sealedValuePrefix = 'enc:v1:';

const aadOf = (tenantId: string, identifierType: unknown) =>
  `boarding-line-identifier/v1|${tenantId}|${typeof identifierType === 'string' ? identifierType : ''}`;

type Identifier = { identifierType?: unknown; value?: unknown };

/** The `identifiers` array of a parsed `customer` line's body, or null. */
function identifiersOf(body: unknown): Identifier[] | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const identifiers = (body as { identifiers?: unknown }).identifiers;
  return Array.isArray(identifiers) ? (identifiers as Identifier[]) : null;
}

/**
 * The text to store for the staged line `raw` of kind `kind` (module note): a `customer` line with identifier values
 * is re-serialized with each string `value` encrypted; any other line is returned unchanged.
 */
export function sealLineIdentifiers(
  dataEncryptionKey: string,
  tenantId: string,
  kind: string | null,
  raw: string,
): string {
  if (kind !== 'customer') return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  const identifiers = identifiersOf((parsed as { body?: unknown } | null)?.body);
  if (identifiers === null) return raw;
  let sealed = false;
  for (const identifier of identifiers) {
    if (identifier === null || typeof identifier !== 'object' || typeof identifier.value !== 'string')
      continue;
    identifier.value = `${sealedValuePrefix}${encryptField(dataEncryptionKey, aadOf(tenantId, identifier.identifierType), identifier.value)}`;
    sealed = true;
  }
  return sealed ? JSON.stringify(parsed) : raw;
}

/**
 * `body` (a parsed line's body) with every sealed identifier value decrypted (module note), as a new object; a value
 * that does not decrypt (another key, tenant or type) becomes the empty string, which validation refuses.
 */
export function openLineIdentifiers(dataEncryptionKey: string, tenantId: string, body: unknown): unknown {
  const identifiers = identifiersOf(body);
  if (identifiers === null) return body;
  const opened = identifiers.map((identifier) => {
    if (identifier === null || typeof identifier !== 'object') return identifier;
    const value = identifier.value;
    if (typeof value !== 'string' || !value.startsWith(sealedValuePrefix)) return identifier;
    let plain = '';
    try {
      plain = decryptField(
        dataEncryptionKey,
        aadOf(tenantId, identifier.identifierType),
        value.slice(sealedValuePrefix.length),
      );
    } catch {
      plain = '';
    }
    return { ...identifier, value: plain };
  });
  return { ...(body as Record<string, unknown>), identifiers: opened };
}

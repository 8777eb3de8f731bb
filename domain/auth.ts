/**
 * Scopes, permissions and credential formats (spec § Authentication; DESIGN §4 Tokens).
 */

/** The spec's scopes: each opens a broad surface; a permission decides each operation. */
export const scopes = [
  'servicing:read',
  'servicing:write',
  'lending:read',
  'lending:write',
  'actions:approve',
] as const;
export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/**
 * Permission names, one per operation, in the spec's pattern (`CREATE_LMS_PAYMENT`,
 * `APPROVE_LMS_FUNDING`): ACTION_ENTITY. `ALL` grants every permission.
 */
export const permissions = [
  'CREATE_SERVICINGCASE',
  'READ_SERVICINGCASE',
  'CLOSE_SERVICINGCASE',
  'READ_CASEEFFECT',
  'CREATE_INTERACTION',
  'READ_INTERACTION',
  'CREATE_EVIDENCE',
  'READ_EVIDENCE',
  'READ_TASK',
  'COMPLETE_TASK',
  'CREATE_PRIVACYREQUEST',
  'READ_PRIVACYREQUEST',
  'FULFILL_PRIVACYREQUEST',
] as const;
export type Permission = (typeof permissions)[number];

export function isPermission(value: string): value is Permission | 'ALL' {
  return value === 'ALL' || (permissions as readonly string[]).includes(value);
}

/** Access-token lifetime (spec § Authentication 3: 3600 seen). */
export const accessTokenLifetimeSeconds = 3600;
/** Default and maximum overlap of an old client secret after rotation. */
export const secretRotationOverlapSeconds = { default: 24 * 3600, max: 7 * 24 * 3600 } as const;

export type ServiceEnvironment = 'sandbox' | 'production';

/** Prefix of opaque credentials per environment: `at_test_`/`at_live_`, `cs_test_`/`cs_live_`. */
export function credentialPrefix(kind: 'at' | 'cs', environment: ServiceEnvironment): string {
  return `${kind}_${environment === 'production' ? 'live' : 'test'}_`;
}

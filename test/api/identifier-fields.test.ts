/**
 * Every string field of every JSON request body refuses an identifier-like value (docs/lending.md "Lending core": "Never
 * place government identifiers or account numbers in externalId, externalRecordRef, rationale, idempotency keys
 * or notes"; docs/design.md §3: government identifiers and account data are accepted once, stored encrypted). The walk
 * reads the published OpenAPI document (`GET /v1/openapi.json`), so a body field added later is covered without
 * editing this file: for each string field (nested objects, array items and each `oneOf` branch included) it
 * sends a body holding only that field set to `SSN 536-22-8417 acct 000123456789` and expects 400 Shape A naming
 * that field, with the value withheld (never echoed). The only fields exempt are those meant to carry such a
 * value, which the service stores encrypted and shows only as a mask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';
import { expectShapeA, type Json } from './helpers';

const identifierLike = 'SSN 536-22-8417 acct 000123456789';

/** Fields meant to carry a government identifier (stored AES-256-GCM encrypted, read back only as a mask). */
const carriesIdentifiers = new Set(['POST /v1/customers/{customerId}/identifiers value']);

let ctx: TestContext;
let doc: Json;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  doc = await (await ctx.app.request('/v1/openapi.json')).json();
});
afterAll(async () => ctx?.close());

interface StringField {
  /** The field's name as errors name it (`addresses[0].line1`). */
  name: string;
  /** A body holding only that field (and any `oneOf` discriminator on its way) set to `value`. */
  body: (value: string) => Json;
}

function resolve(schema: Json): Json {
  if (schema?.$ref === undefined) return schema;
  return resolve(doc.components.schemas[String(schema.$ref).split('/').pop() as string]);
}

/** The discriminating constants of a `oneOf` branch (its properties whose schema is a `const` or one-value enum). */
function constants(schema: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries<Json>(resolve(schema).properties ?? {})) {
    const p = resolve(property);
    if (p.const !== undefined) out[key] = p.const;
    else if (Array.isArray(p.enum) && p.enum.length === 1) out[key] = p.enum[0];
  }
  return out;
}

/** Every string field reachable in `schema`, each with a body builder wrapping its value up to the root. */
function stringFields(schema: Json, name: string, wrap: (inner: Json) => Json, depth = 0): StringField[] {
  const s = resolve(schema);
  if (s === undefined || depth > 12) return [];
  const fields: StringField[] = [];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    for (const branch of s[key] ?? []) {
      const fixed = constants(branch);
      const branchWrap = Object.keys(fixed).length > 0 ? (inner: Json) => wrap({ ...fixed, ...inner }) : wrap;
      fields.push(...stringFields(branch, name, branchWrap, depth + 1));
    }
  }
  const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('string') && s.enum === undefined && s.const === undefined) {
    fields.push({ name, body: (value) => wrap(value) });
  }
  for (const [key, property] of Object.entries<Json>(s.properties ?? {})) {
    const child = name === '' ? key : `${name}.${key}`;
    fields.push(...stringFields(property, child, (inner) => wrap({ [key]: inner }), depth + 1));
  }
  if (s.items !== undefined) {
    fields.push(...stringFields(s.items, `${name}[0]`, (inner) => wrap([inner]), depth + 1));
  }
  return fields;
}

/**
 * `/v1/loans/1?command=approve`: every path parameter filled (`1`, a code for `…Code`, a name for string ids) and
 * every required query parameter given its first allowed value.
 */
function concretePath(template: string, operation: Json): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, parameter: string) =>
    /Code$/.test(parameter) ? 'GENERAL' : /^(workflowId|aiSessionId)$/.test(parameter) ? 'wf-a' : '1',
  );
  const query = (operation.parameters ?? [])
    .filter((p: Json) => p.in === 'query' && p.required === true)
    .map((p: Json) => `${p.name}=${encodeURIComponent(String(resolve(p.schema)?.enum?.[0] ?? 'a'))}`);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/** The field errors of a Shape A (`parameterName`) or Shape B (`pointer`, RFC 6901) answer, by field name. */
function fieldErrorNamed(body: Json, name: string): Json {
  if (!Array.isArray(body?.errors)) return undefined;
  const pointer = `/${name
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .join('/')}`;
  return body.errors.find((e: Json) => e.parameterName === name || e.pointer === pointer);
}

describe('identifier-like values in request bodies', () => {
  it('every string field of every JSON body refuses one with 400 Shape A, the value not echoed', async () => {
    const cred = await credentialFor(ctx, uniqueTenant('idf'), {
      scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write', 'actions:approve'],
    });
    const accepted: string[] = [];
    const echoed: string[] = [];
    let checked = 0;
    for (const [template, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (schema === undefined) continue;
        const seen = new Set<string>();
        for (const field of stringFields(schema, '', (inner) => inner)) {
          const label = `${method.toUpperCase()} ${template} ${field.name}`;
          if (seen.has(label) || carriesIdentifiers.has(label)) continue;
          seen.add(label);
          checked++;
          const res = await call(
            ctx,
            cred,
            method.toUpperCase(),
            concretePath(template, operation),
            field.body(identifierLike),
            {
              'service-actor': 'staff-a',
              'if-match': '"1"',
            },
          );
          // AI session outputs answer in Shape B, where validation is a 422 (docs/design.md §5 Errors).
          const problem = res.headers.get('content-type')?.startsWith('application/problem+json') === true;
          const named = fieldErrorNamed(res.body, field.name);
          if (res.status !== (problem ? 422 : 400) || named === undefined) {
            accepted.push(`${label} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
            continue;
          }
          if (!problem) expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
          const text = JSON.stringify(res.body);
          if ((!problem && named.value !== null) || text.includes('8417') || text.includes('000123456789'))
            echoed.push(`${label} → ${text.slice(0, 200)}`);
        }
      }
    }
    expect(accepted).toEqual([]);
    expect(echoed).toEqual([]);
    // The walk really walked: the document has well over a hundred body string fields.
    expect(checked).toBeGreaterThan(100);
  });
});

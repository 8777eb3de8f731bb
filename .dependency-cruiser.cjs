/**
 * Layer rules (DESIGN §1 folder table, STYLE §3, DESIGN-processes P0 "Layer rules are linted"),
 * checked by `npm run lint` with dependency-cruiser. Biome's `noRestrictedImports` cannot tell a
 * type-only import from a value import; these rules can, which is what "workflows import only types
 * from activities/" needs. `test/unit/layer-rules.test.ts` shows each rule failing on a violation.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing of ours outside domain/ (DESIGN §1).',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(activities|api|db|workers|workflows|scripts|test|client|bench)/' },
    },
    {
      name: 'domain-no-io-libraries',
      comment: 'domain/ is deterministic: no database, HTTP, Temporal or logging library.',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        path: 'node_modules/(drizzle-orm|postgres|hono|@hono|@temporalio|pino)/',
      },
    },
    {
      name: 'workflow-imports-only-types-of-io-layers',
      comment:
        'workflows/ (except the client ports) import activities/, db/, api/ and workers/ as types only; values would pull I/O into the deterministic bundle (STYLE §3, §13.1).',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/client|common/client-[^/]+)\\.ts$' },
      to: { path: '^(activities|db|api|workers|scripts)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-never-imports-a-client-port',
      comment:
        'client.ts starts and signals processes with @temporalio/client: never part of the workflow bundle.',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/client|common/client-[^/]+)\\.ts$' },
      to: {
        path: '^workflows/([^/]+/client|common/client-[^/]+)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-no-client-or-worker-sdk',
      comment: 'Workflow code runs in the sandbox: only @temporalio/workflow and @temporalio/common.',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/client|common/client-[^/]+)\\.ts$' },
      to: {
        path: 'node_modules/@temporalio/(client|worker|activity|testing)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'api-no-transactions-or-sql',
      comment:
        'api/ reads through db/queries and writes through activities/: no transaction helper, no query builder, no driver (STYLE §3).',
      severity: 'error',
      from: { path: '^api/' },
      to: {
        path: ['^db/tenant-tx\\.ts$', 'node_modules/(drizzle-orm|postgres)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'api-no-workflow-code',
      comment:
        'api/ reaches a process through its client.ts, messages.ts and types.ts, never its workflow.ts as a value.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^workflows/[^/]+/workflow\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'operations-do-not-know-the-edges',
      comment: 'activities/ and db/ never import the HTTP layer, the workers or scripts.',
      severity: 'error',
      from: { path: '^(activities|db)/', pathNot: '^activities/boarding/' },
      to: { path: '^(api|workers|scripts)/' },
    },
    {
      name: 'operations-do-not-know-the-edges',
      comment:
        "The one exception (issue 9, DESIGN-processes P3): portfolio boarding validates each line with the public route's own body schema, so activities/boarding/ may import api/schemas/ and api/validation.ts (issuesToError, the schemas' helpers) — never routes, middleware, the workers or scripts. Copying the schemas instead would let the two drift.",
      severity: 'error',
      from: { path: '^activities/boarding/' },
      to: { path: '^(api|workers|scripts)/', pathNot: '^api/(schemas/[^/]+|validation)\\.ts$' },
    },
    {
      name: 'db-below-activities',
      comment: 'db/ imports only domain/ and db/.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(activities|workflows)/' },
    },
    {
      name: 'client-is-standalone',
      comment:
        'client/ is its own package (client/package.json), used by integrators: it imports none of the service (issue 12 §1).',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^(activities|api|bench|db|domain|scripts|test|workers|workflows)/' },
    },
    {
      name: 'webhook-verification-is-dependency-free',
      comment: 'client/src/webhooks.ts may be copied into a receiver: Node built-ins only.',
      severity: 'error',
      from: { path: '^client/src/webhooks\\.ts$' },
      to: { dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|\\.data|\\.tools)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

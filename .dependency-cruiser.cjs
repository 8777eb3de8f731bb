/**
 * Layer rules (docs/architecture.md), checked by `npm run lint` with dependency-cruiser: the layers form a DAG
 * (domain ← db ← activities ← workflows' types; api and workers at the edges). Biome's `noRestrictedImports` cannot tell a
 * type-only import from a value import; these rules can, which is what "workflows import only types
 * from activities/" needs. `test/unit/layer-rules.test.ts` shows each rule failing on a violation.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing of ours outside domain/.',
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
        'workflows/ (except the client ports) import activities/, db/, api/ and workers/ as types only; values would pull I/O into the deterministic bundle.',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/[^/]+/client|common/client-[^/]+)\\.ts$' },
      to: { path: '^(activities|db|api|workers|scripts)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-never-imports-a-client-port',
      comment:
        'client.ts starts and signals processes with @temporalio/client: never part of the workflow bundle.',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/[^/]+/client|common/client-[^/]+)\\.ts$' },
      to: {
        path: '^workflows/([^/]+/[^/]+/client|common/client-[^/]+)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-no-client-or-worker-sdk',
      comment: 'Workflow code runs in the sandbox: only @temporalio/workflow and @temporalio/common.',
      severity: 'error',
      from: { path: '^workflows/', pathNot: '^workflows/([^/]+/[^/]+/client|common/client-[^/]+)\\.ts$' },
      to: {
        path: 'node_modules/@temporalio/(client|worker|activity|testing)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'api-no-transactions-or-sql',
      comment:
        'api/ reads through db/queries and writes through activities/: no transaction helper, no query builder, no driver.',
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
      to: { path: '^workflows/[^/]+/[^/]+/workflow\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'operations-do-not-know-the-edges',
      comment:
        'activities/ and db/ never import the HTTP layer, the workers or scripts. Portfolio boarding validates each line with the same input schemas as the public routes: they live in domain/<context>/schemas/, which both import.',
      severity: 'error',
      from: { path: '^(activities|db)/' },
      to: { path: '^(api|workers|scripts)/' },
    },
    {
      name: 'activities-do-not-start-workflows',
      comment:
        'activities/ are the operations workflows call: they never import workflows/ (a workflow is started by the API or a worker service through its client.ts).',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^workflows/' },
    },
    {
      name: 'no-circular',
      comment:
        'The layers form a DAG: no module reaches itself again through its imports, type-only imports included (a type cycle still ties the layers together).',
      severity: 'error',
      from: {},
      to: { circular: true },
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
        'client/ is its own package (client/package.json), used by integrators: it imports none of the service.',
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

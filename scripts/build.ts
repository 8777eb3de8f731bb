/**
 * `npm run build`: the production artefacts in `dist/` (docs/processes.md P0), run with plain
 * `node`, no tsx:
 *   dist/start-api.js, start-worker.js, admin.js   entry points bundled by esbuild (ESM,
 *       our code inlined, so extensionless imports need no rewriting; npm packages stay external
 *       and load from node_modules, native ones included)
 *   dist/workflow-bundle-<queue entry>.js   a workflow bundle (`bundleWorkflowCode`) per task queue entry
 *       (workflows/queues/*.ts, workers/queue-worker.ts `queueWorkflowsPaths`) that workers load with tracing off
 *   dist/workflow-bundle-<queue entry>-traced.js   the same with OpenTelemetry's workflow interceptors, loaded with
 *       tracing on (workers/queue-worker.ts `workflowInterceptorModulesFor`)
 *   dist/workflow-bundle.js, workflow-bundle-traced.js   every workflow (WORKFLOW_BUNDLE_PATH may name one)
 *   dist/migrations/             the SQL migrations the entry points apply at start
 * `--outdir <folder inside the project>` builds elsewhere (the e2e test does). The bundle check of
 * test/unit/workflow-bundle.test.ts guards the same workflow code.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { build } from 'esbuild';
import { projectRoot } from '../workers/config';
import {
  queueWorkflowsPaths,
  workflowBundleFileName,
  workflowInterceptorModulesFor,
  workflowsPath,
  workflowsPathFor,
} from '../workers/queue-worker';

const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const started = Date.now();
// Another folder inside the project (tests) still resolves npm packages from its node_modules.
const dist = path.resolve(projectRoot, values.outdir ?? 'dist');
const entryPoints = ['scripts/start-api.ts', 'scripts/start-worker.ts', 'scripts/admin.ts'];

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;
// Every workflow (the `undefined` queue) and each queue entry once (webhooks and webhooks-backlog share one).
const bundleQueues = [
  undefined,
  ...new Map(Object.entries(queueWorkflowsPaths).map(([q, e]) => [e, q])).values(),
];
const bundles = bundleQueues.flatMap((queue) =>
  [false, true].map(async (traced) => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: queue ? workflowsPathFor(queue) : workflowsPath,
      workflowInterceptorModules: workflowInterceptorModulesFor(traced),
      logger: quiet,
    });
    const file = workflowBundleFileName(queue, traced);
    await writeFile(path.join(dist, file), bundle.code);
    return file;
  }),
);
await Promise.all([
  build({
    absWorkingDir: projectRoot,
    entryPoints,
    outdir: dist,
    outbase: path.join(projectRoot, 'scripts'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  }),
  ...bundles,
]);
const bundleFiles = await Promise.all(bundles);
await cp(path.join(projectRoot, 'db', 'migrations'), path.join(dist, 'migrations'), {
  recursive: true,
});
process.stdout.write(
  `built ${entryPoints.map((e) => `${path.basename(e, '.ts')}.js`).join(', ')} and ${bundleFiles.join(', ')} in ${path.relative(projectRoot, dist)}/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);

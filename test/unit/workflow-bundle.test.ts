/**
 * The workflow bundle check (docs/conventions.md §11): bundling `workflows/index.ts` fails when workflow code
 * (or anything it imports) pulls in a Node built-in or another module the sandbox forbids. Each task queue's
 * bundle (workflows/queues/*.ts, workers/queue-worker.ts `queueWorkflowsPaths`) exports the workflows started on
 * that queue: a workflow missing from its queue's entry would never run.
 */
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { taskQueues } from '../../domain/ids';
import { queueWorkflowsPaths } from '../../workers/queue-worker';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workflowsPath = path.join(projectRoot, 'workflows/index.ts');
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

/** The names a workflow entry re-exports (`export { a, b } from '…'`). */
async function exportedNames(entry: string): Promise<string[]> {
  const text = await readFile(entry, 'utf8');
  return [...text.matchAll(/export\s*\{([^}]*)\}\s*from/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/** Every `.ts` file under `dir` (relative to the project). */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(projectRoot, dir), { recursive: true, withFileTypes: true });
  // test/unit/layer-rules.test.ts plants `zz-probe-*` files for a moment while tests run in parallel: not sources
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.startsWith('zz-probe-'))
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * Workflow → the queue the code starts it on: each `taskQueue: taskQueues.<queue>` in domain/ start specs and
 * workflows/ clients, with the workflow named closest before it (its `workflowType` or the function passed to start).
 */
async function startedQueues(): Promise<Map<string, Set<string>>> {
  const queueNames = new Map(Object.entries(taskQueues));
  const found = new Map<string, Set<string>>();
  for (const file of [...(await sourceFiles('domain')), ...(await sourceFiles('workflows'))]) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/taskQueue:[^,\n]*taskQueues\.(\w+)/g)) {
      const before = text.slice(Math.max(0, (m.index ?? 0) - 400), m.index);
      const names = [...before.matchAll(/\b(\w+Workflow)\b/g)];
      const workflow = names.at(-1)?.[1];
      const queue = queueNames.get(m[1] ?? '');
      if (!workflow || !queue) continue;
      found.set(workflow, (found.get(workflow) ?? new Set()).add(queue));
    }
  }
  return found;
}

describe('workflow bundle per task queue', () => {
  it('puts every workflow of workflows/index.ts in exactly one queue entry', async () => {
    const all = await exportedNames(workflowsPath);
    const entries = [...new Set(Object.values(queueWorkflowsPaths))];
    const perEntry = await Promise.all(entries.map(exportedNames));
    expect(all.length).toBeGreaterThan(10);
    expect(perEntry.flat().sort()).toEqual([...all].sort());
  });

  it('exports each workflow from the entry of the queue it is started on', async () => {
    const started = await startedQueues();
    // The scan finds the starts of the workflows other code starts (not the children that inherit their queue).
    expect(started.get('autopayWorkflow')).toEqual(new Set([taskQueues.lending]));
    expect(started.size).toBeGreaterThan(8);
    for (const [workflow, queues] of started) {
      for (const queue of queues) {
        const entry = queueWorkflowsPaths[queue];
        expect(entry, `queue ${queue} has a workflow entry`).toBeDefined();
        expect(await exportedNames(entry ?? ''), `${workflow} on queue ${queue}`).toContain(workflow);
      }
    }
  });

  it('bundles each queue entry with its workflows only', { timeout: 120_000 }, async () => {
    const all = await exportedNames(workflowsPath);
    for (const entry of new Set(Object.values(queueWorkflowsPaths))) {
      const own = await exportedNames(entry);
      const bundle = await bundleWorkflowCode({ workflowsPath: entry, logger: silent as never });
      for (const name of own) expect(bundle.code, `${name} in ${entry}`).toContain(`function ${name}(`);
      for (const name of all.filter((n) => !own.includes(n))) {
        expect(bundle.code, `${name} not in ${entry}`).not.toContain(`function ${name}(`);
      }
    }
  });
});

describe('workflow bundle', () => {
  it('bundles workflows/index.ts and exports privacyRequestWorkflow', { timeout: 60_000 }, async () => {
    const bundle = await bundleWorkflowCode({ workflowsPath, logger: silent as never });
    expect(bundle.code.length).toBeGreaterThan(1000);
    expect(bundle.code).toContain('privacyRequestWorkflow');
    expect(bundle.code).toContain('webhookDeliveryWorkflow');
  });

  it('fails on workflow code that imports a Node built-in (the check can fail)', {
    timeout: 60_000,
  }, async () => {
    // A throw-away workflows folder next to a link to our node_modules, with a control that bundles.
    const dir = await mkdtemp(path.join(tmpdir(), 'bundle-check-'));
    try {
      await symlink(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      const good = path.join(dir, 'good.ts');
      const bad = path.join(dir, 'bad.ts');
      const body =
        "export async function someWorkflow(): Promise<string> {\n  await sleep(1);\n  return 'x';\n}\n";
      await writeFile(good, `import { sleep } from '@temporalio/workflow';\n${body}`);
      await writeFile(
        bad,
        `import { sleep } from '@temporalio/workflow';\nimport { hostname } from 'node:os';\nexport const where = () => hostname();\n${body}`,
      );

      await expect(
        bundleWorkflowCode({ workflowsPath: good, logger: silent as never }),
      ).resolves.toHaveProperty('code');
      const errors: string[] = [];
      const capturing = { ...silent, error: (message: string) => errors.push(message) } as never;
      await expect(bundleWorkflowCode({ workflowsPath: bad, logger: capturing })).rejects.toThrow(
        /Webpack finished with errors/,
      );
      expect(errors.join('\n')).toContain('node:os');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

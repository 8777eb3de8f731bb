/**
 * The workflow bundle check (docs/conventions.md §11): bundling `workflows/index.ts` fails when workflow code
 * (or anything it imports) pulls in a Node built-in or another module the sandbox forbids.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workflowsPath = path.join(projectRoot, 'workflows/index.ts');
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

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

/**
 * The workflow bundle check (STYLE §11): bundling `workflows/index.ts` fails when workflow code
 * (or anything it imports) pulls in a Node built-in or another module the sandbox forbids.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';

const workflowsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never;

describe('workflow bundle', () => {
  it('bundles workflows/index.ts and exports privacyRequestWorkflow', { timeout: 60_000 }, async () => {
    const bundle = await bundleWorkflowCode({ workflowsPath, logger: silent });
    expect(bundle.code.length).toBeGreaterThan(1000);
    expect(bundle.code).toContain('privacyRequestWorkflow');
  });

  it('fails on workflow code that imports a Node built-in (the check can fail)', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bad-workflow-'));
    try {
      const bad = path.join(dir, 'index.ts');
      await writeFile(
        bad,
        "import { readFileSync } from 'node:fs';\nexport async function badWorkflow(): Promise<string> {\n  return readFileSync('/etc/hostname', 'utf8');\n}\n",
      );
      await expect(bundleWorkflowCode({ workflowsPath: bad, logger: silent })).rejects.toThrow(/fs/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

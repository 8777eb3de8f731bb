/**
 * The layer rules of `.dependency-cruiser.cjs` and biome.json fail on a violating import: probe files with one violation each are written into the real folders,
 * checked with the same command `npm run lint` runs, and removed. The allowed forms (type-only
 * imports of activities/ from a workflow, a workflow importing domain/) must pass.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';

interface Probe {
  file: string;
  source: string;
  /** The rule that must report it, or null when the probe is allowed. */
  rule: string | null;
}

function runDepcruise(files: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    path.join(projectRoot, 'node_modules', '.bin', 'depcruise'),
    ['--config', '.dependency-cruiser.cjs', ...files],
    { cwd: projectRoot, encoding: 'utf8' },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('layer rules', () => {
  it('reports each forbidden import and accepts the allowed ones', () => {
    const tag = randomBytes(4).toString('hex');
    const probes: Probe[] = [
      {
        file: `domain/zz-probe-${tag}-db.ts`,
        source: "import { createDb } from '../db/client';\nexport const probe = createDb;\n",
        rule: 'domain-is-pure',
      },
      {
        file: `domain/zz-probe-${tag}-io.ts`,
        source: "import { sql } from 'drizzle-orm';\nexport const probe = sql;\n",
        rule: 'domain-no-io-libraries',
      },
      {
        file: `workflows/common/zz-probe-${tag}-value.ts`,
        source:
          "import { createActivities } from '../../activities';\nexport const probe = createActivities;\n",
        rule: 'workflow-imports-only-types-of-io-layers',
      },
      {
        file: `workflows/common/zz-probe-${tag}-sdk.ts`,
        source: "import { Client } from '@temporalio/client';\nexport const probe = Client;\n",
        rule: 'workflow-no-client-or-worker-sdk',
      },
      {
        file: `api/zz-probe-${tag}-tx.ts`,
        source:
          "import { withTenantTransaction } from '../db/tenant-tx';\nexport const probe = withTenantTransaction;\n",
        rule: 'api-no-transactions-or-sql',
      },
      {
        file: `api/zz-probe-${tag}-sql.ts`,
        source: "import postgres from 'postgres';\nexport const probe = postgres;\n",
        rule: 'api-no-transactions-or-sql',
      },
      {
        file: `activities/zz-probe-${tag}-edge.ts`,
        source: "import { createApp } from '../api/app';\nexport const probe = createApp;\n",
        rule: 'operations-do-not-know-the-edges',
      },
      {
        // Boarding has no exception: it reaches the input schemas in domain/, never api/.
        file: `activities/boarding/zz-probe-${tag}-api.ts`,
        source: "import { jsonBody } from '../../api/validation';\nexport const probe = jsonBody;\n",
        rule: 'operations-do-not-know-the-edges',
      },
      {
        file: `activities/zz-probe-${tag}-workflow.ts`,
        source:
          "import { workflowNow } from '../workflows/common/time';\nexport const probe = workflowNow;\n",
        rule: 'activities-do-not-start-workflows',
      },
      {
        // The rules name process folders by their depth (workflows/<context>/<process>/): a probe in a real one.
        file: `workflows/payments/payment-intent/zz-probe-${tag}-port.ts`,
        source:
          "import { PaymentProcessEndedError } from './client';\nexport const probe = PaymentProcessEndedError;\n",
        rule: 'workflow-never-imports-a-client-port',
      },
      {
        file: `api/zz-probe-${tag}-workflow.ts`,
        source:
          "import { paymentIntentWorkflow } from '../workflows/payments/payment-intent/workflow';\nexport const probe = paymentIntentWorkflow;\n",
        rule: 'api-no-workflow-code',
      },
      {
        file: `workflows/payments/payment-intent/zz-probe-${tag}-client-types.ts`,
        source:
          "import type { PaymentIntentClient } from './client';\nexport type Probe = PaymentIntentClient;\n",
        rule: null,
      },
      {
        file: `client/src/zz-probe-${tag}-service.ts`,
        source: "import { createApp } from '../../api/app';\nexport const probe = createApp;\n",
        rule: 'client-is-standalone',
      },
      {
        file: `workflows/common/zz-probe-${tag}-types.ts`,
        source:
          "import type { Activities } from '../../activities';\nimport { workflowNow } from './time';\nexport type Probe = Activities;\nexport const probe = workflowNow;\n",
        rule: null,
      },
    ];
    // A cycle of type-only imports is still a cycle: reported once, naming both files.
    const cycle = [
      {
        file: `domain/zz-probe-${tag}-cycle-a.ts`,
        source: `import type { B } from './zz-probe-${tag}-cycle-b';\nexport type A = { b?: B };\n`,
      },
      {
        file: `domain/zz-probe-${tag}-cycle-b.ts`,
        source: `import type { A } from './zz-probe-${tag}-cycle-a';\nexport type B = { a?: A };\n`,
      },
    ];
    const written = [...probes, ...cycle];
    try {
      for (const probe of written) writeFileSync(path.join(projectRoot, probe.file), probe.source);
      const { status, output } = runDepcruise(written.map((p) => p.file));
      expect(status).not.toBe(0);
      expect(output).toMatch(new RegExp(`error no-circular: domain/zz-probe-${tag}-cycle-[ab]\\.ts →`));
      for (const probe of probes) {
        const reported = output
          .split('\n')
          .filter((line) => line.includes(`${probe.file} →`))
          .map((line) => line.trim());
        if (probe.rule === null) expect(reported, probe.file).toEqual([]);
        else
          expect(
            reported.some((line) => line.startsWith(`error ${probe.rule}:`)),
            output,
          ).toBe(true);
      }
    } finally {
      for (const probe of written) rmSync(path.join(projectRoot, probe.file), { force: true });
    }
  }, 30_000);

  it("Biome's import restrictions hold for domain/ and workflows/ alike (one override each, neither replacing the other's)", () => {
    const tag = randomBytes(4).toString('hex');
    const probes = [
      {
        file: `domain/zz-probe-${tag}-pino.ts`,
        source: "import pino from 'pino';\nexport const probe = pino;\n",
      },
      {
        file: `domain/zz-probe-${tag}-hono.ts`,
        source: "import { Hono } from 'hono';\nexport const probe = Hono;\n",
      },
      {
        file: `domain/zz-probe-${tag}-node.ts`,
        source: "import { readFileSync } from 'node:fs';\nexport const probe = readFileSync;\n",
      },
      {
        file: `workflows/common/zz-probe-${tag}-pino.ts`,
        source: "import pino from 'pino';\nexport const probe = pino;\n",
      },
    ];
    try {
      for (const probe of probes) writeFileSync(path.join(projectRoot, probe.file), probe.source);
      const result = spawnSync(
        path.join(projectRoot, 'node_modules', '.bin', 'biome'),
        ['lint', '--max-diagnostics=50', ...probes.map((p) => p.file)],
        { cwd: projectRoot, encoding: 'utf8' },
      );
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status).not.toBe(0);
      // Each probe is reported, by the rule of its folder.
      for (const probe of probes)
        expect(output, probe.file).toMatch(
          new RegExp(
            `${probe.file.replace(/[.]/g, '\\.')}:\\d+:\\d+ lint/(style/noRestrictedImports|correctness/noNodejsModules)`,
          ),
        );
    } finally {
      for (const probe of probes) rmSync(path.join(projectRoot, probe.file), { force: true });
    }
  }, 30_000);

  it('passes on the project as it is', () => {
    const { status, output } = runDepcruise(['.']);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  }, 30_000);
});

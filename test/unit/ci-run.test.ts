/**
 * `.ci/run` must end with the test runner's summary as its very last line, exactly `N passed,
 * N failed` (the skipped count is the line before it), so that a green run is never mistaken for one that ran no test. The
 * script is copied into a throw-away project whose `npm` is a stand-in that writes a Vitest JSON
 * report, and run for real with bash; its combined output's last line is checked, for a passing
 * and for a failing report.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs a copy of `.ci/run` where `npm test` writes the given report; returns exit code and output. */
function runCi(report: { passed: number; failed: number; skipped: number }) {
  const root = mkdtempSync(path.join(tmpdir(), 'ci-run-'));
  dirs.push(root);
  mkdirSync(path.join(root, '.ci'));
  cpSync(path.join(projectRoot, '.ci', 'run'), path.join(root, '.ci', 'run'));
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  const reportJson = JSON.stringify({
    numPassedTests: report.passed,
    numFailedTests: report.failed,
    numPendingTests: report.skipped,
    numTodoTests: 0,
    success: report.failed === 0,
  });
  // The stand-in npm: `ci` and the fuzz pass succeed quietly; `test` prints a runner-like line
  // and writes the JSON report that .ci/run reads.
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/usr/bin/env bash
case "$1" in
  test) mkdir -p .data; printf '%s' '${reportJson}' > .data/vitest-report.json; echo "Tests ${report.passed} passed"; exit ${report.failed > 0 ? 1 : 0} ;;
  *) echo "npm $*"; exit 0 ;;
esac
`,
  );
  writeFileSync(path.join(bin, 'chromium'), '#!/usr/bin/env bash\nexit 0\n');
  chmodSync(path.join(bin, 'npm'), 0o755);
  chmodSync(path.join(bin, 'chromium'), 0o755);
  const result = spawnSync('bash', [path.join(root, '.ci', 'run')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  const lines = `${result.stdout}${result.stderr}`.trimEnd().split('\n');
  return { status: result.status, stdoutLast: result.stdout.trimEnd().split('\n').at(-1), lines };
}

describe('.ci/run', () => {
  it('ends with the suite summary as its last line when the suite passes', () => {
    const { status, stdoutLast, lines } = runCi({ passed: 12, failed: 0, skipped: 1 });
    expect(status).toBe(0);
    expect(stdoutLast).toBe('12 passed, 0 failed');
    // Nothing at all (stdout or stderr) follows the summary, and it has no prefix or suffix a
    // strict reader of `N passed, N failed` would trip on.
    expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
    expect(lines.at(-2)).toBe('skipped: 1');
  });

  it('ends with the summary and fails when a test failed', () => {
    const { status, lines } = runCi({ passed: 11, failed: 2, skipped: 0 });
    expect(status).not.toBe(0);
    expect(lines.at(-1)).toBe('11 passed, 2 failed');
  });
});

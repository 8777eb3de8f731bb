/**
 * The replay fixtures (test/workflows/histories/, replayed by replay.test.ts) are append-only (docs/conventions.md §7, docs/design.md §7):
 * a workflow change goes behind `patched()` with a new fixture, a recorded fixture is never changed or deleted
 * (scripts/workflow-fixtures.ts). Checked two ways: against the checked-in checksums, the frozen SHA256SUMS and one
 * `<fixture>.sha256` per later fixture (any checkout), and, when the
 * clone has its full history, against the content each fixture had in the commit that added it. Each check is
 * shown to fail on a planted change. Also: every workflow exported by workflows/index.ts has at least one fixture.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkGitHistory,
  checkManifest,
  checksumSuffix,
  fixturesByWorkflowType,
  fixturesFolder,
  gitHistoryAvailable,
  manifestName,
  writeChecksumFiles,
} from '../../scripts/workflow-fixtures';
import * as workflows from '../../workflows/index';

const projectRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const folder = path.join(projectRoot, fixturesFolder);

const temporaries: string[] = [];
afterEach(async () => {
  for (const dir of temporaries.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function temporary(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  temporaries.push(dir);
  return dir;
}

/** Runs git in `cwd` with a fixed identity (no global configuration needed). */
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    'git',
    [
      '-c',
      'user.name=fixture',
      '-c',
      'user.email=fixture@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );

const history = (type: string, extra: Record<string, unknown> = {}) => ({
  events: [
    {
      eventId: '1',
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      workflowExecutionStartedEventAttributes: { workflowType: { name: type } },
      ...extra,
    },
  ],
});

describe('replay fixtures are append-only', () => {
  it(`every fixture is listed in ${manifestName} or its own checksum file with the SHA-256 of its bytes, and none listed is missing`, async () => {
    expect(await checkManifest(folder)).toEqual([]);
  });

  const root = gitHistoryAvailable(folder);
  it.skipIf(root === null)(
    'no fixture was changed or deleted since the commit that added it (full git history; skipped in shallow clones)',
    () => {
      expect(checkGitHistory(root as string)).toEqual([]);
    },
  );

  it('the manifest check reports a changed, a missing and an unlisted fixture (planted in a copy)', async () => {
    const copy = await temporary('fixtures-manifest-');
    await cp(folder, copy, { recursive: true });
    expect(await checkManifest(copy)).toEqual([]);

    const changed = 'hardship-offer-accepted-evidence-applied.json';
    const missing = 'boarding-paused-resumed-completed.json';
    const text = await readFile(path.join(copy, changed), 'utf8');
    await writeFile(path.join(copy, changed), text.replace('confirmHardshipEvidence', 'someOtherActivity'));
    await unlink(path.join(copy, missing));
    await writeFile(path.join(copy, 'promise-new-scenario.json'), JSON.stringify(history('promiseWorkflow')));

    const problems = await checkManifest(copy);
    expect(problems).toHaveLength(3);
    expect(problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${changed} changed \\(sha256 [0-9a-f]{64}`)),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${missing} is listed .* but missing`)),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^promise-new-scenario\.json is not listed: .* add the file promise-new-scenario\.json\.sha256 holding the line "[0-9a-f]{64} {2}promise/,
      ),
    );

    // A new fixture is listed by a checksum file of its own; one naming another fixture, or a fixture listed twice,
    // is a problem.
    await writeChecksumFiles(copy, ['promise-new-scenario.json']);
    expect(await checkManifest(copy)).toHaveLength(2);
    await expect(writeChecksumFiles(copy, ['promise-new-scenario.json'])).rejects.toThrow(/EEXIST/);
    const line = (
      await readFile(path.join(copy, `promise-new-scenario.json${checksumSuffix}`), 'utf8')
    ).trim();
    await writeFile(path.join(copy, `other.json${checksumSuffix}`), `${line}\n`);
    await writeFile(path.join(copy, manifestName), `${line}\n`, { flag: 'a' });
    const listedAgain = await checkManifest(copy);
    expect(listedAgain).toContainEqual(
      expect.stringMatching(/^other\.json\.sha256 names promise-new-scenario\.json: /),
    );
    expect(listedAgain).toContainEqual(
      `promise-new-scenario.json is listed twice (${manifestName}, promise-new-scenario.json${checksumSuffix})`,
    );
    await unlink(path.join(copy, `other.json${checksumSuffix}`));

    // A malformed line and a missing manifest are problems too.
    await writeFile(path.join(copy, manifestName), `not a line\n`, { flag: 'a' });
    expect(await checkManifest(copy)).toContainEqual(expect.stringMatching(/line \d+ is not/));
    await unlink(path.join(copy, manifestName));
    expect(await checkManifest(copy)).toEqual([`${manifestName} is missing from ${copy}`]);
  });

  it('the git check reports a fixture changed or deleted after its commit, not one reformatted, restored or new', async () => {
    const repo = await temporary('fixtures-git-');
    const dir = path.join(repo, fixturesFolder);
    await mkdir(dir, { recursive: true });
    const write = (file: string, value: unknown, indent = 2) =>
      writeFile(path.join(dir, file), `${JSON.stringify(value, null, indent)}\n`);
    git(repo, 'init', '-q');
    await write('a-changed.json', history('aWorkflow'));
    await write('b-deleted.json', history('bWorkflow'));
    await write('c-reformatted.json', history('cWorkflow'));
    await write('d-restored.json', history('dWorkflow'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'fixtures');
    expect(gitHistoryAvailable(dir)).not.toBeNull();
    expect(checkGitHistory(repo)).toEqual([]);

    // Re-recorded a, deleted b, re-indented c (the same JSON), a re-recording of d that is later undone, a new e.
    await write('a-changed.json', history('aWorkflow', { eventTime: '2026-01-01T00:00:00Z' }));
    await unlink(path.join(dir, 'b-deleted.json'));
    await write('c-reformatted.json', history('cWorkflow'), 4);
    await write('d-restored.json', history('dWorkflow', { eventTime: '2026-01-01T00:00:00Z' }));
    await write('e-new.json', history('eWorkflow'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 're-recorded');
    await write('d-restored.json', history('dWorkflow'));
    git(repo, 'commit', '-q', '-am', 'restored');

    const problems = checkGitHistory(repo);
    expect(problems).toHaveLength(2);
    expect(problems).toContainEqual(
      expect.stringMatching(/^test\/workflows\/histories\/a-changed\.json differs from the history added in/),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(/^test\/workflows\/histories\/b-deleted\.json was deleted/),
    );

    // An uncommitted edit is caught as well (the work tree is compared).
    await write('e-new.json', history('eWorkflow', { eventTime: '2026-01-01T00:00:00Z' }));
    expect(checkGitHistory(repo)).toHaveLength(3);
  });

  it('from the baseline commit on: a fixture re-recorded before it is held to its content there, one changed after it is reported', async () => {
    const repo = await temporary('fixtures-baseline-');
    const dir = path.join(repo, fixturesFolder);
    await mkdir(dir, { recursive: true });
    const write = (file: string, value: unknown) =>
      writeFile(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
    git(repo, 'init', '-q');
    await write('old.json', history('oldWorkflow'));
    await write('gone-early.json', history('goneWorkflow'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first recording');
    // Before the rule was checked: re-recorded in place, and one deleted.
    await write('old.json', history('oldWorkflow', { eventTime: '2026-01-01T00:00:00Z' }));
    await unlink(path.join(dir, 'gone-early.json'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 're-recorded before the rule');
    const baseline = git(repo, 'rev-parse', 'HEAD').trim();
    expect(checkGitHistory(repo, fixturesFolder, baseline)).toEqual([]);
    // Without the baseline, the first recording is the reference: both are reported.
    expect(checkGitHistory(repo, fixturesFolder, null)).toHaveLength(2);

    // After the baseline, the same change is reported.
    await write('old.json', history('oldWorkflow', { eventTime: '2026-02-02T00:00:00Z' }));
    git(repo, 'commit', '-q', '-am', 're-recorded after the rule');
    expect(checkGitHistory(repo, fixturesFolder, baseline)).toEqual([
      expect.stringMatching(/^test\/workflows\/histories\/old\.json differs from the history added in/),
    ]);
  });

  it('the git check is skipped where the history is not there: a shallow clone, a folder outside git', async () => {
    const repo = await temporary('fixtures-origin-');
    await writeFile(path.join(repo, 'x.json'), '{}\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    await writeFile(path.join(repo, 'x.json'), '{"a":1}\n');
    git(repo, 'commit', '-q', '-am', 'two');
    const shallow = path.join(await temporary('fixtures-shallow-'), 'clone');
    git(repo, 'clone', '-q', '--depth', '1', `file://${repo}`, shallow);
    expect(gitHistoryAvailable(shallow)).toBeNull();
    expect(gitHistoryAvailable(await temporary('fixtures-nogit-'))).toBeNull();
  });
});

describe('every workflow has a replay fixture', () => {
  const exported = Object.entries(workflows)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name)
    .sort();

  it('every workflow exported by workflows/index.ts is the workflowType of at least one fixture', async () => {
    expect(exported).toContain('hardshipOfferWorkflow');
    const byType = await fixturesByWorkflowType(folder);
    expect(exported.filter((type) => !byType.has(type))).toEqual([]);
  });

  it('a workflow without a fixture is reported (a folder holding only a promise history)', async () => {
    const only = await temporary('fixtures-coverage-');
    await writeFile(path.join(only, 'promise-x.json'), JSON.stringify(history('promiseWorkflow')));
    const byType = await fixturesByWorkflowType(only);
    const without = exported.filter((type) => !byType.has(type));
    expect(without).toContain('hardshipOfferWorkflow');
    expect(without).not.toContain('promiseWorkflow');
    await writeFile(path.join(only, 'broken.json'), JSON.stringify({ events: [] }));
    await expect(fixturesByWorkflowType(only)).rejects.toThrow(/broken\.json does not begin/);
  });
});

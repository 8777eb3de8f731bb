/**
 * The replay fixtures' ledger (docs/conventions.md §7, docs/design.md §7: a change that would break running workflows fails CI): the
 * histories in test/workflows/histories/ are append-only. A workflow change goes behind `patched('<id>')` (or a new
 * workflow type) with a NEW fixture; a fixture recorded before is never re-recorded, edited, renamed or deleted,
 * because it stands for executions already running on the old code.
 *
 * Two checks, both returning a list of problems (empty = fine), used by test/workflows/fixtures-append-only.test.ts:
 * - `checkManifest`: the checked-in checksums list every `*.json` of the folder with the SHA-256 of its bytes, in the
 *   `sha256sum` format (`<64 hex>  <file name>`, so `cd test/workflows/histories && sha256sum -c SHA256SUMS *.sha256`
 *   checks them too): `SHA256SUMS` for the fixtures recorded until it was frozen, and for each fixture recorded since
 *   a file of its own beside it, `<fixture>.sha256`, holding its one line. A new fixture thus only adds files, and no
 *   file of the folder is ever changed (the folder itself is append-only). A listed file missing or with other bytes
 *   is a problem; so is a fixture not listed (the message names the checksum file to add), one listed twice, or a
 *   checksum file naming another fixture. Works on any checkout, shallow or not, with or without git.
 * - `checkGitHistory`: in a clone with its full history, every fixture ever added under the folder (by any commit)
 *   still exists, and its content equals the content of the oldest commit that added it (compared as JSON, so a
 *   formatting-only rewrite is no change). This catches what the manifest cannot: a re-recording committed
 *   together with its new manifest line, or a fixture deleted with its line. It compares the end state, not every
 *   commit, so a history that once re-recorded a fixture and later restored the original passes, and it keeps
 *   working across merges and rebases. Shallow clones and exports without git skip it (`gitHistoryAvailable`).
 *
 * The recorder (scripts/record-workflow-history.ts) writes the checksum file of every fixture it writes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** The fixtures' folder, relative to the repository root (POSIX separators, as git names paths). */
export const fixturesFolder = 'test/workflows/histories';
/** The frozen manifest's file name inside the fixtures' folder (fixtures recorded since have a checksum file each). */
export const manifestName = 'SHA256SUMS';
/** The suffix of a fixture's own checksum file: `<fixture>.json.sha256`. */
export const checksumSuffix = '.sha256';

/** Lowercase hex SHA-256 of `bytes`. */
export function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The manifest line of one fixture (`sha256sum` format, two spaces), without the newline. */
export function manifestLine(file: string, hash: string): string {
  return `${hash}  ${file}`;
}

/** The fixture files of `folder` (`*.json`, sorted). */
export async function fixtureFiles(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((f) => f.endsWith('.json')).sort();
}

/**
 * Compares `folder`'s fixtures with its checksums, `SHA256SUMS` and the `<fixture>.sha256` files (module note).
 * Returns one message per problem: a malformed or repeated line, a checksum file naming another fixture, a listed
 * fixture missing or changed, a fixture not listed. A missing `SHA256SUMS` is one problem.
 */
export async function checkManifest(folder: string): Promise<string[]> {
  const manifestPath = path.join(folder, manifestName);
  if (!existsSync(manifestPath)) return [`${manifestName} is missing from ${folder}`];
  const problems: string[] = [];
  /** Each listed fixture → its hash and the checksum file that lists it. */
  const listed = new Map<string, { hash: string; source: string }>();
  const read = async (source: string, only: string | null) => {
    const lines = (await readFile(path.join(folder, source), 'utf8')).split('\n');
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      const match = /^([0-9a-f]{64}) {2}([A-Za-z0-9._-]+\.json)$/.exec(line);
      if (!match) {
        problems.push(`${source} line ${index + 1} is not "<sha256>  <file>.json"`);
        return;
      }
      const [, hash, file] = match as unknown as [string, string, string];
      if (only !== null && file !== only) {
        problems.push(`${source} names ${file}: a checksum file holds the line of its own fixture, ${only}`);
        return;
      }
      const earlier = listed.get(file);
      if (earlier) problems.push(`${file} is listed twice (${earlier.source}, ${source})`);
      listed.set(file, { hash, source });
    });
  };
  await read(manifestName, null);
  const checksumFiles = (await readdir(folder)).filter((f) => f.endsWith(checksumSuffix)).sort();
  for (const source of checksumFiles) await read(source, source.slice(0, -checksumSuffix.length));
  const present = new Set(await fixtureFiles(folder));
  for (const [file, { hash, source }] of listed) {
    if (!present.has(file)) {
      problems.push(
        `${file} is listed in ${source} but missing: fixtures are append-only (restore it from git)`,
      );
      continue;
    }
    const actual = sha256Of(await readFile(path.join(folder, file)));
    if (actual !== hash) {
      problems.push(
        `${file} changed (sha256 ${actual}, ${source} says ${hash}): fixtures are append-only; restore it ` +
          `and put the workflow change behind patched() with a new fixture`,
      );
    }
  }
  for (const file of present) {
    if (!listed.has(file)) {
      const line = manifestLine(file, sha256Of(await readFile(path.join(folder, file))));
      problems.push(
        `${file} is not listed: a new fixture is welcome, add the file ${file}${checksumSuffix} holding the line "${line}"`,
      );
    }
  }
  return problems;
}

/**
 * Writes the checksum file `<fixture>.sha256` of each of `files` (fixtures just written to `folder`). Never writes
 * over an existing one (EEXIST: the recorder never records a fixture again).
 */
export async function writeChecksumFiles(folder: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const line = manifestLine(file, sha256Of(await readFile(path.join(folder, file))));
    await writeFile(path.join(folder, `${file}${checksumSuffix}`), `${line}\n`, { flag: 'wx' });
  }
}

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });

/**
 * The root of the git work tree holding `dir`, or null when `dir` is in no repository, git is absent, or the clone
 * is shallow (its history may not reach the commits that added the fixtures).
 */
export function gitHistoryAvailable(dir: string): string | null {
  try {
    if (git(dir, ['rev-parse', '--is-shallow-repository']).trim() !== 'false') return null;
    return git(dir, ['rev-parse', '--show-toplevel']).trim();
  } catch {
    return null;
  }
}

/**
 * The commit from which this check holds the fixtures append-only (the one that settled them when the check was
 * added). Earlier, before the rule was checked, the hardship
 * offer's and boarding's fixtures were recorded again in place by workflow changes made without `patched()`; the
 * executions those changes started run the new paths without a patch marker, so the fixtures as they stood at this
 * commit are the ones today's code must replay, and they are the baseline. A fixture that existed at this commit must
 * keep its content there; one added later, its content when added. (In a repository without this commit, e.g. a
 * rewritten history, every fixture is held to its content when first added.)
 */
export const appendOnlySince = '6b3309874c38bb98da59ba0d11c40a21a51822ae';

/**
 * Checks with git that no fixture under `folder` (relative to the work tree `root`) was changed or deleted since
 * `appendOnlySince`, or since the commit that added it when that is later (module note). Compares the files as they
 * are in the work tree, so an uncommitted edit is caught too. Returns one message per problem.
 */
export function checkGitHistory(
  root: string,
  folder: string = fixturesFolder,
  since: string | null = appendOnlySince,
): string[] {
  const log = git(root, [
    'log',
    '--full-history',
    '--reverse',
    '--no-renames',
    '--diff-filter=A',
    '--format=commit %H',
    '--name-only',
    '--',
    `${folder}/*.json`,
  ]);
  const addedIn = new Map<string, string>();
  let commit = '';
  for (const line of log.split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice('commit '.length);
    else if (line.trim() !== '' && !addedIn.has(line)) addedIn.set(line, commit);
  }
  const isAncestor = (a: string, b: string) => {
    try {
      git(root, ['merge-base', '--is-ancestor', a, b]);
      return true;
    } catch {
      return false;
    }
  };
  // Fixtures as they stood at the baseline commit, when it is in this repository's history.
  const baseline = since !== null && isAncestor(since, 'HEAD') ? since : null;
  if (baseline !== null) {
    const atBaseline = new Set(
      git(root, ['ls-tree', '-r', '--name-only', baseline, '--', `${folder}/`])
        .split('\n')
        .filter((f) => f.endsWith('.json')),
    );
    for (const file of [...addedIn.keys()]) {
      if (atBaseline.has(file)) addedIn.set(file, baseline);
      // Added and gone before the baseline: history this check does not hold.
      else if (isAncestor(addedIn.get(file)!, baseline)) addedIn.delete(file);
    }
  }
  const problems: string[] = [];
  for (const [file, added] of addedIn) {
    const short = added.slice(0, 10);
    const onDisk = path.join(root, file);
    if (!existsSync(onDisk)) {
      problems.push(
        `${file} was deleted (added in ${short}): fixtures are append-only; restore it with ` +
          `"git show ${short}:${file} > ${file}"`,
      );
      continue;
    }
    const original = git(root, ['show', `${added}:${file}`]);
    let same: boolean;
    try {
      same = isDeepStrictEqual(JSON.parse(readFileSync(onDisk, 'utf8')), JSON.parse(original));
    } catch {
      same = false;
    }
    if (!same) {
      problems.push(
        `${file} differs from the history added in ${short}: fixtures are append-only; restore it with ` +
          `"git show ${short}:${file} > ${file}" and record the new path behind patched() as a new fixture`,
      );
    }
  }
  return problems;
}

/**
 * The workflow type of each fixture of `folder` (the `workflowType` of its first event, WorkflowExecutionStarted),
 * as a map from type to the files that hold it.
 */
export async function fixturesByWorkflowType(folder: string): Promise<Map<string, string[]>> {
  const byType = new Map<string, string[]>();
  for (const file of await fixtureFiles(folder)) {
    const history = JSON.parse(await readFile(path.join(folder, file), 'utf8')) as {
      events?: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
    };
    const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
    if (type === undefined) throw new Error(`${file} does not begin with a WorkflowExecutionStarted event`);
    byType.set(type, [...(byType.get(type) ?? []), file]);
  }
  return byType;
}

/**
 * What the boarding benchmark (scripts/bench-boarding.ts) and the fault script (scripts/boarding-fault.ts) share
 *: child processes started and stopped by pid (never by name), their output kept, the peak memory of
 * a process tree read from `/proc` (Linux), a credential made with the admin CLI, a portfolio file generated once
 * per parameter set, and the board CLI run as a child process. Not a CLI itself.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../workers/config';
import { type PortfolioCounts, type PortfolioOptions, writePortfolio } from './portfolio-generate';

const run = promisify(execFile);
export const tsxBin = path.join(projectRoot, 'node_modules', '.bin', 'tsx');

/** A child process this script started, its output so far and its exit. */
export interface Started {
  child: ChildProcess;
  pid: number;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Spawns `command args` in its own process group (so that what it starts can be ended with it), keeps its output
 * (the last 1 MiB), echoes lines to `echo` when given, and waits until the output contains `ready` (unless null),
 * at most `timeoutMs`. Throws with the output when it exits first or is not ready in time (and then kills it).
 */
export async function startChild(
  command: string,
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    ready: string | null;
    timeoutMs?: number;
    echo?: (line: string) => void;
  },
): Promise<Started> {
  let output = '';
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const keep = (chunk: Buffer) => {
    const text = String(chunk);
    output += text;
    if (output.length > 1_048_576) output = output.slice(-1_048_576);
    if (options.echo) for (const line of text.split('\n')) if (line.trim()) options.echo(line);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: Started = { child, pid: child.pid!, output: () => output, exited };
  if (options.ready !== null) {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    while (!output.includes(options.ready)) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${path.basename(args[0] ?? command)} exited early (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) {
        killGroup(started, 'SIGKILL');
        throw new Error(
          `${args[0] ?? command} was not ready in ${options.timeoutMs ?? 120_000} ms:\n${output}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return started;
}

/** Sends `signal` to the child's process group (the child and what it started); ignores a group already gone. */
export function killGroup(started: Started, signal: NodeJS.Signals): void {
  try {
    process.kill(-started.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * SIGINT (a graceful stop) to the child, its whole group SIGKILLed after `graceMs`; once it has exited, whatever it
 * left behind in its group is SIGKILLed. Resolves with its exit code.
 */
export async function stopChild(started: Started, graceMs = 60_000): Promise<number | null> {
  if (started.child.exitCode === null && started.child.signalCode === null) {
    started.child.kill('SIGINT');
    const timer = setTimeout(() => killGroup(started, 'SIGKILL'), graceMs);
    await started.exited;
    clearTimeout(timer);
  }
  killGroup(started, 'SIGKILL');
  return started.child.exitCode;
}

/** The pids of `root` and its descendants (from /proc/<pid>/stat's parent pid). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** `VmHWM` (peak resident set) and `VmRSS` of a process in KiB, and its command name; null when gone. */
export function memoryOf(pid: number): { name: string; hwmKiB: number; rssKiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    const name = /^Name:\s+(.+)$/m.exec(status)?.[1] ?? '?';
    return { name, hwmKiB: field('VmHWM'), rssKiB: field('VmRSS') };
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system, all threads, plus the reaped children's) of `root` and its descendants, summed per
 * command name (`node`, `postgres`, `temporal`, …), from /proc/<pid>/stat (fields 14–17, in clock ticks; Linux
 * `proc(5)`). Take it before and after a phase and subtract (`cpuDelta`) for what the phase cost.
 */
export function treeCpuSeconds(root: number): Map<string, number> {
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux ABI Node supports
  const byName = new Map<string, number>();
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is the state (field 3): utime, stime, cutime, cstime are fields 14-17, here 11-14.
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
      byName.set(name, (byName.get(name) ?? 0) + ticks / ticksPerSecond);
    } catch {
      // gone meanwhile
    }
  }
  return byName;
}

/** `after − before` per command name (a name absent before counts from 0). */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, seconds] of after) delta.set(name, seconds - (before.get(name) ?? 0));
  return delta;
}

/**
 * Samples the memory of a process tree every `intervalMs` until stopped: per command name the largest single
 * process peak (`VmHWM`, the kernel's own high-water mark), and the largest sum of `VmRSS` over the whole tree at
 * one sample (what the tree held at once).
 */
export function sampleTreeMemory(root: () => number | null, intervalMs = 500) {
  const peakByName = new Map<string, number>();
  let peakTreeRssKiB = 0;
  const sample = () => {
    const pid = root();
    if (pid === null) return;
    let sum = 0;
    for (const p of processTree(pid)) {
      const m = memoryOf(p);
      if (!m) continue;
      sum += m.rssKiB;
      peakByName.set(m.name, Math.max(peakByName.get(m.name) ?? 0, m.hwmKiB));
    }
    peakTreeRssKiB = Math.max(peakTreeRssKiB, sum);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    sample,
    stop(): { peakByName: Map<string, number>; peakTreeRssKiB: number } {
      sample();
      clearInterval(timer);
      return { peakByName, peakTreeRssKiB };
    },
  };
}

export const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

/**
 * `npm run admin -- clients create … --create-tenant` with `env` (DATA_DIR or DATABASE_URL): the credential; with
 * `rateLimitPerSecond`, the client's own rate limit (`--rate-limit`), e.g. raised for a benchmark.
 */
export async function createCredential(
  env: NodeJS.ProcessEnv,
  tenant: string,
  rateLimitPerSecond?: number,
  scopes = 'lending:read lending:write',
): Promise<{ clientId: string; clientSecret: string; tenant: string }> {
  const { stdout } = await run(
    tsxBin,
    [
      'scripts/admin.ts',
      'clients',
      'create',
      '--tenant',
      tenant,
      '--environment',
      'sandbox',
      '--scopes',
      scopes,
      '--permissions',
      'ALL',
      '--create-tenant',
      ...(rateLimitPerSecond === undefined ? [] : ['--rate-limit', String(rateLimitPerSecond)]),
    ],
    { cwd: projectRoot, env },
  );
  return JSON.parse(stdout) as { clientId: string; clientSecret: string; tenant: string };
}

/**
 * The portfolio file of these options under `.data/boarding/` (`portfolio-<loans>loans-<payments>pmts-seed<seed>-asof<date>.ndjson`: letters between
 * the numbers, so the name, sent as `?fileName=`, never reads as an account number),
 * generated unless it exists (written to a temporary name first, so a half-written file is never reused).
 */
export async function ensurePortfolio(
  options: PortfolioOptions,
): Promise<{ file: string; reused: boolean; seconds: number; counts: PortfolioCounts | null }> {
  const dir = path.join(projectRoot, '.data', 'boarding');
  await mkdir(dir, { recursive: true });
  const file = path.join(
    dir,
    `portfolio-${options.loans}loans-${options.paymentsPerLoan}pmts-seed${options.seed}-asof${options.asOf}.ndjson`,
  );
  if (existsSync(file)) return { file, reused: true, seconds: 0, counts: null };
  const started = Date.now();
  const temporary = `${file}.${process.pid}.tmp`;
  const counts = await writePortfolio(options, temporary);
  await rename(temporary, file);
  return { file, reused: false, seconds: (Date.now() - started) / 1000, counts };
}

/** Lines per kind of a portfolio file (read line by line; only the `kind` is looked at). */
export async function countKinds(file: string): Promise<Record<string, number>> {
  const { createReadStream } = await import('node:fs');
  const { createInterface } = await import('node:readline');
  const counts: Record<string, number> = {};
  for await (const line of createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    const kind = /^\{"kind":"([A-Za-z]+)"/.exec(line)?.[1] ?? 'other';
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/**
 * What the benchmarks share (bench/read.ts, bench/payments.ts): starting a server process of this project with
 * its output appended to a log file, and stopping it by its pid (never by a name pattern). Prints nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { projectRoot } from '../workers/config';

/**
 * Starts `node --import tsx <args>` with its standard output and error appended to `logFile` (as a log collector
 * would take them, without costing this process, which runs the load generator) and waits for `readyText` in it.
 */
export async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyText: string,
  logFile: string,
): Promise<ChildProcess> {
  const log = await open(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', log.fd, log.fd],
  });
  await log.close();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const output = await readFile(logFile, 'utf8');
    if (output.includes(readyText)) return child;
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ready:\n${output}`);
    if (Date.now() > deadline) throw new Error(`not ready in 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops `child` (SIGTERM, SIGKILL after 15 s) and waits for it to exit; a no-op when it already has. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (code !== 0) console.error(`process ${child.pid} ended with ${code ?? signal}`);
      resolve();
    }),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** CPU milliseconds (user + system, from /proc) used so far by `root` and every live descendant of it. */
export function cpuMillisOf(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // fields[1] = ppid, fields[11] = utime, fields[12] = stime (proc(5), counted after the command name)
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while being read.
    }
  }
  const included = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!included.has(pid) && included.has(stat.ppid)) {
        included.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of included) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / clockTicksPerSecond;
}
const clockTicksPerSecond = 100;

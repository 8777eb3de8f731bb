/**
 * The processes `npm start` runs never outlive it, and the Temporal client comes back quickly after an outage:
 * - `npm start`'s node process killed with SIGKILL (no handler of ours runs): the embedded PostgreSQL and the
 *   Temporal dev server it started are ended by their watchdogs (workers/child-watchdog.ts) within seconds, and
 *   every process it had started is gone (the PostgreSQL used to run on for ever, and the dev server died later on
 *   its broken output pipe);
 * - a Temporal client connection with the service's channel arguments (workers/temporal-channel.ts) answers again
 *   within 5 s of the server's return after a 25 s outage (gRPC's default backoff grows to 120 s; the API took
 *   about 75 s to reconnect).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { temporalChannelArgs } from '../../workers/temporal-channel';
import { type DevServer, startTemporalDevServer, waitForPort } from '../../workers/temporal-server';
import { type BootedService, bootService } from './boot';

let booted: BootedService | undefined;
afterAll(async () => booted?.stop());

/** Whether `pid` is a live process (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The parent pid of `pid` (from /proc/<pid>/stat). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Every descendant of `pid` (children of each of its threads, recursively), from /proc. */
function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.split(' ').filter(Boolean).map(Number)) {
      found.push(child, ...descendantsOf(child));
    }
  }
  return found;
}

async function portAnswers(port: number): Promise<boolean> {
  return waitForPort(port, 200).then(
    () => true,
    () => false,
  );
}

describe('process lifetime', () => {
  it('npm start killed with SIGKILL leaves no PostgreSQL, no Temporal dev server and no other process behind', async () => {
    booted = await bootService('lending-lifetime-');
    const postmasterPid = Number(
      readFileSync(path.join(booted.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    // The node process that runs scripts/start.ts is PostgreSQL's parent (tsx runs it as its own child).
    const servicePid = parentOf(postmasterPid);
    const started = descendantsOf(servicePid);
    expect(started).toContain(postmasterPid);
    expect(await portAnswers(booted.temporalPort)).toBe(true);

    process.kill(servicePid, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    let left = started.filter(alive);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = started.filter(alive);
    }
    const described = left.map((pid) => {
      try {
        return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 120)}`;
      } catch {
        return String(pid);
      }
    });
    expect(described).toEqual([]);
    expect(await portAnswers(booted.temporalPort)).toBe(false);
  }, 180_000);

  it('a Temporal client connection answers again within 5 s of the server coming back after a 25 s outage', async () => {
    const port = await freePort();
    let server: DevServer | undefined = await startTemporalDevServer({ port, uiPort: null });
    const connection = await Connection.connect({
      address: server.address,
      connectTimeout: '30 seconds',
      channelArgs: temporalChannelArgs,
    });
    const ask = () =>
      connection.withDeadline(Date.now() + 1000, () => connection.workflowService.getSystemInfo({}));
    try {
      await ask();
      await server.stop();
      server = undefined;
      // Calls keep failing while it is down, as an API's would under traffic.
      const downUntil = Date.now() + 25_000;
      let failures = 0;
      while (Date.now() < downUntil) {
        await ask().then(
          () => {},
          () => {
            failures += 1;
          },
        );
        await new Promise((r) => setTimeout(r, 1000));
      }
      expect(failures).toBeGreaterThan(5);
      server = await startTemporalDevServer({ port, uiPort: null });
      const back = Date.now();
      let answered: number | null = null;
      while (answered === null && Date.now() - back < 30_000) {
        await ask().then(
          () => {
            answered = Date.now() - back;
          },
          () => new Promise((r) => setTimeout(r, 100)),
        );
      }
      expect(answered).not.toBeNull();
      expect(answered).toBeLessThan(5000);
    } finally {
      await connection.close();
      await server?.stop();
    }
  }, 120_000);
});

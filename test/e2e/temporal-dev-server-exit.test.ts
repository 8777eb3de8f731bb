/**
 * A Temporal dev server that exits at once says why (workers/temporal-server.ts `startTemporalDevServer`): with a
 * log file, the early-exit error carries the server's own last lines. Here its Web UI port is already taken by a
 * listener of this test, so the server refuses to start and names the port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { startTemporalDevServer } from '../../workers/temporal-server';

const folders: string[] = [];
const listeners: net.Server[] = [];
afterAll(async () => {
  for (const listener of listeners) await new Promise((resolve) => listener.close(resolve));
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('startTemporalDevServer', () => {
  it('an early exit rejects with the server’s own last lines (here: its UI port is taken)', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'temporal-exit-'));
    folders.push(folder);
    const taken = net.createServer();
    listeners.push(taken);
    const port = await new Promise<number>((resolve) =>
      taken.listen(0, '127.0.0.1', () => resolve((taken.address() as net.AddressInfo).port)),
    );
    const logFile = path.join(folder, 'temporal.log');
    const failure = await startTemporalDevServer({ port: await freePort(), uiPort: port, logFile }).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toMatch(/exited early with 1/);
    expect(failure!.message).toContain(logFile);
    expect(failure!.message).toContain(`${port}`);
    expect(failure!.message).toMatch(/in use|already/i);
  }, 60_000);
});

/**
 * Preload (`node --import ./bench/cpu-profile.mjs`) that CPU-profiles the whole process with the V8 inspector and
 * writes `<CPU_PROFILE_DIR>/<pid>.cpuprofile` when the process exits, including through `process.exit()` on
 * SIGTERM (where `node --cpu-prof` writes nothing). A worker thread that inherits the preload (Temporal's workflow
 * threads do) profiles itself into `<pid>-thread<threadId>.cpuprofile`. Plain JavaScript, not TypeScript: a
 * worker thread does not get the tsx loader of its process, so a `.ts` preload would fail to load there. Used by
 * `--profile <dir>` of `npm run bench:read`, `bench:privacy` and `bench:boarding`; read the result with
 * `bench/profile-top.ts`. Not part of the service.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  const file = isMainThread ? `${process.pid}.cpuprofile` : `${process.pid}-thread${threadId}.cpuprofile`;
  process.on('exit', () => {
    // An in-thread inspector session answers synchronously, so the profile is written before the exit.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, file), JSON.stringify(result.profile));
    });
  });
}

/**
 * Preload (`node --import ./bench/cpu-profile.ts`) that CPU-profiles the whole process with the V8
 * inspector and writes `<CPU_PROFILE_DIR>/<pid>.cpuprofile` when the process exits, including through
 * `process.exit()` on SIGTERM (where `node --cpu-prof` writes nothing). Used by `npm run bench:read --
 * --profile <dir>`; read the result with `bench/profile-top.ts`. Not part of the service.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // An in-thread inspector session answers synchronously, so the profile is written before the exit.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

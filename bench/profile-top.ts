/**
 * Prints the top frames of a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. `npm run bench:read -- --profile
 * <dir>`): self time per function and per package (node_modules/<pkg>, node: internals, the project's own
 * files), in milliseconds and percent of the sampled time. A reading aid for the note; not a test.
 *
 * Usage: npx tsx bench/profile-top.ts <file.cpuprofile> [--top 30]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile-top <file.cpuprofile> [--top N]');
const topAt = process.argv.indexOf('--top');
const top = topAt >= 0 ? Number(process.argv[topAt + 1]) : 30;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string): string {
  if (!url) return '(native / idle / gc)';
  if (url.startsWith('node:')) return 'node:internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const project = url.indexOf('/main/');
  return project >= 0
    ? url
        .slice(project + 6)
        .split('/')
        .slice(0, 2)
        .join('/')
    : url;
}

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const name = `${frame.functionName || '(anonymous)'} ${frame.url ? `${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '')}:${frame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  const pkg = packageOf(frame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
}

const print = (title: string, entries: Map<string, number>, n: number) => {
  console.log(`\n${title} (sampled ${(total / 1000).toFixed(0)} ms)`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(
      `  ${(micros / 1000).toFixed(0).padStart(7)} ms ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}`,
    );
  }
};
print('self time by package', byPackage, 20);
print('self time by function', byFunction, top);

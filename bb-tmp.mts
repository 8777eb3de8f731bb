import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFileSync, mkdtempSync } from 'node:fs';
const dir = mkdtempSync('/tmp/badwf-');
writeFileSync(dir + '/index.ts', "import { readFileSync } from 'node:fs';\nexport async function badWorkflow(): Promise<string> {\n  return readFileSync('/etc/hostname', 'utf8');\n}\n");
try { await bundleWorkflowCode({ workflowsPath: dir + '/index.ts' }); } catch (e) { console.log('ERR', (e as Error).message); }

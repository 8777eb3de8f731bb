/**
 * `npm run client:generate`: writes client/src/schema.d.ts, the typed paths of the client (client/), from this
 * service's OpenAPI document built in-process (scripts/client-schema.ts). Run it after changing a route;
 * test/unit/client-schema.test.ts fails while the checked-in file is stale.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../workers/config';
import { clientSchemaPath, clientSchemaSource } from './client-schema';

await writeFile(clientSchemaPath, await clientSchemaSource());
process.stdout.write(`wrote ${path.relative(projectRoot, clientSchemaPath)}\n`);

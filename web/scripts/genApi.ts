import { writeFileSync } from 'node:fs';
import { dashboardOpenApiDocument } from '../../core/dashboard/routes.js';
import { SCHEMA_FILE, schemaTypes } from './schema.js';

/** `npm run gen:api`: rewrites the committed client types from the app's own document (no server, no network). */
writeFileSync(SCHEMA_FILE, await schemaTypes(await dashboardOpenApiDocument()));
console.log(`wrote ${SCHEMA_FILE}`);

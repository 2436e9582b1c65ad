import { systemClock } from '../core/clock.js';
import { loadConfig } from '../core/config.js';
import { createDynamoClient } from '../core/store/client.js';
import { migrateCheckLists, migrateProjectLists, moveCheckListsToRefs, tidyCheckRefs } from '../core/store/migrations.js';
import { createStore } from '../core/store/service.js';

/**
 * `npm run migrate` against a deployed table (`VIGIL_TABLE_NAME`, `AWS_REGION` and credentials as
 * for the AWS CLI): the data migrations `npm start` runs at boot, in order. Each is idempotent;
 * migrateCheckLists and migrateProjectLists run once per table (forced with `--force`).
 */
const config = loadConfig(process.env);
const store = createStore(createDynamoClient({ region: config.homeRegion, ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint } : {}) }), config.tableName);
const deps = { store, clock: systemClock };
console.log(`table ${config.tableName}: ${await moveCheckListsToRefs(deps)} checks moved to refs, ${await tidyCheckRefs(deps)} refs tidied`);
console.log(`check lists: ${await migrateCheckLists(deps, { force: process.argv.includes('--force') })} refs counted`);
console.log(`project lists: ${await migrateProjectLists(deps, { force: process.argv.includes('--force') })} projects counted`);

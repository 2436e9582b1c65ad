import type { SSTConfig } from 'sst';
import { composeStacks } from './stacks/index.js';

/**
 * `sst deploy` deploys the home region (VIGIL_HOME_REGION, default us-east-1);
 * `sst deploy --region eu-west-1` and `--region ap-southeast-1` add those probe regions.
 */
export default {
  config(input) {
    return { name: 'vigil', region: input.region ?? process.env.VIGIL_HOME_REGION ?? 'us-east-1' };
  },
  stacks(app) {
    composeStacks(app);
  },
} satisfies SSTConfig;

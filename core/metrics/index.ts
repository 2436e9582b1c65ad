export { v1MetricsRoutes, installMetricsRoutes } from './routes.js';
export { installMetrics, installCounters } from './install.js';
export { timedSweep, lastSweep, SWEEP_SETTING } from './sweepTiming.js';
export { workspaceMetrics, checkPages, CHECK_PAGE_SIZE, type Exposition } from './workspace.js';

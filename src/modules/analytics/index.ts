// What other parts of the service (event processing, benchmarks) use from analytics.
export { aggregateRollups, analyticsRollupsEffect, applyRollups, writeRollups } from './rollups-effect.js';

// What benchmarks use from analytics (event processing registers analyticsRollupsEffect itself).
export { applyRollups } from './rollups-effect.js';

/** What other features use of flows: the list of flows to pick one from. */
export { useFlowOptions } from './flow-options';

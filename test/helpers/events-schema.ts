/**
 * The events route's own request and answer schemas, for a baseline that validates exactly what
 * the service validates (the parse-only server of bench/baseline-server.ts).
 */
export { eventsAccepted, eventsBody } from '../../src/modules/events/schema.js';

/** The inbound analytics event types of the spec's Events table; anything else is a 400. */
export const EVENT_TYPES = [
  'PAGE_VIEW',
  'CLICK',
  'ELEMENT_INTERACTION',
  'FORM_INTERACTION',
  'SCROLL_DEPTH',
  'RAGE_CLICK',
  'DEAD_CLICK',
  'FLOW_STARTED',
  'STEP_VIEWED',
  'STEP_COMPLETED',
  'FLOW_COMPLETED',
  'FLOW_SKIPPED',
  'FLOW_DISMISSED',
  'CONTENT_LOADED',
  'CONTENT_AUDIENCE_MATCHED',
  'CONTENT_RENDERED',
  'CONTENT_RENDER_FAILED',
  'CONTENT_SUBMISSION_PERSISTED',
  'JOURNEY_STARTED',
  'JOURNEY_COMPLETED',
  'SURVEY_RESPONSE',
  'NPS_RESPONSE',
  'EXPERIMENT_CONVERSION',
  'SDK_INIT',
  'SELECTOR_NOT_FOUND',
  /** The SDK's target lookup of a step or content item: found, healed, ambiguous or missing (issue 40). */
  'TARGET_LOOKUP',
  'ERROR',
  'NETWORK',
  'IDENTIFY',
  'CUSTOM',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as stored in the log and read by processors: validated, with id and timestamp settled. */
export interface StoredEvent {
  id: string;
  /** True when `id` came from the client (idempotency applies); false when the server assigned it. */
  clientId: boolean;
  type: EventType;
  name?: string;
  properties?: Record<string, unknown>;
  /** ISO 8601, UTC. */
  timestamp: string;
  userId?: string;
  anonymousId?: string;
  sessionId?: string;
  url?: string;
  metadata?: Record<string, unknown>;
  /** Recorded by the service itself (session start, IDENTIFY), not sent by a client. */
  serverGenerated?: boolean;
}

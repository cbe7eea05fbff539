/**
 * Every request and response shape the SDK exchanges with the service, in one file: nothing
 * else in the SDK declares a wire shape. They mirror the service's route schemas
 * (`src/modules/sdk/schemas.ts`, `events-schema.ts`, the content definitions).
 *
 * Once `packages/api-types` (generated from `/docs/json` by openapi-typescript) is in the
 * workspace, each alias's body becomes an import from it, e.g.
 *   import type { paths } from '@guidance/api-types';
 *   type Json<P extends keyof paths, M extends keyof paths[P]> = ...
 *   export type SessionResponse = paths['/api/sdk/session']['post']['responses'][201]['content']['application/json'];
 * Only type aliases are exported, so that swap touches no other file.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: unknown };

/** `{ error }`: every error response. */
export type ErrorEnvelope = {
  error: { message: string; statusCode: number; code: string; category: string; details?: unknown };
};

// ---- GET /api/sdk/config ---------------------------------------------------------------------

export type SdkLocale = { code: string; name: string; isDefault: boolean; isRtl: boolean };

export type SdkConfigResponse = {
  data: {
    name: string;
    plan: string;
    settings: JsonObject;
    features: { [feature: string]: boolean };
    locales: SdkLocale[];
    defaultLocale: string | null;
  };
};

// ---- POST /api/sdk/identify ------------------------------------------------------------------

export type IdentifyRequest = { userId: string; traits?: JsonObject; anonymousId?: string };
export type IdentifyResponse = { data: { id: string } };

// ---- POST /api/sdk/session -------------------------------------------------------------------

export type SessionRequest = {
  userId?: string;
  anonymousId?: string;
  url?: string;
  locale?: string;
  device?: { type?: string; browser?: string };
};

export type FlowStepType =
  | 'TOOLTIP'
  | 'MODAL'
  | 'BEACON'
  | 'BANNER'
  | 'SLIDEOUT'
  | 'VIDEO'
  | 'FORM'
  | 'CLICK'
  | 'NAVIGATE'
  | 'WAIT'
  | 'INPUT'
  | 'SCROLL';

export type FlowStep = {
  id: string;
  flowId: string;
  type: FlowStepType;
  order: number;
  targetSelector: string | null;
  content: JsonObject;
  settings: JsonObject;
};

export type FlowTrigger = { type: 'URL_MATCH' | 'MANUAL'; config?: JsonObject } | null;

export type Flow = {
  id: string;
  name: string;
  description: string | null;
  template: string;
  status: string;
  audienceId: string | null;
  trigger: FlowTrigger;
  settings: JsonObject;
  steps: FlowStep[];
};

/** `triggerConfig` of content items and NPS surveys. */
export type TriggerConfig = {
  type: 'exit_intent' | 'scroll_depth' | 'time_on_page' | 'side_button' | 'url_match' | 'manual';
  url?: string;
  percentage?: number;
  delay?: number;
  buttonColor?: string;
  buttonPosition?: 'left' | 'right';
  pattern?: string;
  matchType?: string;
};

type ContentBase = {
  id: string;
  name: string;
  status: string;
  audienceId: string | null;
  triggerConfig?: TriggerConfig | null;
};

export type TooltipRecord = ContentBase & {
  contentType: 'tooltips';
  targetSelector: string;
  content: { text: string; title?: string };
  position: 'AUTO' | 'TOP' | 'BOTTOM' | 'LEFT' | 'RIGHT';
  targetUrl: string | null;
};

export type BeaconRecord = ContentBase & {
  contentType: 'beacons';
  targetSelector: string;
  content: { message: string; title?: string };
  animation: 'none' | 'subtle' | 'full';
  targetUrl: string | null;
};

export type TaskItem = {
  title: string;
  actionType: 'NAVIGATE' | 'COMPLETE_FLOW' | 'FILL_FORM' | 'EXTERNAL_LINK';
  actionConfig: JsonObject;
  order: number;
};

export type TaskListRecord = ContentBase & {
  contentType: 'task-lists';
  description: string | null;
  items: TaskItem[];
};

export type QuestionType =
  | 'RATING'
  | 'TEXT'
  | 'MULTIPLE_CHOICE'
  | 'SINGLE_CHOICE'
  | 'NPS'
  | 'SCALE'
  | 'BOOLEAN'
  | 'DROPDOWN';

export type SurveyQuestion = {
  key: string;
  type: QuestionType;
  question: string;
  required: boolean;
  options: { choices?: string[]; min?: number; max?: number; [key: string]: unknown };
  order: number;
};

export type SurveyRecord = ContentBase & { contentType: 'surveys'; questions: SurveyQuestion[] };

export type AnnouncementRecord = ContentBase & {
  contentType: 'announcements';
  type: 'MODAL' | 'BANNER' | 'SLIDEOUT' | 'TOAST';
  content: { title: string; body?: string; [key: string]: unknown };
  scheduledAt: string | null;
  expiresAt: string | null;
};

export type SelfHelpRecord = ContentBase & {
  contentType: 'self-help';
  config: JsonObject;
  items: JsonObject;
};

export type NpsSurveyRecord = ContentBase & {
  contentType: 'nps-surveys';
  question: string;
  followUpQuestion: string | null;
};

export type ContentRecord =
  | TooltipRecord
  | BeaconRecord
  | TaskListRecord
  | SurveyRecord
  | AnnouncementRecord
  | SelfHelpRecord
  | NpsSurveyRecord;

export type ExperimentAssignment = { experimentId: string; variantId: string; flowId: string | null };

export type JourneyDelivery = {
  journeyId: string;
  enrollmentId: string;
  nodeId: string;
  contentType: string;
  contentId: string;
};

export type SessionResponse = {
  data: {
    sessionId: string;
    endUserId: string | null;
    flows: Flow[];
    content: ContentRecord[];
    experiments: ExperimentAssignment[];
    journeys: JourneyDelivery[];
  };
};

// ---- POST /api/sdk/events --------------------------------------------------------------------

export type EventType =
  | 'PAGE_VIEW'
  | 'CLICK'
  | 'ELEMENT_INTERACTION'
  | 'FORM_INTERACTION'
  | 'SCROLL_DEPTH'
  | 'RAGE_CLICK'
  | 'DEAD_CLICK'
  | 'FLOW_STARTED'
  | 'STEP_VIEWED'
  | 'STEP_COMPLETED'
  | 'FLOW_COMPLETED'
  | 'FLOW_SKIPPED'
  | 'FLOW_DISMISSED'
  | 'CONTENT_LOADED'
  | 'CONTENT_AUDIENCE_MATCHED'
  | 'CONTENT_RENDERED'
  | 'CONTENT_RENDER_FAILED'
  | 'CONTENT_SUBMISSION_PERSISTED'
  | 'JOURNEY_STARTED'
  | 'JOURNEY_COMPLETED'
  | 'SURVEY_RESPONSE'
  | 'NPS_RESPONSE'
  | 'EXPERIMENT_CONVERSION'
  | 'SDK_INIT'
  | 'SELECTOR_NOT_FOUND'
  | 'ERROR'
  | 'NETWORK'
  | 'IDENTIFY'
  | 'CUSTOM';

export type SdkEvent = {
  id?: string;
  type: EventType;
  name?: string;
  properties?: JsonObject;
  timestamp?: string;
  userId?: string;
  anonymousId?: string;
  sessionId?: string;
  url?: string;
  metadata?: JsonObject;
};

/** The JSON body; a beacon (no custom headers) adds `_apiKey`, which the service strips. */
export type EventsRequest = { events: SdkEvent[]; _apiKey?: string };
export type EventsResponse = { data: { accepted: number; correlationId: string } };

/**
 * The content types as data (as the service's `src/modules/content/definitions.ts` has them): their
 * names and API paths, what a new item starts with, which fields the editor shows as inputs, as
 * row editors or as JSON, and which take a trigger. The list page and the editor follow from it.
 */

/** The six content types of /api/content/:type, and NPS surveys (their own resource). */
export const CONTENT_TYPES = [
  { value: 'tooltips', label: 'Tooltips', one: 'tooltip' },
  { value: 'beacons', label: 'Beacons', one: 'beacon' },
  { value: 'task-lists', label: 'Task lists', one: 'task list' },
  { value: 'surveys', label: 'Surveys', one: 'survey' },
  { value: 'announcements', label: 'Announcements', one: 'announcement' },
  { value: 'self-help', label: 'Self-help', one: 'self-help widget' },
  { value: 'nps', label: 'NPS', one: 'NPS survey' },
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number]['value'];
export type ContentMeta = (typeof CONTENT_TYPES)[number];

/** The type named in the URL (tooltips for an unknown one). */
export const contentTypeOf = (type: string | undefined): ContentMeta =>
  CONTENT_TYPES.find((t) => t.value === type) ?? CONTENT_TYPES[0];

/** The API path of a content type's collection (NPS is a sibling resource). */
export const collectionPath = (type: ContentType) =>
  type === 'nps' ? '/api/nps-surveys' : `/api/content/${type}`;

/** What a new item of each type starts with (the API's create body, less name and siteId). */
export const DEFAULTS: Record<ContentType, Record<string, unknown>> = {
  tooltips: { targetSelector: '#help', content: { text: 'A helpful hint.' }, position: 'AUTO' },
  beacons: { targetSelector: '#new-feature', content: { message: 'New!' }, animation: 'subtle' },
  'task-lists': {
    description: 'Get set up in three steps',
    items: [
      { title: 'Complete your profile', actionType: 'NAVIGATE', actionConfig: { url: '/profile' }, order: 0 },
      { title: 'Invite a teammate', actionType: 'NAVIGATE', actionConfig: { url: '/team' }, order: 1 },
    ],
  },
  surveys: {
    questions: [
      { type: 'RATING', question: 'How easy was this?', required: true, options: {}, order: 0 },
      {
        type: 'SINGLE_CHOICE',
        question: 'What brought you here?',
        required: false,
        options: { choices: ['Search', 'A friend', 'Other'] },
        order: 1,
      },
    ],
  },
  announcements: { type: 'MODAL', content: { title: "What's new", body: 'We shipped something great.' } },
  'self-help': { config: { position: 'right' }, items: { articles: [] } },
  nps: {
    question: 'How likely are you to recommend us to a friend?',
    followUpQuestion: 'What is the main reason for your score?',
  },
};

/** The list edited with a row editor (content-lists.tsx), per type. */
export const ROWS: Partial<Record<ContentType, 'questions' | 'items'>> = {
  surveys: 'questions',
  'task-lists': 'items',
};

/** Fields edited as plain inputs, per type; the rows above; anything else of the record as JSON. */
export interface SimpleField {
  key: string;
  label: string;
  /** A select of these values instead of a text input. */
  options?: readonly string[];
  /** Where the value lives when nested (`content.text`). */
  path?: [string, string];
}
export const SIMPLE: Record<ContentType, readonly SimpleField[]> = {
  tooltips: [
    { key: 'targetSelector', label: 'Target element (CSS selector)' },
    { key: 'text', label: 'Text', path: ['content', 'text'] },
    { key: 'position', label: 'Position', options: ['AUTO', 'TOP', 'BOTTOM', 'LEFT', 'RIGHT'] },
    { key: 'targetUrl', label: 'Only on URL' },
  ],
  beacons: [
    { key: 'targetSelector', label: 'Target element (CSS selector)' },
    { key: 'message', label: 'Message', path: ['content', 'message'] },
    { key: 'animation', label: 'Animation', options: ['none', 'subtle', 'full'] },
    { key: 'targetUrl', label: 'Only on URL' },
  ],
  'task-lists': [{ key: 'description', label: 'Description' }],
  surveys: [],
  announcements: [
    { key: 'type', label: 'Display', options: ['MODAL', 'BANNER', 'SLIDEOUT', 'TOAST'] },
    { key: 'title', label: 'Title', path: ['content', 'title'] },
    { key: 'body', label: 'Body', path: ['content', 'body'] },
  ],
  'self-help': [],
  nps: [
    { key: 'question', label: 'Question' },
    { key: 'followUpQuestion', label: 'Follow-up question' },
  ],
};
export const JSON_FIELDS: Record<ContentType, readonly string[]> = {
  tooltips: [],
  beacons: [],
  'task-lists': [],
  surveys: [],
  announcements: [],
  'self-help': ['config', 'items'],
  nps: [],
};
export const TRIGGERS: Record<ContentType, boolean> = {
  tooltips: true,
  beacons: true,
  'task-lists': false,
  surveys: true,
  announcements: true,
  'self-help': false,
  nps: true,
};
export const SERVER_FIELDS = new Set([
  'id',
  'tenantId',
  'contentType',
  'status',
  'publishedAt',
  'archivedAt',
  'createdAt',
  'updatedAt',
  'siteId',
  // learned from the SDK's lookups; the editor sends a picked one only (issue 40)
  'targetFingerprint',
]);

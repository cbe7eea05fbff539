import type { ContentType } from './store/records.js';

/**
 * A minimal valid create body of each content type (beyond name and siteId): what the
 * documentation shows as an example, and what tests and seeds start from.
 */
export const SAMPLE_CONTENT_FIELDS: Record<ContentType, Record<string, unknown>> = {
  tooltips: { targetSelector: '#save', content: { text: 'Saves your work' } },
  beacons: { targetSelector: '#new-feature', content: { message: 'New here!' } },
  'task-lists': {
    items: [{ title: 'Visit settings', actionType: 'NAVIGATE', actionConfig: { url: '/settings' } }],
  },
  surveys: { questions: [{ type: 'TEXT', question: 'What could we do better?' }] },
  announcements: { type: 'MODAL', content: { title: 'Welcome', body: 'Version 2 is here' } },
  'self-help': { config: { position: 'bottom-right' }, items: {} },
};

export const sampleContentBody = (type: ContentType, siteId: string, name = `Sample ${type}`) => ({
  name,
  siteId,
  ...SAMPLE_CONTENT_FIELDS[type],
});

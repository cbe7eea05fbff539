import type { z } from 'zod';
import type { Executor } from '../../db/client.js';
import type { DeliveryContributor } from '../delivery/index.js';
import { contentUrlCondition, encodeRecord, servableOf, TRANSLATION_TYPES } from '../delivery/index.js';
import { liveSnapshots } from '../versions/index.js';
import { CONTENT_DEFS, recordOf, type SurveyQuestion } from './definitions.js';
import { type ContentRecord, type NpsSurveyRecord, publishedContent, toContentRecord } from './records.js';
import { npsSurvey } from './schemas.js';
import { listLiveContentItems } from './store/content-items.js';
import { listPublishedNpsSurveys } from './store/nps-surveys.js';
import { CONTENT_TYPES } from './store/records.js';

/**
 * What the SDK may serve a tenant's end users now: PUBLISHED, unexpired content items of every
 * type (records as their live version shows them, with `contentType`; docs/versions.md) and
 * PUBLISHED NPS surveys. Audience,
 * url and trigger matching are the caller's.
 */
export async function loadDeliverableContent(
  exec: Executor,
  tenantId: string,
  now: Date,
): Promise<{ content: ContentRecord[]; npsSurveys: NpsSurveyRecord[] }> {
  const [items, surveys] = await Promise.all([
    listLiveContentItems(exec, tenantId, now),
    listPublishedNpsSurveys(exec, tenantId),
  ]);
  // Each item as its live version shows it (edits to the working copy wait for a publish).
  const live = await liveSnapshots(
    exec,
    tenantId,
    'content',
    items.map((r) => r.id),
  );
  return {
    content: items.map((r) => {
      const version = live.get(r.id);
      return version ? publishedContent(r, version) : toContentRecord(r);
    }),
    npsSurveys: surveys,
  };
}

/** A survey as response checks see it (loaded in batches by the response effect). */
export interface SurveyForResponses {
  id: string;
  name: string;
  status: string;
  questions: Pick<SurveyQuestion, 'key' | 'type' | 'required' | 'options'>[];
}

const EPOCH = new Date(0);

/** Each content type's record schema (the wire form), built once. */
const codecs = new Map<string, z.ZodType>(CONTENT_TYPES.map((slug) => [slug, recordOf(CONTENT_DEFS[slug])]));

/**
 * Content items and NPS surveys in the delivery snapshot: every PUBLISHED one, whatever its
 * expiry, served where its `targetUrl` and url trigger (`url_match`, or another trigger's `url`) match.
 */
export const contentDelivery: DeliveryContributor = {
  name: 'content',
  async load(tx, tenantId) {
    const { content, npsSurveys } = await loadDeliverableContent(tx, tenantId, EPOCH);
    const items = content.map((c) => {
      const trigger = contentUrlCondition(c.triggerConfig);
      return {
        kind: 'content' as const,
        servable: servableOf({
          id: c.id,
          audienceId: c.audienceId,
          expiresAt: c.expiresAt,
          contains: [c.targetUrl, trigger.url],
          rule: trigger.rule,
        }),
        at: (c.publishedAt ?? c.createdAt).getTime(),
        record: encodeRecord(codecs.get(c.contentType)!, c),
        translationTypes: TRANSLATION_TYPES.content(c.contentType),
      };
    });
    const surveys = npsSurveys.map((n) => {
      const trigger = contentUrlCondition(n.triggerConfig);
      return {
        kind: 'content' as const,
        servable: servableOf({
          id: n.id,
          audienceId: n.audienceId,
          contains: [trigger.url],
          rule: trigger.rule,
        }),
        at: (n.publishedAt ?? n.createdAt).getTime(),
        record: { contentType: 'nps-surveys', ...encodeRecord(npsSurvey, n) },
        translationTypes: TRANSLATION_TYPES.nps,
      };
    });
    return { items: [...items, ...surveys] };
  },
};

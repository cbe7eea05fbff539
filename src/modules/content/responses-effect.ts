import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { isPlainObject } from '../../engine/json.js';
import { isUuid } from '../../platform/ids.js';
import { findEndUsersOfUserIds } from '../end-users/index.js';
import type { EffectContext, EventEffect, ProcessedBatch, StoredEvent } from '../events/index.js';
import { emitWebhookEvents } from '../webhooks/index.js';
import type { SurveyQuestion } from './definitions.js';
import { npsScore } from './schemas.js';
import { findSurveysOf } from './store/content-items.js';
import { findNpsSurveysOf } from './store/nps-surveys.js';
import {
  insertNpsResponses,
  insertSurveyResponses,
  moveResponsesOfEndUser,
  type NewNpsResponse,
  type NewSurveyResponse,
} from './store/responses.js';

/**
 * SURVEY_RESPONSE and NPS_RESPONSE events become survey_responses and nps_responses rows.
 * An event that does not fit its survey is parked in event_dead_letters with the reason (never
 * thrown: that would fail every batch of the chunk). The surveys, NPS surveys and end users a
 * chunk needs are loaded with one query each, and each table gets one insert.
 *
 * - SURVEY_RESPONSE: `properties.surveyId` (a survey of the tenant in any status but ARCHIVED),
 *   `properties.answers` (object keyed by question key, or — for clients that do not know the
 *   keys — by the question's `order` as a string, "0", "1", ...; stored keyed by question key):
 *   every required question answered (null, '' and [] count as unanswered), no unknown key, no
 *   question answered twice, each answer of its question's type.
 * - NPS_RESPONSE: `properties.npsSurveyId` (alias `surveyId`; an NPS survey of the tenant, not
 *   ARCHIVED), `properties.score` (integer 0..10), `properties.comment` (optional string).
 * - `end_user_id`: the end user whose external id is the event's userId, else null;
 *   `submitted_at`: the event timestamp; `event_id`: the event id (a replay inserts nothing).
 */

const MAX_TEXT_ANSWER = 10_000;
const MAX_NPS_COMMENT = 10_000;

/** A question as the checks read it; `order` (absent in older shapes) lets an answer name it by position. */
export type Question = Pick<SurveyQuestion, 'key' | 'type' | 'required' | 'options'> & { order?: number };

/** A survey or NPS survey a response names. */
interface Target {
  id: string;
  status: string;
}

interface Survey extends Target {
  questions: Question[];
}

interface Pending {
  batch: ProcessedBatch;
  event: StoredEvent;
}

const pairKey = (tenantId: string, key: string) => `${tenantId}:${key}`;
/** A uuid, lower-cased (as the database answers it), else null. */
const uuidOf = (v: unknown) => (typeof v === 'string' && isUuid(v) ? v.toLowerCase() : null);

/** The distinct (tenant, key) pairs of the keys `keyOf` finds, as columns; null if none. */
function pairsOf(
  items: Pending[],
  keyOf: (e: StoredEvent) => string | null,
): { tenantIds: string[]; keys: string[] } | null {
  const seen = new Map<string, { tenantId: string; key: string }>();
  for (const { batch, event } of items) {
    const key = keyOf(event);
    if (key !== null) seen.set(pairKey(batch.tenantId, key), { tenantId: batch.tenantId, key });
  }
  if (seen.size === 0) return null;
  const pairs = [...seen.values()];
  return { tenantIds: pairs.map((p) => p.tenantId), keys: pairs.map((p) => p.key) };
}

async function loadSurveys(tx: Executor, items: Pending[]): Promise<Map<string, Survey>> {
  const pairs = pairsOf(items, (e) => uuidOf(e.properties?.surveyId));
  if (!pairs) return new Map();
  const rows = await findSurveysOf(tx, { tenantIds: pairs.tenantIds, ids: pairs.keys });
  return new Map(
    rows.map((r) => [
      pairKey(r.tenantId, r.id),
      {
        id: r.id,
        status: r.status,
        questions: ((r.questions ?? []) as SurveyQuestion[]).map((q) => ({
          key: q.key,
          type: q.type,
          required: q.required,
          options: q.options ?? {},
          order: q.order,
        })),
      },
    ]),
  );
}

const npsSurveyIdOf = (e: StoredEvent) => e.properties?.npsSurveyId ?? e.properties?.surveyId;

async function loadNpsSurveys(tx: Executor, items: Pending[]): Promise<Map<string, Target>> {
  const pairs = pairsOf(items, (e) => uuidOf(npsSurveyIdOf(e)));
  if (!pairs) return new Map();
  const rows = await findNpsSurveysOf(tx, { tenantIds: pairs.tenantIds, ids: pairs.keys });
  return new Map(rows.map((r) => [pairKey(r.tenantId, r.id), { id: r.id, status: r.status }]));
}

/** End users of the events' userIds, keyed `tenant:userId`. */
async function loadEndUsers(tx: Executor, items: Pending[]): Promise<Map<string, string>> {
  const pairs = pairsOf(items, (e) => e.userId || null);
  if (!pairs) return new Map();
  const rows = await findEndUsersOfUserIds(tx, { tenantIds: pairs.tenantIds, userIds: pairs.keys });
  return new Map(rows.map((r) => [pairKey(r.tenantId, r.userId), r.id]));
}

const unanswered = (v: unknown) =>
  v === undefined ||
  v === null ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function bound(q: Question, name: 'min' | 'max', fallback: number): number {
  const v = q.options?.[name];
  return isInt(v) ? v : fallback;
}

/** Default bounds of numeric questions when the survey sets no `options.min` / `options.max`. */
const NUMERIC_DEFAULTS: Record<string, [number, number]> = { RATING: [1, 5], SCALE: [1, 10] };

const integerFrom = (min: number, max: number, message: string) =>
  z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });

/** The schema an answer to `q` must meet, with the messages a dead letter records. */
function answerSchemaOf(q: Question): z.ZodType {
  const at = `answer to "${q.key}"`;
  const choices = Array.isArray(q.options?.choices) ? (q.options.choices as unknown[]) : [];
  const isChoice = (c: unknown) => choices.includes(c);
  switch (q.type) {
    case 'RATING':
    case 'SCALE': {
      const [dMin, dMax] = NUMERIC_DEFAULTS[q.type]!;
      const min = bound(q, 'min', dMin);
      const max = bound(q, 'max', dMax);
      return integerFrom(min, max, `${at} must be an integer from ${min} to ${max}`);
    }
    case 'NPS':
      return integerFrom(0, 10, `${at} must be an integer from 0 to 10`);
    case 'BOOLEAN':
      return z.boolean({ error: `${at} must be a boolean` });
    case 'SINGLE_CHOICE':
    case 'DROPDOWN':
      return z
        .string({ error: `${at} must be one of its choices` })
        .refine(isChoice, `${at} must be one of its choices`);
    case 'MULTIPLE_CHOICE': {
      const notAChoice = (iss: { input?: unknown }) =>
        `${at} has ${JSON.stringify(iss.input)}, which is not one of its choices`;
      return z
        .array(z.string({ error: notAChoice }).refine(isChoice, { error: notAChoice }), {
          error: `${at} must be an array of its choices`,
        })
        .refine((v) => new Set(v).size === v.length, `${at} repeats a choice`);
    }
    case 'TEXT':
      return z
        .string({ error: `${at} must be a string` })
        .max(MAX_TEXT_ANSWER, `${at} is longer than ${MAX_TEXT_ANSWER} characters`);
    default:
      return z.never({ error: `question "${q.key}" has an unknown type` });
  }
}

/** Schemas built once per question object (a chunk checks many responses to one survey). */
const answerSchemas = new WeakMap<Question, z.ZodType>();

/** Why an answer does not fit its question, or null when it does. */
export function answerProblem(q: Question, v: unknown): string | null {
  let schema = answerSchemas.get(q);
  if (!schema) {
    schema = answerSchemaOf(q);
    answerSchemas.set(q, schema);
  }
  const parsed = schema.safeParse(v);
  return parsed.success ? null : parsed.error.issues[0]!.message;
}

const ORDER_KEY = /^(0|[1-9][0-9]{0,5})$/;

/**
 * The question an answer key names: a question key first, else (as a fallback) a question's
 * `order` written as a decimal string ("0", "1", ...) when exactly one question has that order.
 */
function questionResolver(questions: Question[]): (key: string) => Question | undefined {
  const byKey = new Map(questions.map((q) => [q.key, q]));
  const byOrder = new Map<number, Question | null>();
  for (const q of questions) {
    if (typeof q.order !== 'number') continue;
    byOrder.set(q.order, byOrder.has(q.order) ? null : q); // null: the order is ambiguous
  }
  return (key) =>
    byKey.get(key) ?? (ORDER_KEY.test(key) ? (byOrder.get(Number(key)) ?? undefined) : undefined);
}

/** The stored response (answered questions only, by question key), or why the answers do not fit. */
export function checkAnswers(
  survey: Pick<Survey, 'questions'>,
  answers: unknown,
): { response: Record<string, unknown> } | { problem: string } {
  if (!isPlainObject(answers))
    return { problem: 'properties.answers must be an object keyed by question key' };
  const resolve = questionResolver(survey.questions);
  const byQuestion = new Map<string, { sentAs: string; value: unknown }>();
  for (const [sentAs, value] of Object.entries(answers)) {
    const q = resolve(sentAs);
    if (!q) return { problem: `unknown question key "${sentAs}"` };
    const earlier = byQuestion.get(q.key);
    if (earlier) {
      return { problem: `question "${q.key}" is answered twice (as "${earlier.sentAs}" and "${sentAs}")` };
    }
    byQuestion.set(q.key, { sentAs, value });
  }
  const response: Record<string, unknown> = {};
  for (const q of survey.questions) {
    const v = byQuestion.get(q.key)?.value;
    if (unanswered(v)) {
      if (q.required) return { problem: `required question "${q.key}" is not answered` };
      continue;
    }
    const problem = answerProblem(q, v);
    if (problem) return { problem };
    response[q.key] = v;
  }
  return { response };
}

/** What every response row carries. */
type ResponseBase = Pick<NewSurveyResponse, 'tenantId' | 'endUserId' | 'submittedAt' | 'eventId'>;

/** A row, or why the event does not fit (it is then dead-lettered). */
type Outcome<T> = T | { problem: string };

const SURVEY_REF = { field: 'surveyId', what: 'survey' };
const NPS_REF = { field: 'npsSurveyId', what: 'NPS survey' };

/**
 * The target the event names (`id`, sent as `properties.<field>`): one of the tenant, not
 * archived; with the fields every response row has.
 */
function resolveTarget<T extends Target>(
  { batch, event }: Pending,
  id: unknown,
  ref: { field: string; what: string },
  targets: Map<string, T>,
  endUsers: Map<string, string>,
): Outcome<{ target: T; base: ResponseBase }> {
  if (typeof id !== 'string' || id === '') return { problem: `properties.${ref.field} is missing` };
  const target = isUuid(id) ? targets.get(pairKey(batch.tenantId, id.toLowerCase())) : undefined;
  if (!target) return { problem: `${ref.what} ${id} not found` };
  if (target.status === 'ARCHIVED') return { problem: `${ref.what} ${id} is archived` };
  const endUserId = event.userId ? (endUsers.get(pairKey(batch.tenantId, event.userId)) ?? null) : null;
  return {
    target,
    base: { tenantId: batch.tenantId, endUserId, submittedAt: event.timestamp, eventId: event.id },
  };
}

function surveyRowOf(
  item: Pending,
  surveys: Map<string, Survey>,
  endUsers: Map<string, string>,
): Outcome<NewSurveyResponse> {
  const props = item.event.properties;
  const found = resolveTarget(item, props?.surveyId, SURVEY_REF, surveys, endUsers);
  if ('problem' in found) return found;
  const checked = checkAnswers(found.target, props?.answers);
  if ('problem' in checked) return checked;
  return { ...found.base, surveyId: found.target.id, response: checked.response };
}

function npsRowOf(
  item: Pending,
  npsSurveys: Map<string, Target>,
  endUsers: Map<string, string>,
): Outcome<NewNpsResponse> {
  const found = resolveTarget(item, npsSurveyIdOf(item.event), NPS_REF, npsSurveys, endUsers);
  if ('problem' in found) return found;
  const score = npsScore.safeParse(item.event.properties?.score);
  const comment = item.event.properties?.comment;
  if (!score.success) return { problem: 'properties.score must be an integer from 0 to 10' };
  if (comment !== undefined && comment !== null && typeof comment !== 'string') {
    return { problem: 'properties.comment must be a string' };
  }
  if (typeof comment === 'string' && comment.length > MAX_NPS_COMMENT) {
    return { problem: `properties.comment is longer than ${MAX_NPS_COMMENT} characters` };
  }
  return {
    ...found.base,
    npsSurveyId: found.target.id,
    score: score.data,
    comment: typeof comment === 'string' && comment.trim() !== '' ? comment : null,
  };
}

/** The rows that fit; each event that does not is dead-lettered with its problem. */
function rowsOf<T extends object>(
  items: Pending[],
  rowOf: (item: Pending) => Outcome<T>,
  ctx: EffectContext,
): T[] {
  const rows: T[] = [];
  for (const item of items) {
    const row = rowOf(item);
    if ('problem' in row) ctx.deadLetter(item.batch, item.event, row.problem);
    else rows.push(row);
  }
  return rows;
}

async function applyResponses(tx: Executor, batches: ProcessedBatch[], ctx: EffectContext): Promise<void> {
  const surveyEvents: Pending[] = [];
  const npsEvents: Pending[] = [];
  for (const batch of batches) {
    for (const event of batch.events) {
      if (event.type === 'SURVEY_RESPONSE') surveyEvents.push({ batch, event });
      else if (event.type === 'NPS_RESPONSE') npsEvents.push({ batch, event });
    }
  }
  if (surveyEvents.length === 0 && npsEvents.length === 0) return;
  // One connection: the loads run one after the other.
  const surveys = await loadSurveys(tx, surveyEvents);
  const npsSurveys = await loadNpsSurveys(tx, npsEvents);
  const endUsers = await loadEndUsers(tx, [...surveyEvents, ...npsEvents]);
  const surveyRows = rowsOf(surveyEvents, (item) => surveyRowOf(item, surveys, endUsers), ctx);
  const npsRows = rowsOf(npsEvents, (item) => npsRowOf(item, npsSurveys, endUsers), ctx);
  await insertSurveyResponses(tx, surveyRows);
  await insertNpsResponses(tx, npsRows);
  await emitResponded(tx, [...surveyEvents, ...npsEvents], surveyRows, npsRows, ctx);
}

/**
 * `survey.responded` webhook events for the responses stored (not those set aside), in the
 * chunk's transaction; nothing is read when no endpoint of the tenant subscribes to it.
 */
async function emitResponded(
  tx: Executor,
  items: Pending[],
  surveyRows: NewSurveyResponse[],
  npsRows: NewNpsResponse[],
  ctx: EffectContext,
): Promise<void> {
  if (surveyRows.length === 0 && npsRows.length === 0) return;
  const userOf = new Map(items.map(({ event }) => [event.id, event.userId ?? event.anonymousId ?? null]));
  const common = (r: NewSurveyResponse | NewNpsResponse) => ({
    eventId: r.eventId,
    userId: (r.eventId ? userOf.get(r.eventId) : null) ?? null,
    endUserId: r.endUserId,
    submittedAt: r.submittedAt,
  });
  await emitWebhookEvents(
    tx,
    [
      ...surveyRows.map((r) => ({
        tenantId: r.tenantId,
        type: 'survey.responded' as const,
        timestamp: new Date(r.submittedAt),
        data: { kind: 'survey', surveyId: r.surveyId, answers: r.response, ...common(r) },
      })),
      ...npsRows.map((r) => ({
        tenantId: r.tenantId,
        type: 'survey.responded' as const,
        timestamp: new Date(r.submittedAt),
        data: { kind: 'nps', npsSurveyId: r.npsSurveyId, score: r.score, comment: r.comment, ...common(r) },
      })),
    ],
    { now: new Date(), effects: ctx },
  );
}

export const surveyResponsesEffect: EventEffect = {
  name: 'survey-responses',
  // Responses name the end user of the event's userId, created by the activity effect.
  runsAfter: ['end-user-activity'],
  apply: applyResponses,
};

/** Identify's merge: the anonymous end user's survey and NPS responses move to the identified one. */
export async function moveResponses(
  tx: Executor,
  { tenantId, fromId, toId }: { tenantId: string; fromId: string; toId: string },
): Promise<void> {
  await moveResponsesOfEndUser(tx, tenantId, fromId, toId);
}

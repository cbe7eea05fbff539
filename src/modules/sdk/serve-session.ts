import type { DatabaseHandle } from '../../db/client.js';
import type { RuleContext } from '../../engine/rules.js';
import { createBatcher } from '../../platform/batcher.js';
import { newId } from '../../platform/ids.js';
import type {
  DeliveryCache,
  DeliveryContributor,
  ItemDecision,
  LocaleView,
  RememberEntry,
  ServeLedger,
  SessionCandidates,
  SessionChoice,
  SessionLookup,
  SessionLookupFn,
  Snapshot,
} from '../delivery/index.js';
import {
  audienceMatcher,
  type ContributorChoice,
  type ContributorChooser,
  candidatesOf,
  chooseSession,
  EMPTY_HISTORY,
  firstFailingRule,
  type SessionFacts,
} from '../delivery/index.js';
import type { StoredEvent } from '../events/index.js';
import { type EventRecorder, serverEvent } from '../events/index.js';
import type { BodyBuffers } from './body-buffers.js';

export interface SessionInput {
  userId?: string | undefined;
  anonymousId?: string | undefined;
  url?: string | undefined;
  locale?: string | undefined;
  device?: { type?: string | undefined; browser?: string | undefined } | undefined;
  /** The SDK's debug mode: the answer also lists each held-back item's reason code. */
  debug?: boolean | undefined;
}

export interface SessionEnv {
  clock: () => number;
  lookup: SessionLookupFn;
  cache: DeliveryCache;
  recorder: EventRecorder;
  /** The contributors that choose per session (those with `choose`). */
  contributors: readonly DeliveryContributor[];
  /**
   * Per contributor with `remember`, index-aligned with `contributors`: stores through group
   * writes, and answers the session's choice as stored.
   */
  rememberers: readonly (((entry: RememberEntry) => Promise<ContributorChoice>) | null)[];
  /** Where answers are written (the caller hands each back once its response has finished). */
  bodies: BodyBuffers;
  /** The serve ledger of the delivery policy (used only for tenants with a policy). */
  serves: ServeLedger;
}

/**
 * One group writer per contributor that remembers (concurrent sessions' first decisions in one
 * transaction); each session gets back its own choice as stored.
 */
export function rememberersOf(
  database: DatabaseHandle,
  contributors: readonly DeliveryContributor[],
): SessionEnv['rememberers'] {
  return contributors.map((c) => {
    if (!c.remember) return null;
    const batcher = createBatcher<RememberEntry, ContributorChoice>({
      run: async (entries) => {
        const stored = await c.remember!(database.db, entries);
        if (stored.length !== entries.length)
          throw new Error(`${c.name}: remember answered ${stored.length} of ${entries.length}`);
        return stored;
      },
    });
    return (entry) => batcher.load(entry);
  });
}

/**
 * The audience-rule context of a session: `userId` is the end user's userId (external id),
 * `role` is `traits.role` when it is a string, `traits` the stored traits, `device` the request's.
 */
export function ruleContextOf(lookup: SessionLookup | null, input: SessionInput): RuleContext {
  const traits = lookup?.traits ?? {};
  const role = traits.role;
  const ctx: RuleContext = { traits };
  const userId = lookup?.externalId ?? input.userId;
  if (userId) ctx.userId = userId;
  if (typeof role === 'string') ctx.role = role;
  const device: { type?: string; browser?: string } = {};
  if (input.device?.type !== undefined) device.type = input.device.type;
  if (input.device?.browser !== undefined) device.browser = input.device.browser;
  ctx.device = device;
  return ctx;
}

const MAX_CONTEXT_KEY = 2048;
const MAX_CONTEXTS = 1000;
const MAX_URL_KEY = 2048;

/**
 * This request's audience results, shared with earlier requests of the same rule context, and
 * that context's key ('' when the tenant has no audience to match; null when not shared).
 */
function audienceMemo(
  snapshot: Snapshot,
  rules: RuleContext,
): { memo: Map<string, boolean>; key: string | null } {
  if (snapshot.audiences.size === 0) return { memo: new Map(), key: '' };
  const key = JSON.stringify([rules.userId, rules.role, rules.device, rules.traits]);
  if (key.length > MAX_CONTEXT_KEY) return { memo: new Map(), key: null };
  let memo = snapshot.audienceResults.get(key);
  if (!memo) {
    if (snapshot.audienceResults.size >= MAX_CONTEXTS) snapshot.audienceResults.clear();
    memo = new Map();
    snapshot.audienceResults.set(key, memo);
  }
  return { memo, key };
}

/** The items this url and rule context may get (engine `candidatesOf`), shared like the audience results. */
function candidates(
  snapshot: Snapshot,
  contextKey: string | null,
  url: string | undefined,
  inAudience: (audienceId: string) => boolean,
): SessionCandidates | undefined {
  if (contextKey === null || (url?.length ?? 0) > MAX_URL_KEY) return undefined;
  const key = url === undefined ? `${contextKey}\u0000` : `${contextKey}\u0001${url}`;
  let found = snapshot.candidates.get(key);
  if (!found) {
    if (snapshot.candidates.size >= MAX_CONTEXTS) snapshot.candidates.clear();
    found = candidatesOf(snapshot, url, inAudience);
    snapshot.candidates.set(key, found);
  }
  return found;
}

const COMMA = Buffer.from(',');
const CONTENT_OPEN = Buffer.from('],"content":[');

function appendJoined(parts: Buffer[], items: Buffer[], chosen: number[]): void {
  for (let k = 0; k < chosen.length; k++) {
    if (k > 0) parts.push(COMMA);
    parts.push(items[chosen[k]!]!);
  }
}

export const choiceKey = (flows: number[], content: number[]): string =>
  `${flows.join(',')}|${content.join(',')}`;

/**
 * `a,b…],"content":[c,d…` for the chosen items, from the view's pre-encoded items (memoized by
 * `key`, the `choiceKey` of the choice).
 */
export function joinedItems(
  view: LocaleView,
  flows: number[],
  content: number[],
  key = choiceKey(flows, content),
): Buffer {
  const memo = view.joined;
  let joined = memo.byChoice.get(key);
  if (!joined) {
    const parts: Buffer[] = [];
    appendJoined(parts, view.flows, flows);
    parts.push(CONTENT_OPEN);
    appendJoined(parts, view.content, content);
    joined = Buffer.concat(parts);
    if (memo.bytes + joined.length > memo.maxBytes) {
      memo.byChoice.clear();
      memo.bytes = 0;
    }
    memo.byChoice.set(key, joined);
    memo.bytes += joined.length;
  }
  return joined;
}

/** A session start, recorded like an SDK event (SDK_INIT, `properties.source = "session"`). */
const sessionStartEvent = (sessionId: string, input: SessionInput, nowMs: number): StoredEvent =>
  serverEvent('SDK_INIT', nowMs, {
    sessionId,
    properties: { source: 'session', ...(input.locale ? { locale: input.locale } : {}) },
    userId: input.userId || undefined,
    anonymousId: input.anonymousId || undefined,
    url: input.url,
    metadata: input.device ? { device: input.device } : undefined,
  });

/** Each choosing contributor bound to its snapshot part and this user's state. */
function choosers(env: SessionEnv, snapshot: Snapshot, user: SessionLookup): ContributorChooser[] {
  return env.contributors.map((c) => {
    const data = snapshot.parts.get(c.name);
    const state = user.states.get(c.name) ?? null;
    return (facts: SessionFacts) => c.choose!(data, state, facts);
  });
}

/**
 * `POST /api/sdk/session`: resolves the end user and reads its item states, the contributors'
 * user states and the tenant's delivery version in one read-only statement (shared with
 * concurrent sessions; an INSERT only for a new end user), records the session start through the
 * event writer (group commit) at the same time, then chooses from the delivery snapshot
 * (delivery/engine/choose-session.ts) and writes the chosen items' pre-serialized JSON into a buffer of
 * `env.bodies`. Returns the response body (bytes, to hand back to `env.bodies` once sent) and the
 * correlationId of the stored session-start batch.
 */
export async function serveSession(
  env: SessionEnv,
  sdk: { tenantId: string; apiKeyId: string },
  input: SessionInput,
): Promise<{ body: Buffer; correlationId: string }> {
  const nowMs = env.clock();
  const now = new Date(nowMs);
  const sessionId = newId();
  const { tenantId } = sdk;
  const { correlationId, stored } = env.recorder.record(sdk, sessionStartEvent(sessionId, input, nowMs), now);
  const lookup = env.lookup({ tenantId, userId: input.userId, anonymousId: input.anonymousId, now });
  const [user] = await Promise.all([lookup, stored]);

  const snapshot = await env.cache.snapshot(tenantId, user.version);
  const view = await env.cache.view(snapshot, input.locale);
  const known = user.endUserId === null ? null : user;
  const rules = ruleContextOf(known, input);
  const audience = audienceMemo(snapshot, rules);
  const inAudience = audienceMatcher(snapshot.audiences, rules, audience.memo);
  const facts: SessionFacts = {
    tenantId,
    sessionId,
    endUserId: user.endUserId,
    userId: user.externalId ?? input.userId ?? null,
    anonymousId: input.anonymousId ?? null,
    url: input.url,
    locale: input.locale,
    rules,
    nowMs,
    inAudience,
  };
  // First decisions are stored before the session answers, and it serves them as stored: a
  // concurrent session of the same user may have decided first (its journey enrollment wins).
  const decided = choosers(env, snapshot, user).map((choose) => choose(facts));
  const endUserId = user.endUserId;
  const rememberer = (choice: ContributorChoice, i: number) =>
    choice.remember?.length && endUserId !== null ? (env.rememberers[i] ?? null) : null;
  // Most sessions decide nothing new: no promise, no wait.
  const choices = decided.some(rememberer)
    ? await Promise.all(
        decided.map(
          (choice, i) => rememberer(choice, i)?.({ tenantId, endUserId: endUserId!, choice }) ?? choice,
        ),
      )
    : decided;
  const allowed = candidates(snapshot, audience.key, input.url, inAudience);
  const filter = { frequency: snapshot.frequency, user: known, url: input.url, nowMs, inAudience };
  const explain: ItemDecision[] | undefined = input.debug ? [] : undefined;
  // No policy (the default): no ledger, no database work beyond the lookup.
  const choice =
    snapshot.policy === null
      ? chooseSession(snapshot, filter, choices, allowed, undefined, explain)
      : await underPolicy(env, snapshot, endUserId, nowMs, (history) => {
          if (explain) explain.length = 0;
          return chooseSession(
            snapshot,
            filter,
            choices,
            allowed,
            { policy: snapshot.policy!, history },
            explain,
          );
        });
  // Most sessions of a url and rule context get all their candidates: their key is kept with them.
  let key: string;
  if (allowed && choice.flows === allowed.flows && choice.content === allowed.content) {
    allowed.key ??= choiceKey(allowed.flows, allowed.content);
    key = allowed.key;
  } else key = choiceKey(choice.flows, choice.content);

  // The response is assembled from the items' pre-encoded bytes: no per-request serialization.
  const head = `{"data":{"sessionId":"${sessionId}","endUserId":${user.endUserId ? `"${user.endUserId}"` : 'null'},"flows":[`;
  const joined = joinedItems(view, choice.flows, choice.content, key);
  const debug = explain ? `,"decisions":${JSON.stringify(debugCodes(explain))}` : '';
  const tail = `],"experiments":${JSON.stringify(choice.experiments)},"journeys":${JSON.stringify(choice.journeys)}${debug}}}`;
  const headBytes = Buffer.byteLength(head);
  const size = headBytes + joined.length + Buffer.byteLength(tail);
  const buffer = env.bodies.take(size);
  buffer.write(head, 0);
  joined.copy(buffer, headBytes);
  buffer.write(tail, headBytes + joined.length);
  return { body: buffer.length === size ? buffer : buffer.subarray(0, size), correlationId };
}

/** Debug mode's list: each held-back item's id, kind and code, never details (any visitor sees it). */
const debugCodes = (decisions: ItemDecision[]) =>
  decisions.filter((d) => d.reason !== null).map((d) => ({ kind: d.kind, id: d.id, reason: d.reason }));

/**
 * The session's choice under the tenant's policy. With an end user, through the serve ledger:
 * decided under the user's lock over what it was served, and recorded. A session without an end
 * user (no ids), or whose eligible items hold nothing the policy counts, decides over no history.
 */
async function underPolicy(
  env: SessionEnv,
  snapshot: Snapshot,
  endUserId: string | null,
  nowMs: number,
  decide: (history: typeof EMPTY_HISTORY) => SessionChoice,
): Promise<SessionChoice> {
  const policy = snapshot.policy!;
  if (endUserId === null) return decide(EMPTY_HISTORY);
  if (policy.afterDismissDays === null) {
    const free = decide(EMPTY_HISTORY);
    // Nothing countable served even with no history: nothing countable is eligible.
    if ((free.counted?.length ?? 0) === 0) return free;
  }
  return env.serves.serve({ tenantId: snapshot.tenantId, endUserId, nowMs, policy, decide });
}

/** One item of the explanation, before names and items outside the snapshot are added. */
export interface ExplainedItem {
  kind: 'flow' | 'content';
  id: string;
  reason: ItemDecision['reason'];
  detail: string | null;
  record: Record<string, unknown>;
}

/**
 * "Why didn't it show?": what a session of this end user on `url` would be served now, with
 * each item's reason, decided by the same `chooseSession` as `serveSession` on the same
 * snapshot, contributor choices and policy history, without writing anything (first decisions
 * of contributors are not remembered, nothing is recorded in the ledger).
 */
export async function explainSession(
  env: SessionEnv,
  tenantId: string,
  who: { externalId: string | null; anonymousId: string | null },
  url: string | undefined,
): Promise<ExplainedItem[]> {
  const nowMs = env.clock();
  const user = await env.lookup({
    tenantId,
    userId: who.externalId ?? undefined,
    anonymousId: who.externalId ? undefined : (who.anonymousId ?? undefined),
    now: new Date(nowMs),
  });
  const snapshot = await env.cache.snapshot(tenantId, user.version);
  const known = user.endUserId === null ? null : user;
  const input: SessionInput = { userId: who.externalId ?? undefined, url };
  const rules = ruleContextOf(known, input);
  const inAudience = audienceMatcher(snapshot.audiences, rules, new Map());
  const facts: SessionFacts = {
    tenantId,
    sessionId: newId(),
    endUserId: user.endUserId,
    userId: user.externalId ?? null,
    anonymousId: who.anonymousId,
    url,
    locale: undefined,
    rules,
    nowMs,
    inAudience,
  };
  const choices = choosers(env, snapshot, user).map((choose) => choose(facts));
  const filter = { frequency: snapshot.frequency, user: known, url, nowMs, inAudience };
  const policy =
    snapshot.policy === null
      ? undefined
      : {
          policy: snapshot.policy,
          history:
            user.endUserId === null
              ? EMPTY_HISTORY
              : await env.serves.history(tenantId, user.endUserId, nowMs, snapshot.policy),
        };
  const explain: ItemDecision[] = [];
  chooseSession(snapshot, filter, choices, undefined, policy, explain);
  return explain.map((d) => {
    const item = (d.kind === 'flow' ? snapshot.items.flows : snapshot.items.content)[d.index]!;
    let detail = d.detail;
    if (d.reason === 'AUDIENCE_MISMATCH' && item.servable.audienceId) {
      const tree = snapshot.audiences.get(item.servable.audienceId);
      detail = tree
        ? `audience ${item.servable.audienceId}: ${firstFailingRule(tree, rules) ?? 'no match'}`
        : `audience ${item.servable.audienceId} no longer exists`;
    } else if (d.reason === 'EXPIRED' && item.servable.expiresAt !== null) {
      detail = `expired at ${new Date(item.servable.expiresAt).toISOString()}`;
    } else if (d.reason === 'URL_MISMATCH') {
      detail = url === undefined ? 'no url given' : 'the url does not match its trigger or target url';
    }
    return { kind: d.kind, id: d.id, reason: d.reason, detail, record: item.record };
  });
}

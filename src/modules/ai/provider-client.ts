import type { JSONSchema7, LanguageModelUsage, ModelMessage } from 'ai';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { AiProviderName } from '../../db/schema/index.js';
import { AppError } from '../../platform/errors.js';
import { PROVIDERS, type ProviderConnection, type ProviderDef } from './providers.js';
import { backoffMs, isRetryableStatus, retryAfterMs, shouldRetry } from './retry.js';
import { loadAiSdk, loadedAiSdk } from './sdk.js';
import { type CrossFieldRule, describeIssues, repairMessage } from './wire.js';

/**
 * Calls to an AI provider for one API request, through the Vercel AI SDK (imported at the first
 * call, `sdk.ts`).
 *
 * - One deadline per request (`AI_REQUEST_TIMEOUT_MS`, 30 s by default) covers every attempt,
 *   backoff and repair: past it the request fails with 500 EXTERNAL_SERVICE_ERROR, never hangs.
 * - Retries are ours, not the SDK's (`maxRetries: 0`): the SDK honours Retry-After too, but its
 *   first backoff is a fixed 2 s and it sleeps even when the wait outlasts the deadline. Here
 *   429, 408, 409 and 5xx answers and network failures are retried with doubling backoff from
 *   `AI_RETRY_BASE_DELAY_MS`, at least as long as the provider's Retry-After, while the deadline
 *   allows; a wait that would end past it fails at once.
 * - A refused key is 400 AI_KEY_INVALID. Error messages name the provider and the HTTP status,
 *   never the SDK's message (which can carry the provider's response body), and the key appears
 *   in no log line: the SDK sends it in a header, which its errors do not keep.
 * - Structured output: the model is given a JSON schema, and its answer is validated by the zod
 *   schema that JSON schema comes from (`wire.ts`). An answer that is not JSON or does not
 *   validate gets one repair attempt (the problems with their paths are sent back, and the text
 *   of every cross-field rule broken); a second failure is 500.
 * - Tokens reported by the provider are counted (`tokensUsed`), failed and repaired attempts
 *   included: they were spent.
 */

export const MAX_ATTEMPTS = 4;
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export interface AiClientOptions {
  provider: AiProviderName;
  model: string | null;
  apiKey: string;
  ai: Config['ai'];
  log: Logger;
}

export interface GenerateObjectRequest<T> {
  system: string;
  /** The conversation so far; the last message is the request. */
  messages: ModelMessage[];
  /** Validates (and normalizes) the model's answer. */
  schema: z.ZodType<T>;
  /** The JSON schema the model is asked to follow (`modelSchemaOf(schema)`). */
  modelSchema: JSONSchema7;
  /** Names the output for the provider ("flow", "answer"). */
  name: string;
  /** Rules `schema` checks that `modelSchema` cannot state: the repair turn quotes those broken. */
  rules?: readonly CrossFieldRule[];
  maxOutputTokens?: number;
}

interface Failure {
  kind: 'timeout' | 'key' | 'retryable' | 'fatal';
  status?: number;
  retryAfterMs?: number | null;
}

/** A non-2xx answer to a plain fetch (key verification), classified like the SDK's errors. */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }
}

const isAbort = (err: unknown) =>
  err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');

function classify(def: ProviderDef, err: unknown): Failure {
  if (isAbort(err) || (err instanceof Error && isAbort(err.cause))) return { kind: 'timeout' };
  if (loadedAiSdk()?.APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status !== undefined && def.rejectsKey(status, err.responseBody ?? ''))
      return { kind: 'key', status };
    if (err.isRetryable || (status !== undefined && isRetryableStatus(status))) {
      return { kind: 'retryable', status, retryAfterMs: retryAfterMs(err.responseHeaders, Date.now()) };
    }
    return { kind: 'fatal', status };
  }
  if (err instanceof HttpStatusError) {
    if (def.rejectsKey(err.status, err.body)) return { kind: 'key', status: err.status };
    if (isRetryableStatus(err.status)) {
      return { kind: 'retryable', status: err.status, retryAfterMs: retryAfterMs(err.headers, Date.now()) };
    }
    return { kind: 'fatal', status: err.status };
  }
  // fetch's own failures (connection refused or reset) are TypeErrors: worth another try.
  if (err instanceof TypeError) return { kind: 'retryable', retryAfterMs: null };
  return { kind: 'fatal' };
}

const tokensOf = (usage: LanguageModelUsage | undefined): number => {
  if (!usage) return 0;
  const total = usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return Number.isFinite(total) && total > 0 ? Math.round(total) : 0;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CallScope {
  def: ProviderDef;
  ai: Config['ai'];
  log: Logger;
  /** Epoch ms past which nothing more is tried. */
  deadline: number;
}

function toAppError(scope: CallScope, failure: Failure, what = 'request'): AppError {
  const { label } = scope.def;
  switch (failure.kind) {
    case 'key':
      return new AppError('AI_KEY_INVALID', `${label} rejected the API key`);
    case 'timeout':
      return new AppError(
        'EXTERNAL_SERVICE_ERROR',
        `${label} did not answer within ${Math.round(scope.ai.requestTimeoutMs / 100) / 10} s`,
      );
    default:
      return new AppError(
        'EXTERNAL_SERVICE_ERROR',
        `${label} ${what} failed${failure.status ? ` (HTTP ${failure.status})` : ''}`,
      );
  }
}

/** Runs `call` until it succeeds, fails for good, or the deadline leaves no room for another try. */
async function withRetries<T>(
  scope: CallScope,
  call: (signal: AbortSignal) => Promise<T>,
  what?: string,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const remaining = scope.deadline - Date.now();
    if (remaining <= 0) throw toAppError(scope, { kind: 'timeout' });
    try {
      return await call(AbortSignal.timeout(remaining));
    } catch (err) {
      const failure = classify(scope.def, err);
      if (failure.kind === 'retryable') {
        const delayMs = backoffMs(attempt, scope.ai.retryBaseDelayMs, failure.retryAfterMs ?? null);
        const retry = shouldRetry({
          attempts: attempt,
          maxAttempts: MAX_ATTEMPTS,
          delayMs,
          nowMs: Date.now(),
          deadlineMs: scope.deadline,
        });
        if (retry) {
          scope.log.warn({ status: failure.status, attempt, delayMs }, 'AI provider call failed; retrying');
          await sleep(delayMs);
          continue;
        }
      }
      scope.log.warn({ status: failure.status, attempt, kind: failure.kind }, 'AI provider call failed');
      throw toAppError(scope, failure, what);
    }
  }
}

export interface AiClient {
  readonly provider: AiProviderName;
  readonly model: string;
  /** The embedding model, or null when the provider has none. */
  readonly embeddingModel: string | null;
  /** Tokens the provider reported for the calls made so far. */
  readonly tokensUsed: number;
  generateObject<T>(request: GenerateObjectRequest<T>): Promise<T>;
  embed(values: string[]): Promise<number[][]>;
}

/** A client for one API request (or one background batch): the deadline starts now. */
export function createAiClient(opts: AiClientOptions): AiClient {
  const def = PROVIDERS[opts.provider];
  const conn: ProviderConnection = { apiKey: opts.apiKey, baseUrl: def.baseUrl(opts.ai) };
  const model = opts.model ?? def.defaultModel;
  const log = opts.log.child({ aiProvider: opts.provider, aiModel: model });
  const scope: CallScope = { def, ai: opts.ai, log, deadline: Date.now() + opts.ai.requestTimeoutMs };
  let tokensUsed = 0;

  /** One generation: the parsed JSON (undefined when the answer was not JSON) and the raw text. */
  const generateJson = async (request: GenerateObjectRequest<unknown>, messages: ModelMessage[]) => {
    const { generateText, jsonSchema, NoObjectGeneratedError, Output } = await loadAiSdk();
    const languageModel = await def.language(conn, model);
    return withRetries(scope, async (signal) => {
      try {
        const result = await generateText({
          model: languageModel,
          system: request.system,
          messages,
          output: Output.object({ schema: jsonSchema(request.modelSchema), name: request.name }),
          maxRetries: 0,
          abortSignal: signal,
          maxOutputTokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          ...(def.providerOptions ? { providerOptions: def.providerOptions } : {}),
        });
        tokensUsed += tokensOf(result.totalUsage ?? result.usage);
        return { value: result.output as unknown, text: result.text };
      } catch (err) {
        if (!NoObjectGeneratedError.isInstance(err)) throw err;
        tokensUsed += tokensOf(err.usage);
        return { value: undefined as unknown, text: err.text ?? '' };
      }
    });
  };

  return {
    provider: opts.provider,
    model,
    embeddingModel: def.embeddingModel,
    get tokensUsed() {
      return tokensUsed;
    },

    async generateObject<T>(request: GenerateObjectRequest<T>): Promise<T> {
      const messages = [...request.messages];
      for (let round = 1; round <= 2; round++) {
        const { value, text } = await generateJson(request as GenerateObjectRequest<unknown>, messages);
        const parsed = value === undefined ? null : request.schema.safeParse(value);
        if (parsed?.success) return parsed.data;
        const problems = parsed ? describeIssues(parsed.error.issues) : ['the answer was not a JSON object'];
        log.warn({ round, problems: problems.slice(0, 5) }, 'AI output did not validate');
        messages.push(
          { role: 'assistant', content: text || '(empty)' },
          {
            role: 'user',
            content: parsed
              ? repairMessage(parsed.error.issues, request.rules ?? [])
              : 'That answer is invalid:\n- the answer was not a JSON object\nAnswer again with the corrected JSON object only.',
          },
        );
      }
      throw new AppError(
        'EXTERNAL_SERVICE_ERROR',
        `${def.label} returned content that does not fit the ${request.name} schema, also after a repair attempt`,
      );
    },

    async embed(values: string[]): Promise<number[][]> {
      const { embedding, embeddingModel } = def;
      if (!embedding || !embeddingModel) throw new Error(`${def.label} offers no embeddings`);
      if (values.length === 0) return [];
      const { embedMany } = await loadAiSdk();
      const embedder = await embedding(conn, embeddingModel);
      return withRetries(scope, async (signal) => {
        const result = await embedMany({
          model: embedder,
          values,
          maxRetries: 0,
          abortSignal: signal,
        });
        const tokens = result.usage?.tokens ?? 0;
        tokensUsed += Number.isFinite(tokens) && tokens > 0 ? tokens : 0;
        return result.embeddings;
      });
    },
  };
}

/**
 * Verifies a key with the provider's cheap authenticated call (listing models), under the same
 * deadline and retries as any call: refused → 400 AI_KEY_INVALID; unreachable or failing past
 * the retries → 500 EXTERNAL_SERVICE_ERROR.
 */
export async function verifyProviderKey(opts: Omit<AiClientOptions, 'model'>): Promise<void> {
  const def = PROVIDERS[opts.provider];
  const { url, headers } = def.verification({ apiKey: opts.apiKey, baseUrl: def.baseUrl(opts.ai) });
  const log = opts.log.child({ aiProvider: opts.provider });
  const scope: CallScope = { def, ai: opts.ai, log, deadline: Date.now() + opts.ai.requestTimeoutMs };
  await withRetries(
    scope,
    async (signal) => {
      const res = await fetch(url, { headers, signal });
      if (!res.ok) throw new HttpStatusError(res.status, Object.fromEntries(res.headers), await res.text());
      await res.body?.cancel();
    },
    'key verification',
  );
}

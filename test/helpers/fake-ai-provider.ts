import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Config } from '../../src/config.js';

/**
 * A fake AI provider on loopback (127.0.0.1, a random port) speaking the three real wire
 * formats the service uses through the AI SDK:
 *   OpenAI     {base}/openai/v1      chat/completions, embeddings, models
 *   Anthropic  {base}/anthropic/v1   messages (text or the `json` tool), models
 *   Gemini     {base}/gemini/v1beta  models/{m}:generateContent, :embedContent, :batchEmbedContents, models
 * Keys are checked as each provider does (Bearer, x-api-key, x-goog-api-key) and refused in
 * each provider's own way. Tests script the answers: a queue of replies per kind of call, then
 * a default. No test calls the internet.
 */

export type ProviderKind = 'openai' | 'anthropic' | 'gemini';
export type CallKind = 'chat' | 'embed' | 'models';

export interface FakeRequest {
  provider: ProviderKind;
  kind: CallKind;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
  /** Every text the request sent to the model (system prompt and messages), joined. */
  text: string;
}

export type Reply =
  /** The model answers this object as its (structured) output. */
  | { json: unknown; usage?: { input: number; output: number } | null }
  /** The model answers this raw text. */
  | { text: string; usage?: { input: number; output: number } | null }
  /** An HTTP error in the provider's own envelope. */
  | { status: number; headers?: Record<string, string>; message?: string }
  /** Never answers (the request hangs until the client gives up). */
  | { hang: true };

type ReplySource = Reply | ((request: FakeRequest) => Reply | Promise<Reply>);

export const FAKE_VALID_KEY = 'sk-test-valid-0123456789abcdefWXYZ';

export interface FakeProvider {
  /** Base URLs for `config.ai`. */
  urls: Pick<Config['ai'], 'openaiBaseUrl' | 'anthropicBaseUrl' | 'geminiBaseUrl'>;
  requests: FakeRequest[];
  /** Keys the fake accepts (default: FAKE_VALID_KEY). */
  validKeys: Set<string>;
  /** Replies for the next calls of `kind`, in order; then `fallback`. */
  enqueue(kind: CallKind, ...replies: ReplySource[]): void;
  /** What a call of `kind` answers when its queue is empty. */
  fallback: Record<CallKind, ReplySource>;
  /** Embedding of one text (default: words hashed into 32 dimensions, normalized). */
  embedText: (text: string) => number[];
  callsOf(kind: CallKind, provider?: ProviderKind): FakeRequest[];
  close(): Promise<void>;
}

/** A deterministic bag-of-words embedding: texts sharing words point the same way. */
export function hashedEmbedding(text: string, dims = 32): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[Math.abs(h) % dims]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * The JSON schema a chat request asks its answer to follow, wherever its provider's format puts
 * it (OpenAI `response_format`, Anthropic `output_config.format` or the forced `json` tool,
 * Gemini `generationConfig.responseJsonSchema`); null when it sent none.
 */
export function sentSchema(request: FakeRequest): Record<string, unknown> | null {
  type Schema = Record<string, unknown>;
  const body = (request.body ?? {}) as {
    response_format?: { json_schema?: { schema?: Schema } };
    output_config?: { format?: { schema?: Schema } };
    tools?: { name?: string; input_schema?: Schema }[];
    generationConfig?: { responseJsonSchema?: Schema };
  };
  const tool = (body.tools ?? []).find((t) => t.name === 'json');
  return (
    body.response_format?.json_schema?.schema ??
    body.output_config?.format?.schema ??
    tool?.input_schema ??
    body.generationConfig?.responseJsonSchema ??
    null
  );
}

function collectText(body: Record<string, unknown> | null): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === 'response_format' || k === 'generationConfig' || k === 'output_config' || k === 'tools')
          continue;
        walk(v);
      }
    }
  };
  if (body) walk(body.messages ?? body.contents ?? body);
  if (body?.system) walk(body.system);
  if (body?.systemInstruction) walk(body.systemInstruction);
  return out.join('\n');
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });

function route(method: string, path: string): { provider: ProviderKind; kind: CallKind } | null {
  const [, provider] = path.split('/');
  if (provider !== 'openai' && provider !== 'anthropic' && provider !== 'gemini') return null;
  if (method === 'GET' && /\/models$/.test(path)) return { provider, kind: 'models' };
  if (method !== 'POST') return null;
  if (/chat\/completions$|\/messages$|:generateContent$/.test(path)) return { provider, kind: 'chat' };
  if (/\/embeddings$|:embedContent$|:batchEmbedContents$/.test(path)) return { provider, kind: 'embed' };
  return null;
}

function keyOf(provider: ProviderKind, headers: IncomingMessage['headers']): string | undefined {
  if (provider === 'openai') return headers.authorization?.replace(/^Bearer /, '');
  if (provider === 'anthropic') return headers['x-api-key'] as string | undefined;
  return headers['x-goog-api-key'] as string | undefined;
}

function errorBody(provider: ProviderKind, status: number, message: string, reason?: string) {
  if (provider === 'openai') return { error: { message, type: 'api_error', code: reason ?? null } };
  if (provider === 'anthropic') return { type: 'error', error: { type: reason ?? 'api_error', message } };
  return {
    error: { code: status, message, status: 'ERROR', details: reason ? [{ reason }] : [] },
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function chatAnswer(
  provider: ProviderKind,
  request: FakeRequest,
  reply: { json: unknown } | { text: string },
  usage: { input: number; output: number } | null,
) {
  const text = 'json' in reply ? JSON.stringify(reply.json) : reply.text;
  if (provider === 'openai') {
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.body?.model ?? 'fake',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      ...(usage
        ? {
            usage: {
              prompt_tokens: usage.input,
              completion_tokens: usage.output,
              total_tokens: usage.input + usage.output,
            },
          }
        : {}),
    };
  }
  if (provider === 'anthropic') {
    // Structured output arrives either as output_config.format (answered as text) or, for
    // models without it, through a forced `json` tool.
    const tools = (request.body?.tools as { name: string }[] | undefined) ?? [];
    const viaTool = 'json' in reply && tools.some((t) => t.name === 'json');
    return {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: request.body?.model ?? 'fake',
      content: viaTool
        ? [{ type: 'tool_use', id: 'toolu_fake', name: 'json', input: (reply as { json: unknown }).json }]
        : [{ type: 'text', text }],
      stop_reason: viaTool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: usage
        ? { input_tokens: usage.input, output_tokens: usage.output }
        : { input_tokens: 0, output_tokens: 0 },
    };
  }
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    ...(usage
      ? {
          usageMetadata: {
            promptTokenCount: usage.input,
            candidatesTokenCount: usage.output,
            totalTokenCount: usage.input + usage.output,
          },
        }
      : {}),
  };
}

function embedInputs(provider: ProviderKind, body: Record<string, unknown> | null): string[] {
  if (provider === 'openai') {
    const input = body?.input;
    return Array.isArray(input) ? (input as string[]) : [String(input)];
  }
  const partsText = (content: unknown) =>
    ((content as { parts?: { text: string }[] })?.parts ?? []).map((p) => p.text).join(' ');
  if (Array.isArray(body?.requests)) {
    return (body.requests as { content: unknown }[]).map((r) => partsText(r.content));
  }
  return [partsText(body?.content)];
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const queues: Record<CallKind, ReplySource[]> = { chat: [], embed: [], models: [] };
  const sockets = new Set<Socket>();
  const fake: FakeProvider = {
    urls: { openaiBaseUrl: '', anthropicBaseUrl: '', geminiBaseUrl: '' },
    requests: [],
    validKeys: new Set([FAKE_VALID_KEY]),
    enqueue(kind, ...replies) {
      queues[kind].push(...replies);
    },
    fallback: {
      chat: { json: {} },
      embed: { json: null },
      models: { json: null },
    },
    embedText: (text) => hashedEmbedding(text),
    callsOf: (kind, provider) =>
      fake.requests.filter((r) => r.kind === kind && (provider === undefined || r.provider === provider)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const target = route(req.method ?? 'GET', path);
    const raw = await readBody(req);
    if (!target) return send(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    let body: Record<string, unknown> | null = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      return send(res, 400, { error: { message: 'bad json' } });
    }
    const request: FakeRequest = {
      ...target,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      text: collectText(body),
    };
    fake.requests.push(request);
    const { provider, kind } = target;

    const key = keyOf(provider, req.headers);
    if (!key || !fake.validKeys.has(key)) {
      if (provider === 'gemini') {
        return send(
          res,
          400,
          errorBody(provider, 400, 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID'),
        );
      }
      return send(res, 401, errorBody(provider, 401, 'invalid api key', 'authentication_error'));
    }

    const source = queues[kind].shift() ?? fake.fallback[kind];
    const reply = typeof source === 'function' ? await source(request) : source;
    if ('hang' in reply) return; // the socket stays open until the client aborts or close()
    if ('status' in reply) {
      return send(
        res,
        reply.status,
        errorBody(provider, reply.status, reply.message ?? `fake error ${reply.status}`),
        reply.headers,
      );
    }
    if (kind === 'models') {
      if (provider === 'openai')
        return send(res, 200, { object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model' }] });
      if (provider === 'anthropic')
        return send(res, 200, { data: [{ id: 'claude-haiku-4-5', type: 'model' }], has_more: false });
      return send(res, 200, { models: [{ name: 'models/gemini-2.5-flash' }] });
    }
    if (kind === 'embed') {
      const inputs = embedInputs(provider, body);
      const vectors =
        'json' in reply && Array.isArray(reply.json)
          ? (reply.json as number[][])
          : inputs.map(fake.embedText);
      if (provider === 'openai') {
        return send(res, 200, {
          object: 'list',
          data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          model: body?.model,
          usage: { prompt_tokens: inputs.length * 5, total_tokens: inputs.length * 5 },
        });
      }
      if (path.endsWith(':batchEmbedContents'))
        return send(res, 200, { embeddings: vectors.map((values) => ({ values })) });
      return send(res, 200, { embedding: { values: vectors[0] } });
    }
    const usage = reply.usage === undefined ? { input: 100, output: 50 } : reply.usage;
    return send(res, 200, chatAnswer(provider, request, reply, usage));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.urls = {
    openaiBaseUrl: `${base}/openai/v1`,
    anthropicBaseUrl: `${base}/anthropic/v1`,
    geminiBaseUrl: `${base}/gemini/v1beta`,
  };
  return fake;
}

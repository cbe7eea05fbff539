import type { EmbeddingModel, generateText, LanguageModel } from 'ai';
import type { Config } from '../../config.js';
import type { AiProviderName } from '../../db/schema/index.js';
import { loadAnthropic, loadGoogle, loadOpenAI } from './sdk.js';

/**
 * The one table of AI providers. Everything provider-specific lives in an entry: how to build
 * the AI SDK model on the configured base URL, which models to use by default, whether
 * embeddings exist, and how to verify a key with a cheap authenticated call (listing models).
 * The provider's package is imported when its first model is built (`sdk.ts`).
 * A fourth provider is one more entry (and its name in AI_PROVIDERS).
 */

export interface ProviderConnection {
  apiKey: string;
  baseUrl: string;
}

type ProviderOptions = Parameters<typeof generateText>[0]['providerOptions'];

export interface ProviderDef {
  label: string;
  /** Used when the tenant's configuration names no model. */
  defaultModel: string;
  /** The embedding model, when the provider offers embeddings; null: retrieval is full text only. */
  embeddingModel: string | null;
  baseUrl(ai: Config['ai']): string;
  language(conn: ProviderConnection, modelId: string): Promise<LanguageModel>;
  embedding: ((conn: ProviderConnection, modelId: string) => Promise<EmbeddingModel>) | null;
  /** Sent with every generation call. */
  providerOptions?: ProviderOptions;
  /** The cheap authenticated request that proves a key works. */
  verification(conn: ProviderConnection): { url: string; headers: Record<string, string> };
  /** Whether a failed verification or call means the provider refused the key itself. */
  rejectsKey(status: number, body: string): boolean;
}

const trim = (url: string) => url.replace(/\/+$/, '');
const unauthorized = (status: number) => status === 401 || status === 403;

export const PROVIDERS: Record<AiProviderName, ProviderDef> = {
  OPENAI: {
    label: 'OpenAI',
    defaultModel: 'gpt-4.1-mini',
    embeddingModel: 'text-embedding-3-small',
    baseUrl: (ai) => ai.openaiBaseUrl,
    // Chat Completions: the wire format OpenAI-compatible endpoints (OPENAI_BASE_URL) also speak.
    language: async (c, model) =>
      (await loadOpenAI()).createOpenAI({ apiKey: c.apiKey, baseURL: c.baseUrl }).chat(model),
    embedding: async (c, model) =>
      (await loadOpenAI()).createOpenAI({ apiKey: c.apiKey, baseURL: c.baseUrl }).embedding(model),
    // Strict mode requires every property and refuses optional ones; the answer schemas have both.
    providerOptions: { openai: { strictJsonSchema: false } },
    verification: (c) => ({
      url: `${trim(c.baseUrl)}/models`,
      headers: { authorization: `Bearer ${c.apiKey}` },
    }),
    rejectsKey: unauthorized,
  },
  CLAUDE: {
    label: 'Anthropic',
    defaultModel: 'claude-haiku-4-5',
    embeddingModel: null,
    baseUrl: (ai) => ai.anthropicBaseUrl,
    language: async (c, model) =>
      (await loadAnthropic()).createAnthropic({ apiKey: c.apiKey, baseURL: c.baseUrl })(model),
    embedding: null,
    // The answer's schema goes whole into the `json` tool's input schema: Anthropic's own output
    // format takes a subset, and the SDK turns lengths, patterns and item counts into prose
    // there, so its smallest answer (an empty list of steps) would not be ours.
    providerOptions: { anthropic: { structuredOutputMode: 'jsonTool' } },
    verification: (c) => ({
      url: `${trim(c.baseUrl)}/models?limit=1`,
      headers: { 'x-api-key': c.apiKey, 'anthropic-version': '2023-06-01' },
    }),
    rejectsKey: unauthorized,
  },
  GEMINI: {
    label: 'Google Gemini',
    defaultModel: 'gemini-2.5-flash',
    embeddingModel: 'gemini-embedding-001',
    baseUrl: (ai) => ai.geminiBaseUrl,
    language: async (c, model) =>
      (await loadGoogle()).createGoogle({ apiKey: c.apiKey, baseURL: c.baseUrl })(model),
    embedding: async (c, model) =>
      (await loadGoogle()).createGoogle({ apiKey: c.apiKey, baseURL: c.baseUrl }).embedding(model),
    verification: (c) => ({
      url: `${trim(c.baseUrl)}/models?pageSize=1`,
      headers: { 'x-goog-api-key': c.apiKey },
    }),
    // Google answers an unknown key with 400 API_KEY_INVALID, a disabled one with 403.
    rejectsKey: (status, body) => unauthorized(status) || (status === 400 && /API_KEY_INVALID/.test(body)),
  },
};

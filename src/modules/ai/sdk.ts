/**
 * The Vercel AI SDK and the providers' packages, imported on first use: together some 28 MiB
 * resident once loaded, which a service that never calls an AI provider does not carry. Each
 * import is one cached promise; a failed import is not cached, so the next use tries again.
 * Everything else in this module imports their types only (`import type`).
 */
function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}

export type AiSdk = typeof import('ai');

let loadedSdk: AiSdk | null = null;

export const loadAiSdk = lazy(() =>
  import('ai').then((sdk) => {
    loadedSdk = sdk;
    return sdk;
  }),
);

/**
 * The AI SDK if it is loaded, else null. An error can only be one of the SDK's if the SDK made
 * it, so classifying an error needs no import.
 */
export const loadedAiSdk = (): AiSdk | null => loadedSdk;

export const loadOpenAI = lazy(() => import('@ai-sdk/openai'));
export const loadAnthropic = lazy(() => import('@ai-sdk/anthropic'));
export const loadGoogle = lazy(() => import('@ai-sdk/google'));

import type { ModuleManifest } from '../../deps.js';
import { AI_EMBEDDINGS_JOB, embedPendingArticles } from './embeddings.js';
import { aiRoutes } from './routes.js';

/** Provider configuration, the knowledge base with grounded answers, generation and translation. */
export const aiModule: ModuleManifest = {
  name: 'ai',
  routes: aiRoutes,
  tags: [
    {
      name: 'ai',
      description: 'Provider settings, knowledge base, grounded answers, generation, translation',
    },
  ],
  jobs: [
    {
      // Knowledge-base embeddings (only where pgvector exists); woken by article writes.
      name: AI_EMBEDDINGS_JOB,
      intervalMs: 30_000,
      run: async (deps) => {
        await embedPendingArticles(deps);
      },
    },
  ],
};

import type { DatabaseHandle } from '../../db/client.js';
import { hasEmbeddingsTable } from './store/embeddings.js';

/**
 * Vector retrieval needs the pgvector extension, which not every PostgreSQL has (Debian ships
 * no package for it; CI builds it from source, the embedded PGlite loads it from npm). Migration
 * 0036 creates these objects only where the extension can be installed; they are listed here,
 * outside the drizzle schema, so a schema comparison knows to skip them.
 */
export const AI_CONDITIONAL_SCHEMA = {
  extensions: ['vector'],
  tables: ['ai_kb_embeddings'],
  indexes: ['ai_kb_embeddings_pkey', 'ai_kb_embeddings_tenant_model_idx'],
} as const;

const detected = new WeakMap<DatabaseHandle, Promise<boolean>>();

/**
 * Whether this database has the embeddings table (and so pgvector). Asked once per database
 * handle (at boot, by the AI routes' onReady hook) and remembered: installing pgvector later
 * needs a restart (and migration 0036's statements, see docs/ai.md).
 */
export function hasVectorSupport(database: DatabaseHandle): Promise<boolean> {
  let answer = detected.get(database);
  if (!answer) {
    answer = hasEmbeddingsTable(database.db);
    detected.set(database, answer);
  }
  return answer;
}

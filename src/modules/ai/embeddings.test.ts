import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, configureAi, createAiTestApp } from '../../../test/helpers/ai.js';
import { createTestDatabase, serverDatabaseUrl, type TestDatabase } from '../../../test/helpers/database.js';
import { callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { type Database, type DatabaseHandle, openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import * as schema from '../../db/schema/index.js';
import { randomHex } from '../../platform/crypto.js';
import { AI_EMBEDDINGS_JOB, embedPendingArticles } from './embeddings.js';
import { DONT_KNOW } from './prompts.js';
import { hasVectorSupport } from './vector-support.js';

/**
 * The vector half of retrieval on both databases: PGlite with the pgvector extension, as the
 * service opens it, and PostgreSQL with pgvector installed (CI builds it with
 * shared/tools/install-pgvector.sh; without it the PostgreSQL pass fails here rather than skip).
 * The fallback to full text is tested on a PGlite opened without the extension, and on a
 * PostgreSQL database migrated by a role that may not create extensions (migration 0036 then
 * creates nothing, as on a server without pgvector).
 */

async function pgliteWithoutVector(): Promise<TestDatabase> {
  const client = await PGlite.create();
  const handle: DatabaseHandle = {
    db: drizzle(client as never, { schema }) as unknown as Database,
    kind: 'pglite',
    raw: client as never,
    async query(text, params) {
      return (await client.query(text, params as unknown[])).rows as never[];
    },
    async ping() {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
  await migrate(handle);
  return { handle, url: undefined, close: () => handle.close() };
}

/** A PostgreSQL database owned and migrated by a role that may not create the extension. */
async function postgresWithoutVector(base: string): Promise<TestDatabase> {
  const name = `guidance_novector_${randomHex(6)}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`create role ${name} login`);
  await admin(`create database ${name} owner ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  url.username = name;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 });
  await migrate(handle);
  return {
    handle,
    url: url.toString(),
    async close() {
      await handle.close();
      await admin(`drop database if exists ${name} with (force)`);
      await admin(`drop role if exists ${name}`);
    },
  };
}

/** Fails, naming the fix, when the PostgreSQL under test has no pgvector to install. */
async function requirePgvector(base: string) {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    const { rows } = await client.query(`select 1 from pg_available_extensions where name = 'vector'`);
    if (rows.length === 0) {
      throw new Error(
        'pgvector is not installed on the PostgreSQL under test: run shared/tools/install-pgvector.sh (CI does)',
      );
    }
  } finally {
    await client.end();
  }
}

/** Words of one meaning share a dimension, so "colleagues" is near "teammates" without sharing a word. */
const CONCEPTS = [
  [
    'invite',
    'invitation',
    'invitations',
    'teammate',
    'teammates',
    'colleague',
    'colleagues',
    'add',
    'people',
    'join',
  ],
  ['password', 'reset', 'forgot', 'forgotten', 'login', 'sign'],
  ['invoice', 'invoices', 'billing', 'receipt', 'vat', 'pdf'],
];
function conceptEmbedding(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const v = CONCEPTS.map((concept) => words.filter((w) => concept.includes(w)).length);
  v.push(0.1); // never a zero vector
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const INVITE = {
  title: 'Invite teammates',
  content: 'Admins send invitations from Settings, Members. Invitations expire after 7 days.',
};
const RESET = {
  title: 'Reset a forgotten password',
  content: 'Choose "Forgot password?" on the sign-in page.',
};
const QUESTION = 'How do I bring my colleagues on board?';

async function addArticle(env: AiTestApp, tenant: TenantFixture, body: object) {
  const res = await callAs(env.t, tenant, 'POST', '/api/ai/knowledge-base', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe(`with pgvector (${serverDatabaseUrl() ? 'PostgreSQL' : 'the embedded database'})`, () => {
  let env: AiTestApp;
  let db: TestDatabase;
  beforeAll(async () => {
    const base = serverDatabaseUrl();
    if (base) await requirePgvector(base);
    db = await createTestDatabase();
    env = await createAiTestApp({ requestTimeoutMs: 15_000 }, { db });
    env.fake.embedText = conceptEmbedding;
  });
  afterAll(async () => {
    await env.close();
    await db.close();
  });
  beforeEach(() => {
    env.fake.requests.length = 0;
  });

  const embeddingsOf = (tenantId: string) =>
    env.t.deps.database.query<{ article_id: string; model: string; content_hash: string; dims: number }>(
      `select e.article_id, e.model, e.content_hash, vector_dims(e.embedding) as dims
         from ai_kb_embeddings e where e.tenant_id = $1 order by e.article_id`,
      [tenantId],
    );

  it('is detected', async () => {
    expect(await hasVectorSupport(env.t.deps.database)).toBe(true);
    const [row] = await env.t.deps.database.query<{ extversion: string }>(
      `select extversion from pg_extension where extname = 'vector'`,
    );
    expect(row?.extversion).toMatch(/^0\.\d+\.\d+$/);
  });

  it('embeds articles in the background, once, and again only when one changes', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'OPENAI');
    const invite = await addArticle(env, tenant, INVITE);
    await addArticle(env, tenant, RESET);
    expect(await embeddingsOf(tenant.tenantId)).toEqual([]); // nothing on the request path

    expect(await embedPendingArticles(env.t.deps)).toBe(2);
    const rows = await embeddingsOf(tenant.tenantId);
    expect(rows.map((r) => [r.model, Number(r.dims)])).toEqual([
      ['text-embedding-3-small', 4],
      ['text-embedding-3-small', 4],
    ]);
    const [call] = env.fake.callsOf('embed', 'openai');
    expect((call!.body!.input as string[]).sort()).toEqual(
      [`${INVITE.title}\n\n${INVITE.content}`, `${RESET.title}\n\n${RESET.content}`].sort(),
    );
    expect(await embedPendingArticles(env.t.deps)).toBe(0);

    await callAs(env.t, tenant, 'PATCH', `/api/ai/knowledge-base/${invite}`, {
      content: `${INVITE.content} Guests join free.`,
    });
    env.fake.requests.length = 0;
    expect(await embedPendingArticles(env.t.deps)).toBe(1);
    expect(env.fake.callsOf('embed')[0]!.body!.input).toEqual([
      `${INVITE.title}\n\n${INVITE.content} Guests join free.`,
    ]);
    const usage = await env.t.deps.database.query<{ n: string }>(
      'select coalesce(sum(tokens), 0) as n from ai_token_usage where tenant_id = $1',
      [tenant.tenantId],
    );
    expect(Number(usage[0]!.n)).toBe(15);

    await callAs(env.t, tenant, 'DELETE', `/api/ai/knowledge-base/${invite}`);
    expect((await embeddingsOf(tenant.tenantId)).map((r) => r.article_id)).not.toContain(invite);
  });

  it('answers from an article full text cannot find, through vector search fused with full text', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'GEMINI');
    const invite = await addArticle(env, tenant, INVITE);
    await addArticle(env, tenant, RESET);
    expect(await embedPendingArticles(env.t.deps)).toBe(2);
    expect(env.fake.callsOf('embed', 'gemini').map((r) => r.path)).toEqual([
      '/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents',
    ]);
    env.fake.requests.length = 0;
    env.fake.enqueue('chat', {
      json: { answer: 'Send them invitations from Settings.', answered: true, citedArticles: [1] },
    });
    const res = await callAs(env.t, tenant, 'POST', '/api/ai/query', { message: QUESTION });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.citations).toEqual([{ articleId: invite, title: 'Invite teammates' }]);
    const [chat] = env.fake.callsOf('chat');
    expect(chat!.text).toContain(INVITE.content);
    expect(chat!.text).not.toContain(RESET.content);
    expect(env.fake.callsOf('embed', 'gemini')).toHaveLength(1); // the question's embedding
  });

  it('falls back to full text when embedding the question fails', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'OPENAI');
    await addArticle(env, tenant, RESET);
    await embedPendingArticles(env.t.deps);
    env.fake.enqueue('embed', { status: 400, message: 'bad input' });
    env.fake.enqueue('chat', {
      json: { answer: 'Use Forgot password.', answered: true, citedArticles: [1] },
    });
    const res = await callAs(env.t, tenant, 'POST', '/api/ai/query', { message: 'I forgot my password' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.citations).toHaveLength(1);
  });

  it('a provider without embeddings (Anthropic) stays on full text: nothing embedded, no embedding call', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'CLAUDE');
    await addArticle(env, tenant, INVITE);
    await embedPendingArticles(env.t.deps);
    expect(await embeddingsOf(tenant.tenantId)).toEqual([]);
    const res = await callAs(env.t, tenant, 'POST', '/api/ai/query', { message: QUESTION });
    expect(res.json().data.response).toBe(DONT_KNOW);
    expect(env.fake.callsOf('embed')).toHaveLength(0);
  });

  it('pauses a tenant whose provider fails, instead of failing at every run', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'OPENAI');
    await addArticle(env, tenant, INVITE);
    env.fake.enqueue('embed', { status: 401 });
    expect(await embedPendingArticles(env.t.deps)).toBe(0);
    expect(await embedPendingArticles(env.t.deps)).toBe(0);
    expect(env.fake.callsOf('embed')).toHaveLength(1);
    const [config] = await env.t.deps.database.query<{ embeddings_retry_at: Date | null }>(
      'select embeddings_retry_at from ai_configs where tenant_id = $1',
      [tenant.tenantId],
    );
    expect(config!.embeddings_retry_at).not.toBeNull();
    expect(await embeddingsOf(tenant.tenantId)).toEqual([]);
  });

  it('never ranks another tenant’s articles', async () => {
    const a = await createTenant(env.t);
    const b = await createTenant(env.t);
    await configureAi(env.t, a, 'OPENAI');
    await configureAi(env.t, b, 'OPENAI');
    await addArticle(env, a, INVITE);
    await addArticle(env, b, RESET);
    await embedPendingArticles(env.t.deps);
    const res = await callAs(env.t, b, 'POST', '/api/ai/query', { message: QUESTION });
    expect(res.json().data.response).toBe(DONT_KNOW);
    expect(env.fake.callsOf('chat')).toHaveLength(0);
  });

  it('the job is woken by article writes when workers run', async () => {
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'OPENAI');
    const handle = env.t.startWorkers([
      {
        name: AI_EMBEDDINGS_JOB,
        intervalMs: 60_000,
        run: (deps) => embedPendingArticles(deps).then(() => {}),
      },
    ]);
    try {
      await addArticle(env, tenant, INVITE);
      await expect.poll(async () => (await embeddingsOf(tenant.tenantId)).length, { timeout: 5_000 }).toBe(1);
    } finally {
      await handle.stop();
    }
  });
});

describe('without pgvector', () => {
  let env: AiTestApp;
  let db: TestDatabase;
  beforeAll(async () => {
    const base = serverDatabaseUrl();
    db = base ? await postgresWithoutVector(base) : await pgliteWithoutVector();
    env = await createAiTestApp({ requestTimeoutMs: 15_000 }, { db });
    env.fake.embedText = conceptEmbedding;
  });
  afterAll(async () => {
    await env.close();
    await db.close();
  });

  it('is detected as absent; nothing is embedded and questions use full text alone, silently', async () => {
    expect(await hasVectorSupport(env.t.deps.database)).toBe(false);
    const tenant = await createTenant(env.t);
    await configureAi(env.t, tenant, 'OPENAI');
    await addArticle(env, tenant, INVITE);
    await addArticle(env, tenant, RESET);
    expect(await embedPendingArticles(env.t.deps)).toBe(0);
    const semantic = await callAs(env.t, tenant, 'POST', '/api/ai/query', { message: QUESTION });
    expect(semantic.statusCode).toBe(200);
    expect(semantic.json().data.response).toBe(DONT_KNOW);
    env.fake.enqueue('chat', {
      json: { answer: 'Use Forgot password.', answered: true, citedArticles: [1] },
    });
    const lexical = await callAs(env.t, tenant, 'POST', '/api/ai/query', { message: 'I forgot my password' });
    expect(lexical.json().data.citations).toEqual([{ articleId: expect.any(String), title: RESET.title }]);
    expect(env.fake.callsOf('embed')).toHaveLength(0);
  });
});
